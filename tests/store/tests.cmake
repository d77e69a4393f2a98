# tests/store: the sqlite store, the statistics, and the read-side commands.
dn_test(store store SOURCES ${DN_TEST_DIR}/test-store.c
    ${DN_TEST_DIR}/store-testlib.c LIBS dn_store TIMEOUT 60)
# devnet import, the store side: duplicates, old files, collisions,
# refusals with the target unchanged.
dn_test(store import SOURCES ${DN_TEST_DIR}/test-import.c
    ${DN_TEST_DIR}/store-testlib.c LIBS dn_store TIMEOUT 60)
dn_script_test(store import-cli ${DN_TEST_DIR}/import.sh TIMEOUT 90)
# devnet import of hostile files (issue 38; docs/security.md).
dn_script_test(store import-hostile ${DN_TEST_DIR}/import-hostile.sh TIMEOUT 120)
dn_script_test(store identity-cli ${DN_TEST_DIR}/identity.sh TIMEOUT 60)
# Run identity: uuid, samples digest, machines; the version-2 fixture.
dn_test(store identity SOURCES ${DN_TEST_DIR}/test-identity.c
    ${DN_TEST_DIR}/store-testlib.c LIBS dn_store TIMEOUT 60)

# dn-store-synth: synthetic databases through the store API, for the compare
# tests and the benchmarks in tools/bench/.
add_executable(dn-store-synth ${DN_TEST_DIR}/synth.c)
dn_target(dn-store-synth)
target_link_libraries(dn-store-synth PRIVATE dn_store)
# stats and verdict-rules simulate thousands of trial sets: seconds alone,
# minutes when the machine is crowded or under ASan.
dn_test(store stats SOURCES ${DN_TEST_DIR}/test-stats.c LIBS dn_store
    TIMEOUT 300)
dn_script_test(store compare ${DN_TEST_DIR}/compare.sh TIMEOUT 300)
dn_test(store changepoint SOURCES ${DN_TEST_DIR}/test-changepoint.c
    LIBS dn_store)
# A version-1 database of the previous release through the CLI, and
# `devnet query --timeout`.
dn_script_test(store schema ${DN_TEST_DIR}/schema.sh TIMEOUT 120)
# The verdict rules of compare.c and the power figures of compare-power.c
# on hand-made observations (no database).
dn_test(store verdict-rules SOURCES ${DN_TEST_DIR}/test-compare.c
    LIBS dn_orch TIMEOUT 300)
# The verdict rule (compare-rule.c, issue 35) by seeded simulation on
# synthetic observations: A/A false alarms at most alpha, the equivalent
# rate on true zero effects and at the threshold, power on 2-30 % effects,
# at 2+2 to 8+8 trials.
dn_test(store verdict-sim SOURCES ${DN_TEST_DIR}/test-verdict-sim.c
    ${DN_TEST_DIR}/store-testlib.c LIBS dn_orch TIMEOUT 300)
# The adjustment on the warmup window (compare-adjust.c, issue 35) by
# seeded simulation, beside verdict-sim: A/A false alarms at most alpha
# adjusted, more power on a 5 % effect, refused when B moves the window.
dn_test(store cuped-sim SOURCES ${DN_TEST_DIR}/test-cuped-sim.c
    ${DN_TEST_DIR}/store-testlib.c LIBS dn_orch TIMEOUT 600)
# The paired design of a concurrent comparison (compare-paired.c, issue
# 36) by seeded simulation: A/A false alarms at most alpha, paired, with
# the slot's luck shared or not; a smaller MDE and more power when shared.
dn_test(store paired-sim SOURCES ${DN_TEST_DIR}/test-paired-sim.c
    ${DN_TEST_DIR}/store-testlib.c LIBS dn_orch TIMEOUT 300)
# The paired sequential design (compare-seq.c on compare-paired.c's
# slots, issue 36) by seeded simulation: A/A ever called better or worse
# at most alpha, and fewer trials to a decision than the independent
# sequential design on the same values.
dn_test(store seq-paired-sim SOURCES ${DN_TEST_DIR}/test-seq-paired-sim.c
    ${DN_TEST_DIR}/store-testlib.c LIBS dn_orch TIMEOUT 120)
# The group-sequential design (orchestrator/verdict/sequential.c): the
# published boundaries, and by seeded simulation the A/A rate under
# peeking against the naive test's and the trials to a decision.
dn_test(store sequential SOURCES ${DN_TEST_DIR}/test-sequential.c
    ${DN_TEST_DIR}/store-testlib.c LIBS dn_orch TIMEOUT 120)
# compare's feed (the report's charts from compare's one read, issue 26):
# same verdict with it, every row's base metric once per run, whole.
dn_test(store feed SOURCES ${DN_TEST_DIR}/test-feed.c
    ${DN_TEST_DIR}/store-testlib.c LIBS dn_orch TIMEOUT 60)
