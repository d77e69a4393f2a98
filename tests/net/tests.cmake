# orchestrator/net/ against the kernel: namespaces, nf_tables rules, the
# probe, the sweep (root; skipped without it).
dn_test(net topo SOURCES ${DN_TEST_DIR}/test-net.c LIBS dn_orch TIMEOUT 60
)
