# dn_agent: the node side of metrics/ (process sampler, metrics agent,
# allocation counter).  Linked by devnet-node, its tests and the read-path
# benchmark; never by the orchestrator.
#
# DN_ALLOC_COUNT (top-level option, OFF in sanitizer builds) chooses between
# alloc.c, which defines malloc & co. and so counts every heap allocation of
# the process that links it, and alloc-stub.c, which reports enabled = 0.
# Targets that need to know which one they got see DN_ALLOC_COUNT=1.
if(DN_ALLOC_COUNT)
	set(DN_ALLOC_SRC alloc.c)
else()
	set(DN_ALLOC_SRC alloc-stub.c)
endif()
add_library(dn_agent STATIC agent.c sampler.c ${DN_ALLOC_SRC})
dn_target(dn_agent)
target_include_directories(dn_agent PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(dn_agent PUBLIC dn_wire Threads::Threads)
if(DN_ALLOC_COUNT)
	target_compile_definitions(dn_agent PUBLIC DN_ALLOC_COUNT=1)
	# The compiler must not turn code inside the allocator into calls of
	# the allocator (malloc + memset -> calloc).
	set_source_files_properties(alloc.c PROPERTIES
	    COMPILE_OPTIONS "-fno-builtin;-fno-tree-loop-distribute-patterns")
endif()
