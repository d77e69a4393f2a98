/*
 * test-snapshot.c: the live copy of a run the server reads
 * (orchestrator/trial/snapshot.c).  A 20-node trial of 2.5 hours at 1 s
 * samples keeps at most SNAP_POINTS points per series (and at least half
 * of that), in time order, the first sample kept and the newest within
 * one stride of the end: the page's memory does not grow with the run.
 * Until a series is full its points are every sample exactly.  A reader
 * copying views and series in a loop while the collector side publishes
 * sees whole samples (the same value in every metric of one sample).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metric-table.h"
#include "plan/plan.h"
#include "scenario/scenario.h"
#include "trial/snapshot.h"
#include "trial/trial.h"
#include "xalloc.h"

#define NODES	20
#define HOURS_S	9000	/* 2.5 h of 1 s samples */

struct fixture {
	struct snapshot		*snap;
	struct scn_variant	 var;
	struct plan_trial	 pt;
	struct trial		 t;
};

static void
setup_trial(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->var.name = (char *)"A";
	f->pt.variant = &f->var;
	f->snap = snapshot_new();
	snapshot_plan(f->snap, "long", 1, &f->pt, 1, HOURS_S * 1000LL, 0,
	    1000);
	f->t.pt = f->pt;
	f->t.run_id = 7;
	f->t.nnodes = NODES;
	f->t.nodes = dn_xcalloc(NODES, sizeof(*f->t.nodes));
	snapshot_trial_begin(f->snap, &f->t);
	assert_non_null(f->t.snap);
}

static void
teardown_trial(struct fixture *f)
{
	snapshot_free(f->snap);
	free(f->t.nodes);
}

static void
publish(struct fixture *f, int node, int64_t t_ms, double v)
{
	double	vals[DN_METRIC_COUNT];
	int	i;

	for (i = 0; i < DN_METRIC_COUNT; i++)
		vals[i] = v;
	snapshot_sample(&f->t, node, t_ms, vals, ~(uint64_t)0);
}

static void
test_bounded(void **state)
{
	struct fixture		 f;
	struct snap_series	*s;
	size_t			 n, i, j;
	int			 k, sec;

	(void)state;
	setup_trial(&f);
	for (sec = 0; sec < HOURS_S; sec++)
		for (k = 0; k < NODES; k++)
			publish(&f, k, sec * 1000LL, sec);
	assert_int_equal(snapshot_series(f.snap, 7, DN_M_RSS_BYTES, &s, &n),
	    0);
	assert_int_equal(n, NODES);
	for (i = 0; i < n; i++) {
		assert_true(s[i].n <= SNAP_POINTS);
		assert_true(s[i].n >= SNAP_POINTS / 2);
		assert_int_equal(s[i].t_ms[0], 0);
		for (j = 1; j < s[i].n; j++)
			assert_true(s[i].t_ms[j] > s[i].t_ms[j - 1]);
		/* 9000 samples in 480 points: a stride of 32 s at most */
		assert_true(s[i].t_ms[s[i].n - 1] >= (HOURS_S - 32) * 1000LL);
		assert_true(s[i].v[s[i].n - 1] * 1000 == s[i].t_ms[s[i].n - 1]);
	}
	snapshot_series_free(s, n);
	assert_int_equal(snapshot_series(f.snap, 8, DN_M_RSS_BYTES, &s, &n),
	    -1);
	teardown_trial(&f);
}

static void
test_exact_until_full(void **state)
{
	struct fixture		 f;
	struct snap_series	*s;
	struct snap_view	*v;
	size_t			 n, j;

	(void)state;
	setup_trial(&f);
	for (j = 0; j < SNAP_POINTS; j++)
		publish(&f, 3, (int64_t)j * 250, (double)j * 1.5);
	assert_int_equal(snapshot_series(f.snap, 7, DN_M_HEIGHT, &s, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(s[0].node, 3);
	assert_int_equal(s[0].n, SNAP_POINTS);
	for (j = 0; j < SNAP_POINTS; j++) {
		assert_int_equal(s[0].t_ms[j], (int64_t)j * 250);
		assert_true(s[0].v[j] == (double)j * 1.5);
	}
	snapshot_series_free(s, n);
	v = snapshot_view(f.snap);
	assert_int_equal(v->ntrials, 1);
	assert_int_equal(v->trials[0].nodes[3].samples, SNAP_POINTS);
	assert_int_equal(v->trials[0].nodes[2].samples, 0);
	/* the load generator's slot takes only its own metrics */
	publish(&f, -1, 1000, 5);
	snapshot_view_free(v);
	v = snapshot_view(f.snap);
	assert_true(v->trials[0].nodes[NODES].have >> DN_M_ACHIEVED_TPS & 1);
	assert_false(v->trials[0].nodes[NODES].have >> DN_M_RSS_BYTES & 1);
	snapshot_view_free(v);
	teardown_trial(&f);
}

static void *
writer(void *arg)
{
	struct fixture	*f = arg;
	int		 i;

	for (i = 0; i < 20000; i++)
		publish(f, i % NODES, i, i);
	return (NULL);
}

static void
test_reader_sees_whole_samples(void **state)
{
	struct fixture		 f;
	struct snap_view	*v;
	pthread_t		 th;
	int			 rounds, k, m, torn = 0;

	(void)state;
	setup_trial(&f);
	pthread_create(&th, NULL, writer, &f);
	for (rounds = 0; rounds < 2000; rounds++) {
		v = snapshot_view(f.snap);
		for (k = 0; k < NODES; k++) {
			const struct snap_node *n = &v->trials[0].nodes[k];

			for (m = 0; m < DN_METRIC_COUNT; m++)
				if ((n->have >> m & 1) && dn_metric_defs[m]
				    .source == DN_SOURCE_N && n->last[m] !=
				    n->last[DN_M_RSS_BYTES])
					torn++;
		}
		snapshot_view_free(v);
	}
	pthread_join(th, NULL);
	assert_int_equal(torn, 0);
	teardown_trial(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_exact_until_full),
		cmocka_unit_test(test_reader_sees_whole_samples),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
