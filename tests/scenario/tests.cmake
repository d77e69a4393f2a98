# Scenario loader, --set, the trial plan and node argv (cmocka, compiled
# against the loader's and the plan's files (DN_SCENARIO_SRC, DN_PLAN_SRC) so that
# they do not wait for the rest of dn_orch), and every shipped scenario
# through the real `devnet validate`.
dn_test(scenario loader
    SOURCES ${DN_TEST_DIR}/test-scenario.c
	${DN_SCENARIO_SRC}
	${DN_PLAN_SRC}
    LIBS dn_wire dn_http PkgConfig::YAML)
target_include_directories(test-scenario-loader PRIVATE
    ${CMAKE_SOURCE_DIR}/orchestrator)
# the links the emulated network's probe measures: all of a small network,
# a sample past PLAN_PROBE_ALL_MAX that holds every condition class
# (plan/probe-links.c, issue 40)
dn_test(scenario probe-links
    SOURCES ${DN_TEST_DIR}/test-probe-links.c
	${DN_SCENARIO_SRC}
	${DN_PLAN_SRC}
    LIBS dn_wire dn_http PkgConfig::YAML)
target_include_directories(test-scenario-probe-links PRIVATE
    ${CMAKE_SOURCE_DIR}/orchestrator)
dn_script_test(scenario validate ${DN_TEST_DIR}/validate.sh TIMEOUT 180)
