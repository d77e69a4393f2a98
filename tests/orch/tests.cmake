# Orchestrator internals against their real code (dn_orch): the collector
# fed by fake nodes, checked row by row in the store.
dn_test(orch collector SOURCES ${DN_TEST_DIR}/test-collector.c LIBS dn_orch
    TIMEOUT 60)
