/*
 * observer.c: issue 6 target 2, the cost of the node's metrics agent.
 *
 *   dn-observer-bench agent DIR SECONDS [INTERVAL_MS [THREADS FDS [MODE]]]
 *	The real agent (metrics/agent/, the node's own sampler and
 *	allocation counter; the fill callback leaves the node-provided
 *	values at 0) in a process that runs devnet-node's control loop: a
 *	receive on a REP socket nobody sends to, LOOP_MS (1000, node.c's
 *	IDLE_WAIT_MS; $DN_LOOP_MS sets it) at most, waited in poll(2)
 *	(dn_sock_recv_idle) as devnet-node does.  MODE
 *	tick (the default): the loop ticks the agent and waits no longer
 *	than it says, and asks it whether it is connected every turn
 *	(devnet_gone), as devnet-node does; thread: a thread of its own
 *	ticks it at each due time (the agent before issue 26's third
 *	round); none: the loop alone, the floor.  The collector is a child
 *	process (its CPU is not the agent's) that reports how far apart
 *	the samples were sent.  Prints key=value pairs, CPU as % of one
 *	core after the first WARM_S (2) s (the first sample's one-time
 *	costs, a malloc arena and lazy binding, are paid once), by thread
 *	from each thread's schedstat: the process, the loop, the ticking
 *	thread, nng's timer (it ends every timed wait), nng's other
 *	threads (they finish each send); work_core_pct, the thread CPU of
 *	the ticks that sampled; agent_core_pct, the agent's own cost: its
 *	work (tick) or its thread (thread) plus nng's other threads; and
 *	the RSS the process grew by from just before dn_agent_start.
 *	With THREADS and FDS, the process looks like a node: idle threads
 *	and open files until it has THREADS and FDS in all (a devnet-node
 *	of a 10-node devnet has 19 and 44; tools/bench/all.sh passes
 *	those), since /proc/self/{status,fd} and getrusage cost grow with
 *	both.  Totals since 2026-12-05; before, they were added to the
 *	bench's own ~15 threads and ~16 files.
 *   dn-observer-bench parts DIR ROUNDS [THREADS FDS]
 *	The agent's two parts alone, on this thread: ROUNDS times, 20 ms
 *	apart (cold caches, as at 1 Hz), one dn_sampler_read and one
 *	send of a sample-sized message to a sink as the agent sends it
 *	(dn_sppush_send since issue 26's fourth round, an nng PUSH's
 *	dn_sock_send before); then ROUNDS more of each of the sampler's
 *	reads alone, 20 ms apart (status_us, getrusage_us, io_us: the read
 *	of /proc/self/io, which getrusage's blocks replace since issue 26;
 *	fds_us:
 *	the fstat of /proc/self/fd; parse_us: finding status's three fields
 *	in its text; connected_us: dn_sppush_connected with no send since
 *	the last, i.e. its recv(2); connected_sent_us, measured in the
 *	first rounds: the same right after a send); prints the median
 *	and mean thread CPU of each in microseconds.
 *   dn-observer-bench wake SECONDS [INTERVAL_MS [THREADS FDS]]
 *	The floor beside the agent: a thread that waits on a condition
 *	variable until the next interval, as agent.c's loop does, and does
 *	nothing else; prints its CPU the way `agent` prints the agent's
 *	(wake_core_pct, steady_core_pct).  What a thread waking once per
 *	interval costs on this machine before it does any work.
 *   dn-observer-bench listen URL SECONDS
 *	Only the sink: a PULL socket on URL for SECONDS, so that a node
 *	with --metrics URL becomes ready (tools/bench/observer.sh).
 */
#include <dirent.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "clock.h"
#include "metric-table.h"
#include "procfs.h"
#include "protocol.h"
#include "sampler.h"
#include "sp-push.h"
#include "stats.h"
#include "transport.h"
#include "xalloc.h"

struct sink {
	struct dn_sock	*sock;
	atomic_int	 stop;
	atomic_llong	 msgs;
};

static void *
sink_main(void *arg)
{
	struct sink	*k = arg;
	void		*buf;
	size_t		 len;

	while (!atomic_load(&k->stop)) {
		if (dn_sock_recv(k->sock, &buf, &len, 50) == 0) {
			dn_msg_free(buf, len);
			atomic_fetch_add(&k->msgs, 1);
		}
	}
	return (NULL);
}

static int
sink_start(struct sink *k, pthread_t *th, const char *url)
{
	char	*cause = NULL;

	atomic_init(&k->stop, 0);
	atomic_init(&k->msgs, 0);
	if (dn_sock_open(&k->sock, DN_SOCK_PULL, &cause) != 0 ||
	    dn_sock_listen(k->sock, url, &cause) != 0) {
		fprintf(stderr, "dn-observer-bench: %s: %s\n", url, cause);
		free(cause);
		dn_sock_close(k->sock);
		return (-1);
	}
	if (pthread_create(th, NULL, sink_main, k) != 0) {
		fprintf(stderr, "dn-observer-bench: cannot start a thread\n");
		dn_sock_close(k->sock);
		return (-1);
	}
	return (0);
}

static void
sink_stop(struct sink *k, pthread_t th)
{
	atomic_store(&k->stop, 1);
	pthread_join(th, NULL);
	dn_sock_close(k->sock);
}

static void
fill_nothing(void *arg, double *values)
{
}

static long
rss_kib(void)
{
	FILE	*f = fopen("/proc/self/status", "r");
	char	 line[256];
	long	 v = -1;

	if (f == NULL)
		return (-1);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "VmRSS:", 6) == 0)
			v = atol(line + 6);
	}
	fclose(f);
	return (v);
}

#define WARM_S	2

static void *
idle_main(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return (NULL);
}

/* Entries of directory PATH, "." and ".." left out. */
static int
count_entries(const char *path)
{
	int	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), n;

	n = dn_procfs_dirents(fd, NULL, NULL);
	if (fd >= 0)
		close(fd);
	return (n);
}

/*
 * Make the process look like a node: idle threads (left to the process's
 * exit) until it has THREADS, and /dev/null files until it has FDS open
 * (the sampler's reads cost more with both; a devnet-node of a 10-node
 * devnet has 19 threads and 44 files, measured 2026-12-05).  Totals, not
 * additions: until then THREADS and FDS were added to the bench's own 15
 * threads (main and nng's) and ~16 files, which modelled a node of ~40
 * threads.  0 leaves that count alone.
 */
static int
look_like_node(int threads, int fds)
{
	pthread_t	t;
	int		i, n;

	n = threads > 0 ? count_entries("/proc/self/task") : 0;
	for (i = n; i < threads; i++) {
		if (pthread_create(&t, NULL, idle_main, NULL) != 0)
			return (-1);
		pthread_detach(t);
	}
	/* the directory's own fd was open while counting */
	n = fds > 0 ? count_entries("/proc/self/fd") - 1 : 0;
	for (i = n; i < fds; i++) {
		if (open("/dev/null", O_RDONLY | O_CLOEXEC) == -1)
			return (-1);
	}
	return (0);
}

/*
 * The collector's side, in a child process so that its CPU is not the
 * agent's: receives until the final sample (or until FIN reads EOF: the
 * `none` mode sends nothing) and writes what it saw to OUT as one line:
 * the samples, the median interval between consecutive ones and how far
 * they are from INTERVAL_MS (median, p99, max), from the headers' t_ns
 * (taken as each sample is sent).
 */
static void
sink_child(const char *url, int interval_ms, int fin, int out)
{
	struct dn_sock	*sock = NULL;
	struct dn_hdr	 h;
	struct dn_sample s;
	struct pollfd	 pfd = { .fd = fin, .events = POLLIN };
	double		*gap, *off;
	uint64_t	 last = 0;
	char		*cause = NULL, line[256];
	void		*buf;
	size_t		 len;
	int		 n = 0, done = 0, lenl;

	gap = dn_xcalloc(1 << 16, sizeof(*gap));
	off = dn_xcalloc(1 << 16, sizeof(*off));
	if (dn_sock_open(&sock, DN_SOCK_PULL, &cause) != 0 ||
	    dn_sock_listen(sock, url, &cause) != 0) {
		fprintf(stderr, "dn-observer-bench: %s: %s\n", url, cause);
		_exit(1);
	}
	while (!done) {
		if (dn_sock_recv(sock, &buf, &len, 50) == 0) {
			if (dn_hdr_check(buf, len, 0, 0, 1, &h) == 0 &&
			    h.kind == DN_MSG_SAMPLE) {
				if (last != 0 && n < (1 << 16)) {
					gap[n] = (double)(h.t_ns - last) / 1e6;
					off[n] = gap[n] > interval_ms ?
					    gap[n] - interval_ms :
					    interval_ms - gap[n];
					n++;
				}
				last = h.t_ns;
				/* the final sample is off the schedule */
				done = dn_sample_decode((uint8_t *)buf +
				    DN_HDR_SIZE, h.len, &s) == 0 &&
				    (s.flags & DN_SAMPLE_FINAL);
				if (done && n > 0)
					n--;
			}
			dn_msg_free(buf, len);
		}
		if (poll(&pfd, 1, 0) == 1)
			done = 1;
	}
	if (n > 0)
		lenl = snprintf(line, sizeof(line), "samples=%d "
		    "interval_ms_median=%.3f off_ms_median=%.3f "
		    "off_ms_p99=%.3f off_ms_max=%.3f", n + 1,
		    dn_stats_quantile(gap, (size_t)n, 0.5),
		    dn_stats_quantile(off, (size_t)n, 0.5),
		    dn_stats_quantile(off, (size_t)n, 0.99),
		    dn_stats_quantile(off, (size_t)n, 1));
	else
		lenl = snprintf(line, sizeof(line), "samples=%d", n);
	if (write(out, line, (size_t)lenl) != lenl)
		_exit(1);
	dn_sock_close(sock);
	_exit(0);
}

static double
now_thread_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3);
}

struct ticker {
	struct dn_agent	*a;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 stop;
	int		 on;		/* its thread runs */
	_Atomic pid_t	 tid;
	double		 work_us;	/* thread CPU inside its ticks */
};

/* `thread` mode: the agent ticked from a thread of its own that waits
 * for each due time, as agent.c's own thread did before issue 26's
 * third round: the same work plus a wake-up per sample. */
static void *
ticker_main(void *arg)
{
	struct ticker	*t = arg;
	struct timespec	 at;
	double		 t0;
	int		 due;

	atomic_store(&t->tid, gettid());
	pthread_mutex_lock(&t->mu);
	while (!t->stop) {
		t0 = now_thread_us();
		due = dn_agent_tick(t->a);
		t->work_us += now_thread_us() - t0;
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_nsec += (long)(due % 1000) * 1000000;
		at.tv_sec += due / 1000 + at.tv_nsec / 1000000000;
		at.tv_nsec %= 1000000000;
		while (!t->stop && pthread_cond_timedwait(&t->cv, &t->mu,
		    &at) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&t->mu);
	return (NULL);
}

/* CPU of this process's threads by kind, from each thread's schedstat
 * (ns of run time, exact, where getrusage and /proc's stat are scaled
 * from ticks). */
struct taskcpu {
	double	loop;		/* the thread that runs the loop (main) */
	double	ticker;		/* `thread` mode's ticking thread */
	double	expire;		/* nng's timer: it ends every timed wait */
	double	nng;		/* nng's other threads (tasks, ipc) */
	double	all;
};

static void
task_cpu(struct taskcpu *tc, pid_t ticker)
{
	DIR		*d = opendir("/proc/self/task");
	struct dirent	*e;
	char		 path[320], comm[32], buf[128];
	unsigned long long ns;
	double		 us;
	pid_t		 tid;
	int		 fd;
	ssize_t		 n;

	memset(tc, 0, sizeof(*tc));
	while (d != NULL && (e = readdir(d)) != NULL) {
		if ((tid = (pid_t)atol(e->d_name)) <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat",
		    e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		ns = strtoull(buf, NULL, 10);
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
		    e->d_name);
		comm[0] = '\0';
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1) {
			n = read(fd, comm, sizeof(comm) - 1);
			close(fd);
			comm[n > 0 ? n : 0] = '\0';
		}
		us = (double)ns / 1e3;
		tc->all += us;
		if (tid == getpid())
			tc->loop += us;
		else if (tid == ticker)
			tc->ticker += us;
		else if (strncmp(comm, "nng:aio:expire", 14) == 0)
			tc->expire += us;
		else if (strncmp(comm, "nng:", 4) == 0)
			tc->nng += us;
	}
	if (d != NULL)
		closedir(d);
}

/* Stop `thread` mode's ticker, if it runs. */
static void
ticker_stop(struct ticker *t, pthread_t th)
{
	if (!t->on)
		return;
	pthread_mutex_lock(&t->mu);
	t->stop = 1;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
	pthread_join(th, NULL);
	t->on = 0;
}

/* % of a core of thread kind F between the loop's two readings */
#define PCT(r, f)	(((r).c1.f - (r).c0.f) / (r).span / 1e4)

struct loopres {
	struct taskcpu	c0, c1;		/* after WARM_S, at the end */
	double		span;		/* s between them */
	double		work;		/* % of a core in sampling ticks */
	int		wakes;
};

/*
 * devnet-node's control loop once ready, for SECONDS: a receive in
 * poll(2) on its REP socket for LOOP_MS at most ($DN_LOOP_MS, else 1000:
 * node.c's IDLE_WAIT_MS), cut to the agent's due time when TICK; nobody
 * sends to it here.
 */
static void
control_loop(struct dn_sock *ctl, struct ticker *t, int tick, int seconds,
    struct loopres *r)
{
	uint64_t	 t0 = dn_now_ns(), warm, end;
	double		 w0, work_us = 0, work0 = 0;
	int		 wait, due = 0, sampling = 0, loop_ms = 1000;
	void		*msg;
	size_t		 len;

	if (getenv("DN_LOOP_MS") != NULL && atoi(getenv("DN_LOOP_MS")) > 0)
		loop_ms = atoi(getenv("DN_LOOP_MS"));

	warm = t0 + WARM_S * 1000000000ull;
	end = t0 + (uint64_t)seconds * 1000000000ull;
	memset(r, 0, sizeof(*r));
	while (dn_now_ns() < end) {
		wait = loop_ms;
		/* the thread CPU of the ticks that sample (the clock read
		 * is a system call: only where a sample is due), with the
		 * question devnet-node's loop asks the agent every turn
		 * (devnet_gone): a recv(2) on its socket since the agent
		 * writes its own SP framing (issue 26, fourth round) */
		if (tick && sampling) {
			w0 = now_thread_us();
			(void)dn_agent_connected(t->a);
			due = dn_agent_tick(t->a);
			work_us += now_thread_us() - w0;
		} else if (tick) {
			(void)dn_agent_connected(t->a);
			due = dn_agent_tick(t->a);
		}
		if (tick && due < wait)
			wait = due;
		sampling = tick && due <= wait;
		if (dn_sock_recv_idle(ctl, &msg, &len, wait) == 0)
			dn_msg_free(msg, len);
		r->wakes++;
		if (warm != 0 && dn_now_ns() >= warm) {
			task_cpu(&r->c0, atomic_load(&t->tid));
			/* the ticker ticks under its lock */
			if (t->on)
				pthread_mutex_lock(&t->mu);
			work0 = work_us + t->work_us;
			if (t->on)
				pthread_mutex_unlock(&t->mu);
			warm = 0;
			r->wakes = 0;
			t0 = dn_now_ns();
		}
	}
	task_cpu(&r->c1, atomic_load(&t->tid));
	r->span = (double)(dn_now_ns() - t0) / 1e9;
	if (t->on)
		pthread_mutex_lock(&t->mu);
	r->work = (work_us + t->work_us - work0) / r->span / 1e4;
	if (t->on)
		pthread_mutex_unlock(&t->mu);
}

static int
run_agent(const char *dir, int seconds, int interval_ms, int threads,
    int fds, const char *mode)
{
	struct dn_agent_config	 cfg;
	struct ticker		 t = { .stop = 0 };
	struct loopres		 r;
	struct dn_sock		*ctl = NULL;
	pthread_condattr_t	 ca;
	pthread_t		 th;
	char			*url, *ctl_url, *cause = NULL, line[256];
	long			 rss0 = 0, rss1;
	int			 fin[2], out[2], rv = 1, tick, nl, st;
	pid_t			 pid;

	tick = strcmp(mode, "tick") == 0;
	if (!tick && strcmp(mode, "thread") != 0 &&
	    strcmp(mode, "none") != 0) {
		fprintf(stderr, "dn-observer-bench: mode '%s': say tick, "
		    "thread or none\n", mode);
		return (2);
	}
	url = dn_xasprintf("ipc://%s/c", dir);
	ctl_url = dn_xasprintf("ipc://%s/ctl", dir);
	/* before any nng call: nng's threads do not survive a fork */
	if (pipe(fin) != 0 || pipe(out) != 0 || (pid = fork()) == -1) {
		fprintf(stderr, "dn-observer-bench: cannot start the sink\n");
		goto out_noproc;
	}
	if (pid == 0) {
		close(fin[1]);
		close(out[0]);
		sink_child(url, interval_ms, fin[0], out[1]);
	}
	close(fin[0]);
	close(out[1]);
	memset(&cfg, 0, sizeof(cfg));
	cfg.url = url;
	cfg.interval_ms = interval_ms;
	cfg.fill = fill_nothing;
	/* nng's threads first (the REP socket starts them), then the
	 * node's count of threads; its count of files once the agent has
	 * its own (a thread's stack would count in the RSS growth, a file
	 * does not) */
	if (dn_sock_open(&ctl, DN_SOCK_REP, &cause) != 0 ||
	    dn_sock_listen(ctl, ctl_url, &cause) != 0 ||
	    look_like_node(threads, 0) != 0) {
		fprintf(stderr, "dn-observer-bench: %s\n",
		    cause != NULL ? cause : "cannot look like a node");
		goto out;
	}
	dn_msleep(200);
	rss0 = rss_kib();
	if (strcmp(mode, "none") != 0 &&
	    dn_agent_start(&t.a, &cfg, &cause) != 0) {
		fprintf(stderr, "dn-observer-bench: %s\n", cause);
		goto out;
	}
	if (look_like_node(0, fds) != 0) {
		fprintf(stderr, "dn-observer-bench: cannot open files\n");
		goto out;
	}
	if (strcmp(mode, "thread") == 0) {
		pthread_mutex_init(&t.mu, NULL);
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&t.cv, &ca);
		if (pthread_create(&th, NULL, ticker_main, &t) != 0)
			goto out;
		t.on = 1;
	}
	control_loop(ctl, &t, tick, seconds, &r);
	rss1 = rss_kib();
	ticker_stop(&t, th);
	dn_agent_stop(t.a);
	t.a = NULL;
	/* the sink is done at the final sample, or here (none) */
	close(fin[1]);
	fin[1] = -1;
	nl = (int)read(out[0], line, sizeof(line) - 1);
	line[nl > 0 ? nl : 0] = '\0';
	/* % of a core after the first WARM_S s, by thread kind */
	printf("mode=%s interval_ms=%d threads=%d fds=%d seconds=%d "
	    "agent_core_pct=%.5f loop_wakes_per_s=%.2f process_core_pct=%.5f "
	    "loop_core_pct=%.5f ticker_core_pct=%.5f expire_core_pct=%.5f "
	    "nng_core_pct=%.5f work_core_pct=%.5f rss_growth_kib=%ld %s\n",
	    mode, interval_ms, threads, fds, seconds,
	    (tick ? r.work : PCT(r, ticker)) + PCT(r, nng),
	    (double)r.wakes / r.span, PCT(r, all), PCT(r, loop),
	    PCT(r, ticker), PCT(r, expire), PCT(r, nng), r.work, rss1 - rss0,
	    line);
	rv = 0;
out:
	ticker_stop(&t, th);
	dn_agent_stop(t.a);
	dn_sock_close(ctl);
	if (fin[1] >= 0)
		close(fin[1]);
	close(out[0]);
	waitpid(pid, &st, 0);
out_noproc:
	free(cause);
	free(url);
	free(ctl_url);
	return (rv);
}

struct waker {
	pthread_mutex_t	mu;
	pthread_cond_t	cv;
	int		interval_ms;
	int		stop;
	double		warm_cpu, cpu;
};

/* agent.c's schedule (start + k * interval), and nothing else */
static void *
waker_main(void *arg)
{
	struct waker	*w = arg;
	struct timespec	 next;
	time_t		 warm_at;

	clock_gettime(CLOCK_MONOTONIC, &next);
	warm_at = next.tv_sec + WARM_S;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		next.tv_nsec += (long)(w->interval_ms % 1000) * 1000000;
		next.tv_sec += w->interval_ms / 1000 +
		    next.tv_nsec / 1000000000;
		next.tv_nsec %= 1000000000;
		while (!w->stop && pthread_cond_timedwait(&w->cv, &w->mu,
		    &next) != ETIMEDOUT)
			;
		if (w->stop)
			break;
		/* as `agent`: the CPU after the first WARM_S seconds */
		if (w->warm_cpu == 0 && next.tv_sec >= warm_at)
			w->warm_cpu = now_thread_us();
	}
	w->cpu = now_thread_us();
	pthread_mutex_unlock(&w->mu);
	return (NULL);
}

static int
run_wake(int seconds, int interval_ms, int threads, int fds)
{
	struct waker		w = { .interval_ms = interval_ms };
	pthread_condattr_t	ca;
	pthread_t		th;

	if (look_like_node(threads, fds) != 0)
		return (1);
	pthread_mutex_init(&w.mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w.cv, &ca);
	if (pthread_create(&th, NULL, waker_main, &w) != 0)
		return (1);
	sleep((unsigned)seconds);
	pthread_mutex_lock(&w.mu);
	w.stop = 1;
	pthread_cond_signal(&w.cv);
	pthread_mutex_unlock(&w.mu);
	pthread_join(th, NULL);
	printf("interval_ms=%d threads=%d fds=%d seconds=%d wake_cpu_ms=%.3f "
	    "wake_core_pct=%.5f steady_core_pct=%.5f\n", interval_ms, threads,
	    fds, seconds, w.cpu / 1e3, w.cpu / 1e4 / seconds,
	    w.warm_cpu > 0 && seconds > WARM_S ?
	    (w.cpu - w.warm_cpu) / 1e4 / (seconds - WARM_S) :
	    w.cpu / 1e4 / seconds);
	return (0);
}

/*
 * Each of the sampler's reads alone, after a 20 ms sleep (cold, as at
 * 1 Hz: measured in the same round after the others, a read finds their
 * caches warm): round i times read i % NREADS.  Into US[read][round].
 */
#define NREADS	6
static const char *const read_names[NREADS] = { "status", "getrusage",
    "io", "fds", "parse", "connected" };

static void
parts_split(struct dn_sampler *sp, struct dn_sppush *push, int rounds,
    double **us)
{
	struct rusage	ru;
	struct stat	st;
	char		buf[4096];
	double		t0, t1;
	int		i, k, io_fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);

	(void)dn_procfs_read(sp->fd_status, buf, sizeof(buf));
	for (i = 0; i < rounds * NREADS; i++) {
		dn_msleep(20);
		k = i % NREADS;
		t0 = now_thread_us();
		switch (k) {
		case 0:
			(void)dn_procfs_read(sp->fd_status, buf, sizeof(buf));
			break;
		case 1:
			(void)getrusage(RUSAGE_SELF, &ru);
			break;
		case 2:	/* what the sampler read for storage I/O until
			 * issue 26 (getrusage's blocks since) */
			(void)pread(io_fd, buf, sizeof(buf), 0);
			break;
		case 3:
			(void)fstat(sp->fd_fds, &st);
			break;
		case 5:	/* devnet-node's question each turn, no send since
			 * the last: the read of the peer's side */
			(void)dn_sppush_connected(push);
			break;
		default:	/* the status text's three fields */
			(void)dn_procfs_read(sp->fd_status, buf, sizeof(buf));
			t0 = now_thread_us();
			(void)dn_procfs_field(buf, "VmRSS:");
			(void)dn_procfs_field(buf, "VmHWM:");
			(void)dn_procfs_field(buf, "Threads:");
		}
		t1 = now_thread_us();
		us[k][i / NREADS] = t1 - t0;
	}
	if (io_fd >= 0)
		close(io_fd);
}

static int
run_parts(const char *dir, int rounds, int threads, int fds)
{
	double	*split[NREADS];
	struct dn_sampler	 sp = { .fd_status = -1, .fd_fds = -1,
				    .fd_cgmem = -1 };
	struct dn_sppush	*push = NULL;
	struct sink		 k;
	pthread_t		 th;
	double			 v[DN_METRIC_COUNT], *rd, *snd, *cn, t0, t1,
				 t2;
	uint8_t			 msg[DN_HDR_SIZE + 8 + 8 * DN_METRIC_COUNT];
	char			*url, *cause = NULL;
	int			 i, rv = 1;

	url = dn_xasprintf("ipc://%s/c", dir);
	rd = dn_xcalloc((size_t)rounds, sizeof(*rd));
	snd = dn_xcalloc((size_t)rounds, sizeof(*snd));
	cn = dn_xcalloc((size_t)rounds, sizeof(*cn));
	memset(msg, 1, sizeof(msg));
	if (sink_start(&k, &th, url) != 0)
		goto out_nosink;
	if (dn_sampler_open(&sp, &cause) != 0 ||
	    dn_sppush_open(&push, url, 1u << 19, &cause) != 0 ||
	    look_like_node(threads, fds) != 0) {
		fprintf(stderr, "dn-observer-bench: %s\n",
		    cause != NULL ? cause : "cannot look like a node");
		goto out;
	}
	dn_msleep(200);
	for (i = 0; i < rounds; i++) {
		dn_msleep(20);
		t0 = now_thread_us();
		dn_sampler_read(&sp, v);
		t1 = now_thread_us();
		(void)dn_sppush_send(push, msg, sizeof(msg), 0);
		t2 = now_thread_us();
		/* the loop's question after a turn that sent: over ipc
		 * the send answered it, no read */
		(void)dn_sppush_connected(push);
		cn[i] = now_thread_us() - t2;
		rd[i] = t1 - t0;
		snd[i] = t2 - t1;
	}
	printf("rounds=%d threads=%d fds=%d sampler_us_median=%.1f "
	    "sampler_us_mean=%.1f send_us_median=%.1f send_us_mean=%.1f",
	    rounds, threads, fds, dn_stats_quantile(rd, (size_t)rounds, 0.5),
	    dn_stats_mean(rd, (size_t)rounds),
	    dn_stats_quantile(snd, (size_t)rounds, 0.5),
	    dn_stats_mean(snd, (size_t)rounds));
	printf(" connected_sent_us_median=%.1f",
	    dn_stats_quantile(cn, (size_t)rounds, 0.5));
	for (i = 0; i < NREADS; i++)
		split[i] = dn_xcalloc((size_t)rounds, sizeof(double));
	parts_split(&sp, push, rounds, split);
	for (i = 0; i < NREADS; i++) {
		printf(" %s_us_median=%.1f", read_names[i],
		    dn_stats_quantile(split[i], (size_t)rounds, 0.5));
		free(split[i]);
	}
	printf("\n");
	rv = 0;
out:
	free(cause);
	dn_sppush_close(push);
	dn_sampler_close(&sp);
	sink_stop(&k, th);
out_nosink:
	free(rd);
	free(snd);
	free(cn);
	free(url);
	return (rv);
}

static int
run_listen(const char *url, int seconds)
{
	struct sink	k;
	pthread_t	th;

	if (sink_start(&k, &th, url) != 0)
		return (1);
	sleep((unsigned)seconds);
	sink_stop(&k, th);
	printf("msgs=%lld\n", (long long)atomic_load(&k.msgs));
	return (0);
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "agent") == 0 &&
	    atoi(argv[3]) > WARM_S)
		return (run_agent(argv[2], atoi(argv[3]),
		    argc > 4 && atoi(argv[4]) > 0 ? atoi(argv[4]) : 1000,
		    argc > 5 ? atoi(argv[5]) : 0, argc > 6 ? atoi(argv[6]) : 0,
		    argc > 7 ? argv[7] : "tick"));
	if (argc >= 3 && strcmp(argv[1], "wake") == 0 && atoi(argv[2]) > 0)
		return (run_wake(atoi(argv[2]),
		    argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 1000,
		    argc > 4 ? atoi(argv[4]) : 0, argc > 5 ? atoi(argv[5]) : 0));
	if (argc >= 4 && strcmp(argv[1], "parts") == 0 && atoi(argv[3]) > 0)
		return (run_parts(argv[2], atoi(argv[3]),
		    argc > 4 ? atoi(argv[4]) : 0, argc > 5 ? atoi(argv[5]) : 0));
	if (argc == 4 && strcmp(argv[1], "listen") == 0 && atoi(argv[3]) > 0)
		return (run_listen(argv[2], atoi(argv[3])));
	fprintf(stderr, "usage: dn-observer-bench agent DIR SECONDS "
	    "[INTERVAL_MS [THREADS FDS [tick|thread|none]]]\n       dn-observer-bench parts DIR "
	    "ROUNDS [THREADS FDS]\n       dn-observer-bench wake SECONDS "
	    "[INTERVAL_MS [THREADS FDS]]\n       dn-observer-bench listen URL "
	    "SECONDS\n");
	return (2);
}
