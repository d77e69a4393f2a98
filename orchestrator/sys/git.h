/*
 * git.h: the one module that runs git, and the build cache for variants
 * named by a revision (`rev: v1.4.0`, issue 14).
 *
 * git is fork/exec'd as `git -C DIR ...` (argv, never a shell) with
 * GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE removed from its environment
 * (a CI hook may set them, and they would override -C); its output is
 * captured.  Nothing here parses scenarios, prints, or knows what a node
 * is.
 *
 * The build cache.  A build is keyed by commit id alone, in
 * CACHE/<commit>/ where CACHE is git_cache_dir() ($DEVNET_BUILD_CACHE,
 * else $XDG_CACHE_HOME/devnet/builds, else ~/.cache/devnet/builds): a
 * user-wide directory rather than one beside the database, so that every
 * database and every scenario share builds.  An entry holds
 *   src/         a detached git worktree of the commit (`git worktree
 *                add --detach`; registered in the source repository)
 *   build.log    the build command's stdout and stderr
 *   binary.path  the absolute path of the built binary, written to a
 *                temporary, fsync'd and renamed: it exists only after a
 *                build that succeeded and left the binary, and it is
 *                what makes the entry a cache hit.
 * A failed build removes src/ (keeping build.log for reading) and leaves
 * no binary.path, so the next attempt starts again from a clean worktree.
 * The key is the commit only: a different build command or binary for an
 * already-built commit reuses the cached binary (delete CACHE/<commit>/
 * to rebuild).  Two devnet processes building the same commit at the same
 * time are not serialised.
 */
#ifndef DN_GIT_H
#define DN_GIT_H

/*
 * Resolve REV (any revision: a tag, a branch, HEAD~1, an abbreviated id)
 * in the repository at REPO to its full commit id (`rev-parse --verify
 * REV^{commit}`).  Returns 0 with *ID (caller frees), or -1 with *CAUSE
 * (caller frees): not a git repository, unknown revision, git not found.
 */
int	 git_resolve(const char *repo, const char *rev, char **id,
	    char **cause);

/*
 * `git describe --always --dirty` of the work tree containing PATH (a
 * file, typically a node binary, or a directory), for runs.git_describe.
 * Returns 0 with *DESC (caller frees); 1 with *DESC NULL when PATH is not
 * inside a git work tree (not an error: binaries may come from anywhere);
 * -1 with *CAUSE when PATH does not exist or git fails otherwise.
 */
int	 git_describe_path(const char *path, char **desc, char **cause);

/* The build cache directory (see above), as a new string (caller frees);
 * not created here. */
char	*git_cache_dir(void);

/* A revision to build: resolve REV in REPO, build it with COMMAND in the
 * worktree's top directory, the result being BINARY (relative to it). */
struct git_build {
	const char	 *repo;
	const char	 *rev;
	char *const	 *command;
	const char	 *binary;
	const char	 *cache_dir;	/* NULL: git_cache_dir() */
};

/*
 * Resolve and build B, or take the binary from the cache when this commit
 * was built before.  Returns 0 with *COMMIT and *BINARY_PATH (absolute;
 * caller frees both) and *CACHED set to 1 for a hit, 0 for a fresh build;
 * or -1 with *CAUSE: the resolve error, "build of REV (COMMIT) failed:
 * exit 2" with the build's last lines and the log's path, or a build that
 * did not leave BINARY.
 */
int	 git_build(const struct git_build *b, char **commit,
	    char **binary_path, int *cached, char **cause);

/*
 * The positions of the commits IDS[0..N) (full ids) in the history of
 * REPO, parents before children (`rev-list --topo-order --reverse`):
 * POS[i] is IDS[i]'s position, comparable between the ids, or -1 when
 * REPO does not have it.  For ordering runs by commit (devnet history).
 * Returns 0, or -1 with *CAUSE (not a repository, an id unknown to git).
 */
int	 git_order(const char *repo, char *const *ids, size_t n, long *pos,
	    char **cause);

#endif
