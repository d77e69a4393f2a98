/*
 * test-tree.c: devnet-probe's process-tree reader (probe/tree.c) on both
 * of its paths for context switches, taskstats (probe/taskstats.c) and
 * the per-thread /proc files (DN_PROBE_TASKSTATS=0), around a child
 * whose threads make a known number of voluntary switches (1 ms sleeps)
 * and which is stopped (SIGSTOP) while it is read, so that both paths
 * must agree exactly.  Also: a process forked by a thread the last walk
 * already knew (the walk then skips the task directory), a thread that
 * exits while another starts (same count: the directory must be listed
 * again; on the taskstats path the thread's pidfd says it went), and the
 * open-file count against a listing of /proc/PID/fd; and a process with
 * 1,500 children (a children file of ~10 KiB: issue 19 #7), every one
 * of them seen for RSS and threads and stopped and continued.
 * The taskstats cases skip without CAP_NET_ADMIN.  Not a test of the
 * probe's event loop (tests/probe/probe.sh).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "metric-table.h"
#include "probe.h"

#define SLEEPS_A	40	/* thread A's switches, then it waits */
#define SLEEPS_B	300	/* thread B's, started when A exits */

/* --- the child ------------------------------------------------------- */

static int	a_quit[2];	/* A reads: told to exit */

static void
sleeps(int n)
{
	struct timespec	ts = { 0, 1000000 };
	int		i;

	for (i = 0; i < n; i++)
		nanosleep(&ts, NULL);
}

static void *
thread_a(void *arg)
{
	char	c;

	(void)arg;
	sleeps(SLEEPS_A);
	while (read(a_quit[0], &c, 1) == -1 && errno == EINTR)
		;
	return (NULL);
}

static void *
thread_idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return (NULL);
}

/* Fork a process that waits; its pid to FD. */
static void
fork_waiter(int fd)
{
	pid_t	pid;

	if ((pid = fork()) == 0) {
		for (;;)
			pause();
	}
	(void)write(fd, &pid, sizeof(pid));
}

/* Threads B and D: sleep N times, fork a waiter (from this thread, so
 * it is listed in this thread's children file), then wait. */
struct forker {
	int	n;
	int	fd;
};

static void *
thread_forker(void *arg)
{
	struct forker	*f = arg;

	sleeps(f->n);
	fork_waiter(f->fd);
	for (;;)
		pause();
	return (NULL);
}

/*
 * Threads main, A, C; then on 'f' fork a waiter from main, on 'x' end A
 * and start B (SLEEPS_B switches, then B forks a waiter), on 'n' start D
 * (no thread ends; D forks a waiter).  Each answers the waiter's pid on
 * ACK.
 */
static void
child_main(int cmd, int ack)
{
	struct forker	 fb = { SLEEPS_B, ack }, fd = { 0, ack };
	pthread_t	 a, b, c, d;
	char		 ch;

	if (pipe(a_quit) == -1)
		_exit(1);
	pthread_create(&a, NULL, thread_a, NULL);
	pthread_create(&c, NULL, thread_idle, NULL);
	sleeps(SLEEPS_A + 20);
	ch = 'r';
	(void)write(ack, &ch, 1);
	while (read(cmd, &ch, 1) == 1) {
		if (ch == 'f')
			fork_waiter(ack);
		else if (ch == 'x') {
			(void)write(a_quit[1], &ch, 1);
			pthread_join(a, NULL);
			pthread_create(&b, NULL, thread_forker, &fb);
		} else if (ch == 'n')
			pthread_create(&d, NULL, thread_forker, &fd);
	}
	_exit(0);
}

/* --- the test -------------------------------------------------------- */

#define MAX_WAITERS	4

struct fixture {
	pid_t		 child;
	pid_t		 waiter[MAX_WAITERS];	/* the child's children */
	int		 nwaiter;
	int		 cmd, ack;
	struct tree	*ts;	/* taskstats, or NULL when not allowed */
	struct tree	*pr;	/* /proc only */
};

/* Wait until PID (not our child) shows state T in /proc/PID/stat. */
static void
wait_stopped(pid_t pid)
{
	char	path[64], buf[512], *p;
	FILE	*f;
	int	i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 2000; i++) {
		if ((f = fopen(path, "r")) == NULL)
			return;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (p != NULL && (p = strrchr(buf, ')')) != NULL &&
		    p[1] == ' ' && p[2] == 'T')
			return;
		usleep(1000);
	}
	fail_msg("pid %d never stopped", (int)pid);
}

/*
 * Context switches of PID summed over its threads' status files: the
 * voluntary ones, or with ALL both kinds.
 */
static double
proc_switches(pid_t pid, int all)
{
	struct dirent	*de;
	char		 path[300], line[256];
	double		 sum = 0;
	DIR		*d;
	FILE		*f;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	assert_non_null(d = opendir(path));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status",
		    (int)pid, de->d_name);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL) {
			if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0)
				sum += strtod(line + 24, NULL);
			else if (all && strncmp(line,
			    "nonvoluntary_ctxt_switches:", 27) == 0)
				sum += strtod(line + 27, NULL);
		}
		fclose(f);
	}
	closedir(d);
	return (sum);
}

static double
proc_vol(pid_t pid)
{
	return (proc_switches(pid, 0));
}

/*
 * Stop the child and its waiters, and wait until their switch counts
 * settle.  A stopped process is reported (waitpid, state T) before its
 * last thread has switched out: that switch is counted a moment later,
 * and under load that moment can be long, so a read right after the
 * stop can be one short of a read after it (the flake of CI's stop 42).
 */
static void
stop_all(struct fixture *fx)
{
	double	now, last;
	int	st, i, w, same;

	kill(fx->child, SIGSTOP);
	assert_int_equal(waitpid(fx->child, &st, WUNTRACED), fx->child);
	assert_true(WIFSTOPPED(st));
	for (i = 0; i < fx->nwaiter; i++) {
		kill(fx->waiter[i], SIGSTOP);
		wait_stopped(fx->waiter[i]);
	}
	for (i = 0, same = 0, last = -1; same < 10 && i < 5000; i++) {
		now = proc_switches(fx->child, 1);
		for (w = 0; w < fx->nwaiter; w++)
			now += proc_switches(fx->waiter[w], 1);
		same = now == last ? same + 1 : 0;
		last = now;
		usleep(2000);
	}
	if (same < 10)
		fail_msg("switch counts of the stopped tree never settled");
}

static void
cont_all(struct fixture *fx)
{
	int	i;

	for (i = 0; i < fx->nwaiter; i++)
		kill(fx->waiter[i], SIGCONT);
	kill(fx->child, SIGCONT);
}

static int
setup(void **state)
{
	struct fixture	*fx = calloc(1, sizeof(*fx));
	char		*cause = NULL, c;
	int		 cmd[2], ack[2];

	if (fx == NULL || pipe(cmd) == -1 || pipe(ack) == -1)
		return (-1);
	if ((fx->child = fork()) == 0) {
		close(cmd[1]);
		close(ack[0]);
		child_main(cmd[0], ack[1]);
	}
	close(cmd[0]);
	close(ack[1]);
	fx->cmd = cmd[1];
	fx->ack = ack[0];
	if (read(fx->ack, &c, 1) != 1)
		return (-1);
	unsetenv("DN_PROBE_TASKSTATS");
	if (tree_open(&fx->ts, &cause) != 0)
		return (-1);
	if (strcmp(tree_ctx_source(fx->ts, &(const char *){ NULL }),
	    "taskstats") != 0) {
		tree_free(fx->ts);
		fx->ts = NULL;
	}
	setenv("DN_PROBE_TASKSTATS", "0", 1);
	if (tree_open(&fx->pr, &cause) != 0)
		return (-1);
	unsetenv("DN_PROBE_TASKSTATS");
	*state = fx;
	return (0);
}

static int
teardown(void **state)
{
	struct fixture	*fx = *state;

	int		 i;

	for (i = 0; i < fx->nwaiter; i++)
		kill(fx->waiter[i], SIGKILL);
	kill(fx->child, SIGKILL);
	kill(fx->child, SIGCONT);
	(void)waitpid(fx->child, NULL, 0);
	close(fx->cmd);
	close(fx->ack);
	tree_free(fx->ts);
	tree_free(fx->pr);
	free(fx);
	return (0);
}

/* Entries of /proc/PID/fd. */
static int
list_fds(pid_t pid)
{
	struct dirent	*de;
	char		 path[64];
	DIR		*d;
	int		 n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (0);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] != '.')
			n++;
	}
	closedir(d);
	return (n);
}

/*
 * Both trees read the (stopped) tree; each must have every waiter the
 * child answered so far.
 */
static void
read_both(struct fixture *fx, double *ts, double *pr)
{
	int	i;

	memset(ts, 0, sizeof(double) * DN_METRIC_COUNT);
	memset(pr, 0, sizeof(double) * DN_METRIC_COUNT);
	if (fx->ts != NULL)
		tree_read(fx->ts, ts);
	tree_read(fx->pr, pr);
	for (i = 0; i < fx->nwaiter; i++) {
		if (!tree_has(fx->pr, fx->waiter[i]))
			fail_msg("/proc path: waiter %d (pid %d) missing", i,
			    (int)fx->waiter[i]);
		if (fx->ts != NULL && !tree_has(fx->ts, fx->waiter[i]))
			fail_msg("taskstats path: waiter %d (pid %d) missing",
			    i, (int)fx->waiter[i]);
	}
}

/* Send the child command C and keep the waiter pid it answers. */
static void
command(struct fixture *fx, char c)
{
	pid_t	pid;

	assert_int_equal(write(fx->cmd, &c, 1), 1);
	assert_int_equal(read(fx->ack, &pid, sizeof(pid)),
	    (ssize_t)sizeof(pid));
	assert_true(fx->nwaiter < MAX_WAITERS);
	fx->waiter[fx->nwaiter++] = pid;
}

static const int	tree_ids[] = { DN_M_RSS_BYTES, DN_M_HWM_BYTES,
	DN_M_THREADS, DN_M_MINFLT, DN_M_MAJFLT, DN_M_CPU_USER_S,
	DN_M_CPU_SYS_S, DN_M_CTX_VOL, DN_M_CTX_INVOL, DN_M_IO_READ_BYTES,
	DN_M_IO_WRITE_BYTES, DN_M_FDS };

static void
assert_same(const double *ts, const double *pr)
{
	size_t	i;

	for (i = 0; i < sizeof(tree_ids) / sizeof(tree_ids[0]); i++) {
		int	id = tree_ids[i];

		if (ts[id] != pr[id])
			fail_msg("%s: taskstats path %.0f, /proc path %.0f",
			    dn_metric_defs[id].name, ts[id], pr[id]);
	}
}

static void
both_paths(void **state)
{
	struct fixture	*fx = *state;
	double		 ts[DN_METRIC_COUNT], pr[DN_METRIC_COUNT];
	double		 ts1[DN_METRIC_COUNT], pr1[DN_METRIC_COUNT];

	/* 1. stopped: both paths read the same numbers */
	stop_all(fx);
	read_both(fx, ts, pr);
	assert_true(pr[DN_M_CTX_VOL] >= SLEEPS_A);
	assert_true(pr[DN_M_CTX_VOL] == proc_vol(fx->child));
	assert_int_equal((int)pr[DN_M_THREADS], 3);
	assert_int_equal((int)pr[DN_M_FDS], list_fds(fx->child));
	if (fx->ts != NULL)
		assert_same(ts, pr);
	/* a second walk of the same stopped tree (kept files, no listing
	 * of task/) reads the same */
	read_both(fx, ts1, pr1);
	assert_same(pr1, pr);
	if (fx->ts != NULL)
		assert_same(ts1, ts);
	cont_all(fx);

	/* 2. a process forked by a thread the walk knows: same thread
	 * count in the child, so the task directory is not listed */
	command(fx, 'f');
	stop_all(fx);
	read_both(fx, ts, pr);
	assert_int_equal((int)pr[DN_M_THREADS], 4);
	assert_int_equal((int)pr[DN_M_FDS], list_fds(fx->child) +
	    list_fds(fx->waiter[0]));
	if (fx->ts != NULL)
		assert_same(ts, pr);
	cont_all(fx);

	/* 3. A exits, B starts: same count, other threads; B's switches
	 * and B's child must show (the directory listed again) */
	command(fx, 'x');
	stop_all(fx);
	read_both(fx, ts1, pr1);
	assert_int_equal((int)pr1[DN_M_THREADS], 5);
	if (pr1[DN_M_CTX_VOL] < pr[DN_M_CTX_VOL] + SLEEPS_B - SLEEPS_A - 10)
		fail_msg("/proc path: ctx_vol %.0f -> %.0f, B's %d switches "
		    "missing", pr[DN_M_CTX_VOL], pr1[DN_M_CTX_VOL], SLEEPS_B);
	if (fx->ts != NULL) {
		/* taskstats also keeps A's switches where the kernel
		 * retains exited threads in TGID answers: never fewer */
		assert_true(ts1[DN_M_CTX_VOL] >= pr1[DN_M_CTX_VOL]);
		assert_true(ts1[DN_M_CTX_VOL] >= ts[DN_M_CTX_VOL] +
		    SLEEPS_B - SLEEPS_A - 10);
		assert_true(ts1[DN_M_THREADS] == pr1[DN_M_THREADS]);
		assert_true(ts1[DN_M_MINFLT] == pr1[DN_M_MINFLT]);
	}
	cont_all(fx);

	/* 4. D starts, no thread ends: one more thread (the count says so,
	 * every kept file still reads) and D's child must show */
	command(fx, 'n');
	stop_all(fx);
	read_both(fx, ts, pr);
	assert_int_equal((int)pr[DN_M_THREADS], 7);
	if (fx->ts != NULL)
		assert_int_equal((int)ts[DN_M_THREADS], 7);
	cont_all(fx);
}

/* tstats_ctx itself against the /proc sum, for a stopped process. */
static void
taskstats_direct(void **state)
{
	struct fixture	*fx = *state;
	struct tstats		*t;
	struct tstats_proc	 p[150];
	char			*cause = NULL;
	uint64_t		 vol, invol;
	int			 i;

	if (fx->ts == NULL) {
		skip();
		return;
	}
	assert_int_equal(tstats_open(&t, &cause), 0);
	stop_all(fx);
	assert_int_equal(tstats_ctx(t, fx->child, &vol, &invol), 0);
	assert_true((double)vol == proc_vol(fx->child));
	memset(p, 0, sizeof(p));
	assert_true(vol >= SLEEPS_A);
	/* a pid that is not there */
	assert_int_equal(tstats_ctx(t, 0x3ffffff0, &vol, &invol), -1);
	/* more processes than one batch, one of them not there */
	for (i = 0; i < 150; i++)
		p[i].pid = i == 70 ? 0x3ffffff0 : fx->child;
	assert_int_equal(tstats_read(t, p, 150), 0);
	for (i = 0; i < 150; i++) {
		if (i == 70) {
			assert_int_equal(p[i].ok, 0);
			continue;
		}
		assert_int_equal(p[i].ok, 1);
		assert_true(p[i].vol == vol && p[i].invol == invol);
	}
	cont_all(fx);
	tstats_close(t);
	/* forced off */
	setenv("DN_PROBE_TASKSTATS", "0", 1);
	assert_int_equal(tstats_open(&t, &cause), -1);
	assert_null(t);
	assert_string_equal(cause, "DN_PROBE_TASKSTATS=0");
	free(cause);
	unsetenv("DN_PROBE_TASKSTATS");
}

/* --- 1,500 children of one thread ------------------------------------ */

#define MANY	1500

/* State of PID from /proc/PID/stat, or 0 when gone. */
static char
proc_state(pid_t pid, unsigned long long *rss)
{
	char	path[64], buf[1024], *p;
	FILE	*f;
	int	i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return (0);
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (p == NULL || (p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return (0);
	if (rss != NULL) {
		/* field 24 (rss), counting from the state (field 3) */
		char	*q = p + 2;

		for (i = 3; i < 24 && q != NULL; i++)
			q = strchr(q + 1, ' ');
		*rss = q != NULL ? strtoull(q + 1, NULL, 10) : 0;
	}
	return (p[2]);
}

/* Wait until every pid of PIDS is in state 'T' (STOPPED) or not. */
static void
wait_all(const pid_t *pids, int n, int stopped)
{
	int	i, tries;

	for (i = 0; i < n; i++) {
		for (tries = 0; tries < 5000; tries++) {
			char	st = proc_state(pids[i], NULL);

			if ((st == 'T') == stopped)
				break;
			usleep(1000);
		}
		if (tries == 5000)
			fail_msg("child %d (pid %d) never %s", i, (int)pids[i],
			    stopped ? "stopped" : "continued");
	}
}

static void
many_children(void **state)
{
	static pid_t		 kids[MANY];
	double			 v[DN_METRIC_COUNT];
	unsigned long long	 rss, want_rss = 0;
	struct tree		*t;
	char			*cause = NULL;
	pid_t			 parent;
	ssize_t			 got;
	size_t			 off = 0;
	int			 fds[2], i, seen = 0;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	if ((parent = fork()) == 0) {
		close(fds[0]);
		setpgid(0, 0);
		for (i = 0; i < MANY; i++) {
			pid_t	k = fork();

			if (k == 0) {
				for (;;)
					pause();
			}
			if (k == -1)
				_exit(1);
			(void)write(fds[1], &k, sizeof(k));
		}
		close(fds[1]);
		for (;;)
			pause();
	}
	close(fds[1]);
	while (off < sizeof(kids) &&
	    (got = read(fds[0], (char *)kids + off, sizeof(kids) - off)) > 0)
		off += (size_t)got;
	close(fds[0]);
	assert_int_equal(off, sizeof(kids));

	setenv("DN_PROBE_TASKSTATS", "0", 1);
	assert_int_equal(tree_open(&t, &cause), 0);
	unsetenv("DN_PROBE_TASKSTATS");

	/* every child, stopped so that its RSS holds still */
	kill(-parent, SIGSTOP);
	wait_all(kids, MANY, 1);
	memset(v, 0, sizeof(v));
	tree_read(t, v);
	for (i = 0; i < MANY; i++)
		seen += tree_has(t, kids[i]);
	assert_int_equal(seen, MANY);
	assert_int_equal((int)v[DN_M_THREADS], MANY + 1);
	for (i = -1; i < MANY; i++) {
		assert_true(proc_state(i < 0 ? parent : kids[i], &rss) != 0);
		want_rss += rss;
	}
	if (v[DN_M_RSS_BYTES] != (double)want_rss * (double)getpagesize())
		fail_msg("rss_bytes %.0f, the processes' own sum %.0f",
		    v[DN_M_RSS_BYTES], (double)want_rss *
		    (double)getpagesize());
	kill(-parent, SIGCONT);
	wait_all(kids, MANY, 0);

	/* the probe's stop and cont reach every child */
	assert_int_equal(tree_signal_all(t, SIGSTOP), MANY + 1);
	wait_all(kids, MANY, 1);
	assert_int_equal(tree_signal_all(t, SIGCONT), MANY + 1);
	wait_all(kids, MANY, 0);

	kill(-parent, SIGKILL);
	(void)waitpid(parent, NULL, 0);
	tree_free(t);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test_setup_teardown(both_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(taskstats_direct, setup,
		    teardown),
		cmocka_unit_test(many_children),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
