# tests/git: orchestrator/sys/git.c against throwaway repositories (resolve,
# describe, worktree builds and the build cache).  Compiled against git.c
# and spawn.c directly so that it does not wait for the rest of dn_orch.
dn_test(git build
    SOURCES ${DN_TEST_DIR}/test-git.c
	${CMAKE_SOURCE_DIR}/orchestrator/sys/git.c
	${CMAKE_SOURCE_DIR}/orchestrator/sys/spawn.c
    LIBS dn_wire TIMEOUT 120)
target_include_directories(test-git-build PRIVATE
    ${CMAKE_SOURCE_DIR}/orchestrator)
