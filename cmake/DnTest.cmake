# dn_test(DIR NAME SOURCES... [LIBS libs...] [TIMEOUT s]): one cmocka test
# executable registered in CTest as dn.DIR.NAME (nng's nng_test).
function(dn_test dir name)
	cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS" ${ARGN})
	if(NOT T_TIMEOUT)
		set(T_TIMEOUT 60)
	endif()
	set(exe test-${dir}-${name})
	add_executable(${exe} ${T_SOURCES})
	dn_target(${exe})
	target_link_libraries(${exe} PRIVATE PkgConfig::CMOCKA ${T_LIBS})
	add_test(NAME dn.${dir}.${name} COMMAND ${exe})
	set_tests_properties(dn.${dir}.${name} PROPERTIES TIMEOUT ${T_TIMEOUT}
	    ENVIRONMENT "DN_BUILD_DIR=${CMAKE_BINARY_DIR};DN_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
endfunction()

# dn_script_test(DIR NAME SCRIPT [TIMEOUT s]): an end-to-end shell test run
# with the built binaries on PATH.
function(dn_script_test dir name script)
	cmake_parse_arguments(T "" "TIMEOUT" "" ${ARGN})
	if(NOT T_TIMEOUT)
		set(T_TIMEOUT 120)
	endif()
	add_test(NAME dn.${dir}.${name} COMMAND bash ${script})
	set_tests_properties(dn.${dir}.${name} PROPERTIES TIMEOUT ${T_TIMEOUT}
	    ENVIRONMENT "DN_BUILD_DIR=${CMAKE_BINARY_DIR};DN_SOURCE_DIR=${CMAKE_SOURCE_DIR};PATH=${CMAKE_BINARY_DIR}/bin:$ENV{PATH}")
endfunction()
