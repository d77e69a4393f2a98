/*
 * test-spawn.c: how the orchestrator starts a node (orchestrator/sys/
 * spawn.c over dn_child_spawn), with real programs.  The parent's memory
 * is not copied: after a spawn, writing 32 MiB the parent had touched
 * costs it no page faults (a fork leaves every page copy-on-write: ~8,192
 * faults).  The child runs in its own process group with the environment
 * added, its output in the file; a binary that cannot be executed exits
 * 127 with the reason in that file; and a child dies with the process
 * that started it (the death signal).
 */
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "sys/spawn.h"
#include "xalloc.h"

#define BIG	(32u << 20)

struct fixture {
	char	 dir[32];
	char	*out;
};

static int
setup(void **state)
{
	struct fixture	*f = dn_xcalloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/dn-spawn-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return (-1);
	f->out = dn_xasprintf("%s/out", f->dir);
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fixture	*f = *state;

	unlink(f->out);
	rmdir(f->dir);
	free(f->out);
	free(f);
	return (0);
}

/* Wait for P to exit, at most 10 s; its wait status. */
static int
wait_exit(struct proc *p)
{
	uint64_t	deadline = dn_now_ns() + 10000000000ull;

	while (!spawn_poll(p)) {
		assert_true(dn_now_ns() < deadline);
		usleep(1000);
	}
	return (p->status);
}

static char *
slurp(const char *path)
{
	static char	buf[4096];
	FILE		*fp = fopen(path, "r");
	size_t		 n = 0;

	if (fp != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, fp);
		fclose(fp);
	}
	buf[n] = '\0';
	return (buf);
}

static long
minflt(void)
{
	struct rusage	ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_minflt);
}

static void
no_copy(void **state)
{
	struct fixture	*f = *state;
	char		 a0[] = "/bin/sleep", a1[] = "0.2";
	char		*argv[] = { a0, a1, NULL };
	struct proc	 p;
	char		*big, *cause = NULL;
	long		 before, after;
	size_t		 i;

	big = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	assert_true(big != MAP_FAILED);
	/* 4 KiB pages, so that a copy-on-write shows as one fault each */
	(void)madvise(big, BIG, MADV_NOHUGEPAGE);
	memset(big, 1, BIG);
	assert_int_equal(spawn_start(&p, argv, NULL, f->out, &cause), 0);
	/* the child is alive (sleeping): a fork's copy would still be
	 * shared with it */
	before = minflt();
	for (i = 0; i < BIG; i += 4096)
		big[i]++;
	after = minflt();
	printf("parent's page faults writing %u MiB after a spawn: %ld\n",
	    BIG >> 20, after - before);
	assert_true(after - before < 256);
	assert_true(WIFEXITED(wait_exit(&p)));
	munmap(big, BIG);
}

static void
group_env_output(void **state)
{
	struct fixture	*f = *state;
	char		 a0[] = "/bin/sh", a1[] = "-c";
	char		 a2[] = "echo \"x=$DN_SPAWN_X\"; sleep 0.3; exit 3";
	char		 e0[] = "DN_SPAWN_X=42";
	char		*argv[] = { a0, a1, a2, NULL };
	char		*env[] = { e0, NULL };
	struct proc	 p;
	char		*cause = NULL;
	int		 st;

	assert_int_equal(spawn_start(&p, argv, env, f->out, &cause), 0);
	assert_int_equal(getpgid(p.pid), p.pid);
	st = wait_exit(&p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 3);
	assert_string_equal(slurp(f->out), "x=42\n");
}

static void
exec_failure(void **state)
{
	struct fixture	*f = *state;
	char		 a0[] = "/nonexistent/devnet-node";
	char		*argv[] = { a0, NULL };
	struct proc	 p;
	char		*cause = NULL;
	int		 st;

	assert_int_equal(spawn_start(&p, argv, NULL, f->out, &cause), 0);
	st = wait_exit(&p);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 127);
	assert_string_equal(slurp(f->out), "devnet: cannot execute node "
	    "binary: No such file or directory\n");
}

/* PID is running: there, and not a zombie waiting for init to reap it */
static int
running(pid_t pid)
{
	char	path[64], *st, *rp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	st = slurp(path);
	rp = strrchr(st, ')');
	return (rp != NULL && rp[1] == ' ' && rp[2] != 'Z');
}

/* A process that spawns a sleeper, says its pid and dies: the sleeper
 * must follow it (PR_SET_PDEATHSIG). */
static void
death_signal(void **state)
{
	struct fixture	*f = *state;
	char		 a0[] = "/bin/sleep", a1[] = "30";
	char		*argv[] = { a0, a1, NULL };
	struct proc	 p;
	char		*cause = NULL;
	uint64_t	 deadline;
	pid_t		 mid, child = 0;
	int		 fds[2], st;

	assert_int_equal(pipe(fds), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (mid == 0) {
		if (spawn_start(&p, argv, NULL, f->out, &cause) != 0)
			_exit(1);
		if (write(fds[1], &p.pid, sizeof(p.pid)) != sizeof(p.pid))
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(fds[0], &child, sizeof(child)),
	    sizeof(child));
	assert_int_equal(waitpid(mid, &st, 0), mid);
	close(fds[0]);
	close(fds[1]);
	deadline = dn_now_ns() + 5000000000ull;
	while (running(child) && dn_now_ns() < deadline)
		usleep(1000);
	assert_false(running(child));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(no_copy, setup, teardown),
		cmocka_unit_test_setup_teardown(group_env_output, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(exec_failure, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(death_signal, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
