# dn_test(DIR NAME SOURCES... [LIBS libs...] [TIMEOUT s] [LABELS l...]): one
# cmocka test executable registered in CTest as dn.DIR.NAME (nng's
# nng_test).
#
# dn_script_test(DIR NAME SCRIPT [TIMEOUT s] [LABELS l...]): an end-to-end
# shell test run with the built binaries on PATH.
#
# Every test carries the label DIR (ctest -L e2e) and any LABELS given;
# "slow" marks the minutes-long ones that the fast suite leaves out
# (ctest -LE slow, tools/mutants.sh).  Exit code 77 means "skipped" and
# shows as such, never as passed: a script prints why, then exits 77
# (docs/testing.md); a cmocka test does the same through skip() in every
# one of its tests (cmocka then exits 0, so use 77 explicitly when the
# whole program cannot run).
function(dn_test dir name)
	cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
	if(NOT T_TIMEOUT)
		set(T_TIMEOUT 60)
	endif()
	set(exe test-${dir}-${name})
	add_executable(${exe} ${T_SOURCES})
	dn_target(${exe})
	target_link_libraries(${exe} PRIVATE PkgConfig::CMOCKA ${T_LIBS})
	add_test(NAME dn.${dir}.${name} COMMAND ${exe})
	set_tests_properties(dn.${dir}.${name} PROPERTIES TIMEOUT ${T_TIMEOUT}
	    LABELS "${dir};${T_LABELS}" SKIP_RETURN_CODE 77
	    ENVIRONMENT "DN_BUILD_DIR=${CMAKE_BINARY_DIR};DN_SOURCE_DIR=${CMAKE_SOURCE_DIR};LSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/tests/lsan.supp")
endfunction()

function(dn_script_test dir name script)
	cmake_parse_arguments(T "" "TIMEOUT" "LABELS" ${ARGN})
	if(NOT T_TIMEOUT)
		set(T_TIMEOUT 120)
	endif()
	add_test(NAME dn.${dir}.${name} COMMAND bash ${script})
	set_tests_properties(dn.${dir}.${name} PROPERTIES TIMEOUT ${T_TIMEOUT}
	    LABELS "${dir};${T_LABELS}" SKIP_RETURN_CODE 77
	    ENVIRONMENT "DN_BUILD_DIR=${CMAKE_BINARY_DIR};DN_SOURCE_DIR=${CMAKE_SOURCE_DIR};PATH=${CMAKE_BINARY_DIR}/bin:$ENV{PATH};LSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/tests/lsan.supp")
endfunction()
