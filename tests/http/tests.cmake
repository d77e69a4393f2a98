# metrics/http: the Prometheus text-format reader on a real etcd page
# (fixtures/) and on the format's edge cases.
dn_test(http prom SOURCES ${DN_TEST_DIR}/test-prom.c LIBS dn_http m)
