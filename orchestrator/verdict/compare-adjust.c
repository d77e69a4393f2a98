/*
 * compare-adjust.c: what is done to a metric's observations before its
 * test (docs/statistics.md, "Variance reduction" and "Long runs decide
 * too"):
 *
 *  - the adjustment: CUPED-style regression of each trial's steady-state
 *    value on the same metric over its own warmup window (Deng et al.,
 *    WSDM 2013), applied per metric only where the rule below holds;
 *  - the time-block unit: a concurrent pair of single trials (1+1) is
 *    tested on time blocks of its steady-state window, batch means whose
 *    length is doubled until the lag-1 autocorrelation of the block
 *    values is small.
 *
 * Both replace a metric's trial values (struct obs) in place, so that the
 * test, the interval, equivalence and the MDE of compare.c and
 * compare-power.c see the values that decide.  Not here: reading the
 * warmup window and the blocks (compare-derive.c), the test (compare.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"

/* The adjustment's rule (docs/statistics.md, "Variance reduction"). */
#define ADJ_MIN_TRIALS	4	/* a side: the slope costs a degree of
				   freedom, and chance correlations are
				   common below */
#define ADJ_MIN_R	0.5	/* |within-side correlation| */
#define ADJ_MOVED_P	0.2	/* the warmup windows differ: B acts in
				   them too */

/* The time-block unit's rule (docs/statistics.md, "Long runs"). */
#define BLK_MIN		6	/* blocks a side */
#define BLK_MAX_R1	0.2	/* lag-1 autocorrelation of the blocks */
#define BLK_AR1_MAX	0.5	/* paired differences: allowed for up to
				   this (variance x3 at most), refused
				   above */

static void
adjust_none(struct compare_adjust *adj, const char *note)
{
	adj->adjusted = 0;
	adj->note = note;
}

/* The two-sided critical value of Student's t with DF degrees of
 * freedom at COMPARE_ALPHA / ADJ_FAMILY, by bisection. */
#define ADJ_FAMILY	4
static double
t_crit(double df)
{
	double	lo = 0, hi = 1000, mid;
	int	i;

	for (i = 0; i < 60; i++) {
		mid = (lo + hi) / 2;
		if (dn_stats_t_p2(mid, df) > COMPARE_ALPHA / ADJ_FAMILY)
			lo = mid;
		else
			hi = mid;
	}
	return ((lo + hi) / 2);
}

void
compare_adjust_metric(struct obs *oa, struct obs *ob,
    struct compare_adjust *adj, double **alt)
{
	struct obs	*o[2] = { oa, ob };
	double		 mx[2], my[2], sxx = 0, sxy = 0, syy = 0, xall = 0;
	double		 c2, c2e, ssr, m, *y;
	struct dn_welch	 w;
	size_t		 s, i, nall;

	adj->r = adj->theta = adj->var_removed_pct = NAN;
	adj->mde_unadjusted_pct = adj->moved_p = NAN;
	adj->guarded = 0;
	alt[0] = alt[1] = NULL;
	if (oa->ntrial < ADJ_MIN_TRIALS || ob->ntrial < ADJ_MIN_TRIALS) {
		adjust_none(adj, "fewer than 4 trials a side");
		return;
	}
	/* A is 0 (compare_row_a_zero): a change has no base to adjust */
	if (dn_stats_median(oa->trial_v, oa->ntrial) == 0 ||
	    dn_stats_mean(oa->trial_v, oa->ntrial) == 0) {
		adjust_none(adj, "A is 0");
		return;
	}
	for (s = 0; s < 2; s++) {
		for (i = 0; i < o[s]->ntrial; i++) {
			if (o[s]->pre_v == NULL || isnan(o[s]->pre_v[i])) {
				adjust_none(adj, "no warmup window");
				return;
			}
			xall += o[s]->pre_v[i];
		}
		mx[s] = dn_stats_mean(o[s]->pre_v, o[s]->ntrial);
		my[s] = dn_stats_mean(o[s]->trial_v, o[s]->ntrial);
		for (i = 0; i < o[s]->ntrial; i++) {
			double	dx = o[s]->pre_v[i] - mx[s];
			double	dy = o[s]->trial_v[i] - my[s];

			sxx += dx * dx;
			sxy += dx * dy;
			syy += dy * dy;
		}
	}
	if (!(sxx > 0) || !(syy > 0)) {
		adjust_none(adj, "no spread in the warmup window or after");
		return;
	}
	nall = oa->ntrial + ob->ntrial;
	xall /= (double)nall;
	/* Within sides, so that B's difference is no correlation. */
	adj->theta = sxy / sxx;
	adj->r = sxy / sqrt(sxx * syy);
	/* The residuals lose a degree of freedom to the slope, and Welch
	 * counts about N - 2 degrees of freedom where the regression has
	 * N - 3: widened by (N - 2) / (N - 3) and by the ratio of their
	 * critical values at the level of a default primary family's first
	 * step.  The slope's own error weighs on the difference in
	 * proportion to the warmup windows' difference dX: the values are
	 * widened by this run's 1 + dX^2 / Sxx / (1/nA + 1/nB) (C2), so
	 * that the test's standard error is the regression's (ANCOVA's),
	 * s sqrt(1/nA + 1/nB + dX^2 / Sxx). */
	c2e = (nall - 2.0) / (nall - 3.0) * pow(t_crit(nall - 3.0) /
	    t_crit(nall - 2.0), 2);
	c2 = c2e * (1 + (mx[1] - mx[0]) * (mx[1] - mx[0]) / sxx /
	    (1.0 / oa->ntrial + 1.0 / ob->ntrial));
	/* But the rule never looks at this run's dX: under A/A the luck
	 * that set the warmup windows apart set the steady states apart
	 * too (by theta dX), and a rule that sends such groups to the plain
	 * test hands it false alarms (A/A 0.070 at 4+4; docs/
	 * statistics.md).  It counts the slope's error at its expected
	 * size, E[dX^2 / Sxx / (1/nA + 1/nB)] = 1 / (N - 4). */
	c2e *= 1 + 1.0 / (nall - 4.0);
	ssr = syy - sxy * sxy / sxx;
	adj->var_removed_pct = 100 * (1 - c2e * ssr / syy);
	/* Where the correlation is weak the regression removes little and
	 * costs a degree of freedom (the widening above): it would lose
	 * power (cpu_s_per_s on smoke, r -0.08: MDE 66% -> 79%). */
	if (fabs(adj->r) < ADJ_MIN_R) {
		adjust_none(adj, "|r| below 0.5: not adjusted");
		return;
	}
	if (!(adj->var_removed_pct > 0)) {
		adjust_none(adj, "removes no variance: not adjusted");
		return;
	}
	for (s = 0; s < 2; s++) {
		alt[s] = o[s]->trial_v;
		y = dn_xreallocarray(NULL, o[s]->ntrial, sizeof(*y));
		m = my[s] - adj->theta * (mx[s] - xall);
		for (i = 0; i < o[s]->ntrial; i++)
			y[i] = m + sqrt(c2) * (o[s]->trial_v[i] - my[s] -
			    adj->theta * (o[s]->pre_v[i] - mx[s]));
		o[s]->trial_v = y;
	}
	/* A covariate that B's difference moved would take that part of the
	 * difference away: not where the warmup windows differ clearly
	 * (Welch, p < ADJ_MOVED_P).  Luck does that too, in ADJ_MOVED_P of
	 * A/A groups, and then the plain test alone would find the luck
	 * it shares with the steady state: compare_adjust_guard asks more
	 * of it.  Tested unadjusted, the adjusted values kept in ALT. */
	if (dn_stats_welch(oa->pre_v, oa->ntrial, ob->pre_v, ob->ntrial,
	    &w) != 0 || !(w.p >= ADJ_MOVED_P)) {
		for (s = 0; s < 2; s++) {
			y = o[s]->trial_v;
			o[s]->trial_v = alt[s];
			alt[s] = y;
		}
		adj->moved_p = isnan(w.p) ? 1 : w.p;
		adj->guarded = 1;
		adjust_none(adj, "B moved the warmup window too: not "
		    "adjusted, and shown only with a clear move or the "
		    "adjusted test");
		return;
	}
	adj->adjusted = 1;
	adj->note = "adjusted on the warmup window";
}

void
compare_adjust_guard(struct compare_row *row, const struct obs *oa,
    const struct obs *ob, double *const *alt, int unit, size_t family)
{
	struct compare_row	tmp;
	struct obs		a = *oa, b = *ob;
	double			p;

	if (!row->adj.guarded || alt[0] == NULL || alt[1] == NULL)
		return;
	/* Under A/A the guard fires in ADJ_MOVED_P of groups (X alone
	 * decides it), and there the adjusted test keeps its level (it
	 * holds given X): a difference is shown when the plain test shows
	 * it and either the warmup windows differ at ADJ_MOVED_P a / 2
	 * (luck does that in ADJ_MOVED_P a / 2 of groups: B moved them) or
	 * the adjusted test shows it at a / 2 (it was luck, and the
	 * adjustment took it out): at most ADJ_MOVED_P a in all, at every
	 * level a Holm tries. */
	a.trial_v = alt[0];
	b.trial_v = alt[1];
	tmp = *row;
	compare_row_p(&tmp, &a, &b, unit, family);
	p = 2 * fmin(row->adj.moved_p / ADJ_MOVED_P, tmp.p_raw);
	if (!isnan(p) && !isnan(row->p_raw))
		row->p_raw = fmax(row->p_raw, fmin(1, p));
}

/* Lag-1 autocorrelation of V (0 when V has no spread). */
static double
lag1(const double *v, size_t n)
{
	double	m = dn_stats_mean(v, n), num = 0, den = 0;
	size_t	i;

	for (i = 0; i < n; i++) {
		den += (v[i] - m) * (v[i] - m);
		if (i + 1 < n)
			num += (v[i] - m) * (v[i + 1] - m);
	}
	return (den > 0 ? num / den : 0);
}

/* The means of K consecutive values of V (N of them) into OUT; how
 * many. */
static size_t
batch(const double *v, size_t n, size_t k, double *out)
{
	size_t	i, j;

	for (i = 0; i + k <= n; i += k) {
		out[i / k] = 0;
		for (j = 0; j < k; j++)
			out[i / k] += v[i + j] / (double)k;
	}
	return (n / k);
}

/* The blocks of OA and OB (the same count, over the same minutes)
 * batched by K until the lag-1 autocorrelation of their differences
 * (log(B / A) where every value is positive, else B - A) is below
 * BLK_MAX_R1, into V[0], V[1] (room for the blocks); how many a side.
 * Where no length gets there, the longest that leaves BLK_MIN, if its
 * lag-1 is below BLK_AR1_MAX: allowed for by the test (*AR1 set to it,
 * compare-paired.c); else 0.  *R1: the lag-1 of the last length. */
static size_t
blocks_paired(const struct obs *oa, const struct obs *ob, double **v,
    size_t *kp, double *r1, double *ar1)
{
	size_t	 n, k, klast = 0;
	double	*d = dn_xreallocarray(NULL, oa->blk_n[0], sizeof(double));
	double	 rlast = NAN, scale;
	int	 lg;

	*ar1 = 0;
	for (k = 1;; k *= 2) {
		n = batch(oa->blk_v, oa->blk_n[0], k, v[0]);
		batch(ob->blk_v, ob->blk_n[0], k, v[1]);
		if (n < BLK_MIN)
			break;
		compare_paired_differences(v[0], v[1], n, d, &lg, &scale);
		*r1 = lag1(d, n);
		if (*r1 < BLK_MAX_R1) {
			free(d);
			*kp = k;
			return (n);
		}
		klast = k;
		rlast = *r1;
	}
	free(d);
	if (klast == 0 || !(rlast < BLK_AR1_MAX))
		return (0);
	*kp = klast;
	*r1 = *ar1 = rlast;
	batch(ob->blk_v, ob->blk_n[0], klast, v[1]);
	return (batch(oa->blk_v, oa->blk_n[0], klast, v[0]));
}

/*
 * OA and OB (one trial each, run concurrently) on time blocks: batch
 * means of each side's blocks, twice as long until neighbours are nearly
 * independent; where that fails (a metric that grows through the run:
 * its blocks stay correlated at every length) and the two runs' blocks
 * cover the same minutes (ALIGNED), each block of B paired with A's,
 * until the differences are nearly independent: what both sides share
 * over the run cancels in them.
 */
static void
compare_blocks_metric(struct obs *oa, struct obs *ob, double window_s,
    int aligned, struct compare_adjust *adj)
{
	struct obs	*o[2] = { oa, ob };
	double		*v[2], r1 = NAN;
	size_t		 n[2], k, s, i;
	int		 paired = 0;

	adj->unit_why = "the window is too short for 6 time blocks a side";
	if (oa->ntrial != 1 || ob->ntrial != 1 || oa->blk_n == NULL ||
	    ob->blk_n == NULL || oa->blk_n[0] < BLK_MIN ||
	    ob->blk_n[0] < BLK_MIN)
		return;
	for (s = 0; s < 2; s++)
		for (i = 0; i < o[s]->blk_n[0]; i++)
			if (isnan(o[s]->blk_v[i])) {
				adj->unit_why = "a time block without "
				    "samples";
				return;
			}
	v[0] = dn_xreallocarray(NULL, oa->blk_n[0], sizeof(double));
	v[1] = dn_xreallocarray(NULL, ob->blk_n[0], sizeof(double));
	for (k = 1;; k *= 2) {
		n[0] = batch(oa->blk_v, oa->blk_n[0], k, v[0]);
		n[1] = batch(ob->blk_v, ob->blk_n[0], k, v[1]);
		if (n[0] < BLK_MIN || n[1] < BLK_MIN)
			break;
		r1 = fmax(lag1(v[0], n[0]), lag1(v[1], n[1]));
		if (r1 < BLK_MAX_R1)
			break;
	}
	if ((n[0] < BLK_MIN || n[1] < BLK_MIN) && aligned &&
	    oa->blk_n[0] == ob->blk_n[0] &&
	    (n[0] = n[1] = blocks_paired(oa, ob, v, &k, &r1,
	    &adj->block_ar1)) > 0)
		paired = 1;
	if (n[0] < BLK_MIN || n[1] < BLK_MIN) {
		/* and what may still decide it: the nodes, where an A/A
		 * of the scenario backs them (the 2.5 h pair's memory) */
#define BLK_NODES_MAY	"; the nodes may decide it, backed by a stored " \
			"A/A of this scenario (--unit node --aa GROUP)"
		adj->unit_why = aligned ? "time blocks autocorrelated at "
		    "every length the run allows, and so are the "
		    "differences of its paired blocks: not decided on "
		    "blocks" BLK_NODES_MAY : "time blocks autocorrelated at "
		    "every length the run allows (and the runs' blocks are "
		    "not over the same minutes, to pair them): not decided "
		    "on blocks" BLK_NODES_MAY;
#undef BLK_NODES_MAY
		adj->block_r1 = r1;
		free(v[0]);
		free(v[1]);
		return;
	}
	for (s = 0; s < 2; s++) {
		free(o[s]->trial_v);
		o[s]->trial_v = v[s];
		o[s]->ntrial = n[s];
	}
	adj->unit = "block";
	adj->block_paired = paired;
	adj->unit_why = paired && adj->block_ar1 > 0 ? "1+1 trials run "
	    "concurrently, their blocks over the same minutes: each "
	    "block's B/A paired (what both sides share through the run, a "
	    "growth or the machine's drifts, cancels); the differences' "
	    "lag-1 autocorrelation stays above 0.2 at every length, below "
	    "0.5 at the longest: allowed for (the variance of their mean "
	    "inflated by (1+r)/(1-r), the degrees of freedom cut to match)" :
	    paired ? "1+1 trials run concurrently, their "
	    "blocks over the same minutes: each block's B/A paired (what "
	    "both sides share through the run, a growth or the machine's "
	    "drifts, cancels); blocks long enough that the lag-1 "
	    "autocorrelation of the differences is below 0.2" : "1+1 "
	    "trials run concurrently (A and B shared the machine's "
	    "drifts); blocks long enough that the lag-1 autocorrelation "
	    "of their values is below 0.2";
	adj->block_r1 = r1;
	adj->block_s = window_s * (double)k / (double)oa->blk_n[0];
	adj->blocks_a = n[0];
	adj->blocks_b = n[1];
}

/* One run a side, and the two ran at the same time (each overlaps the
 * other by more than half of the shorter): the concurrent order. */
static int
concurrent_pair(const struct compare_result *r)
{
	return (r->a.nruns == 1 && r->b.nruns == 1 &&
	    compare_runs_overlap(&r->a.runs[0], &r->b.runs[0]));
}

int
compare_adjust_all(struct dn_store *s, struct compare_result *r,
    const struct compare_opts *opts, struct obs *oa, struct obs *ob,
    const int *use, size_t nd, struct compare_adjust *adj, double **alt,
    char **cause)
{
	const struct compare_run *ra = r->a.nruns ? &r->a.runs[0] : NULL;
	char	*seq = NULL;
	size_t	 k, nblk = 0, npaired = 0;
	char	 pn[80] = "";
	int	 blocks, aligned, auto_unit = opts == NULL || opts->unit ==
		    COMPARE_UNIT_AUTO;

	if (opts == NULL || opts->seq == NULL) {
		if (compare_side_fact(s, &r->a, "sequential", &seq,
		    cause) != 0)
			return (-1);
	}
	blocks = auto_unit && concurrent_pair(r);
	/* paired blocks cover the same minutes: starts within a tenth of a
	 * block (COMPARE_BLOCKS_MAX of the window, at most) of each other */
	aligned = blocks && r->a.runs[0].start_ms > 0 &&
	    r->b.runs[0].start_ms > 0 && llabs(r->a.runs[0].start_ms -
	    r->b.runs[0].start_ms) * 10 * COMPARE_BLOCKS_MAX <=
	    ra->duration_ms - ra->warmup_ms;
	for (k = 0; k < nd; k++) {
		memset(&adj[k], 0, sizeof(adj[k]));
		adj[k].r = adj[k].theta = adj[k].var_removed_pct = NAN;
		adj[k].mde_unadjusted_pct = adj[k].block_s = NAN;
		adj[k].block_r1 = adj[k].moved_p = NAN;
		adj[k].unit = r->unit == COMPARE_UNIT_NODE ? "node" : "trial";
		if (!use[k])
			continue;
		if (blocks) {
			compare_blocks_metric(&oa[k], &ob[k], (ra->duration_ms -
			    ra->warmup_ms) / 1000.0, aligned, &adj[k]);
			nblk += strcmp(adj[k].unit, "block") == 0;
			npaired += adj[k].block_paired;
			adjust_none(&adj[k], "fewer than 4 trials a side");
		} else if (r->unit == COMPARE_UNIT_NODE)
			adjust_none(&adj[k], "node unit: not adjusted");
		else if (seq != NULL || (opts != NULL && opts->seq != NULL))
			adjust_none(&adj[k], "sequential design: not "
			    "adjusted");
		else
			compare_adjust_metric(&oa[k], &ob[k], &adj[k],
			    &alt[2 * k]);
	}
	free(seq);
	if (nblk > 0) {
		free(r->unit_note);
		if (npaired > 0)
			snprintf(pn, sizeof(pn), " (paired for %zu: each "
			    "block's B/A over the same minutes)", npaired);
		r->unit_note = dn_xasprintf("unit: time block for %zu "
		    "metrics%s, trial for the rest (1 vs 1 trials, run "
		    "concurrently: A and B shared the machine's drifts; "
		    "blocks long enough that the lag-1 autocorrelation of "
		    "their values%s is below %.1f; auto)", nblk, pn, npaired ?
		    ", or of the paired differences," : "", BLK_MAX_R1);
	}
	return (0);
}

void
compare_adjust_mde(struct compare_row *row, const struct obs *oa,
    const struct obs *ob, double *const *alt, int unit, size_t family,
    double threshold_pct, struct compare_power_cache *pc)
{
	struct compare_row	tmp;
	struct obs		a = *oa, b = *ob;

	if (!row->adj.adjusted || alt[0] == NULL || alt[1] == NULL)
		return;
	a.trial_v = alt[0];
	b.trial_v = alt[1];
	tmp = *row;
	compare_row_power(&tmp, &a, &b, unit, family, threshold_pct, 0, pc);
	row->adj.mde_unadjusted_pct = tmp.mde_pct;
}

void
compare_adjust_free(struct compare_adjust *adj, double **alt, size_t nd)
{
	size_t	k;

	for (k = 0; alt != NULL && k < 2 * nd; k++)
		free(alt[k]);
	free(alt);
	free(adj);
}

int
compare_row_blocks(const struct compare_row *row)
{
	return (row->adj.unit != NULL && strcmp(row->adj.unit, "block") == 0);
}
