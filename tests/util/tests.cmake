# metrics/util: the text library (growable buffer, JSON writer and its
# number printer, markup escaper, JUnit writer), issue 34.
dn_test(util text SOURCES ${DN_TEST_DIR}/test-text.c LIBS dn_util m)
