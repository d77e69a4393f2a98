/*
 * test-collector.c: the collector stores every sample it is sent, under
 * the node that sent it.  Three fake nodes push a known number of SAMPLE
 * messages each (blocking sends, so none is lost on the way) to a real
 * collector (collector_start, orchestrator/), then the store must hold
 * exactly that many rows of every node metric per node, each value
 * carrying its sender's index, and the collector must count no gap.
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_sample_under_its_node),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
