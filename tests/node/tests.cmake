# devnet-node tests: rules on a real RocksDB, the allocation counter, and a
# 3-node devnet of real devnet-node processes.
dn_test(node rules SOURCES ${DN_TEST_DIR}/test-rules.c LIBS dn_node_core
    TIMEOUT 60)
# The process sampler's figures against /proc's own.
dn_test(node sampler SOURCES ${DN_TEST_DIR}/test-sampler.c LIBS dn_agent
    TIMEOUT 30)
dn_test(node alloc SOURCES ${DN_TEST_DIR}/test-alloc.c LIBS dn_agent
    TIMEOUT 30)
# read_options: cached vs per-call through the allocation counter: exactly
# one allocation per read apart (seconds, where the verdict test takes
# minutes).
dn_test(node readopts SOURCES ${DN_TEST_DIR}/test-readopts.c
    LIBS dn_node_core dn_agent TIMEOUT 60)
dn_test(node devnet SOURCES ${DN_TEST_DIR}/test-devnet.c LIBS dn_wire
    TIMEOUT 120)
if(DN_ALLOC_COUNT)
	target_compile_definitions(test-node-devnet PRIVATE
	    DN_ALLOC_COUNT_EXPECTED=1)
endif()
dn_script_test(node workloads ${DN_TEST_DIR}/workloads.sh TIMEOUT 60)
# A peer is dialled only once its ipc listener is there: counted with
# strace (connect(2)), since each failed dial spins nng 1.5.2's poller.
dn_script_test(node dial ${DN_TEST_DIR}/dial.sh TIMEOUT 60)
# The epoll_ctl devnet-node links for nng (metrics/wire/epoll-oneshot.c):
# the kernel's EPOLLHUP that nng 1.5.2's poller spun on, reported once
# through it; arming, other events and nng's own traffic unchanged.
dn_test(node epoll SOURCES ${DN_TEST_DIR}/test-epoll.c
    LIBS dn_wire dn_epoll_oneshot TIMEOUT 30)
