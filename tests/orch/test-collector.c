/*
 * test-collector.c: the collector stores every sample it is sent, under
 * the node that sent it.  Three fake nodes push a known number of SAMPLE
 * messages each (blocking sends, so none is lost on the way) to a real
 * collector (collector_start, orchestrator/), then the store must hold
 * exactly that many rows of every node metric per node, each value
 * carrying its sender's index, and the collector must count no gap.
 *
 * And a node on another host (remote_clock): its messages carry its own
 * clock, an hour ahead here; its samples must be stored at the times of
 * ours, sent at the same moments, the first one too though it arrives 30
 * ms late (the offset is the least delay of all, not of the first).
 *
 * And a node's first HELLO ends the runner's wait for readiness at once
 * (the collector wakes the main thread, orchestrator/sys/wake.h); a
 * second HELLO of the same process does not.
 *
 * And the load generator's samples (node -1): its latencies' p50, p99
 * and max and its send lag's p99 per interval are the quantiles compare
 * takes (dn_stats_quantile, type 7), not another definition.
 *
 * Not here: a real devnet (tests/e2e/smoke.sh checks the same on one, less
 * exactly: timing there is real), hostile messages (tests/e2e/hostile.sh).
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "metric-table.h"
#include "protocol.h"
#include "store.h"
#include "transport.h"
#include "trial/trial.h"
#include "trial/trial-store.h"
#include "clock.h"
#include "trial/collector.h"
#include "run/runner.h"
#include "run/runner-internal.h"
#include "xalloc.h"

#define NODES		3
#define SAMPLES		97	/* per node; not a multiple of anything */
#define INTERVAL_MS	100
#define TOKEN		0x5eed5eedull

struct count {
	int64_t	v[NODES + 2][3];	/* per node + 1: rows, bad value, min t */
};

static int
count_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	int64_t	*out = arg;
	int	 i;

	(void)names;
	(void)types;
	for (i = 0; i < ncols; i++)
		out[i] = values[i] != NULL ? strtoll(values[i], NULL, 10) : -1;
	return (0);
}

/* One value: sender K's index in the thousands, the sequence below. */
static double
value_of(int k, uint64_t seq)
{
	return ((double)(k + 1) * 1000.0 + (double)seq);
}

/* A real collector on a fresh store, for a trial of NODES fake nodes,
 * t=0 a second ago; a PUSH socket per node, dialled to it. */
struct fixture {
	char			 dir[64];
	char			*dbpath, *url;
	struct dn_store		*store;
	struct scenario		 scn;
	struct trial		 t;
	struct collector	*col;
	struct dn_sock		*sock[NODES];
	int64_t			 rid;
};

static void
fixture_up(struct fixture *f, int nodes, int64_t interval_ms,
    int64_t duration_ms, const char *name)
{
	struct dn_run_info	 ri = { .scenario_name = name,
				    .variant = "A", .nodes = nodes };
	char			*cause = NULL;
	int			 k;

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/dn-col-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->dbpath = dn_xasprintf("%s/t.db", f->dir);
	f->url = dn_xasprintf("ipc://%s/collector", f->dir);
	if (dn_store_open(&f->store, f->dbpath, 0, &cause) != 0 ||
	    dn_store_run_begin(f->store, &ri, &f->rid, &cause) != 0)
		fail_msg("store: %s", cause);
	for (k = 0; k < nodes; k++)
		assert_int_equal(dn_store_node_add(f->store, f->rid, k,
		    100 + k, "/bin/true", "", "fake", &cause), 0);
	f->scn.duration_ms = duration_ms;
	f->scn.sample_interval_ms = interval_ms;
	f->scn.network.nodes = nodes;
	f->t.scn = &f->scn;
	f->t.run_id = f->rid;
	f->t.token = TOKEN;
	f->t.metrics_url = f->url;
	f->t.nnodes = nodes;
	f->t.nodes = dn_xcalloc((size_t)nodes, sizeof(*f->t.nodes));
	pthread_mutex_init(&f->t.mu, NULL);
	f->t.store = trial_store_new(f->store);
	f->t.spawn_ns = dn_now_ns();
	/* t=0 a second ago: every sample sent is part of the trial. */
	atomic_init(&f->t.t0_ns, f->t.spawn_ns - 1000000000ull);
}

/* Start the collector and dial it from every fake node (after the
 * caller set what the nodes are). */
static void
fixture_start(struct fixture *f)
{
	char	*cause = NULL;
	int	 k;

	if (collector_start(&f->t, &f->col, &cause) != 0)
		fail_msg("collector_start: %s", cause);
	for (k = 0; k < f->t.nnodes; k++) {
		if (dn_sock_open(&f->sock[k], DN_SOCK_PUSH, &cause) != 0 ||
		    dn_sock_dial(f->sock[k], f->url, &cause) != 0)
			fail_msg("node %d: %s", k, cause);
	}
}

/* One SAMPLE of node K: every value V, stamped T_NS. */
static void
fixture_send(struct fixture *f, int k, uint64_t seq, int final,
    uint64_t t_ns, double v)
{
	uint8_t			buf[DN_HDR_SIZE + 8 + 8 * DN_SAMPLE_MAX];
	struct dn_hdr		h = { .token = TOKEN, .node = (uint32_t)k,
				    .seq = seq, .t_ns = t_ns };
	struct dn_sample	s;
	size_t			n;
	int			m;

	memset(&s, 0, sizeof(s));
	s.count = DN_METRIC_COUNT;
	s.flags = final ? DN_SAMPLE_FINAL : 0;
	for (m = 0; m < DN_METRIC_COUNT; m++)
		s.values[m] = v;
	n = dn_sample_encode(buf, sizeof(buf), &h, &s);
	assert_true(n > 0);
	assert_int_equal(dn_sock_send(f->sock[k], buf, n, 0), 0);
}

/* Wait for every final sample: the collector stops on them. */
static void
fixture_stop(struct fixture *f)
{
	int	k;

	collector_stop(f->col, 10000);
	for (k = 0; k < f->t.nnodes; k++)
		dn_sock_close(f->sock[k]);
}

static void
fixture_down(struct fixture *f)
{
	char	*rm;

	trial_store_free(f->t.store);
	dn_store_close(f->store);
	pthread_mutex_destroy(&f->t.mu);
	free(f->t.nodes);
	free(f->t.store_error);
	rm = dn_xasprintf("rm -rf '%s'", f->dir);
	(void)!system(rm);
	free(rm);
	free(f->dbpath);
	free(f->url);
}

/* Node K's HELLO (pid PID). */
static void
fixture_hello(struct fixture *f, int k, uint32_t pid)
{
	uint8_t		buf[DN_HDR_SIZE + DN_HELLO_SIZE];
	struct dn_hdr	h = { .kind = DN_MSG_HELLO, .token = TOKEN,
			    .node = (uint32_t)k, .len = DN_HELLO_SIZE,
			    .t_ns = dn_now_ns() };

	dn_hdr_put(buf, &h);
	dn_put_u32(buf + DN_HDR_SIZE, pid);
	dn_put_u32(buf + DN_HDR_SIZE + 4, 0);
	assert_int_equal(dn_sock_send(f->sock[k], buf, sizeof(buf), 0), 0);
}

static struct fixture	*late_f;

/* Node 0's first HELLO, 100 ms after the runner began to wait. */
static void *
late_hello(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
	fixture_hello(late_f, 0, 4242);
	return (NULL);
}

static double
since_ms(uint64_t t0)
{
	return ((double)(dn_now_ns() - t0) / 1e6);
}

/*
 * The runner's main thread waits for the nodes' HELLOs in
 * signals_tick (run/watch.c); a node's first HELLO ends that wait at once
 * (the collector wakes it, sys/wake.h), not at the next tick: the wait is
 * 10 s here.  A wake is not a stop signal, and only the first HELLO of a
 * process wakes: after a second one the wait runs its time.
 */
static void
hello_wakes_the_runner(void **state)
{
	struct fixture	f;
	pthread_t	th;
	uint64_t	t0;
	double		ms;

	(void)state;
	fixture_up(&f, 1, 10, 10000, "wake-test");
	fixture_start(&f);
	late_f = &f;
	t0 = dn_now_ns();
	pthread_create(&th, NULL, late_hello, NULL);
	signals_tick(10000);
	ms = since_ms(t0);
	pthread_join(th, NULL);
	print_message("first HELLO 100 ms in: the wait ended after %.1f ms\n",
	    ms);
	assert_true(ms >= 90 && ms < 5000);
	pthread_mutex_lock(&f.t.mu);
	assert_int_equal(f.t.nodes[0].hello, 1);
	pthread_mutex_unlock(&f.t.mu);
	assert_int_equal(signals_count, 0);

	fixture_hello(&f, 0, 4243);
	t0 = dn_now_ns();
	signals_tick(300);
	ms = since_ms(t0);
	print_message("second HELLO: the wait ended after %.1f ms\n", ms);
	assert_true(ms >= 250);
	pthread_mutex_lock(&f.t.mu);
	assert_int_equal(f.t.nodes[0].hello, 2);
	assert_int_equal(f.t.nodes[0].cmd_pid, 4242);
	pthread_mutex_unlock(&f.t.mu);
	assert_int_equal(signals_count, 0);
	fixture_send(&f, 0, 1, 1, dn_now_ns(), 1);
	fixture_stop(&f);
	fixture_down(&f);
}

static void
every_sample_under_its_node(void **state)
{
	struct fixture	 f;
	char		*cause = NULL, *sql;
	uint64_t	 seq;
	int64_t		 got[4];
	int		 k, m, nnode_metrics = 0;

	(void)state;
	fixture_up(&f, NODES, INTERVAL_MS, SAMPLES * INTERVAL_MS,
	    "collector-test");
	fixture_start(&f);
	/* Interleaved, as real nodes are. */
	for (seq = 1; seq <= SAMPLES; seq++) {
		for (k = 0; k < NODES; k++)
			fixture_send(&f, k, seq, seq == SAMPLES,
			    atomic_load(&f.t.t0_ns) +
			    seq * INTERVAL_MS * 1000000ull, value_of(k, seq));
	}
	fixture_stop(&f);

	for (m = 0; m < DN_METRIC_COUNT; m++)
		nnode_metrics += dn_metric_defs[m].source == DN_SOURCE_N;
	for (k = -1; k <= NODES; k++) {
		int	want = k >= 0 && k < NODES ? SAMPLES : 0;

		/* rows; rows whose value is not the sender's; distinct
		 * times; rows whose time is not the sequence's */
		sql = dn_xasprintf("SELECT count(*), "
		    "coalesce(sum(CAST(value AS INTEGER) / 1000 != %d), 0), "
		    "count(DISTINCT t_ms), coalesce(sum(t_ms != "
		    "(CAST(value AS INTEGER) %% 1000) * %d), 0) "
		    "FROM samples WHERE run_id = %lld AND node = %d",
		    k + 1, INTERVAL_MS, (long long)f.rid, k);
		memset(got, 0, sizeof(got));
		if (dn_store_query(f.store, sql, NULL, 0, count_row, got,
		    &cause) != 0)
			fail_msg("query: %s", cause);
		free(sql);
		print_message("node %d: %lld rows, %lld not its own, "
		    "%lld times, %lld at the wrong time\n", k,
		    (long long)got[0], (long long)got[1], (long long)got[2],
		    (long long)got[3]);
		assert_int_equal(got[0], (int64_t)want * nnode_metrics);
		assert_int_equal(got[1], 0);
		assert_int_equal(got[2], want);
		assert_int_equal(got[3], 0);
		if (k >= 0 && k < NODES) {
			assert_int_equal(f.t.nodes[k].lost, 0);
			assert_int_equal(f.t.nodes[k].final_seen, 1);
		}
	}
	assert_int_equal(f.t.rejected, 0);
	fixture_down(&f);
}

/* Node 1's clock is SKEW ahead: sent at the same moments as node 0's,
 * its samples are stored at the same t_ms (within the delay). */
#define SKEW_NS		(3600ull * 1000000000ull)
#define CLOCK_SAMPLES	20
#define FIRST_LATE_NS	(30 * 1000 * 1000)

/* FORGE (issue 19): also one message of node 1 stamped ten minutes
 * further ahead (forged, or a broken clock): it is refused and moves
 * nothing, so the genuine samples still land at node 0's times. */
static void
clock_case(int forge)
{
	struct fixture	 f;
	char		*cause = NULL, *sql;
	uint64_t	 seq, now;
	int64_t		 got[4];

	fixture_up(&f, 2, 10, 10000, "clock-test");
	f.t.nodes[1].remote_clock = 1;
	fixture_start(&f);
	for (seq = 1; seq <= CLOCK_SAMPLES; seq++) {
		now = dn_now_ns();
		fixture_send(&f, 0, seq, seq == CLOCK_SAMPLES, now,
		    (double)seq);
		if (forge && seq == CLOCK_SAMPLES / 2)
			fixture_send(&f, 1, 1000 + seq, 0, now + SKEW_NS +
			    600ull * 1000000000ull, -1.0);
		/* node 1's first message late on the way (a loaded
		 * machine, a busy link): the offset must not be taken
		 * from it alone */
		if (seq == 1)
			nanosleep(&(struct timespec){ 0, FIRST_LATE_NS },
			    NULL);
		fixture_send(&f, 1, seq, seq == CLOCK_SAMPLES, now + SKEW_NS,
		    (double)seq);
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	fixture_stop(&f);

	/* samples of node 1; those more than 5 ms from node 0's of the
	 * same sequence */
	sql = dn_xasprintf("SELECT count(*), coalesce(sum(abs(a.t_ms - "
	    "b.t_ms) > 5), -1), 0, 0 FROM samples a JOIN samples b ON "
	    "b.run_id = a.run_id AND b.metric_id = a.metric_id AND "
	    "b.value = a.value AND b.node = 0 WHERE a.run_id = %lld AND "
	    "a.node = 1 AND a.metric_id = 0", (long long)f.rid);
	memset(got, 0, sizeof(got));
	if (dn_store_query(f.store, sql, NULL, 0, count_row, got,
	    &cause) != 0)
		fail_msg("query: %s", cause);
	free(sql);
	print_message("node 1: %lld samples, %lld off by more than 5 ms; "
	    "offset %+.3f ms\n", (long long)got[0], (long long)got[1],
	    (double)f.t.nodes[1].clock_d / 1e6);
	assert_int_equal(got[0], CLOCK_SAMPLES);
	assert_int_equal(got[1], 0);
	assert_true(f.t.nodes[1].have_clock);
	assert_true(-f.t.nodes[1].clock_d > (int64_t)SKEW_NS - 5000000 &&
	    -f.t.nodes[1].clock_d <= (int64_t)SKEW_NS);
	assert_false(f.t.nodes[0].have_clock);	/* ours: left alone */
	assert_int_equal(f.t.rejected, forge);
	assert_int_equal(f.t.rejected_by[DN_REJ_CLOCK], forge);
	fixture_down(&f);
}

/* The first value of load metric NAME (node -1) into *(double *)ARG. */
static int
first_value(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	(void)names;
	(void)types;
	if (ncols == 1 && values[0] != NULL)
		*(double *)arg = strtod(values[0], NULL);
	return (0);
}

static double
load_value(struct fixture *f, const char *name)
{
	char	*cause = NULL, *sql;
	double	 v = -1;

	sql = dn_xasprintf("SELECT s.value FROM samples s JOIN metrics m ON "
	    "m.id = s.metric_id WHERE s.run_id = %lld AND s.node = -1 AND "
	    "m.name = '%s' ORDER BY s.t_ms LIMIT 1", (long long)f->rid, name);
	if (dn_store_query(f->store, sql, NULL, 0, first_value, &v,
	    &cause) != 0)
		fail_msg("query: %s", cause);
	free(sql);
	return (v);
}

/* Ten latencies and a hundred send lags, out of order, all in the first
 * interval: type 7 gives p50 5.5, p99 9.91 ms and a lag p99 of 99.01 µs
 * where a nearest rank would give 5, 10 and 99. */
static void
load_quantiles_as_compare(void **state)
{
	static const double	 lat[] = { 7, 3, 10, 1, 9, 2, 8, 4, 6, 5 };
	struct trial_load	 ld;
	struct fixture		 f;
	size_t			 i;

	(void)state;
	fixture_up(&f, 1, INTERVAL_MS, 100 * INTERVAL_MS, "load-test");
	memset(&ld, 0, sizeof(ld));
	pthread_mutex_init(&ld.mu, NULL);
	ld.nlat = ld.caplat = sizeof(lat) / sizeof(lat[0]);
	ld.lat = dn_xcalloc(ld.nlat, sizeof(double));
	memcpy(ld.lat, lat, sizeof(lat));
	ld.nlags = ld.caplags = 100;
	ld.lags = dn_xcalloc(ld.nlags, sizeof(double));
	for (i = 0; i < ld.nlags; i++)
		ld.lags[i] = (double)(ld.nlags - i);
	f.t.load = &ld;
	fixture_start(&f);
	fixture_send(&f, 0, 1, 1, dn_now_ns(), 1.0);
	fixture_stop(&f);
	print_message("load: p50 %g, p99 %g, max %g ms; lag p99 %g us\n",
	    load_value(&f, "tx_latency_p50_ms"),
	    load_value(&f, "tx_latency_p99_ms"),
	    load_value(&f, "tx_latency_max_ms"),
	    load_value(&f, "send_lag_p99_us"));
	assert_true(fabs(load_value(&f, "tx_latency_p50_ms") - 5.5) < 1e-9);
	assert_true(fabs(load_value(&f, "tx_latency_p99_ms") - 9.91) < 1e-9);
	assert_true(fabs(load_value(&f, "tx_latency_max_ms") - 10) < 1e-9);
	assert_true(fabs(load_value(&f, "send_lag_p99_us") - 99.01) < 1e-9);
	/* the assertions' live view holds the same figures */
	assert_true(fabs(f.t.load_last[DN_M_TX_LATENCY_P99_MS] - 9.91) < 1e-9);
	assert_true(fabs(f.t.load_last[DN_M_SEND_LAG_P99_US] - 99.01) < 1e-9);
	f.t.load = NULL;
	free(ld.lat);
	free(ld.lags);
	pthread_mutex_destroy(&ld.mu);
	fixture_down(&f);
}

static void
remote_clock_on_ours(void **state)
{
	(void)state;
	clock_case(0);
}

static void
remote_clock_not_moved(void **state)
{
	(void)state;
	clock_case(1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_under_its_node),
		cmocka_unit_test(hello_wakes_the_runner),
		cmocka_unit_test(remote_clock_on_ours),
		cmocka_unit_test(remote_clock_not_moved),
		cmocka_unit_test(load_quantiles_as_compare),
	};

	/* as `devnet run` does before any thread: the stop signals and the
	 * runner's wake blocked, taken by signals_tick only */
	signals_block();
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
