# devnet-probe: a sink that prints what the probe sends, a victim program
# the probe runs, and the end-to-end script (tests/probe/probe.sh).
add_executable(dn-probe-sink ${DN_TEST_DIR}/probe-sink.c)
dn_target(dn-probe-sink)
target_link_libraries(dn-probe-sink PRIVATE dn_wire)

# The victim runs under LD_PRELOAD=libdevnet-alloc.so: never with a
# sanitizer runtime.  The static copy is what the shim cannot reach.
foreach(v dn-probe-victim dn-probe-victim-static)
	add_executable(${v} ${DN_TEST_DIR}/probe-victim.c)
	if(DN_SANITIZE)
		set_target_properties(${v} PROPERTIES COMPILE_OPTIONS ""
		    LINK_OPTIONS "")
	endif()
	dn_target(${v})
	target_link_libraries(${v} PRIVATE Threads::Threads)
endforeach()
target_link_options(dn-probe-victim-static PRIVATE -static)

dn_script_test(probe e2e ${DN_TEST_DIR}/probe.sh TIMEOUT 300)

# tree.c's two paths for context switches (taskstats, /proc) on a
# stopped child with known switches.
dn_test(probe tree SOURCES ${DN_TEST_DIR}/test-tree.c
    ${PROJECT_SOURCE_DIR}/probe/tree.c ${PROJECT_SOURCE_DIR}/probe/taskstats.c
    LIBS dn_wire Threads::Threads)
target_include_directories(test-probe-tree PRIVATE ${PROJECT_SOURCE_DIR}/probe)
