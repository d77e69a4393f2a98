/*
 * compare-derive.c: the derived metrics `devnet compare` knows (the table:
 * name, unit, better-direction, base metrics, how to reduce them) and the
 * observations they give: one value per node per run from the steady-state
 * window (max, mean, p99, median, slope, counter rate), and one per-trial
 * summary (max over nodes for max-like metrics, mean otherwise).
 *
 * Not here: resolving sides to runs (compare-sides.c), the test and the
 * verdict (compare.c), output (compare-render.c).  Reads go through
 * metrics/store/store.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "metric-table.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"

const struct derived compare_derived[] = {
	{ "rss_max", "bytes", "lower", DN_M_RSS_BYTES, -1, F_MAX, 1,
	    "maximum resident set size" },
	{ "rss_avg", "bytes", "lower", DN_M_RSS_BYTES, -1, F_MEAN, 0,
	    "average resident set size" },
	{ "hwm_max", "bytes", "lower", DN_M_HWM_BYTES, -1, F_MAX, 1,
	    "peak resident set size (VmHWM)" },
	{ "rss_growth", "bytes/min", "lower", DN_M_RSS_BYTES, -1, F_SLOPE_MIN,
	    0, "least-squares slope of RSS" },
	{ "heap_live_avg", "bytes", "lower", DN_M_HEAP_LIVE_BYTES, -1,
	    F_MEAN, 0, "average live heap bytes" },
	{ "allocs_per_s", "allocs/s", "lower", DN_M_ALLOCS, -1, F_RATE, 0,
	    "heap allocations per second" },
	{ "alloc_bytes_per_s", "bytes/s", "lower", DN_M_ALLOC_BYTES, -1,
	    F_RATE, 0, "heap bytes requested per second" },
	{ "threads_avg", "threads", "lower", DN_M_THREADS, -1, F_MEAN, 0,
	    "average thread count" },
	{ "threads_max", "threads", "lower", DN_M_THREADS, -1, F_MAX, 1,
	    "maximum thread count" },
	{ "minflt_per_s", "faults/s", "lower", DN_M_MINFLT, -1, F_RATE, 0,
	    "minor page faults per second" },
	{ "majflt_per_s", "faults/s", "lower", DN_M_MAJFLT, -1, F_RATE, 0,
	    "major page faults per second" },
	{ "cpu_s_per_s", "s/s", "lower", DN_M_CPU_USER_S, DN_M_CPU_SYS_S,
	    F_RATE, 0, "CPU seconds (user + system) per second" },
	{ "ctx_per_s", "switches/s", "lower", DN_M_CTX_VOL, DN_M_CTX_INVOL,
	    F_RATE, 0, "context switches (voluntary + involuntary) per s" },
	{ "lag_blocks_mean", "blocks", "lower", DN_M_LAG_BLOCKS, -1, F_MEAN,
	    0, "mean block lag" },
	{ "lag_blocks_p99", "blocks", "lower", DN_M_LAG_BLOCKS, -1, F_P99, 1,
	    "p99 of block lag samples" },
	{ "lag_blocks_max", "blocks", "lower", DN_M_LAG_BLOCKS, -1, F_MAX, 1,
	    "maximum block lag" },
	{ "lag_ms_mean", "ms", "lower", DN_M_LAG_MS, -1, F_MEAN, 0,
	    "mean block lag in time" },
	{ "lag_ms_p99", "ms", "lower", DN_M_LAG_MS, -1, F_P99, 1,
	    "p99 of block lag samples in time" },
	{ "lag_ms_max", "ms", "lower", DN_M_LAG_MS, -1, F_MAX, 1,
	    "maximum block lag in time" },
	{ "log_lines_per_s", "lines/s", "neutral", DN_M_LOG_LINES, -1,
	    F_RATE, 0, "log lines per second" },
	{ "txs_applied_per_s", "txs/s", "higher", DN_M_TXS_APPLIED, -1,
	    F_RATE, 0, "transactions applied per second" },
	{ "reads_per_s", "reads/s", "neutral", DN_M_READS, -1, F_RATE, 0,
	    "RocksDB point reads per second" },
	{ "writes_per_s", "writes/s", "neutral", DN_M_WRITES, -1, F_RATE, 0,
	    "RocksDB keys written per second" },
	{ "wl_ops_per_s", "ops/s", "higher", DN_M_WL_OPS, -1, F_RATE, 0,
	    "workload operations per second" },
	{ "wl_op_us", "us", "lower", DN_M_WL_OP_US, -1, F_MEDIAN, 0,
	    "median of the per-interval mean workload latency" },
	{ "tx_latency_p50_ms", "ms", "lower", DN_M_TX_LATENCY_P50_MS, -1,
	    F_MEDIAN, 0, "median of the per-interval p50 latency" },
	{ "tx_latency_p99_ms", "ms", "lower", DN_M_TX_LATENCY_P99_MS, -1,
	    F_MEDIAN, 0, "median of the per-interval p99 latency" },
	{ "tx_latency_max_ms", "ms", "lower", DN_M_TX_LATENCY_MAX_MS, -1,
	    F_MAX, 1, "maximum of the per-interval max latency" },
	{ "achieved_tps", "tx/s", "higher", DN_M_ACHIEVED_TPS, -1, F_MEAN, 0,
	    "transactions sent per second" },
};
_Static_assert(sizeof(compare_derived) / sizeof(compare_derived[0]) ==
    NDERIVED, "NDERIVED in compare-internal.h must count compare_derived[]");

const char *const *
compare_metric_names(void)
{
	static const char	*names[NDERIVED + 1];
	size_t			 i;

	for (i = 0; i < NDERIVED; i++)
		names[i] = compare_derived[i].name;
	names[NDERIVED] = NULL;
	return (names);
}

/* --- per-node values --------------------------------------------------- */

/* Counter increase over the window; a drop means the node restarted and
 * its counter began again from 0. */
static double
counter_increase(const struct dn_series *s)
{
	double	sum = 0;
	size_t	i;

	for (i = 1; i < s->n; i++) {
		double	d = s->v[i] - s->v[i - 1];

		sum += d >= 0 ? d : s->v[i];
	}
	return (sum);
}

static double
series_rate(const struct dn_series *s)
{
	double	span;

	if (s->n < 2)
		return (NAN);
	span = (s->t_ms[s->n - 1] - s->t_ms[0]) / 1000.0;
	if (span <= 0)
		return (NAN);
	return (counter_increase(s) / span);
}

static double
node_value(const struct derived *d, const struct dn_series *s1,
    const struct dn_series *s2)
{
	double	*t, v;
	size_t	 i;

	if (s1 == NULL || s1->n == 0)
		return (NAN);
	switch (d->fn) {
	case F_MAX:
		return (dn_stats_max(s1->v, s1->n));
	case F_MEAN:
		return (dn_stats_mean(s1->v, s1->n));
	case F_P99:
		return (dn_stats_quantile(s1->v, s1->n, 0.99));
	case F_MEDIAN:
		return (dn_stats_median(s1->v, s1->n));
	case F_SLOPE_MIN:
		t = dn_xreallocarray(NULL, s1->n, sizeof(*t));
		for (i = 0; i < s1->n; i++)
			t[i] = s1->t_ms[i] / 60000.0;
		v = dn_stats_slope(t, s1->v, s1->n);
		free(t);
		return (v);
	case F_RATE:
		v = series_rate(s1);
		if (d->m2 >= 0)
			v = (s2 == NULL) ? NAN : v + series_rate(s2);
		return (v);
	}
	return (NAN);
}

/* A run's series: per metric-table id, and one per named metric. */
struct run_data {
	struct dn_series	*ser[DN_METRIC_COUNT];
	size_t			 nser[DN_METRIC_COUNT];
	struct dn_series	*named;
	size_t			 nnamed;
};

static const struct dn_series *
find_node(const struct run_data *rd, int m, int node)
{
	size_t	i;

	for (i = 0; i < rd->nser[m]; i++)
		if (rd->ser[m][i].node == node)
			return (&rd->ser[m][i]);
	return (NULL);
}

static void
obs_add_run(struct obs *o, const struct derived *d, const struct run_data *rd,
    int trial)
{
	const struct dn_series	*s1, *base;
	double			 agg = NAN, sum = 0, v;
	size_t			 i, n = 0, nbase;

	if (d->m1 >= DN_METRIC_COUNT) {
		base = rd->named;
		nbase = rd->nnamed;
	} else {
		base = rd->ser[d->m1];
		nbase = rd->nser[d->m1];
	}
	for (i = 0; i < nbase; i++) {
		s1 = &base[i];
		v = node_value(d, s1, d->m2 >= 0 ? find_node(rd, d->m2,
		    s1->node) : NULL);
		if (isnan(v))
			continue;
		o->node_v = dn_xreallocarray(o->node_v, o->nnode + 1,
		    sizeof(double));
		o->node_c = dn_xreallocarray(o->node_c, o->nnode + 1,
		    sizeof(int));
		o->node_v[o->nnode] = v;
		o->node_c[o->nnode++] = trial;
		if (d->agg_max)
			agg = (n == 0 || v > agg) ? v : agg;
		sum += v;
		n++;
	}
	if (n == 0)
		return;
	o->trial_v = dn_xreallocarray(o->trial_v, o->ntrial + 1,
	    sizeof(double));
	o->trial_v[o->ntrial++] = d->agg_max ? agg : sum / n;
}

void
compare_obs_release(struct obs *o)
{
	free(o->node_v);
	free(o->node_c);
	free(o->trial_v);
}

/* Read every run of SIDE and add its observations to O[N]. */
int
compare_side_observe(struct dn_store *s, const struct compare_side *side,
    const struct derived *defs, size_t nd, const int *use, struct obs *o,
    char **cause)
{
	int	need[DN_METRIC_COUNT] = { 0 };
	size_t	i, k;
	int	m;

	for (k = 0; k < nd; k++) {
		if (!use[k] || defs[k].m1 >= DN_METRIC_COUNT)
			continue;
		need[defs[k].m1] = 1;
		if (defs[k].m2 >= 0)
			need[defs[k].m2] = 1;
	}
	for (i = 0; i < side->nruns; i++) {
		struct run_data	rd;
		int		rc = 0;

		memset(&rd, 0, sizeof(rd));
		for (m = 0; m < DN_METRIC_COUNT && rc == 0; m++) {
			if (need[m])
				rc = dn_store_series(s, side->runs[i].id, m,
				    side->runs[i].warmup_ms, &rd.ser[m],
				    &rd.nser[m], cause);
		}
		for (k = 0; k < nd && rc == 0; k++) {
			if (!use[k])
				continue;
			if (defs[k].m1 >= DN_METRIC_COUNT)
				rc = dn_store_series(s, side->runs[i].id,
				    defs[k].m1, side->runs[i].warmup_ms,
				    &rd.named, &rd.nnamed, cause);
			if (rc == 0)
				obs_add_run(&o[k], &defs[k], &rd, (int)i);
			dn_series_free(rd.named, rd.nnamed);
			rd.named = NULL;
			rd.nnamed = 0;
		}
		for (m = 0; m < DN_METRIC_COUNT; m++)
			dn_series_free(rd.ser[m], rd.nser[m]);
		if (rc != 0)
			return (-1);
	}
	return (0);
}

/* --- one run at a time (devnet history) -------------------------------- */

int
compare_run_observe(struct dn_store *s, int64_t run_id, int64_t warmup_ms,
    const int *use, double *out, char **cause)
{
	struct compare_run	 run;
	struct compare_side	 side;
	struct obs		 o[NDERIVED];
	size_t			 k;
	int			 rc;

	memset(&run, 0, sizeof(run));
	run.id = run_id;
	run.warmup_ms = warmup_ms;
	side.spec = NULL;
	side.runs = &run;
	side.nruns = 1;
	memset(o, 0, sizeof(o));
	/* The very observations a comparison of this run would test. */
	rc = compare_side_observe(s, &side, compare_derived, NDERIVED, use, o,
	    cause);
	for (k = 0; k < NDERIVED; k++) {
		out[k] = rc == 0 && use[k] && o[k].ntrial == 1 ?
		    o[k].trial_v[0] : NAN;
		compare_obs_release(&o[k]);
	}
	return (rc);
}

int
compare_metric_info(size_t k, const char **unit, const char **better,
    const char **desc)
{
	if (k >= NDERIVED)
		return (-1);
	*unit = compare_derived[k].unit;
	*better = compare_derived[k].better;
	*desc = compare_derived[k].desc;
	return (0);
}
