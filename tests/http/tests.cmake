# metrics/http: the Prometheus text-format reader on a real etcd page
# (fixtures/) and on the format's edge cases.
dn_test(http prom SOURCES ${DN_TEST_DIR}/test-prom.c LIBS dn_http m)
# The JSON path reader: a page shaped like etcd's and Go's expvar, and
# the paths and documents it must refuse (issue 37 #1).
dn_test(http json-path SOURCES ${DN_TEST_DIR}/test-json-path.c LIBS dn_http m)
