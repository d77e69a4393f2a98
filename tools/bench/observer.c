/*
 * observer.c: issue 6 target 2, the cost of the node's metrics agent.
 *
 *   dn-observer-bench agent DIR SECONDS [INTERVAL_MS]
 *	Listens on ipc://DIR/c like a collector (a sink thread counts what
 *	arrives), then starts the real agent (metrics/agent/agent.c, the node's
 *	own sampler and allocation counter; the fill callback leaves the
 *	node-provided values at 0) and lets it sample for SECONDS.  Prints
 *	key=value pairs: the agent thread's CPU (its per-thread CPU clock),
 *	as ms per second and as % of one core, and the RSS the process grew
 *	by from just before dn_agent_start to the end.
 *	With THREADS and FDS, the process first looks like a node: THREADS
 *	idle threads and FDS more open files (a devnet-node with RocksDB has
 *	about 25 and 40), since /proc/self/{status,io,fd} and getrusage cost
 *	grow with both.  steady_core_pct leaves out the first WARM_S (2) s:
 *	the first sample's one-time costs (the agent thread's malloc arena,
 *	lazy symbol binding), which a node pays once, not every second.
 *   dn-observer-bench parts DIR ROUNDS [THREADS FDS]
 *	The agent's two parts alone, on this thread: ROUNDS times, 20 ms
 *	apart (cold caches, as at 1 Hz), one dn_sampler_read and one
 *	dn_sock_send of a sample-sized message to a sink; prints the median
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
#include "metric-table.h"
#include "protocol.h"
#include "sampler.h"
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

/* Thread ids of this process, as a bitmap over tids below MAX. */
static void
tids(uint8_t *map, size_t max)
{
	DIR		*d = opendir("/proc/self/task");
	struct dirent	*e;

	memset(map, 0, max / 8);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		long	tid = atol(e->d_name);

		if (tid > 0 && (size_t)tid < max)
			map[tid / 8] |= (uint8_t)(1u << (tid % 8));
	}
	closedir(d);
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

/* CPU seconds of thread TID of this process (Linux per-thread clock). */
static double
thread_cpu_s(long tid)
{
	struct timespec	ts;
	clockid_t	clk = (clockid_t)((~(unsigned long)tid << 3) | 6);

	if (clock_gettime(clk, &ts) != 0)
		return (-1);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

#define TID_MAX	(1u << 22)
#define WARM_S	2

static void *
idle_main(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return (NULL);
}

/* Make the process look like a node: THREADS idle threads (left to the
 * process's exit) and FDS open files. */
static int
look_like_node(int threads, int fds)
{
	pthread_t	t;
	int		i;

	for (i = 0; i < threads; i++) {
		if (pthread_create(&t, NULL, idle_main, NULL) != 0)
			return (-1);
		pthread_detach(t);
	}
	for (i = 0; i < fds; i++) {
		if (open("/dev/null", O_RDONLY | O_CLOEXEC) == -1)
			return (-1);
	}
	return (0);
}

static int
run_agent(const char *dir, int seconds, int interval_ms, int threads,
    int fds)
{
	struct dn_agent_config	 cfg;
	struct dn_agent		*a = NULL;
	struct sink		 k;
	pthread_t		 th;
	uint8_t			*before, *after;
	char			*url, *cause = NULL;
	long			 tid, agent_tid = -1, rss0, rss1;
	double			 cpu, warm = 0;
	int			 rv = 1, nnew = 0;

	url = dn_xasprintf("ipc://%s/c", dir);
	if (sink_start(&k, &th, url) != 0) {
		free(url);
		return (1);
	}
	if (look_like_node(threads, fds) != 0) {
		fprintf(stderr, "dn-observer-bench: cannot make %d threads "
		    "and %d files\n", threads, fds);
		sink_stop(&k, th);
		free(url);
		return (1);
	}
	before = dn_xmalloc(TID_MAX / 8);
	after = dn_xmalloc(TID_MAX / 8);
	dn_msleep(200);
	tids(before, TID_MAX);
	rss0 = rss_kib();
	memset(&cfg, 0, sizeof(cfg));
	cfg.url = url;
	cfg.interval_ms = interval_ms;
	cfg.fill = fill_nothing;
	if (dn_agent_start(&a, &cfg, &cause) != 0) {
		fprintf(stderr, "dn-observer-bench: %s\n", cause);
		free(cause);
		goto out;
	}
	tids(after, TID_MAX);
	for (tid = 1; tid < (long)TID_MAX; tid++) {
		if ((after[tid / 8] & (1u << (tid % 8))) &&
		    !(before[tid / 8] & (1u << (tid % 8)))) {
			agent_tid = tid;
			nnew++;
		}
	}
	if (nnew != 1) {
		fprintf(stderr, "dn-observer-bench: %d new threads after "
		    "dn_agent_start, expected 1\n", nnew);
		goto out;
	}
	if (seconds > WARM_S) {
		sleep(WARM_S);
		warm = thread_cpu_s(agent_tid);
		sleep((unsigned)(seconds - WARM_S));
	} else
		sleep((unsigned)seconds);
	cpu = thread_cpu_s(agent_tid);
	rss1 = rss_kib();
	printf("interval_ms=%d threads=%d fds=%d seconds=%d samples=%lld "
	    "agent_cpu_ms=%.3f agent_cpu_ms_per_s=%.4f agent_core_pct=%.5f "
	    "steady_core_pct=%.5f rss_growth_kib=%ld\n", interval_ms, threads,
	    fds, seconds, (long long)atomic_load(&k.msgs), cpu * 1e3,
	    cpu * 1e3 / seconds, cpu * 100 / seconds, seconds > WARM_S ?
	    (cpu - warm) * 100 / (seconds - WARM_S) : cpu * 100 / seconds,
	    rss1 - rss0);
	rv = 0;
out:
	dn_agent_stop(a);
	sink_stop(&k, th);
	free(before);
	free(after);
	free(url);
	return (rv);
}

static double
now_thread_us(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3);
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

static int
run_parts(const char *dir, int rounds, int threads, int fds)
{
	struct dn_sampler	 sp = { .fd_status = -1, .fd_io = -1,
				    .fd_fds = -1, .fd_cgmem = -1 };
	struct dn_sock		*push = NULL;
	struct sink		 k;
	pthread_t		 th;
	double			 v[DN_METRIC_COUNT], *rd, *snd, t0, t1, t2;
	uint8_t			 msg[DN_HDR_SIZE + 8 + 8 * DN_METRIC_COUNT];
	char			*url, *cause = NULL;
	int			 i, rv = 1;

	url = dn_xasprintf("ipc://%s/c", dir);
	rd = dn_xcalloc((size_t)rounds, sizeof(*rd));
	snd = dn_xcalloc((size_t)rounds, sizeof(*snd));
	memset(msg, 1, sizeof(msg));
	if (sink_start(&k, &th, url) != 0)
		goto out_nosink;
	if (look_like_node(threads, fds) != 0 ||
	    dn_sampler_open(&sp, &cause) != 0 ||
	    dn_sock_open(&push, DN_SOCK_PUSH, &cause) != 0 ||
	    dn_sock_dial(push, url, &cause) != 0) {
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
		(void)dn_sock_send(push, msg, sizeof(msg), 1);
		t2 = now_thread_us();
		rd[i] = t1 - t0;
		snd[i] = t2 - t1;
	}
	printf("rounds=%d threads=%d fds=%d sampler_us_median=%.1f "
	    "sampler_us_mean=%.1f send_us_median=%.1f send_us_mean=%.1f\n",
	    rounds, threads, fds, dn_stats_quantile(rd, (size_t)rounds, 0.5),
	    dn_stats_mean(rd, (size_t)rounds),
	    dn_stats_quantile(snd, (size_t)rounds, 0.5),
	    dn_stats_mean(snd, (size_t)rounds));
	rv = 0;
out:
	free(cause);
	dn_sock_close(push);
	dn_sampler_close(&sp);
	sink_stop(&k, th);
out_nosink:
	free(rd);
	free(snd);
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
	if (argc >= 4 && strcmp(argv[1], "agent") == 0 && atoi(argv[3]) > 0)
		return (run_agent(argv[2], atoi(argv[3]),
		    argc > 4 && atoi(argv[4]) > 0 ? atoi(argv[4]) : 1000,
		    argc > 5 ? atoi(argv[5]) : 0, argc > 6 ? atoi(argv[6]) : 0));
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
	    "[INTERVAL_MS [THREADS FDS]]\n       dn-observer-bench parts DIR "
	    "ROUNDS [THREADS FDS]\n       dn-observer-bench wake SECONDS "
	    "[INTERVAL_MS [THREADS FDS]]\n       dn-observer-bench listen URL "
	    "SECONDS\n");
	return (2);
}
