# Orchestrator internals against their real code (dn_orch): the collector
# fed by fake nodes, checked row by row in the store.
dn_test(orch collector SOURCES ${DN_TEST_DIR}/test-collector.c LIBS dn_orch
    TIMEOUT 60)
# The house rules of orchestrator/ (tools/check-layers.sh), on this build's
# objects too: one-way includes, no circles, no long files or functions,
# no export used only at home.
dn_script_test(orch layers ${DN_TEST_DIR}/layers.sh TIMEOUT 120)
# The live copy of a run for --serve: bounded per series, exact until
# full, whole samples for a reader beside the writer.
dn_test(orch snapshot SOURCES ${DN_TEST_DIR}/test-snapshot.c LIBS dn_orch
    TIMEOUT 60)
# How a node is started (sys/spawn.c): no copy of the parent's memory
# (its page faults counted), process group, environment, output, exec
# failure, death signal.
dn_test(orch spawn SOURCES ${DN_TEST_DIR}/test-spawn.c LIBS dn_orch
    TIMEOUT 60)
# A provider through the trial's view (issue 34): the runner's view holds
# the trial's facts and node records, the local provider runs real
# programs through it, and what a provider says back (events, facts, a
# node's host, final_seen under the trial's lock) goes through trial/'s
# door into the trial.
dn_test(orch provider-view SOURCES ${DN_TEST_DIR}/test-provider-view.c
    LIBS dn_orch TIMEOUT 60)
