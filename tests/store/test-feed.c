/*
 * test-feed.c: compare's feed (compare.h, struct compare_feed), through
 * which devnet report draws its charts from compare's one read of the
 * samples (issue 26).  On a real database of 2 + 2 runs written through
 * the store: the verdict is the same with and without a feed; the feed
 * gets every row's base metric and nothing else (cpu_sys_s, read for
 * cpu_s_per_s, is no chart), each once per run, A's runs then B's, whole
 * (from t=0, warmup included: every non-NULL sample sqlite holds), then
 * DONE; and BEGIN before any of it.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "verdict/compare.h"
#include "metric-table.h"
#include "store.h"
#include "xalloc.h"

#include "store-testlib.h"

#define RUNS	4	/* A B B A */
#define NODES	3
#define SECS	20
#define WARMUP	5

/* What the feed saw, per metric id (table metrics only here). */
struct seen {
	int	begun, calls, order_ok, max_side;
	int	series[DN_METRIC_COUNT][2];	/* calls per side */
	int	done[DN_METRIC_COUNT];
	long	samples[DN_METRIC_COUNT];
	int64_t	t_first[DN_METRIC_COUNT];
	int	last_side[DN_METRIC_COUNT];
};

static int
f_begin(void *arg, const struct compare_result *r, char **cause)
{
	struct seen	*s = arg;

	(void)cause;
	assert_int_equal(s->calls, 0);
	assert_int_equal(r->a.nruns, 2);
	assert_int_equal(r->b.nruns, 2);
	s->begun++;
	return (0);
}

static int
f_series(void *arg, int side, int metric, const struct dn_series *ser,
    size_t n, char **cause)
{
	struct seen	*s = arg;
	size_t		 i;

	(void)cause;
	assert_true(s->begun == 1);
	assert_true(metric >= 0 && metric < DN_METRIC_COUNT);
	assert_true(side == 0 || side == 1);
	/* a metric's runs: A's, then B's; never after its DONE */
	assert_false(s->done[metric]);
	if (side < s->last_side[metric])
		s->order_ok = 0;
	s->last_side[metric] = side;
	s->series[metric][side]++;
	s->calls++;
	for (i = 0; i < n; i++) {
		s->samples[metric] += (long)ser[i].n;
		if (ser[i].n > 0 && ser[i].t_ms[0] < s->t_first[metric])
			s->t_first[metric] = ser[i].t_ms[0];
	}
	return (0);
}

static int
f_done(void *arg, int metric, char **cause)
{
	struct seen	*s = arg;

	(void)cause;
	assert_true(metric >= 0 && metric < DN_METRIC_COUNT);
	s->done[metric]++;
	return (0);
}

/* Runs A B B A of NODES nodes, SECS s at 1 Hz, warmup WARMUP s, every
 * node metric: gauges around a per-run level, counters cumulative. */
static void
write_db(const char *db)
{
	static const char *const variants[RUNS] = { "A", "B", "B", "A" };
	struct dn_run_info	 ri = {
		.scenario_name = "feed", .scenario_path = "feed.yaml",
		.scenario_yaml = "name: feed\n", .label = "t",
		.binary = "/bin/true", .binary_sha256 = "abc",
		.run_dir = "/tmp/x", .nodes = NODES, .tps = 25,
		.duration_ms = SECS * 1000, .warmup_ms = WARMUP * 1000,
		.sample_interval_ms = 1000, .token = 1 };
	struct dn_store		*s;
	char			*cause = NULL;
	int64_t			 gid, rid;
	int			 r, node, t, m;

	assert_int_equal(dn_store_open(&s, db, 0, &cause), 0);
	assert_int_equal(dn_store_group_create(s, "feed", "g", &gid, &cause),
	    0);
	ri.group_id = gid;
	for (r = 0; r < RUNS; r++) {
		ri.variant = variants[r];
		ri.trial = r;
		assert_int_equal(dn_store_run_begin(s, &ri, &rid, &cause), 0);
		for (node = 0; node < NODES; node++)
			assert_int_equal(dn_store_node_add(s, rid, node, 100,
			    "/bin/true", "abc", "x", &cause), 0);
		for (t = 0; t <= SECS; t++) {
			for (node = 0; node < NODES; node++) {
				for (m = 0; m < DN_METRIC_COUNT; m++) {
					double	lvl = 100 + 10 * m + node +
					    (variants[r][0] == 'B' ? 7 : 0) +
					    ((t * 7 + r * 3 + node) % 5);

					if (dn_metric_defs[m].kind ==
					    DN_KIND_C)
						lvl = t * (5.0 + m + r % 2 +
						    (variants[r][0] == 'B'));
					assert_int_equal(dn_store_sample(s,
					    rid, node, m, t * 1000, lvl,
					    &cause), 0);
				}
			}
		}
		assert_int_equal(dn_store_commit(s, &cause), 0);
		assert_int_equal(dn_store_run_end(s, rid, "ok", NULL, &cause),
		    0);
	}
	dn_store_close(s);
}

static void
same_rows(const struct compare_result *x, const struct compare_result *y)
{
	size_t	i;

	assert_int_equal(x->nrows, y->nrows);
	for (i = 0; i < x->nrows; i++) {
		const struct compare_row *a = &x->rows[i], *b = &y->rows[i];

		assert_string_equal(a->name, b->name);
		assert_int_equal(a->a.n, b->a.n);
		assert_int_equal(a->b.n, b->b.n);
		assert_true(a->a.median == b->a.median);
		assert_true(a->b.median == b->b.median);
		assert_true(a->p_raw == b->p_raw ||
		    (isnan(a->p_raw) && isnan(b->p_raw)));
		assert_string_equal(a->verdict, b->verdict);
	}
}

static void
feed_reads_once(void **state)
{
	struct tmp		*t = *state;
	struct dn_store		*s;
	struct compare_opts	 plain = { .named = 1 }, fed = { .named = 1 };
	struct compare_result	*r0 = NULL, *r1 = NULL;
	struct compare_feed	 feed = { f_begin, f_series, f_done, NULL };
	struct seen		*sn = dn_xcalloc(1, sizeof(*sn));
	int			 row_metric[DN_METRIC_COUNT] = { 0 };
	char			*cause = NULL;
	size_t			 i;
	int			 m;

	write_db(t->db);
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause), 0);
	sn->order_ok = 1;
	for (m = 0; m < DN_METRIC_COUNT; m++)
		sn->t_first[m] = INT64_MAX;
	feed.arg = sn;
	fed.feed = &feed;
	assert_int_equal(compare_analyze(s, "1:A", "1:B", &plain, &r0,
	    &cause), 0);
	assert_int_equal(compare_analyze(s, "1:A", "1:B", &fed, &r1, &cause),
	    0);
	/* the feed changes nothing of the verdict */
	same_rows(r0, r1);
	assert_true(r1->nrows > 20);
	assert_int_equal(sn->begun, 1);
	assert_true(sn->order_ok);
	for (i = 0; i < r1->nrows; i++)
		row_metric[r1->rows[i].base_metric] = 1;
	for (m = 0; m < DN_METRIC_COUNT; m++) {
		char	sql[160];
		struct collect	c = { "", 0 };

		if (!row_metric[m]) {
			/* read for a row (cpu_sys_s, ctx_invol) or not at
			 * all: never handed out as a chart */
			assert_int_equal(sn->series[m][0] + sn->series[m][1],
			    0);
			assert_int_equal(sn->done[m], 0);
			continue;
		}
		assert_int_equal(sn->series[m][0], 2);
		assert_int_equal(sn->series[m][1], 2);
		assert_int_equal(sn->done[m], 1);
		/* whole: from t=0, every sample of the metric */
		assert_int_equal(sn->t_first[m], 0);
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM samples "
		    "WHERE metric_id = %d AND value IS NOT NULL", m);
		assert_int_equal(dn_store_query(s, sql, NULL, 0, collect_row,
		    &c, &cause), 0);
		assert_int_equal(sn->samples[m], atol(c.buf));
	}
	assert_false(row_metric[DN_M_CPU_SYS_S]);
	assert_true(row_metric[DN_M_CPU_USER_S]);
	compare_result_free(r0);
	compare_result_free(r1);
	dn_store_close(s);
	free(sn);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(feed_reads_once, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
