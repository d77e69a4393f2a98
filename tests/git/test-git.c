/*
 * test-git.c: orchestrator/git.c on a throwaway repository with three
 * commits whose "build" is a shell script: the first two build a binary
 * that prints v1 / v2, the third fails.  Every build appends a line to a
 * counter file, so a cache hit shows as a build that did not run.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sys/git.h"
#include "xalloc.h"

static char	tmp[] = "/tmp/dn-test-git-XXXXXX";
static char	*repo, *cache, *counter;

/* Test setup only: a shell for the git plumbing of the fixture. */
static void
sh(const char *fmt, ...)
{
	va_list	 ap;
	char	*cmd;
	int	 n;

	va_start(ap, fmt);
	n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	assert_true(n > 0);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static int
lines(const char *path)
{
	FILE	*f = fopen(path, "r");
	int	 c, n = 0;

	if (f == NULL)
		return (0);
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return (n);
}

static char *
slurp(const char *path)
{
	char	buf[256];
	FILE	*f = fopen(path, "r");
	size_t	n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (dn_xstrdup(buf));
}

#define ID	"git -c user.name=t -c user.email=t@example.com "
#define COMMIT	ID "commit -qm"
#define TAG	ID "tag -a -m v2.0"

static int
setup(void **state)
{
	(void)state;
	if (mkdtemp(tmp) == NULL)
		return (-1);
	repo = dn_xasprintf("%s/repo", tmp);
	cache = dn_xasprintf("%s/cache", tmp);
	counter = dn_xasprintf("%s/counter", tmp);
	setenv("DN_TEST_COUNTER", counter, 1);
	sh("cd %s && mkdir repo && cd repo && git init -q . 2>/dev/null && "
	    "printf '%%s\\n' 'echo built >> \"$DN_TEST_COUNTER\"' "
	    "'mkdir -p bin' 'printf \"#!/bin/sh\\necho v1\\n\" > bin/node' "
	    "'chmod +x bin/node' > build.sh && git add build.sh && "
	    COMMIT " one && sed -i s/v1/v2/ build.sh && "
	    COMMIT " two -a && " TAG " v2.0", tmp);
	return (0);
}

static int
teardown(void **state)
{
	(void)state;
	sh("rm -rf %s", tmp);
	free(repo);
	free(cache);
	free(counter);
	return (0);
}

static void
resolve(void **state)
{
	char	*a, *b, *c, *cause = NULL;

	(void)state;
	/* What a CI hook may set must not leak into our git. */
	setenv("GIT_DIR", "/nonexistent", 1);
	assert_int_equal(git_resolve(repo, "HEAD", &a, &cause), 0);
	assert_int_equal(git_resolve(repo, "HEAD~1", &b, &cause), 0);
	assert_int_equal(strlen(a), 40);
	assert_true(strspn(a, "0123456789abcdef") == 40);
	assert_string_not_equal(a, b);
	assert_int_equal(git_resolve(repo, "v2.0", &c, &cause), 0);
	assert_string_equal(a, c);
	free(c);
	/* An abbreviated id resolves to the full one. */
	a[10] = '\0';
	assert_int_equal(git_resolve(repo, a, &c, &cause), 0);
	assert_int_equal(strncmp(a, c, 10), 0);
	free(a);
	free(b);
	free(c);

	assert_int_equal(git_resolve(repo, "no-such-branch", &a, &cause), -1);
	assert_null(a);
	assert_non_null(strstr(cause, "unknown revision 'no-such-branch'"));
	free(cause);
	cause = NULL;
	assert_int_equal(git_resolve(tmp, "HEAD", &a, &cause), -1);
	assert_non_null(strstr(cause, "is not a git repository"));
	free(cause);
	unsetenv("GIT_DIR");
}

static void
build_and_cache(void **state)
{
	char *const	 cmd[] = { (char *)"sh", (char *)"build.sh", NULL };
	struct git_build b = { repo, "HEAD~1", cmd, "bin/node", cache };
	char		*c1, *p1, *c2, *p2, *c3, *p3, *s, *cause = NULL;
	int		 cached;

	(void)state;
	assert_int_equal(git_build(&b, &c1, &p1, &cached, &cause), 0);
	assert_int_equal(cached, 0);
	assert_int_equal(lines(counter), 1);
	s = slurp(p1);
	assert_non_null(strstr(s, "echo v1"));
	free(s);
	assert_true(p1[0] == '/');
	assert_non_null(strstr(p1, c1));

	b.rev = "HEAD";
	assert_int_equal(git_build(&b, &c2, &p2, &cached, &cause), 0);
	assert_int_equal(cached, 0);
	assert_int_equal(lines(counter), 2);
	s = slurp(p2);
	assert_non_null(strstr(s, "echo v2"));
	free(s);
	assert_string_not_equal(c1, c2);

	/* Same commit by another name: a hit, no build. */
	b.rev = "v2.0";
	assert_int_equal(git_build(&b, &c3, &p3, &cached, &cause), 0);
	assert_int_equal(cached, 1);
	assert_int_equal(lines(counter), 2);
	assert_string_equal(c2, c3);
	assert_string_equal(p2, p3);
	free(c3);
	free(p3);
	b.rev = "HEAD~1";
	assert_int_equal(git_build(&b, &c3, &p3, &cached, &cause), 0);
	assert_int_equal(cached, 1);
	assert_int_equal(lines(counter), 2);
	assert_string_equal(p1, p3);

	/* The binary's work tree describes its commit. */
	assert_int_equal(git_describe_path(p2, &s, &cause), 0);
	assert_string_equal(s, "v2.0");
	free(s);
	free(c1);
	free(p1);
	free(c2);
	free(p2);
	free(c3);
	free(p3);
}

static void
build_fails(void **state)
{
	char *const	 cmd[] = { (char *)"sh", (char *)"build.sh", NULL };
	char *const	 nobin[] = { (char *)"true", NULL };
	struct git_build b = { repo, "HEAD", cmd, "bin/node", cache };
	char		*c, *p, *cause = NULL, *entry;
	struct stat	 sb;
	int		 cached, before;

	(void)state;
	sh("cd %s && printf '%%s\\n' 'echo built >> \"$DN_TEST_COUNTER\"' "
	    "'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 "
	    "21 22 23 24 25; do echo noise $i; done' "
	    "'echo \"main.c:3: error: boom\" >&2' 'exit 2' > build.sh && "
	    COMMIT " three -a", repo);
	before = lines(counter);
	assert_int_equal(git_build(&b, &c, &p, &cached, &cause), -1);
	assert_null(c);
	assert_null(p);
	assert_int_equal(lines(counter), before + 1);
	assert_non_null(strstr(cause, "failed"));
	assert_non_null(strstr(cause, "exit 2"));
	assert_non_null(strstr(cause, "main.c:3: error: boom"));
	assert_non_null(strstr(cause, "noise 25"));
	assert_null(strstr(cause, "noise 1\n")); /* only the last lines */
	free(cause);
	cause = NULL;

	/* No entry: the worktree is gone, no binary.path, and the next
	 * attempt builds again. */
	assert_int_equal(git_resolve(repo, "HEAD", &c, &cause), 0);
	entry = dn_xasprintf("%s/%s/binary.path", cache, c);
	assert_int_equal(stat(entry, &sb), -1);
	free(entry);
	entry = dn_xasprintf("%s/%s/src", cache, c);
	assert_int_equal(stat(entry, &sb), -1);
	free(entry);
	free(c);
	assert_int_equal(git_build(&b, &c, &p, &cached, &cause), -1);
	assert_int_equal(lines(counter), before + 2);
	free(cause);
	cause = NULL;

	/* A build that succeeds without leaving the binary. */
	b.command = nobin;
	assert_int_equal(git_build(&b, &c, &p, &cached, &cause), -1);
	assert_non_null(strstr(cause, "left no executable 'bin/node'"));
	free(cause);
}

static void
describe(void **state)
{
	char	*d, *id, *cause = NULL, *path;

	(void)state;
	path = dn_xasprintf("%s/build.sh", repo);
	assert_int_equal(git_resolve(repo, "HEAD", &id, &cause), 0);
	assert_int_equal(git_describe_path(path, &d, &cause), 0);
	/* HEAD is one commit past the tag. */
	assert_int_equal(strncmp(d, "v2.0-1-g", 8), 0);
	assert_int_equal(strncmp(d + 8, id, strlen(d + 8)), 0);
	free(d);
	sh("echo '# local edit' >> %s", path);
	assert_int_equal(git_describe_path(path, &d, &cause), 0);
	assert_non_null(strstr(d, "-dirty"));
	free(d);
	sh("cd %s && git checkout -q build.sh", repo);
	/* A directory works too. */
	assert_int_equal(git_describe_path(repo, &d, &cause), 0);
	assert_null(strstr(d, "-dirty"));
	free(d);
	free(path);
	free(id);

	/* Outside any work tree: 1, not an error. */
	path = dn_xasprintf("%s/counter", tmp);
	assert_int_equal(git_describe_path(path, &d, &cause), 1);
	assert_null(d);
	free(path);
	assert_int_equal(git_describe_path("/nonexistent/devnet-node", &d,
	    &cause), -1);
	assert_non_null(cause);
	free(cause);
}

/* Issue 19 #10: another recipe for the same commit is another entry (not
 * the first one's binary), and a second devnet holding the commit's lock
 * is waited for. */
static void
recipe_and_lock(void **state)
{
	char *const	 cmd[] = { (char *)"sh", (char *)"build.sh", NULL };
	char *const	 cmd2[] = { (char *)"sh", (char *)"-c",
			    (char *)"sh build.sh && cp bin/node bin/other",
			    NULL };
	struct git_build b = { repo, "v2.0", cmd, "bin/node", cache };
	char		*c1, *p1, *c2, *p2, *lock, *cause = NULL;
	struct timespec	 t0, t1;
	int		 cached, fd, pfd[2];
	pid_t		 pid;
	char		 ch;

	(void)state;
	if (git_build(&b, &c1, &p1, &cached, &cause) != 0)
		fail_msg("%s", cause);
	b.command = cmd2;
	b.binary = "bin/other";
	assert_int_equal(git_build(&b, &c2, &p2, &cached, &cause), 0);
	assert_int_equal(cached, 0);	/* built: not the other recipe's */
	assert_string_equal(c1, c2);
	assert_string_not_equal(p1, p2);
	assert_non_null(strstr(p2, "bin/other"));

	/* Another process holds the commit's lock for 1 s. */
	lock = dn_xasprintf("%s/%s.lock", cache, c1);
	assert_int_equal(pipe(pfd), 0);
	if ((pid = fork()) == 0) {
		fd = open(lock, O_RDWR);
		if (fd == -1 || flock(fd, LOCK_EX) != 0)
			_exit(1);
		(void)!write(pfd[1], "x", 1);
		sleep(1);
		_exit(0);
	}
	assert_int_equal(read(pfd[0], &ch, 1), 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	free(c2);
	free(p2);
	assert_int_equal(git_build(&b, &c2, &p2, &cached, &cause), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(cached, 1);
	print_message("waited %.2f s for the other holder of the lock\n",
	    (double)(t1.tv_sec - t0.tv_sec) +
	    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 800);
	waitpid(pid, NULL, 0);
	close(pfd[0]);
	close(pfd[1]);
	free(lock);
	free(c1);
	free(p1);
	free(c2);
	free(p2);
}

static void
cache_dir(void **state)
{
	char	*d;

	(void)state;
	setenv("DEVNET_BUILD_CACHE", "/x/builds", 1);
	d = git_cache_dir();
	assert_string_equal(d, "/x/builds");
	free(d);
	unsetenv("DEVNET_BUILD_CACHE");
	setenv("XDG_CACHE_HOME", "/xdg", 1);
	d = git_cache_dir();
	assert_string_equal(d, "/xdg/devnet/builds");
	free(d);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/home/u", 1);
	d = git_cache_dir();
	assert_string_equal(d, "/home/u/.cache/devnet/builds");
	free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resolve),
		cmocka_unit_test(build_and_cache),
		cmocka_unit_test(build_fails),
		cmocka_unit_test(describe),
		cmocka_unit_test(recipe_and_lock),
		cmocka_unit_test(cache_dir),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
