/*
 * compare.c: the A/B analysis (see compare.h, docs/statistics.md).
 *
 * Pipeline: resolve each side to runs -> per run, read the steady-state
 * window (t_ms >= warmup_ms) of the base metrics -> derive one value per
 * node per derived metric (max, mean, p99, slope, rate) -> a per-trial
 * summary (max over nodes for max-like metrics, mean over nodes otherwise)
 * -> test on the chosen unit (Mann-Whitney, Holm, clustered bootstrap) ->
 * render.  No sqlite here: reads go through metrics/store.h.  Query tables
 * are in qtab.c, output files in outfile.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "metric-table.h"
#include "stats.h"
#include "store.h"
#include "util.h"

enum dfn { F_MAX, F_MEAN, F_P99, F_MEDIAN, F_SLOPE_MIN, F_RATE };

struct derived {
	const char	*name;
	const char	*unit;
	const char	*better;
	int		 m1, m2;	/* base metrics; m2 -1 or summed */
	enum dfn	 fn;
	int		 agg_max;	/* across nodes: 1 max, 0 mean */
	const char	*desc;
};

static const struct derived derived[] = {
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
#define NDERIVED	(sizeof(derived) / sizeof(derived[0]))

const char *const *
compare_metric_names(void)
{
	static const char	*names[NDERIVED + 1];
	size_t			 i;

	for (i = 0; i < NDERIVED; i++)
		names[i] = derived[i].name;
	names[NDERIVED] = NULL;
	return (names);
}

int
compare_format_parse(const char *s, int *format)
{
	static const char *const	names[] = { "table", "markdown", "csv",
					    "json" };
	int				i;

	for (i = 0; i < 4; i++) {
		if (strcmp(s, names[i]) == 0) {
			*format = i;
			return (0);
		}
	}
	return (-1);
}

int
compare_opt_set(struct compare_opts *o, int opt, const char *val,
    char **cause)
{
	switch (opt) {
	case 'f':
		if (compare_format_parse(val, &o->format) == 0)
			return (0);
		*cause = dn_xasprintf("unknown format '%s' (table, markdown, "
		    "csv or json)", val);
		return (-1);
	case 't':
		if (compare_threshold_parse(val, &o->threshold_pct) == 0)
			return (0);
		*cause = dn_xasprintf("bad --threshold '%s' (a percentage such "
		    "as 1 or 0.5)", val);
		return (-1);
	case 'u':
		if (compare_unit_parse(val, &o->unit) == 0)
			return (0);
		*cause = dn_xasprintf("unknown --unit '%s' (auto, trial or "
		    "node)", val);
		return (-1);
	}
	*cause = dn_xasprintf("unknown comparison option '%c'", opt);
	return (-1);
}

int
compare_unit_parse(const char *s, int *unit)
{
	if (strcmp(s, "auto") == 0)
		*unit = COMPARE_UNIT_AUTO;
	else if (strcmp(s, "trial") == 0)
		*unit = COMPARE_UNIT_TRIAL;
	else if (strcmp(s, "node") == 0)
		*unit = COMPARE_UNIT_NODE;
	else
		return (-1);
	return (0);
}

int
compare_threshold_parse(const char *s, double *pct)
{
	if (dn_parse_double(s, pct) != 0 || !(*pct >= 0) || *pct > 1000)
		return (-1);
	if (*pct == 0)
		*pct = 1e-9;
	return (0);
}

/* --- resolving sides ------------------------------------------------ */

struct run_rows {
	struct compare_side	*side;
	int			 count;
};

static int
add_run_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	struct compare_side	*side = arg;
	struct compare_run	*r;

	(void)ncols;
	(void)names;
	(void)types;
	side->runs = dn_xreallocarray(side->runs, side->nruns + 1,
	    sizeof(*side->runs));
	r = &side->runs[side->nruns++];
	memset(r, 0, sizeof(*r));
	dn_parse_i64(v[0], &r->id);
	if (v[1] != NULL)
		dn_parse_i64(v[1], &r->group);
	r->variant = dn_xstrdup(v[2] ? v[2] : "");
	r->status = dn_xstrdup(v[3] ? v[3] : "");
	if (v[4] != NULL)
		dn_parse_i64(v[4], &r->warmup_ms);
	if (v[5] != NULL)
		dn_parse_i64(v[5], &r->duration_ms);
	r->nodes = v[6] ? atoi(v[6]) : 0;
	return (0);
}

#define RUN_COLS "SELECT id, ab_group, variant, status, warmup_ms, " \
	"duration_ms, nodes FROM runs "

static int
fault_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	struct compare_run	*r = arg;
	char			*s;

	(void)ncols;
	(void)names;
	(void)types;
	s = dn_xasprintf("%s%s%s x%s", r->faults ? r->faults : "",
	    r->faults ? ", " : "", v[0], v[1]);
	free(r->faults);
	r->faults = s;
	return (0);
}

static int
side_resolve(struct dn_store *s, const char *spec, struct compare_side *side,
    struct compare_result *res, char **cause)
{
	const char	*colon = strchr(spec, ':');
	char		*copy = NULL, *p, *tok;
	int64_t		 id;
	size_t		 i, before;

	memset(side, 0, sizeof(*side));
	side->spec = dn_xstrdup(spec);
	if (colon != NULL) {
		char		*g = dn_xstrndup(spec, colon - spec);
		const char	*params[2] = { g, colon + 1 };
		int		 r;

		if (dn_parse_i64(g, &id) != 0 || id <= 0 ||
		    colon[1] == '\0') {
			*cause = dn_xasprintf("bad side '%s': want a run id, "
			    "a comma list of run ids, or GROUP:VARIANT (e.g. "
			    "3:A)", spec);
			free(g);
			return (-1);
		}
		r = dn_store_query(s, RUN_COLS "WHERE ab_group = ?1 AND "
		    "variant = ?2 ORDER BY id", params, 2, add_run_row, side,
		    cause);
		free(g);
		if (r != 0)
			return (-1);
		if (side->nruns == 0) {
			*cause = dn_xasprintf("no runs of variant '%s' in "
			    "group %lld in '%s' (see 'devnet runs')",
			    colon + 1, (long long)id, dn_store_path(s));
			return (-1);
		}
		/* Only finished runs stand for a group. */
		for (i = 0; i < side->nruns;) {
			struct compare_run *r0 = &side->runs[i];

			if (strcmp(r0->status, "ok") == 0) {
				i++;
				continue;
			}
			res->warnings = dn_xreallocarray(res->warnings,
			    res->nwarnings + 1, sizeof(char *));
			res->warnings[res->nwarnings++] = dn_xasprintf("run "
			    "%lld of %s left out: status '%s'",
			    (long long)r0->id, spec, r0->status);
			free(r0->variant);
			free(r0->status);
			memmove(r0, r0 + 1, (side->nruns - i - 1) *
			    sizeof(*r0));
			side->nruns--;
		}
		if (side->nruns == 0) {
			*cause = dn_xasprintf("no finished ('ok') runs of "
			    "variant '%s' in group %lld (see 'devnet runs')",
			    colon + 1, (long long)id);
			return (-1);
		}
		goto faults;
	}
	copy = dn_xstrdup(spec);
	for (p = copy; (tok = strsep(&p, ",")) != NULL;) {
		char		 buf[32];
		const char	*params[1] = { buf };

		if (dn_parse_i64(tok, &id) != 0 || id <= 0) {
			*cause = dn_xasprintf("bad side '%s': '%s' is not a "
			    "run id; want a run id, a comma list of run ids, "
			    "or GROUP:VARIANT (e.g. 3:A)", spec, tok);
			goto fail;
		}
		snprintf(buf, sizeof(buf), "%lld", (long long)id);
		before = side->nruns;
		if (dn_store_query(s, RUN_COLS "WHERE id = ?1", params, 1,
		    add_run_row, side, cause) != 0)
			goto fail;
		if (side->nruns == before) {
			*cause = dn_xasprintf("no run %lld in '%s' (see "
			    "'devnet runs')", (long long)id,
			    dn_store_path(s));
			goto fail;
		}
		if (strcmp(side->runs[before].status, "ok") != 0) {
			res->warnings = dn_xreallocarray(res->warnings,
			    res->nwarnings + 1, sizeof(char *));
			res->warnings[res->nwarnings++] = dn_xasprintf("run "
			    "%lld has status '%s'", (long long)id,
			    side->runs[before].status);
		}
	}
	free(copy);
faults:
	for (i = 0; i < side->nruns; i++) {
		char		 buf[32];
		const char	*params[1] = { buf };

		snprintf(buf, sizeof(buf), "%lld",
		    (long long)side->runs[i].id);
		if (dn_store_query(s, "SELECT kind, count(*) FROM events "
		    "WHERE run_id = ?1 AND kind IN ('crash', 'stalled', "
		    "'lost_samples') GROUP BY kind ORDER BY kind", params, 1,
		    fault_row, &side->runs[i], cause) != 0)
			return (-1);
	}
	return (0);
fail:
	free(copy);
	return (-1);
}

static void
side_release(struct compare_side *side)
{
	size_t	i;

	for (i = 0; i < side->nruns; i++) {
		free(side->runs[i].variant);
		free(side->runs[i].status);
		free(side->runs[i].faults);
	}
	free(side->runs);
	free(side->spec);
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

/* Observations of one derived metric on one side: per (trial, node)
 * values with their trial index, and per-trial summaries. */
struct obs {
	double	*node_v;
	int	*node_c;
	size_t	 nnode;
	double	*trial_v;
	size_t	 ntrial;
};

struct run_data {
	struct dn_series	*ser[DN_METRIC_COUNT];
	size_t			 nser[DN_METRIC_COUNT];
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
	const struct dn_series	*s1;
	double			 agg = NAN, sum = 0, v;
	size_t			 i, n = 0;

	for (i = 0; i < rd->nser[d->m1]; i++) {
		s1 = &rd->ser[d->m1][i];
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

static void
obs_release(struct obs *o)
{
	free(o->node_v);
	free(o->node_c);
	free(o->trial_v);
}

static int
wanted(const struct compare_opts *opts, const char *name)
{
	size_t	i;

	if (opts == NULL || opts->nmetrics == 0)
		return (1);
	for (i = 0; i < opts->nmetrics; i++)
		if (strcmp(opts->metrics[i], name) == 0)
			return (1);
	return (0);
}

/* Read every run of SIDE and add its observations to O[NDERIVED]. */
static int
side_observe(struct dn_store *s, const struct compare_side *side,
    const int *use, struct obs *o, char **cause)
{
	int	need[DN_METRIC_COUNT] = { 0 };
	size_t	i, k;
	int	m;

	for (k = 0; k < NDERIVED; k++) {
		if (!use[k])
			continue;
		need[derived[k].m1] = 1;
		if (derived[k].m2 >= 0)
			need[derived[k].m2] = 1;
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
		if (rc == 0) {
			for (k = 0; k < NDERIVED; k++)
				if (use[k])
					obs_add_run(&o[k], &derived[k], &rd,
					    (int)i);
		}
		for (m = 0; m < DN_METRIC_COUNT; m++)
			dn_series_free(rd.ser[m], rd.nser[m]);
		if (rc != 0)
			return (-1);
	}
	return (0);
}

static void
stat_fill(struct compare_stat *st, const double *v, size_t n, double lo,
    double hi)
{
	st->n = n;
	st->median = dn_stats_median(v, n);
	st->mean = dn_stats_mean(v, n);
	st->ci_low = lo;
	st->ci_high = hi;
}

static void
add_warning(struct compare_result *r, char *w)
{
	r->warnings = dn_xreallocarray(r->warnings, r->nwarnings + 1,
	    sizeof(char *));
	r->warnings[r->nwarnings++] = w;
}

static const char *
verdict_of(const struct compare_row *row)
{
	if (!row->significant || strcmp(row->better, "neutral") == 0)
		return ("same");
	if ((row->delta_pct < 0) == (strcmp(row->better, "lower") == 0))
		return ("better");
	return ("worse");
}

static void
test_row(struct compare_row *row, const struct obs *oa, const struct obs *ob,
    int unit, size_t family)
{
	const double	*va, *vb;
	const int	*ca = NULL, *cb = NULL;
	size_t		 na, nb;
	struct dn_mwu	 mw;
	struct dn_boot	 bt;

	if (unit == COMPARE_UNIT_NODE) {
		va = oa->node_v;
		na = oa->nnode;
		ca = oa->node_c;
		vb = ob->node_v;
		nb = ob->nnode;
		cb = ob->node_c;
	} else {
		va = oa->trial_v;
		na = oa->ntrial;
		vb = ob->trial_v;
		nb = ob->ntrial;
	}
	dn_stats_bootstrap(va, ca, na, vb, cb, nb, COMPARE_BOOT_ITERS,
	    COMPARE_BOOT_SEED, 0.95, &bt);
	stat_fill(&row->a, va, na, bt.a_lo, bt.a_hi);
	stat_fill(&row->b, vb, nb, bt.b_lo, bt.b_hi);
	row->delta_pct = row->a.median != 0 ?
	    100.0 * (row->b.median / row->a.median - 1.0) : NAN;
	row->delta_ci_low = bt.d_lo;
	row->delta_ci_high = bt.d_hi;
	/*
	 * Trials: the exact rank test when it can reach significance after
	 * Holm, else Welch's t, which has no floor on p (docs/statistics.md).
	 * Nodes: the rank test with the variance inflated by the design
	 * effect of the trials the nodes share.
	 */
	if (unit == COMPARE_UNIT_NODE) {
		dn_stats_mwu_clustered(va, ca, na, vb, cb, nb, &mw);
		row->test = "mwu-clustered";
	} else if (dn_stats_mwu_min_p(na, nb) * family >= COMPARE_ALPHA &&
	    na >= 2 && nb >= 2) {
		struct dn_welch	w;

		dn_stats_welch(va, na, vb, nb, &w);
		mw.p = w.p;
		mw.deff = 1;
		row->test = "welch";
	} else {
		dn_stats_mwu(va, na, vb, nb, &mw);
		row->test = "mwu";
	}
	row->p_raw = mw.p;
	row->deff = mw.deff;
}

/* Say which metrics can never be significant with the observations at
 * hand (the exact test's smallest p, times the Holm family size). */
static void
too_few(struct compare_result *r)
{
	char	*names = NULL, *t;
	size_t	 i, n = 0, na = 0, nb = 0;

	for (i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];

		if (strcmp(row->test, "welch") == 0 ||
		    dn_stats_mwu_min_p(row->a.n, row->b.n) * r->nrows <
		    COMPARE_ALPHA)
			continue;
		t = dn_xasprintf("%s%s%s", names ? names : "",
		    names ? ", " : "", row->name);
		free(names);
		names = t;
		na = row->a.n;
		nb = row->b.n;
		n++;
	}
	if (n == 0)
		return;
	add_warning(r, dn_xasprintf("%s: %zu vs %zu observations can never "
	    "be significant after Holm over %zu metrics (smallest possible "
	    "p %.3g); run more trials or pick metrics with --metric", names,
	    na, nb, r->nrows, dn_stats_mwu_min_p(na, nb)));
	free(names);
}

int
compare_analyze(struct dn_store *s, const char *side_a, const char *side_b,
    const struct compare_opts *opts, struct compare_result **rp,
    char **cause)
{
	struct compare_result	*r = dn_xcalloc(1, sizeof(*r));
	struct obs		 oa[NDERIVED], ob[NDERIVED];
	int			 use[NDERIVED];
	double			*praw = NULL, *padj = NULL;
	size_t			 i, j, k, family = 0, nta, ntb;
	int			 unit;

	*rp = NULL;
	memset(oa, 0, sizeof(oa));
	memset(ob, 0, sizeof(ob));
	r->threshold_pct = (opts && opts->threshold_pct > 0) ?
	    opts->threshold_pct : COMPARE_THRESHOLD_PCT;
	for (i = 0; opts != NULL && i < opts->nmetrics; i++) {
		for (k = 0; k < NDERIVED; k++)
			if (strcmp(derived[k].name, opts->metrics[i]) == 0)
				break;
		if (k == NDERIVED) {
			*cause = dn_xasprintf("unknown metric '%s' (see "
			    "'devnet compare --help' for the list)",
			    opts->metrics[i]);
			goto fail;
		}
	}
	for (k = 0; k < NDERIVED; k++)
		use[k] = wanted(opts, derived[k].name);
	if (side_resolve(s, side_a, &r->a, r, cause) != 0 ||
	    side_resolve(s, side_b, &r->b, r, cause) != 0)
		goto fail;
	for (i = 0; i < r->a.nruns; i++) {
		for (j = 0; j < r->b.nruns; j++) {
			if (r->a.runs[i].id == r->b.runs[j].id) {
				*cause = dn_xasprintf("run %lld is on both "
				    "sides; compare different runs",
				    (long long)r->a.runs[i].id);
				goto fail;
			}
		}
	}
	if (side_observe(s, &r->a, use, oa, cause) != 0 ||
	    side_observe(s, &r->b, use, ob, cause) != 0)
		goto fail;

	/* The family: metrics with data on both sides. */
	for (k = 0; k < NDERIVED; k++) {
		use[k] = use[k] && oa[k].ntrial > 0 && ob[k].ntrial > 0;
		family += use[k];
	}
	if (family == 0) {
		*cause = dn_xasprintf("no samples to compare after warmup in "
		    "%s vs %s (see 'devnet show RUN')", side_a, side_b);
		goto fail;
	}
	nta = r->a.nruns;
	ntb = r->b.nruns;
	unit = opts ? opts->unit : COMPARE_UNIT_AUTO;
	if (unit == COMPARE_UNIT_AUTO) {
		/* The node unit failed the A/A honesty sweep (6/30 groups
		 * with a false positive under 2% trial noise; docs/
		 * statistics.md), so auto always means the trial unit. */
		unit = COMPARE_UNIT_TRIAL;
		r->unit_note = dn_xasprintf("unit: trial (%zu vs %zu trials; "
		    "auto; --unit node only where an A/A stays clean)", nta,
		    ntb);
	} else if (unit == COMPARE_UNIT_TRIAL) {
		r->unit_note = dn_xasprintf("unit: trial (%zu vs %zu trials)",
		    nta, ntb);

	} else
		r->unit_note = dn_xasprintf("unit: trial x node (%zu vs %zu "
		    "trials; valid only if an A/A comparison stays clean)",
		    nta, ntb);
	r->unit = unit;

	r->rows = dn_xcalloc(family, sizeof(*r->rows));
	praw = dn_xcalloc(family, sizeof(double));
	padj = dn_xcalloc(family, sizeof(double));
	for (k = 0; k < NDERIVED; k++) {
		struct compare_row	*row;

		if (!use[k])
			continue;
		row = &r->rows[r->nrows];
		row->name = derived[k].name;
		row->unit = derived[k].unit;
		row->better = derived[k].better;
		row->desc = derived[k].desc;
		row->base_metric = derived[k].m1;
		test_row(row, &oa[k], &ob[k], unit, family);
		praw[r->nrows++] = row->p_raw;
	}
	dn_stats_holm(praw, r->nrows, padj);
	too_few(r);
	for (i = 0; i < r->nrows; i++) {
		struct compare_row	*row = &r->rows[i];
		int			 ci_clear;

		row->p = padj[i];
		ci_clear = isnan(row->delta_ci_low) ||
		    row->delta_ci_low > 0 || row->delta_ci_high < 0;
		row->significant = !isnan(row->p) && row->p < COMPARE_ALPHA &&
		    !isnan(row->delta_pct) &&
		    fabs(row->delta_pct) >= r->threshold_pct && ci_clear;
		row->verdict = verdict_of(row);
	}
	for (i = 0; i < 2; i++) {
		const struct compare_side *sd = i ? &r->b : &r->a;

		for (j = 0; j < sd->nruns; j++) {
			if (sd->runs[j].faults != NULL)
				add_warning(r, dn_xasprintf("run %lld had "
				    "unplanned faults: %s", (long long)
				    sd->runs[j].id, sd->runs[j].faults));
		}
	}
	free(praw);
	free(padj);
	for (k = 0; k < NDERIVED; k++) {
		obs_release(&oa[k]);
		obs_release(&ob[k]);
	}
	*rp = r;
	return (0);
fail:
	for (k = 0; k < NDERIVED; k++) {
		obs_release(&oa[k]);
		obs_release(&ob[k]);
	}
	compare_result_free(r);
	return (-1);
}

void
compare_result_free(struct compare_result *r)
{
	size_t	i;

	if (r == NULL)
		return;
	side_release(&r->a);
	side_release(&r->b);
	for (i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	free(r->rows);
	free(r->unit_note);
	free(r);
}

/* --- rendering ----------------------------------------------------------- */

void
compare_fmt_value(double v, const char *unit, char *buf, size_t len)
{
	static const char *const	bin[] = { "B", "KiB", "MiB", "GiB",
					    "TiB" };
	static const char *const	dec[] = { "", "k", "M", "G", "T" };
	double				a = fabs(v);
	int				i = 0;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (strncmp(unit, "bytes", 5) == 0) {
		while (a >= 1024 && i < 4) {
			a /= 1024;
			v /= 1024;
			i++;
		}
		snprintf(buf, len, "%.4g %s%s", v, bin[i], unit + 5);
		return;
	}
	while (a >= 1000 && i < 4) {
		a /= 1000;
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.4g%s %s", v, dec[i], unit);
}

static const char *
side_runs(const struct compare_side *sd, char *buf, size_t len)
{
	size_t	i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < sd->nruns && off + 24 < len; i++)
		off += snprintf(buf + off, len - off, "%s%lld", i ? "," : "",
		    (long long)sd->runs[i].id);
	return (buf);
}

static void
fmt_delta(const struct compare_row *row, char *buf, size_t len)
{
	if (isnan(row->delta_pct))
		snprintf(buf, len, "-");
	else if (!row->significant)
		snprintf(buf, len, "~");
	else
		snprintf(buf, len, "%+.2f%%", row->delta_pct);
}

static void
fmt_ci(const struct compare_row *row, char *buf, size_t len)
{
	if (isnan(row->delta_ci_low))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "[%+.1f%%, %+.1f%%]", row->delta_ci_low,
		    row->delta_ci_high);
}

static void
render_text(const struct compare_result *r, FILE *out, int md)
{
	char	ra[256], rb[256], va[48], vb[48], d[32], ci[48], pn[48];
	size_t	i;

	fprintf(out, "%sA = %s (runs %s), B = %s (runs %s)\n", md ? "" : "",
	    r->a.spec, side_runs(&r->a, ra, sizeof(ra)), r->b.spec,
	    side_runs(&r->b, rb, sizeof(rb)));
	fprintf(out, "%s; threshold %.3g%%; Holm over %zu metrics\n\n",
	    r->unit_note, r->threshold_pct, r->nrows);
	if (md)
		fprintf(out, "| metric | A | B | delta | 95%% CI | p | n "
		    "| verdict |\n|---|---:|---:|---:|---:|---:|---:|---|\n");
	else
		fprintf(out, "%-18s %17s %17s %8s %18s %7s %6s  %s\n",
		    "metric", "A median", "B median", "delta", "95% CI",
		    "p", "n", "verdict");
	for (i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];

		compare_fmt_value(row->a.median, row->unit, va, sizeof(va));
		compare_fmt_value(row->b.median, row->unit, vb, sizeof(vb));
		fmt_delta(row, d, sizeof(d));
		fmt_ci(row, ci, sizeof(ci));
		snprintf(pn, sizeof(pn), "%zu+%zu", row->a.n, row->b.n);
		if (md)
			fprintf(out, "| %s | %s | %s | %s | %s | %.3g | %s "
			    "| %s |\n", row->name, va, vb, d, ci, row->p, pn,
			    row->verdict);
		else
			fprintf(out, "%-18s %17s %17s %8s %18s %7.2g %6s  "
			    "%s\n", row->name, va, vb, d, ci, row->p, pn,
			    row->verdict);
	}
	if (r->nwarnings > 0)
		fputc('\n', out);
	for (i = 0; i < r->nwarnings; i++)
		fprintf(out, "%swarning: %s\n", md ? "- " : "",
		    r->warnings[i]);
	if (!md)
		fprintf(out, "\n~: not significant (p >= %.2f after Holm, "
		    "|delta| < %.3g%%, or the CI spans 0); p is "
		    "Holm-adjusted; n = A+B observations\n", COMPARE_ALPHA,
		    r->threshold_pct);
}

static void
json_num(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", out);
	else
		fprintf(out, "%.10g", v);
}

/* JSON string with the escapes RFC 8259 requires. */
void
compare_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		unsigned char	c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void
json_stat(FILE *out, const char *key, const struct compare_stat *st)
{
	fprintf(out, "\"%s\": {\"n\": %zu, \"median\": ", key, st->n);
	json_num(out, st->median);
	fputs(", \"mean\": ", out);
	json_num(out, st->mean);
	fputs(", \"ci_low\": ", out);
	json_num(out, st->ci_low);
	fputs(", \"ci_high\": ", out);
	json_num(out, st->ci_high);
	fputc('}', out);
}

static void
json_side(FILE *out, const char *key, const struct compare_side *sd)
{
	size_t	i;
	int	first;

	fprintf(out, "    \"%s\": {\"spec\": ", key);
	compare_json_str(out, sd->spec);
	fputs(", \"runs\": [", out);
	for (i = 0; i < sd->nruns; i++)
		fprintf(out, "%s%lld", i ? ", " : "",
		    (long long)sd->runs[i].id);
	fputs("], \"faulted_runs\": [", out);
	for (i = 0, first = 1; i < sd->nruns; i++) {
		if (sd->runs[i].faults == NULL)
			continue;
		fprintf(out, "%s{\"run\": %lld, \"faults\": ",
		    first ? "" : ", ", (long long)sd->runs[i].id);
		compare_json_str(out, sd->runs[i].faults);
		fputs("}", out);
		first = 0;
	}
	fputs("]}", out);
}

static void
render_json(const struct compare_result *r, FILE *out)
{
	size_t	i;

	fputs("{\n  \"version\": 1,\n  \"sides\": {\n", out);
	json_side(out, "a", &r->a);
	fputs(",\n", out);
	json_side(out, "b", &r->b);
	fprintf(out, "\n  },\n  \"unit\": \"%s\",\n  \"unit_note\": ",
	    r->unit == COMPARE_UNIT_NODE ? "node" : "trial");
	compare_json_str(out, r->unit_note);
	fprintf(out, ",\n  \"alpha\": %g,\n  \"threshold_pct\": %g,\n"
	    "  \"warnings\": [", COMPARE_ALPHA, r->threshold_pct);
	for (i = 0; i < r->nwarnings; i++) {
		fputs(i ? ", " : "", out);
		compare_json_str(out, r->warnings[i]);
	}
	fputs("],\n  \"metrics\": [\n", out);
	for (i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];

		fprintf(out, "    {\"name\": \"%s\", \"unit\": \"%s\", "
		    "\"better\": \"%s\", ", row->name, row->unit, row->better);
		json_stat(out, "a", &row->a);
		fputs(", ", out);
		json_stat(out, "b", &row->b);
		fputs(", \"delta_pct\": ", out);
		json_num(out, row->delta_pct);
		fputs(", \"delta_ci_low\": ", out);
		json_num(out, row->delta_ci_low);
		fputs(", \"delta_ci_high\": ", out);
		json_num(out, row->delta_ci_high);
		fputs(", \"p\": ", out);
		json_num(out, row->p);
		fputs(", \"p_raw\": ", out);
		json_num(out, row->p_raw);
		fputs(", \"deff\": ", out);
		json_num(out, row->deff);
		fprintf(out, ", \"test\": \"%s\", \"significant\": %s, "
		    "\"verdict\": \"%s\"}%s\n", row->test,
		    row->significant ? "true" : "false", row->verdict,
		    i + 1 < r->nrows ? "," : "");
	}
	fputs("  ]\n}\n", out);
}

static void
render_csv(const struct compare_result *r, FILE *out)
{
	size_t	i;

	fputs("name,unit,better,a_n,a_median,a_mean,a_ci_low,a_ci_high,"
	    "b_n,b_median,b_mean,b_ci_low,b_ci_high,delta_pct,delta_ci_low,"
	    "delta_ci_high,p,p_raw,significant,verdict\n", out);
	for (i = 0; i < r->nrows; i++) {
		const struct compare_row	*row = &r->rows[i];
		const struct compare_stat	*st[2] = { &row->a, &row->b };
		int				 j;

		fprintf(out, "%s,%s,%s", row->name, row->unit, row->better);
		for (j = 0; j < 2; j++)
			fprintf(out, ",%zu,%.10g,%.10g,%.10g,%.10g", st[j]->n,
			    st[j]->median, st[j]->mean, st[j]->ci_low,
			    st[j]->ci_high);
		fprintf(out, ",%.10g,%.10g,%.10g,%.10g,%.10g,%s,%s\n",
		    row->delta_pct, row->delta_ci_low, row->delta_ci_high,
		    row->p, row->p_raw, row->significant ? "true" : "false",
		    row->verdict);
	}
}

void
compare_render(const struct compare_result *r, int format, FILE *out)
{
	switch (format) {
	case COMPARE_JSON:
		render_json(r, out);
		break;
	case COMPARE_CSV:
		render_csv(r, out);
		break;
	case COMPARE_MARKDOWN:
		render_text(r, out, 1);
		break;
	default:
		render_text(r, out, 0);
		break;
	}
}

int
compare_print(struct dn_store *s, const char *side_a, const char *side_b,
    const struct compare_opts *opts, FILE *out, char **cause)
{
	struct compare_result	*r;

	if (compare_analyze(s, side_a, side_b, opts, &r, cause) != 0)
		return (-1);
	compare_render(r, opts ? opts->format : COMPARE_TABLE, out);
	compare_result_free(r);
	return (0);
}
