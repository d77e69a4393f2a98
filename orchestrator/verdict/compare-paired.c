/*
 * compare-paired.c: the paired design of a concurrent comparison
 * (docs/statistics.md, "Paired by slot"; issue 36).  When A's and B's
 * runs ran at the same time (order: concurrent: every slot one run of
 * each), the machine's state of that slot (other programs, thermal, the
 * page cache) hit both alike: each metric is tested on the per-slot
 * log-ratios log(B / A) by a paired t-test, with its interval, the two
 * one-sided tests of equivalence, the MDE and the slots that would
 * decide it, instead of treating A's and B's trials as two independent
 * samples.  A run whose slot lacks the other side (a failed trial) is
 * left out and named.
 *
 * Which runs ran together is read from the runs themselves (start_ms,
 * end_ms): an A and a B run that overlap by more than half the shorter,
 * the rule the time-block unit uses for a 1+1 (compare-adjust.c).  Runs
 * one after the other (ABBA) never overlap: their design stays the
 * independent one.
 *
 * Not here: the tests of the independent design (compare.c), the
 * statistics (metrics/stats/stats-paired.c), the verdict rule
 * (compare-rule.c), the MDE of the independent design (compare-power.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "stats.h"
#include "xalloc.h"

#define PAIRED_MIN	2	/* pairs: a paired t needs a spread */

/* R's slots: each A run with the B run that ran beside it (the first
 * such, each B run once) into R's pairs; how many. */
static size_t
find_pairs(struct compare_result *r)
{
	size_t	i, j;
	char	*used = dn_xcalloc(r->b.nruns + 1, 1);

	r->pair_a = dn_xcalloc(r->a.nruns + 1, sizeof(*r->pair_a));
	r->pair_b = dn_xcalloc(r->a.nruns + 1, sizeof(*r->pair_b));
	r->npairs = 0;
	for (i = 0; i < r->a.nruns; i++) {
		for (j = 0; j < r->b.nruns; j++) {
			if (used[j] || !compare_runs_overlap(&r->a.runs[i],
			    &r->b.runs[j]))
				continue;
			used[j] = 1;
			r->pair_a[r->npairs] = i;
			r->pair_b[r->npairs++] = j;
			break;
		}
	}
	free(used);
	return (r->npairs);
}

/* Whether run I of SIDE (0 A, 1 B) is in a pair. */
static int
paired_run(const struct compare_result *r, int side, size_t i)
{
	const size_t	*p = side ? r->pair_b : r->pair_a;
	size_t		 k;

	for (k = 0; k < r->npairs; k++)
		if (p[k] == i)
			return (1);
	return (0);
}

/* Name the runs left out of the pairs: their slot lacks the other side
 * (a failed or missing trial), or they ran alone. */
static void
warn_unpaired(struct compare_result *r)
{
	const struct compare_side	*sd;
	char				*names = NULL, *t;
	size_t				 i;
	int				 side, many;

	for (side = 0; side < 2; side++) {
		sd = side ? &r->b : &r->a;
		for (i = 0; i < sd->nruns; i++) {
			if (paired_run(r, side, i))
				continue;
			t = dn_xasprintf("%s%s%lld (%s)", names ? names : "",
			    names ? ", " : "", (long long)sd->runs[i].id,
			    side ? "B" : "A");
			free(names);
			names = t;
		}
	}
	if (names == NULL)
		return;
	many = strchr(names, ',') != NULL;
	compare_warn(r, dn_xasprintf("paired by slot: run%s "
	    "%s left out, no run of the other side ran beside %s (a slot "
	    "missing one side, e.g. a failed trial); rerun the slot, or "
	    "--unit trial for the independent design", many ? "s" : "",
	    names, many ? "them" : "it"));
	free(names);
}

/* The run index of each of O's trial values (O->NTRIAL of them) into
 * RUN: a run without data for the metric has no trial value, so the
 * trial values follow the runs' distinct node_c, in order.  0, or -1
 * when they do not (time blocks replaced the trials). */
static int
trial_runs(const struct obs *o, size_t *run)
{
	size_t	i, n = 0;

	for (i = 0; i < o->nnode; i++) {
		if (i > 0 && o->node_c[i] == o->node_c[i - 1])
			continue;
		if (n == o->ntrial)
			return (-1);
		run[n++] = (size_t)o->node_c[i];
	}
	return (n == o->ntrial ? 0 : -1);
}

/* One metric's values of the slots of R where both sides have one: A's
 * in XA, B's in XB (the unadjusted ones when RAW has them), aligned,
 * and the runs per side each slot needs into LAST (NULL: not wanted);
 * how many. */
static size_t
slot_values(const struct compare_result *r, const struct obs *oa,
    const struct obs *ob, double *const *raw, double *xa, double *xb,
    size_t *last)
{
	double	*va, *vb;
	size_t	*runa, *runb, i, j, p, n = 0;

	va = dn_xcalloc(r->a.nruns + 1, sizeof(*va));
	vb = dn_xcalloc(r->b.nruns + 1, sizeof(*vb));
	runa = dn_xcalloc(oa->ntrial + 1, sizeof(*runa));
	runb = dn_xcalloc(ob->ntrial + 1, sizeof(*runb));
	for (i = 0; i < r->a.nruns; i++)
		va[i] = NAN;
	for (i = 0; i < r->b.nruns; i++)
		vb[i] = NAN;
	if (trial_runs(oa, runa) != 0 || trial_runs(ob, runb) != 0)
		goto out;
	for (j = 0; j < oa->ntrial; j++)
		if (runa[j] < r->a.nruns)
			va[runa[j]] = raw[0] ? raw[0][j] : oa->trial_v[j];
	for (j = 0; j < ob->ntrial; j++)
		if (runb[j] < r->b.nruns)
			vb[runb[j]] = raw[1] ? raw[1][j] : ob->trial_v[j];
	for (p = 0; p < r->npairs; p++) {
		if (isnan(va[r->pair_a[p]]) || isnan(vb[r->pair_b[p]]))
			continue;
		if (last != NULL)
			last[n] = 1 + (r->pair_a[p] > r->pair_b[p] ?
			    r->pair_a[p] : r->pair_b[p]);
		xa[n] = va[r->pair_a[p]];
		xb[n++] = vb[r->pair_b[p]];
	}
out:
	free(va);
	free(vb);
	free(runa);
	free(runb);
	return (n);
}

void
compare_paired_differences(const double *xa, const double *xb, size_t n,
    double *d, int *log_, double *scale)
{
	size_t	i;

	*log_ = 1;
	for (i = 0; i < n; i++)
		if (!(xa[i] > 0 && xb[i] > 0))
			*log_ = 0;
	*scale = *log_ ? 1 : fabs(dn_stats_mean(xa, n));
	for (i = 0; i < n; i++)
		d[i] = *log_ ? log(xb[i] / xa[i]) : xb[i] - xa[i];
}

/* A difference X (in log or in the values' unit) as a percentage of A. */
static double
pct(double x, int log_, double scale)
{
	return (log_ ? 100 * expm1(x) : 100 * x / scale);
}

void
compare_paired_band(int log_, double scale, double threshold_pct,
    double *lo, double *hi)
{
	double	th = threshold_pct / 100;

	*lo = log_ ? log1p(-th) : -th * scale;
	*hi = log_ ? log1p(th) : th * scale;
}

int
compare_paired_row(struct compare_row *row, const double *xa,
    const double *xb, size_t n, double threshold_pct)
{
	struct dn_paired	 pt;
	struct dn_boot		 bt;
	double			*d, scale, lo, hi;
	int			 lg;

	if (n < PAIRED_MIN)
		return (-1);
	d = dn_xcalloc(n, sizeof(*d));
	compare_paired_differences(xa, xb, n, d, &lg, &scale);
	if (!(scale > 0) || dn_stats_paired_t(d, n, 0.95, &pt) != 0) {
		free(d);
		return (-1);
	}
	free(d);
	dn_stats_paired_ar1(&pt, n, row->adj.block_ar1, 0.95);
	/* each side's median and its interval, as in every design */
	dn_stats_bootstrap(xa, NULL, n, xb, NULL, n, COMPARE_BOOT_ITERS,
	    COMPARE_BOOT_SEED, 0.95, &bt);
	row->a.n = row->b.n = n;
	row->a.median = dn_stats_median(xa, n);
	row->a.mean = dn_stats_mean(xa, n);
	row->a.ci_low = bt.a_lo;
	row->a.ci_high = bt.a_hi;
	row->b.median = dn_stats_median(xb, n);
	row->b.mean = dn_stats_mean(xb, n);
	row->b.ci_low = bt.b_lo;
	row->b.ci_high = bt.b_hi;
	/* the change is the slots' typical ratio (geometric mean) */
	row->delta_pct = pct(pt.mean, lg, scale);
	row->delta_ci_low = pct(pt.lo, lg, scale);
	row->delta_ci_high = pct(pt.hi, lg, scale);
	row->p_raw = pt.p;
	row->deff = 1;
	row->test = "paired-t";
	row->constant = !(pt.se > 0);
	compare_paired_band(lg, scale, threshold_pct, &lo, &hi);
	row->p_eq_raw = dn_stats_paired_equivalence_p(&pt, lo, hi);
	row->mde_unpaired_pct = row->mde_pct;
	row->design = "paired";
	row->pairs = n;
	return (0);
}

/* The paired test's MDE in SDs of the differences at N pairs, at PC's
 * level (simulated once per count and level). */
static double
mde_sd(struct compare_power_cache *pc, size_t n)
{
	if (n <= COMPARE_PAIRED_EXACT) {
		if (pc->paired[n] == 0)
			pc->paired[n] = dn_stats_mde_paired(n, pc->alpha,
			    COMPARE_POWER, COMPARE_POWER_ITERS,
			    COMPARE_POWER_SEED);
		return (pc->paired[n]);
	}
	return ((dn_stats_t_crit(pc->alpha, (double)(n - 1)) +
	    dn_stats_t_crit(2 * (1 - COMPARE_POWER), (double)(n - 1))) /
	    sqrt((double)n));
}

/* Pairs, from FROM on, at which the paired test detects a mean
 * difference of DELTA at SD; -1 beyond COMPARE_MAX_TRIALS. */
static long
pairs_for(struct compare_power_cache *pc, double sd, double delta,
    size_t from)
{
	double	z = dn_stats_norm_quantile(1 - pc->alpha / 2) +
		    dn_stats_norm_quantile(COMPARE_POWER);
	double	k0 = floor(z * z * sd * sd / (delta * delta));
	size_t	k;

	/* no test does better than the normal formula with known SD */
	if (k0 > COMPARE_MAX_TRIALS)
		return (-1);
	if (k0 > (double)from)
		from = (size_t)k0;
	for (k = from > PAIRED_MIN ? from : PAIRED_MIN;
	    k <= COMPARE_MAX_TRIALS; k++)
		if (mde_sd(pc, k) * sd <= delta)
			return ((long)k);
	return (-1);
}

/* Pairs, above HAVE, at which two one-sided paired t-tests at PC's level
 * show a mean of D at SD within the band (LO, HI); -1 out of reach. */
static long
pairs_equivalent(struct compare_power_cache *pc, double sd, double d,
    double lo, double hi, size_t have)
{
	double	room = fmin(hi - d, d - lo), t;
	long	k;

	if (!(room > 0) || !(sd > 0))
		return (-1);
	for (k = (long)have + 1; k <= COMPARE_MAX_TRIALS; k++) {
		t = dn_stats_t_crit(2 * pc->alpha, (double)(k - 1)) +
		    dn_stats_t_crit(2 * (1 - COMPARE_POWER), (double)(k - 1));
		if ((double)k >= t * t * sd * sd / (room * room))
			return (k);
	}
	return (-1);
}

void
compare_paired_power(struct compare_row *row, const double *xa,
    const double *xb, size_t n, double threshold_pct, double target_pct,
    struct compare_power_cache *pc)
{
	struct dn_paired	 pt;
	double			*d, scale, lo, hi, m;
	int			 lg;

	row->mde_pct = row->target_pct = NAN;
	row->mde_note = row->decide_by = NULL;
	row->trials_needed = 0;
	d = dn_xcalloc(n + 1, sizeof(*d));
	compare_paired_differences(xa, xb, n, d, &lg, &scale);
	dn_stats_paired_t(d, n, 0.95, &pt);
	dn_stats_paired_ar1(&pt, n, row->adj.block_ar1, 0.95);
	free(d);
	if (compare_row_a_zero(row)) {
		row->mde_note = "A is 0: a change is no percentage of 0";
		return;
	}
	if (!(pt.sd > 0)) {
		row->mde_note = "no spread to scale by";
		return;
	}
	m = mde_sd(pc, n) * pt.sd;
	row->mde_pct = pct(m, lg, scale);
	if (target_pct <= 0 && strcmp(row->verdict, "undecided") != 0)
		return;
	compare_paired_band(lg, scale, threshold_pct, &lo, &hi);
	if (target_pct > 0 || fabs(row->delta_pct) >= threshold_pct) {
		row->target_pct = target_pct > 0 ? target_pct :
		    fabs(row->delta_pct);
		row->decide_by = "difference";
		row->trials_needed = pairs_for(pc, pt.sd, lg ?
		    log1p(row->target_pct / 100) : row->target_pct / 100 *
		    scale, target_pct > 0 ? PAIRED_MIN : n + 1);
		return;
	}
	row->decide_by = "equivalence";
	row->trials_needed = pairs_equivalent(pc, pt.sd, pt.mean, lo, hi, n);
}

/* Whether R is a sequential design (ab --until decided): then its looks
 * are analysed by compare-seq.c, on the slots when it ran in them. */
static int
sequential(struct dn_store *s, struct compare_result *r,
    const struct compare_opts *opts, int *yes, char **cause)
{
	char	*seq = NULL;

	*yes = opts != NULL && opts->seq != NULL;
	if (*yes)
		return (0);
	if (compare_side_fact(s, &r->a, "sequential", &seq, cause) != 0)
		return (-1);
	*yes = seq != NULL;
	free(seq);
	return (0);
}

size_t
compare_paired_diffs(const struct compare_result *r, const struct obs *oa,
    const struct obs *ob, double *d, size_t *last, int *log_,
    double *scale)
{
	static double *const	none[2] = { NULL, NULL };
	double			*xa, *xb;
	size_t			 n;

	xa = dn_xcalloc(r->npairs + 1, sizeof(*xa));
	xb = dn_xcalloc(r->npairs + 1, sizeof(*xb));
	n = slot_values(r, oa, ob, none, xa, xb, last);
	compare_paired_differences(xa, xb, n, d, log_, scale);
	free(xa);
	free(xb);
	return (n);
}

/* Where ROW's measured values are besides its trial values: RAW's pair
 * of metric K when it was adjusted (RAW then holds the unadjusted
 * values), none when the guard refused it (RAW then holds the adjusted
 * ones, compare-internal.h). */
static double *const *
measured(const struct compare_row *row, double *const *raw, size_t k)
{
	static double *const	none[2] = { NULL, NULL };

	return (row->adj.guarded ? none : &raw[2 * k]);
}

/* Row I of R's aligned values: its blocks when they were paired
 * (compare-adjust.c: one trial a side, replaced by its blocks), else its
 * slots' into XA, XB; *PA, *PB where they are; how many. */
static size_t
row_values(const struct compare_result *r, size_t i, const struct obs *oa,
    const struct obs *ob, const size_t *rk, double *const *raw, double *xa,
    double *xb, const double **pa, const double **pb)
{
	size_t	k = rk[i];

	if (r->rows[i].adj.block_paired) {
		*pa = oa[k].trial_v;
		*pb = ob[k].trial_v;
		return (oa[k].ntrial < ob[k].ntrial ? oa[k].ntrial :
		    ob[k].ntrial);
	}
	*pa = xa;
	*pb = xb;
	return (slot_values(r, &oa[k], &ob[k], measured(&r->rows[i], raw, k),
	    xa, xb, NULL));
}

/* Test every row of R paired (BLOCKS: only those decided on paired time
 * blocks, RAW unused), then decide each family again. */
static void
paired_rows(struct compare_result *r, const struct obs *oa,
    const struct obs *ob, const size_t *rk, double *const *raw, int blocks)
{
	struct compare_power_cache	 pc[2];
	const double			*pa, *pb;
	double				*xa, *xb;
	size_t				 i, n, fam[2];
	int				 f;

	fam[0] = r->nprimary;
	fam[1] = r->nrows - r->nprimary;
	xa = dn_xcalloc(r->npairs + 1, sizeof(*xa));
	xb = dn_xcalloc(r->npairs + 1, sizeof(*xb));
	for (i = 0; i < r->nrows; i++) {
		if (blocks && !r->rows[i].adj.block_paired)
			continue;
		n = row_values(r, i, oa, ob, rk, raw, xa, xb, &pa, &pb);
		if (compare_paired_row(&r->rows[i], pa, pb, n,
		    r->threshold_pct) != 0)
			continue;
		/* the pairs take the shared luck out: the values tested are
		 * the measured ones, and their p is the pairs' (guarded stays
		 * set: it says where the measured values are) */
		if (r->rows[i].adj.adjusted || r->rows[i].adj.guarded)
			r->rows[i].adj.note = "paired by slot: not adjusted";
		r->rows[i].adj.adjusted = 0;
		r->rows[i].adj.mde_unadjusted_pct = NAN;
	}
	compare_family_decide(r->rows, fam[0], r->threshold_pct);
	compare_family_decide(r->rows + fam[0], fam[1], r->threshold_pct);
	memset(pc, 0, sizeof(pc));
	for (f = 0; f < 2; f++)
		pc[f].alpha = COMPARE_ALPHA / (double)(fam[f] > 0 ? fam[f] : 1);
	for (i = 0; i < r->nrows; i++) {
		if (r->rows[i].design == NULL)
			continue;
		n = row_values(r, i, oa, ob, rk, raw, xa, xb, &pa, &pb);
		compare_paired_power(&r->rows[i], pa, pb, n, r->threshold_pct,
		    r->target_pct, &pc[i < fam[0] ? 0 : 1]);
	}
	free(xa);
	free(xb);
}

void
compare_paired_blocks(struct compare_result *r, const struct obs *oa,
    const struct obs *ob, const size_t *rk)
{
	size_t	i;

	for (i = 0; i < r->nrows; i++)
		if (r->rows[i].adj.block_paired) {
			paired_rows(r, oa, ob, rk, NULL, 1);
			return;
		}
}

int
compare_paired_apply(struct dn_store *s, struct compare_result *r,
    const struct compare_opts *opts, const struct obs *oa,
    const struct obs *ob, const size_t *rk, double *const *raw,
    char **cause)
{
	size_t	most;
	int	seq;

	/* --unit trial asks for the independent design by name */
	if (r->unit != COMPARE_UNIT_TRIAL || (opts != NULL && opts->unit !=
	    COMPARE_UNIT_AUTO) || r->a.nruns < PAIRED_MIN || r->b.nruns <
	    PAIRED_MIN)
		return (0);
	if (sequential(s, r, opts, &seq, cause) != 0)
		return (-1);
	most = r->a.nruns > r->b.nruns ? r->a.nruns : r->b.nruns;
	/* concurrent slots, most of them whole: else runs one after the
	 * other (or a few that overlapped by chance) */
	if (find_pairs(r) < PAIRED_MIN || 2 * r->npairs < most) {
		r->npairs = 0;
		return (0);
	}
	warn_unpaired(r);
	paired_rows(r, oa, ob, rk, raw, 0);
	free(r->unit_note);
	r->unit_note = dn_xasprintf("unit: trial, paired by slot%s (%zu "
	    "slots of A and B run at the same time: a paired t-test on "
	    "each slot's B/A%s, the slot's machine state shared; %zu vs %zu "
	    "trials)", seq ? ", sequential" : "", r->npairs, seq ? " at "
	    "each look" : "", r->a.nruns, r->b.nruns);
	return (0);
}
