# tests/store: the sqlite store, the statistics, and the read-side commands.
dn_test(store store SOURCES ${DN_TEST_DIR}/test-store.c LIBS dn_store
    TIMEOUT 60)
