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
 * ours, sent at the same moments.
 *
 * Not here: a real devnet (tests/e2e/smoke.sh checks the same on one, less
 * exactly: timing there is real), hostile messages (tests/e2e/hostile.sh).
 */
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
#include "trial.h"
#include "clock.h"
#include "collector.h"
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

static void
every_sample_under_its_node(void **state)
{
	char			 dir[64], *dbpath, *url, *cause = NULL, *sql;
	struct dn_store		*store;
	struct dn_run_info	 ri = { .scenario_name = "collector-test",
				    .variant = "A", .nodes = NODES };
	struct scenario		 scn;
	struct trial		 t;
	pthread_mutex_t		 store_mu = PTHREAD_MUTEX_INITIALIZER;
	struct collector	*col;
	struct dn_sock		*sock[NODES];
	uint8_t			 buf[DN_HDR_SIZE + 8 + 8 * DN_SAMPLE_MAX];
	uint64_t		 seq;
	int64_t			 rid, got[4];
	int			 k, m, nnode_metrics = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/dn-col-XXXXXX");
	assert_non_null(mkdtemp(dir));
	dbpath = dn_xasprintf("%s/t.db", dir);
	url = dn_xasprintf("ipc://%s/collector", dir);
	if (dn_store_open(&store, dbpath, 0, &cause) != 0 ||
	    dn_store_run_begin(store, &ri, &rid, &cause) != 0)
		fail_msg("store: %s", cause);
	for (k = 0; k < NODES; k++)
		assert_int_equal(dn_store_node_add(store, rid, k, 100 + k,
		    "/bin/true", "", "fake", &cause), 0);

	memset(&scn, 0, sizeof(scn));
	scn.duration_ms = SAMPLES * INTERVAL_MS;
	scn.sample_interval_ms = INTERVAL_MS;
	scn.network.nodes = NODES;
	memset(&t, 0, sizeof(t));
	t.scn = &scn;
	t.run_id = rid;
	t.token = TOKEN;
	t.metrics_url = url;
	t.nnodes = NODES;
	t.nodes = dn_xcalloc(NODES, sizeof(*t.nodes));
	pthread_mutex_init(&t.mu, NULL);
	t.store_mu = &store_mu;
	t.store = store;
	t.spawn_ns = dn_now_ns();
	/* t=0 a second ago: every sample below is part of the trial. */
	atomic_init(&t.t0_ns, t.spawn_ns - 1000000000ull);
	if (collector_start(&t, &col, &cause) != 0)
		fail_msg("collector_start: %s", cause);

	for (k = 0; k < NODES; k++) {
		if (dn_sock_open(&sock[k], DN_SOCK_PUSH, &cause) != 0 ||
		    dn_sock_dial(sock[k], url, &cause) != 0)
			fail_msg("node %d: %s", k, cause);
	}
	/* Interleaved, as real nodes are. */
	for (seq = 1; seq <= SAMPLES; seq++) {
		for (k = 0; k < NODES; k++) {
			struct dn_hdr		h = { .token = TOKEN,
						    .node = (uint32_t)k,
						    .seq = seq };
			struct dn_sample	s;
			size_t			n;

			memset(&s, 0, sizeof(s));
			s.count = DN_METRIC_COUNT;
			s.flags = seq == SAMPLES ? DN_SAMPLE_FINAL : 0;
			for (m = 0; m < DN_METRIC_COUNT; m++)
				s.values[m] = value_of(k, seq);
			h.t_ns = atomic_load(&t.t0_ns) +
			    seq * INTERVAL_MS * 1000000ull;
			n = dn_sample_encode(buf, sizeof(buf), &h, &s);
			assert_true(n > 0);
			assert_int_equal(dn_sock_send(sock[k], buf, n, 0), 0);
		}
	}
	/* Every node sent its final sample: the collector stops on it. */
	collector_stop(col, 10000);
	for (k = 0; k < NODES; k++)
		dn_sock_close(sock[k]);

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
		    k + 1, INTERVAL_MS, (long long)rid, k);
		memset(got, 0, sizeof(got));
		if (dn_store_query(store, sql, NULL, 0, count_row, got,
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
			assert_int_equal(t.nodes[k].lost, 0);
			assert_int_equal(t.nodes[k].final_seen, 1);
		}
	}
	assert_int_equal(t.rejected, 0);

	dn_store_close(store);
	pthread_mutex_destroy(&t.mu);
	free(t.nodes);
	free(t.store_error);
	sql = dn_xasprintf("rm -rf '%s'", dir);
	(void)!system(sql);
	free(sql);
	free(dbpath);
	free(url);
}

/* Node 1's clock is SKEW ahead: sent at the same moments as node 0's,
 * its samples are stored at the same t_ms (within the delay). */
#define SKEW_NS		(3600ull * 1000000000ull)
#define CLOCK_SAMPLES	20

static void
remote_clock_on_ours(void **state)
{
	char			 dir[64], *dbpath, *url, *cause = NULL, *sql;
	struct dn_store		*store;
	struct dn_run_info	 ri = { .scenario_name = "clock-test",
				    .variant = "A", .nodes = 2 };
	struct scenario		 scn;
	struct trial		 t;
	pthread_mutex_t		 store_mu = PTHREAD_MUTEX_INITIALIZER;
	struct collector	*col;
	struct dn_sock		*sock[2];
	uint8_t			 buf[DN_HDR_SIZE + 8 + 8 * DN_SAMPLE_MAX];
	uint64_t		 seq;
	int64_t			 rid, got[4];
	int			 k;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/dn-col-XXXXXX");
	assert_non_null(mkdtemp(dir));
	dbpath = dn_xasprintf("%s/t.db", dir);
	url = dn_xasprintf("ipc://%s/collector", dir);
	if (dn_store_open(&store, dbpath, 0, &cause) != 0 ||
	    dn_store_run_begin(store, &ri, &rid, &cause) != 0)
		fail_msg("store: %s", cause);
	memset(&scn, 0, sizeof(scn));
	scn.duration_ms = 10000;
	scn.sample_interval_ms = 10;
	scn.network.nodes = 2;
	memset(&t, 0, sizeof(t));
	t.scn = &scn;
	t.run_id = rid;
	t.token = TOKEN;
	t.metrics_url = url;
	t.nnodes = 2;
	t.nodes = dn_xcalloc(2, sizeof(*t.nodes));
	t.nodes[1].remote_clock = 1;
	pthread_mutex_init(&t.mu, NULL);
	t.store_mu = &store_mu;
	t.store = store;
	t.spawn_ns = dn_now_ns();
	atomic_init(&t.t0_ns, t.spawn_ns - 1000000000ull);
	if (collector_start(&t, &col, &cause) != 0)
		fail_msg("collector_start: %s", cause);
	for (k = 0; k < 2; k++) {
		if (dn_sock_open(&sock[k], DN_SOCK_PUSH, &cause) != 0 ||
		    dn_sock_dial(sock[k], url, &cause) != 0)
			fail_msg("node %d: %s", k, cause);
	}
	for (seq = 1; seq <= CLOCK_SAMPLES; seq++) {
		uint64_t	now = dn_now_ns();

		for (k = 0; k < 2; k++) {
			struct dn_hdr		h = { .token = TOKEN,
						    .node = (uint32_t)k,
						    .seq = seq };
			struct dn_sample	s;
			size_t			n;

			memset(&s, 0, sizeof(s));
			s.count = DN_METRIC_COUNT;
			s.flags = seq == CLOCK_SAMPLES ? DN_SAMPLE_FINAL : 0;
			s.values[0] = (double)seq;
			h.t_ns = now + (k == 1 ? SKEW_NS : 0);
			n = dn_sample_encode(buf, sizeof(buf), &h, &s);
			assert_true(n > 0);
			assert_int_equal(dn_sock_send(sock[k], buf, n, 0), 0);
		}
		nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
	}
	collector_stop(col, 10000);
	for (k = 0; k < 2; k++)
		dn_sock_close(sock[k]);

	/* samples of node 1; those more than 5 ms from node 0's of the
	 * same sequence; node 1's estimate, in ms */
	sql = dn_xasprintf("SELECT count(*), coalesce(sum(abs(a.t_ms - "
	    "b.t_ms) > 5), -1), 0, 0 FROM samples a JOIN samples b ON "
	    "b.run_id = a.run_id AND b.metric_id = a.metric_id AND "
	    "b.value = a.value AND b.node = 0 WHERE a.run_id = %lld AND "
	    "a.node = 1 AND a.metric_id = 0", (long long)rid);
	memset(got, 0, sizeof(got));
	if (dn_store_query(store, sql, NULL, 0, count_row, got, &cause) != 0)
		fail_msg("query: %s", cause);
	free(sql);
	print_message("node 1: %lld samples, %lld off by more than 5 ms; "
	    "offset %+.3f ms\n", (long long)got[0], (long long)got[1],
	    (double)t.nodes[1].clock_d / 1e6);
	assert_int_equal(got[0], CLOCK_SAMPLES);
	assert_int_equal(got[1], 0);
	assert_true(t.nodes[1].have_clock);
	assert_true(-t.nodes[1].clock_d > (int64_t)SKEW_NS - 5000000 &&
	    -t.nodes[1].clock_d <= (int64_t)SKEW_NS);
	assert_false(t.nodes[0].have_clock);	/* ours: left alone */

	dn_store_close(store);
	pthread_mutex_destroy(&t.mu);
	free(t.nodes);
	free(t.store_error);
	sql = dn_xasprintf("rm -rf '%s'", dir);
	(void)!system(sql);
	free(sql);
	free(dbpath);
	free(url);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_under_its_node),
		cmocka_unit_test(remote_clock_on_ours),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
