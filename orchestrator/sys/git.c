/*
 * git.c: running git and building revisions into a cache (see git.h).
 * Not the place for choosing which revisions to build or for storing
 * what was built: the callers do that.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/git.h"
#include "buf.h"
#include "mkdirs.h"
#include "sys/spawn.h"
#include "xalloc.h"

extern char **environ;

#define GIT_TAIL_LINES	20

/* Our environment without the variables that would point git elsewhere
 * than -C; built before fork (the child only execs).  Caller frees the
 * array, not the strings. */
static char **
child_env(void)
{
	static const char *const drop[] = {
		"GIT_DIR=", "GIT_WORK_TREE=", "GIT_INDEX_FILE=", NULL
	};
	size_t	 n = 0, i, k = 0, d;
	char	**env;

	while (environ[n] != NULL)
		n++;
	env = dn_xcalloc(n + 1, sizeof(*env));
	for (i = 0; i < n; i++) {
		for (d = 0; drop[d] != NULL; d++) {
			if (strncmp(environ[i], drop[d], strlen(drop[d])) == 0)
				break;
		}
		if (drop[d] == NULL)
			env[k++] = environ[i];
	}
	env[k] = NULL;
	return (env);
}

/*
 * Run ARGV in DIR (NULL: here) with stdin from /dev/null.  OUT_FD >= 0
 * takes stdout and stderr; else both are captured into *OUT (caller
 * frees, trailing newlines trimmed).  Returns the wait status, or -1 with
 * *CAUSE when it could not be started (exec failures show as exit 127).
 */
static int
run(const char *dir, char *const *argv, int out_fd, char **out,
    char **cause)
{
	struct dn_buf	  b = DN_BUF_INIT;
	char		**env = child_env(), buf[4096], *s;
	size_t		  len;
	ssize_t		  r;
	pid_t		  pid;
	int		  p[2] = { -1, -1 }, status = -1, fd;

	if (out_fd < 0 && pipe2(p, O_CLOEXEC) == -1) {
		*cause = dn_xasprintf("pipe: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid == -1) {
		*cause = dn_xasprintf("fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		fd = out_fd >= 0 ? out_fd : p[1];
		if (dup2(fd, 1) == -1 || dup2(fd, 2) == -1)
			_exit(127);
		if ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) != -1)
			dup2(fd, 0);
		if (dir != NULL && chdir(dir) == -1) {
			dprintf(2, "cannot enter '%s': %s\n", dir,
			    strerror(errno));
			_exit(127);
		}
		environ = env;
		execvp(argv[0], argv);
		dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (out_fd < 0) {
		close(p[1]);
		p[1] = -1;
		for (;;) {
			r = read(p[0], buf, sizeof(buf));
			if (r == -1 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			dn_buf_add(&b, buf, (size_t)r);
		}
		s = dn_buf_detach(&b, &len);
		while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
			s[--len] = '\0';
		*out = s;
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
out:
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	free(env);
	return (status);
}

/* Run `git -C DIR ARGS...` capturing its output into *OUT (caller frees).
 * Returns 0 when git exits 0; else -1, with *OUT holding git's message
 * (or *CAUSE set if git could not be started, *OUT then NULL). */
static int
git(const char *dir, const char *const *args, char **out, char **cause)
{
	const char	*argv[16];
	size_t		 n = 0;
	int		 st;

	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = dir;
	while (*args != NULL && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	*out = NULL;
	st = run(NULL, (char *const *)argv, -1, out, cause);
	if (st == -1)
		return (-1);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127 && *out != NULL &&
	    strncmp(*out, "cannot run", 10) == 0) {
		*cause = dn_xasprintf("cannot run git: is it installed? (%s)",
		    *out);
		free(*out);
		*out = NULL;
		return (-1);
	}
	return (WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1);
}

/* git's last line ("fatal: ..."), which says what went wrong. */
static const char *
last_line(const char *s)
{
	const char	*p = strrchr(s, '\n');

	return (p != NULL ? p + 1 : s);
}

int
git_resolve(const char *repo, const char *rev, char **id, char **cause)
{
	const char	*args[] = { "rev-parse", "--verify", "--quiet", NULL,
			    NULL };
	char		*spec, *out = NULL, *chk = NULL;
	const char	*top[] = { "rev-parse", "--git-dir", NULL };
	int		 rc = -1;

	*id = NULL;
	/* Tell "not a repository" apart from "no such revision". */
	if (git(repo, top, &chk, cause) != 0) {
		if (chk != NULL)
			*cause = dn_xasprintf("'%s' is not a git repository "
			    "(%s)", repo, last_line(chk));
		goto out;
	}
	spec = dn_xasprintf("%s^{commit}", rev);
	args[3] = spec;
	if (git(repo, args, &out, cause) != 0) {
		if (out != NULL)
			*cause = dn_xasprintf("unknown revision '%s' in "
			    "'%s'", rev, repo);
		free(spec);
		goto out;
	}
	free(spec);
	*id = out;
	out = NULL;
	rc = 0;
out:
	free(chk);
	free(out);
	return (rc);
}

int
git_describe_path(const char *path, char **desc, char **cause)
{
	const char	*inside[] = { "rev-parse", "--is-inside-work-tree",
			    NULL };
	const char	*describe[] = { "describe", "--always", "--dirty",
			    NULL };
	char		 real[PATH_MAX], *dir = NULL, *out = NULL, *slash;
	struct stat	 sb;
	int		 rc = -1;

	*desc = NULL;
	if (realpath(path, real) == NULL || stat(real, &sb) == -1) {
		*cause = dn_xasprintf("'%s': %s", path, strerror(errno));
		return (-1);
	}
	dir = dn_xstrdup(real);
	if (!S_ISDIR(sb.st_mode) && (slash = strrchr(dir, '/')) != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (git(dir, inside, &out, cause) != 0 || strcmp(out, "true") != 0) {
		/* Outside any work tree (or inside a .git dir). */
		rc = out != NULL ? 1 : -1;
		goto out;
	}
	free(out);
	out = NULL;
	if (git(dir, describe, &out, cause) != 0) {
		if (out != NULL)
			*cause = dn_xasprintf("git describe in '%s': %s", dir,
			    last_line(out));
		goto out;
	}
	*desc = out;
	out = NULL;
	rc = 0;
out:
	free(out);
	free(dir);
	return (rc);
}

/* Add a detached worktree of COMMIT of REPO at DIR (which must not
 * exist).  Returns 0, or -1 with *CAUSE (git's message). */
static int
git_worktree_add(const char *repo, const char *dir, const char *commit,
    char **cause)
{
	const char	*args[] = { "worktree", "add", "--detach", dir,
			    commit, NULL };
	char		*out = NULL;
	int		 rc;

	if ((rc = git(repo, args, &out, cause)) != 0 && out != NULL)
		*cause = dn_xasprintf("git worktree add '%s' %s: %s", dir,
		    commit, last_line(out));
	free(out);
	return (rc);
}

/* rm -rf PATH without a shell (a half-removed worktree). */
static int
remove_tree(const char *path)
{
	char *const	 argv[] = { (char *)"rm", (char *)"-rf", (char *)"--",
			    (char *)path, NULL };
	char		*out = NULL, *cause = NULL;
	int		 st;

	st = run(NULL, argv, -1, &out, &cause);
	free(out);
	free(cause);
	return (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1);
}

/* Remove the worktree at DIR from REPO, forcefully (a failed build may
 * leave it dirty), and its directory if git leaves one.  Returns 0, or -1
 * with *CAUSE. */
static int
git_worktree_remove(const char *repo, const char *dir, char **cause)
{
	const char	*args[] = { "worktree", "remove", "--force",
			    "--force", dir, NULL };
	const char	*prune[] = { "worktree", "prune", NULL };
	char		*out = NULL, *c2 = NULL;
	struct stat	 sb;

	/* Ignore git's answer: the worktree may be half made; prune then
	 * forgets it once its directory is gone. */
	(void)git(repo, args, &out, &c2);
	free(out);
	free(c2);
	out = c2 = NULL;
	if (stat(dir, &sb) == 0 && remove_tree(dir) != 0) {
		*cause = dn_xasprintf("cannot remove '%s'", dir);
		return (-1);
	}
	(void)git(repo, prune, &out, &c2);
	free(out);
	free(c2);
	return (0);
}

/*
 * Run ARGV (NULL-terminated; ARGV[0] found through PATH) in directory DIR
 * with stdout and stderr written to LOG_PATH (truncated).  Returns 0 when
 * it exits 0; else -1 with *CAUSE saying how it ended followed by the
 * last lines of the log.
 */
static int
git_run_build(const char *dir, char *const *argv, const char *log_path,
    char **cause)
{
	char	 how[64], *tail;
	int	 fd, st;

	fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1) {
		*cause = dn_xasprintf("cannot open '%s': %s", log_path,
		    strerror(errno));
		return (-1);
	}
	/* The child gets its own copy without O_CLOEXEC through dup2. */
	st = run(dir, argv, fd, NULL, cause);
	close(fd);
	if (st == -1)
		return (-1);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return (0);
	tail = spawn_tail(log_path, GIT_TAIL_LINES);
	*cause = dn_xasprintf("'%s' %s; last lines of %s:\n%s", argv[0],
	    spawn_status_str(st, how, sizeof(how)), log_path,
	    tail != NULL ? tail : "(no output)");
	free(tail);
	return (-1);
}

char *
git_cache_dir(void)
{
	const char	*v;

	if ((v = getenv("DEVNET_BUILD_CACHE")) != NULL && *v != '\0')
		return (dn_xstrdup(v));
	if ((v = getenv("XDG_CACHE_HOME")) != NULL && *v == '/')
		return (dn_xasprintf("%s/devnet/builds", v));
	if ((v = getenv("HOME")) != NULL && *v != '\0')
		return (dn_xasprintf("%s/.cache/devnet/builds", v));
	/* No HOME: a directory of our own, never one shared by all. */
	return (dn_xasprintf("/tmp/devnet-builds-%u", (unsigned)geteuid()));
}

/* The cache dir, made 0700 and verified ours and private (a binary.path
 * in a directory someone else can write is not to be trusted). */
static int
cache_private(const char *dir, char **cause)
{
	struct stat	sb;

	if (dn_mkdir_p(dir, 0700) != 0) {
		*cause = dn_xasprintf("cannot create '%s': %s", dir,
		    strerror(errno));
		return (-1);
	}
	if (lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) ||
	    sb.st_uid != geteuid() || (sb.st_mode & 022) != 0) {
		*cause = dn_xasprintf("build cache '%s' is not a directory "
		    "of ours that only we can write: not used (set "
		    "DEVNET_BUILD_CACHE)", dir);
		return (-1);
	}
	return (0);
}

/* A 64-bit FNV-1a hash of the recipe (command and binary): the same
 * commit built another way is another cache entry. */
static uint64_t
recipe_hash(const struct git_build *b)
{
	uint64_t	h = 0xcbf29ce484222325ULL;
	const char	*p;
	size_t		i;

	for (i = 0; b->command != NULL && b->command[i] != NULL; i++) {
		for (p = b->command[i]; ; p++) {
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
			if (*p == '\0')
				break;
		}
	}
	h = (h ^ 0xff) * 0x100000001b3ULL;
	for (p = b->binary; p != NULL && *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return (h);
}

static int
mkdir_p(const char *path, char **cause)
{
	if (dn_mkdir_p(path, 0700) == 0)
		return (0);
	*cause = dn_xasprintf("cannot create '%s': %s", path, strerror(errno));
	return (-1);
}

/* The cached binary of ENTRY, if its binary.path names an executable. */
static char *
cache_lookup(const char *entry)
{
	char	*path = dn_xasprintf("%s/binary.path", entry), buf[PATH_MAX];
	FILE	*f;
	size_t	 n;

	f = fopen(path, "re");
	free(path);
	if (f == NULL)
		return (NULL);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	if (n == 0 || access(buf, X_OK) != 0)
		return (NULL);
	return (dn_xstrdup(buf));
}

/* Write BINARY into ENTRY/binary.path: temporary, fsync, rename. */
static int
cache_store(const char *entry, const char *binary, char **cause)
{
	char	*tmp = dn_xasprintf("%s/binary.path.tmp", entry);
	char	*dst = dn_xasprintf("%s/binary.path", entry);
	int	 fd, rc = -1;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1 || dprintf(fd, "%s\n", binary) < 0 || fsync(fd) != 0) {
		*cause = dn_xasprintf("cannot write '%s': %s", tmp,
		    strerror(errno));
		goto out;
	}
	if (rename(tmp, dst) != 0) {
		*cause = dn_xasprintf("cannot rename '%s': %s", tmp,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	free(dst);
	return (rc);
}

int
git_build(const struct git_build *b, char **commit, char **binary_path,
    int *cached, char **cause)
{
	char		*cache = NULL, *entry = NULL, *src = NULL, *log = NULL;
	char		*bin = NULL, *id = NULL, *c2 = NULL, *lock = NULL;
	struct stat	 sb;
	int		 rc = -1, lockfd = -1;

	*commit = *binary_path = NULL;
	*cached = 0;
	if (git_resolve(b->repo, b->rev, &id, cause) != 0)
		goto out;
	cache = b->cache_dir != NULL ? dn_xstrdup(b->cache_dir) :
	    git_cache_dir();
	if (cache_private(cache, cause) != 0)
		goto out;
	/* One devnet at a time builds (or cleans up) a commit: another one
	 * waits here, then finds the binary cached. */
	lock = dn_xasprintf("%s/%s.lock", cache, id);
	if ((lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
	    0600)) == -1 || flock(lockfd, LOCK_EX) != 0) {
		*cause = dn_xasprintf("cannot lock '%s': %s", lock,
		    strerror(errno));
		goto out;
	}
	entry = dn_xasprintf("%s/%s-%016llx", cache, id,
	    (unsigned long long)recipe_hash(b));
	if ((bin = cache_lookup(entry)) != NULL) {
		*cached = 1;
		goto done;
	}
	if (mkdir_p(entry, cause) != 0)
		goto out;
	src = dn_xasprintf("%s/src", entry);
	log = dn_xasprintf("%s/build.log", entry);
	/* Left over from a build that failed or was interrupted. */
	if (stat(src, &sb) == 0 && git_worktree_remove(b->repo, src,
	    cause) != 0)
		goto out;
	if (git_worktree_add(b->repo, src, id, cause) != 0)
		goto out;
	if (git_run_build(src, b->command, log, &c2) != 0) {
		*cause = dn_xasprintf("build of '%s' (%.12s) failed: %s",
		    b->rev, id, c2);
		goto fail;
	}
	bin = dn_xasprintf("%s/%s", src, b->binary);
	if (access(bin, X_OK) != 0) {
		*cause = dn_xasprintf("build of '%s' (%.12s) succeeded but "
		    "left no executable '%s' (see %s)", b->rev, id,
		    b->binary, log);
		goto fail;
	}
	if (cache_store(entry, bin, cause) != 0)
		goto fail;
done:
	*commit = id;
	*binary_path = bin;
	id = bin = NULL;
	rc = 0;
	goto out;
fail:
	free(c2);
	c2 = NULL;
	(void)git_worktree_remove(b->repo, src, &c2);
out:
	if (lockfd != -1)
		close(lockfd);	/* and with it the lock */
	free(lock);
	free(c2);
	free(bin);
	free(id);
	free(log);
	free(src);
	free(entry);
	free(cache);
	return (rc);
}

int
git_order(const char *repo, char *const *ids, size_t n, long *pos,
    char **cause)
{
	char	**argv, *out = NULL, *line, *nl;
	size_t	  i, k = 0;
	long	  at = 0;
	int	  st, rc = -1;

	for (i = 0; i < n; i++) {
		pos[i] = -1;
		/* Handed to git as arguments: commit ids only. */
		if (ids[i][0] == '\0' || strspn(ids[i],
		    "0123456789abcdef") != strlen(ids[i])) {
			*cause = dn_xasprintf("'%s' is not a commit id",
			    ids[i]);
			return (-1);
		}
	}
	argv = dn_xcalloc(n + 8, sizeof(*argv));
	argv[k++] = (char *)"git";
	argv[k++] = (char *)"-C";
	argv[k++] = (char *)repo;
	argv[k++] = (char *)"rev-list";
	argv[k++] = (char *)"--topo-order";
	argv[k++] = (char *)"--reverse";
	for (i = 0; i < n; i++)
		argv[k++] = ids[i];
	argv[k] = NULL;
	st = run(NULL, argv, -1, &out, cause);
	if (st == -1)
		goto out;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		*cause = dn_xasprintf("git rev-list in '%s': %s", repo,
		    out != NULL ? last_line(out) : "failed");
		goto out;
	}
	for (line = out; *line != '\0'; line = nl + 1, at++) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		for (i = 0; i < n; i++)
			if (strcmp(line, ids[i]) == 0)
				pos[i] = at;
		if (nl == NULL)
			break;
	}
	rc = 0;
out:
	free(out);
	free(argv);
	return (rc);
}
