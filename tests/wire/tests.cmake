dn_test(wire protocol SOURCES ${DN_TEST_DIR}/test-protocol.c LIBS dn_wire)
dn_test(wire util SOURCES ${DN_TEST_DIR}/test-util.c LIBS dn_wire)
dn_test(wire absent-named SOURCES ${DN_TEST_DIR}/test-absent-named.c LIBS dn_wire)
# dn_sock_wake and dn_sock_wake_on_pipe on real sockets (issue 26), and the
# node agent's SP framing written by devnet (sp-push.c) against nng PULLs.
dn_test(wire transport SOURCES ${DN_TEST_DIR}/test-transport.c LIBS dn_wire
    TIMEOUT 60)
