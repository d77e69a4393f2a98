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

# alloc.sh: a program with a known number of allocations, once per
# allocator a dynamic program may use (glibc's, and jemalloc, tcmalloc,
# mimalloc linked in as Debian ships them; tools/install-deps.sh installs
# the -dev packages).  -fno-builtin: the compiler must not drop a malloc
# and free pair.  A variant whose library is missing is not built; the
# script then says so and is skipped.
add_library(dn-alloc-known-lib MODULE ${DN_TEST_DIR}/alloc-known-lib.c)
set_target_properties(dn-alloc-known-lib PROPERTIES PREFIX ""
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
target_compile_options(dn-alloc-known-lib PRIVATE -fno-builtin)
set(dn_alloc_variants glibc)
set(dn_alloc_lib_glibc "")
foreach(a jemalloc tcmalloc mimalloc)
	find_library(DN_LIB_${a} NAMES ${a})
	if(DN_LIB_${a})
		list(APPEND dn_alloc_variants ${a})
		set(dn_alloc_lib_${a} ${DN_LIB_${a}})
	endif()
endforeach()
foreach(a ${dn_alloc_variants})
	set(v dn-alloc-known-${a})
	add_executable(${v} ${DN_TEST_DIR}/alloc-known.c)
	if(DN_SANITIZE)
		set_target_properties(${v} PROPERTIES COMPILE_OPTIONS ""
		    LINK_OPTIONS "")
	endif()
	dn_target(${v})
	target_compile_options(${v} PRIVATE -fno-builtin)
	target_link_options(${v} PRIVATE -Wl,--no-as-needed)
	target_link_libraries(${v} PRIVATE ${dn_alloc_lib_${a}}
	    Threads::Threads ${CMAKE_DL_LIBS})
	add_dependencies(${v} dn-alloc-known-lib)
endforeach()
dn_script_test(probe alloc ${DN_TEST_DIR}/alloc.sh TIMEOUT 240)

# A dynamic program that defines malloc itself (issue 37 #7): the shim
# must say so ("not measured"), never count 0.
add_executable(dn-probe-own-malloc ${DN_TEST_DIR}/own-malloc.c)
if(DN_SANITIZE)
	set_target_properties(dn-probe-own-malloc PROPERTIES COMPILE_OPTIONS ""
	    LINK_OPTIONS "")
endif()
dn_target(dn-probe-own-malloc)
target_compile_options(dn-probe-own-malloc PRIVATE -fno-builtin)
