# The live view (`--serve`, docs/live.md): a real run under a real
# Prometheus, headless Chromium on the live page, hostile clients.
dn_script_test(serve prom ${DN_TEST_DIR}/prom.sh TIMEOUT 120
    LABELS service)
dn_script_test(serve page ${DN_TEST_DIR}/page.sh TIMEOUT 150
    LABELS service)
dn_script_test(serve hostile ${DN_TEST_DIR}/hostile.sh TIMEOUT 150)
# A concurrent slot on the live page: A and B side by side in the
# heading and the nodes table (issue 36 item 2), in headless Chromium.
dn_script_test(serve duo ${DN_TEST_DIR}/duo.sh TIMEOUT 150
    LABELS service)
# A figure absent from the samples (devnet-node-plain's heap; a sanitizer
# build's) is said "not measured" on the live page's chart and table.
dn_script_test(serve absent ${DN_TEST_DIR}/absent.sh TIMEOUT 240
    LABELS service)
# The attacks of issue 38 on `devnet serve --db` and a live page: DNS
# rebinding, a costly /report, a local connection flood, POST, %00,
# markup in stored text, the CSP (docs/security.md).
dn_script_test(serve attacks ${DN_TEST_DIR}/attacks.sh TIMEOUT 300)
