dn_test(wire protocol SOURCES ${DN_TEST_DIR}/test-protocol.c LIBS dn_wire)
dn_test(wire util SOURCES ${DN_TEST_DIR}/test-util.c LIBS dn_wire)
dn_test(wire absent-named SOURCES ${DN_TEST_DIR}/test-absent-named.c LIBS dn_wire)
