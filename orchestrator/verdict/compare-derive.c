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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "metric-table.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"

/* The verdict's metrics as compare reads them: the one table,
 * DN_VERDICT_METRICS in metric-table.h. */
const struct derived compare_derived[] = {
#define DERIVED_ROW(name, unit, better, m1, m2, fold, agg_max, desc)         \
	{ name, unit, better, m1, m2, F_##fold, agg_max, desc },
	DN_VERDICT_METRICS(DERIVED_ROW)
#undef DERIVED_ROW
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

/*
 * A run's series of one group of base metrics: a derived metric's m1 and,
 * for those that sum two counters (cpu, context switches), its m2, read
 * together from t=0.  Up to GROUP_MAX ids; SER[i] the steady-state window
 * (t_ms >= WARMUP_MS) of what was read, views into FULL[i].
 */
#define GROUP_MAX	4
struct run_data {
	int			 id[GROUP_MAX];
	size_t			 nid;
	struct dn_series	*full[GROUP_MAX];
	size_t			 nfull[GROUP_MAX];
	struct dn_series	*ser[GROUP_MAX];
	int64_t			 warmup_ms, duration_ms;
};

/* Node NODE's series of metric M in RD: the window (FULL 0) or the whole
 * read (FULL 1); NULL when none. */
static const struct dn_series *
find_node(const struct run_data *rd, int m, int node, int full)
{
	size_t	i, j;

	for (j = 0; j < rd->nid; j++) {
		if (rd->id[j] != m)
			continue;
		for (i = 0; i < rd->nfull[j]; i++)
			if (rd->full[j][i].node == node)
				return (full ? &rd->full[j][i] :
				    &rd->ser[j][i]);
	}
	return (NULL);
}

/* The first sample of S at or after T (by bisection: a node's samples
 * are in time order). */
static size_t
first_at(const struct dn_series *s, int64_t t)
{
	size_t	lo = 0, hi = s->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->t_ms[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

/* The samples of S in [LO, HI] as a view into S; with PREV also the
 * last one before LO, so that blocks side by side share their boundary
 * sample and a counter's increases are all counted once. */
static void
span_view(const struct dn_series *s, int64_t lo, int64_t hi, int prev,
    struct dn_series *out)
{
	size_t	a = first_at(s, lo), b = hi == INT64_MAX ? s->n :
		    first_at(s, hi + 1);

	if (prev && a > 0)
		a--;
	memset(out, 0, sizeof(*out));
	out->node = s->node;
	out->n = b > a ? b - a : 0;
	out->t_ms = s->t_ms + a;
	out->v = s->v + a;
}

/*
 * D's value over the samples of RD in [LO, HI], per node, then across
 * nodes as a trial's (max or mean): the warmup window's value (the
 * covariate of compare-adjust.c) and a time block's.  NAN when no node
 * has one.
 */
static double
span_value(const struct derived *d, const struct run_data *rd, int64_t lo,
    int64_t hi, int prev)
{
	const struct dn_series	*s2;
	struct dn_series	 a, b;
	double			 agg = NAN, sum = 0, v;
	size_t			 i, j, n = 0;

	for (j = 0; j < rd->nid && rd->id[j] != d->m1; j++)
		;
	for (i = 0; j < rd->nid && i < rd->nfull[j]; i++) {
		span_view(&rd->full[j][i], lo, hi, prev, &a);
		s2 = d->m2 >= 0 ? find_node(rd, d->m2, a.node, 1) : NULL;
		if (s2 != NULL)
			span_view(s2, lo, hi, prev, &b);
		v = node_value(d, &a, s2 != NULL ? &b : NULL);
		if (isnan(v))
			continue;
		if (d->agg_max)
			agg = (n == 0 || v > agg) ? v : agg;
		sum += v;
		n++;
	}
	return (n == 0 ? NAN : d->agg_max ? agg : sum / n);
}

/*
 * The steady-state window of RD cut into time blocks (COMPARE_BLOCKS_MAX
 * at most, each of two sample intervals or more, so that a counter's
 * rate has an increase in every block), D's value in each, appended to
 * O's blk_v; their count into *NB (0: the window is too short).
 */
static void
obs_add_blocks(struct obs *o, const struct derived *d,
    const struct run_data *rd, size_t *nb)
{
	const struct dn_series	*s;
	int64_t			 t0 = rd->warmup_ms, t1 = t0, len;
	size_t			 i, j, nint = 0, n;

	*nb = 0;
	for (j = 0; j < rd->nid && rd->id[j] != d->m1; j++)
		;
	for (i = 0; j < rd->nid && i < rd->nfull[j]; i++) {
		s = &rd->ser[j][i];
		if (s->n < 2)
			continue;
		if (s->t_ms[s->n - 1] > t1)
			t1 = s->t_ms[s->n - 1];
		if (s->n - 1 > nint)
			nint = s->n - 1;
	}
	/* the load ends at the duration: a sample after it is no block */
	if (rd->duration_ms > t0 && t1 > rd->duration_ms)
		t1 = rd->duration_ms;
	n = nint / 2 < COMPARE_BLOCKS_MAX ? nint / 2 : COMPARE_BLOCKS_MAX;
	if (n < 2 || t1 <= t0)
		return;
	len = (t1 - t0) / (int64_t)n;
	o->blk_v = dn_xreallocarray(o->blk_v, o->nblk_all + n,
	    sizeof(double));
	for (i = 0; i < n; i++)
		o->blk_v[o->nblk_all + i] = span_value(d, rd, t0 + (int64_t)i *
		    len, i + 1 == n ? t1 : t0 + (int64_t)(i + 1) * len - 1,
		    i > 0);
	o->nblk_all += n;
	*nb = n;
}

static void
obs_add_run(struct obs *o, const struct derived *d, const struct run_data *rd,
    int trial)
{
	const struct dn_series	*s1;
	double			 agg = NAN, sum = 0, v;
	size_t			 i, j, n = 0, nb;

	for (j = 0; j < rd->nid && rd->id[j] != d->m1; j++)
		;
	for (i = 0; j < rd->nid && i < rd->nfull[j]; i++) {
		s1 = &rd->ser[j][i];
		v = node_value(d, s1, d->m2 >= 0 ? find_node(rd, d->m2,
		    s1->node, 0) : NULL);
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
	o->pre_v = dn_xreallocarray(o->pre_v, o->ntrial + 1, sizeof(double));
	o->blk_n = dn_xreallocarray(o->blk_n, o->ntrial + 1, sizeof(size_t));
	/* the same metric over the warmup window: what B's difference
	 * shares with the steady state, and the trial's luck */
	o->pre_v[o->ntrial] = rd->warmup_ms > 0 ? span_value(d, rd, 0,
	    rd->warmup_ms - 1, 0) : NAN;
	obs_add_blocks(o, d, rd, &nb);
	o->blk_n[o->ntrial] = nb;
	o->trial_v[o->ntrial++] = d->agg_max ? agg : sum / n;
}

void
compare_obs_release(struct obs *o)
{
	free(o->node_v);
	free(o->node_c);
	free(o->trial_v);
	free(o->pre_v);
	free(o->blk_v);
	free(o->blk_n);
}

/* The part of each of the N series of V at or after T_MIN: views into
 * V's arrays (the caller frees the array, never the views' contents). */
static struct dn_series *
series_window(const struct dn_series *v, size_t n, int64_t t_min)
{
	struct dn_series	*w = dn_xcalloc(n ? n : 1, sizeof(*w));
	size_t			 i;

	for (i = 0; i < n; i++)
		span_view(&v[i], t_min, INT64_MAX, 0, &w[i]);
	return (w);
}

static void
run_data_release(struct run_data *rd)
{
	size_t	j;

	for (j = 0; j < rd->nid; j++) {
		if (rd->ser[j] != rd->full[j])
			free(rd->ser[j]);
		dn_series_free(rd->full[j], rd->nfull[j]);
	}
	memset(rd, 0, sizeof(*rd));
}

/* Read the group's metrics of RUN into RD from t=0: the warmup window
 * is the adjustment's covariate (compare-adjust.c), and FEED charts the
 * whole series. */
static int
run_data_read(struct dn_store *s, const struct compare_run *run,
    struct run_data *rd, char **cause)
{
	int64_t	t_min = 0;
	size_t	j;

	rd->warmup_ms = run->warmup_ms;
	rd->duration_ms = run->duration_ms;

	for (j = 0; j < rd->nid; j++) {
		if (dn_store_series(s, run->id, rd->id[j], t_min,
		    &rd->full[j], &rd->nfull[j], cause) != 0)
			return (-1);
		rd->ser[j] = t_min < run->warmup_ms ? series_window(
		    rd->full[j], rd->nfull[j], run->warmup_ms) : rd->full[j];
	}
	return (0);
}

/*
 * One group of base metrics, led by M (the m1 of the used derived metrics
 * DEFS[K]; their m2s come with it), for every run of the NSIDES sides:
 * read once, observed for every such derived metric into O[side][k], and
 * handed to FEED (M's series only: the one a row charts).  One group's
 * series at a time bound the memory to one metric of one run.
 */
static int
observe_group(struct dn_store *s, const struct compare_side *const *sides,
    size_t nsides, const struct derived *defs, size_t nd, const int *use,
    int m, struct obs **o, const struct compare_feed *feed, char **cause)
{
	struct run_data	 rd;
	size_t		 i, j, k, side;
	int		 rc = 0;

	memset(&rd, 0, sizeof(rd));
	for (side = 0; side < nsides && rc == 0; side++) {
		for (i = 0; i < sides[side]->nruns && rc == 0; i++) {
			rd.id[rd.nid++] = m;
			for (k = 0; k < nd; k++) {
				if (!use[k] || defs[k].m1 != m ||
				    defs[k].m2 < 0)
					continue;
				for (j = 0; j < rd.nid; j++)
					if (rd.id[j] == defs[k].m2)
						break;
				if (j == rd.nid && rd.nid < GROUP_MAX)
					rd.id[rd.nid++] = defs[k].m2;
			}
			rc = run_data_read(s, &sides[side]->runs[i], &rd,
			    cause);
			if (rc == 0 && feed != NULL)
				rc = feed->series(feed->arg, (int)side, m,
				    rd.full[0], rd.nfull[0], cause);
			for (k = 0; k < nd && rc == 0; k++)
				if (use[k] && defs[k].m1 == m)
					obs_add_run(&o[side][k], &defs[k], &rd,
					    (int)i);
			run_data_release(&rd);
		}
	}
	if (rc == 0 && feed != NULL)
		rc = feed->done(feed->arg, m, cause);
	return (rc);
}

int
compare_observe(struct dn_store *s, const struct compare_side *const *sides,
    size_t nsides, const struct derived *defs, size_t nd, const int *use,
    struct obs **o, const struct compare_feed *feed, char **cause)
{
	size_t	j, k;

	for (k = 0; k < nd; k++) {
		if (!use[k])
			continue;
		/* the first used metric of a base metric reads it for all */
		for (j = 0; j < k; j++)
			if (use[j] && defs[j].m1 == defs[k].m1)
				break;
		if (j == k && observe_group(s, sides, nsides, defs, nd, use,
		    defs[k].m1, o, feed, cause) != 0)
			return (-1);
	}
	return (0);
}

/* --- one run at a time (devnet history) -------------------------------- */

int
compare_run_observe(struct dn_store *s, int64_t run_id, int64_t warmup_ms,
    const int *use, double *out, char **cause)
{
	struct compare_run		 run;
	struct compare_side		 side;
	const struct compare_side	*sides[1] = { &side };
	struct obs			 o[NDERIVED], *os[1] = { o };
	size_t				 k;
	int				 rc;

	memset(&run, 0, sizeof(run));
	run.id = run_id;
	run.warmup_ms = warmup_ms;
	side.spec = NULL;
	side.runs = &run;
	side.nruns = 1;
	memset(o, 0, sizeof(o));
	/* The very observations a comparison of this run would test. */
	rc = compare_observe(s, sides, 1, compare_derived, NDERIVED, use, os,
	    NULL, cause);
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
