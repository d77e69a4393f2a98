# tests/history: devnet history, rev: variants and the CI gate.
# history.sh: synthetic runs (dn-store-synth), seconds.  rev.sh: a scratch
# git repository whose builds wrap devnet-node; 12 short trials (~2 min).
dn_script_test(history history ${DN_TEST_DIR}/history.sh TIMEOUT 120)
dn_script_test(history rev ${DN_TEST_DIR}/rev.sh TIMEOUT 600)
# team.sh: three simulated machines' files imported into one; history and
# compare keep machine classes apart (synthetic, seconds).
dn_script_test(history team ${DN_TEST_DIR}/team.sh TIMEOUT 120)
