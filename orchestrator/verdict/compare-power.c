/*
 * compare-power.c: what a comparison could not see (docs/statistics.md,
 * section 4).  For every metric, the minimum detectable effect (MDE) of
 * the test actually used, at the observed spread and trial counts, at
 * Holm's first-step level alpha / family and power COMPARE_POWER, or why
 * there is none; and for an `undecided` (or every metric, with
 * --target-effect) the trials per side that would decide it: detect its
 * change, or show it within the threshold.
 *
 * Not here: the tests and the verdict (compare.c); the simulations that
 * calibrate the MDE (metrics/stats/stats.c).
 */
#include <math.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "stats.h"

/* Welch's t-test instead of the rank test: the rank test cannot reach
 * COMPARE_ALPHA (Holm over FAMILY) at NA vs NB, and both sides have two
 * values or more.  Here, not in compare.c, so that compare.c calls this
 * file and nothing calls back. */
int
compare_uses_welch(size_t na, size_t nb, size_t family)
{
	return (dn_stats_mwu_min_p(na, nb) * family >= COMPARE_ALPHA &&
	    na >= 2 && nb >= 2);
}

/* Sample standard deviation; NAN below 2 values. */
static double
sd_of(const double *v, size_t n)
{
	double	m, s = 0;
	size_t	i;

	if (n < 2)
		return (NAN);
	m = dn_stats_mean(v, n);
	for (i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return (sqrt(s / (n - 1)));
}

/* The rank test's MDE in SDs at NA vs NB, simulated once per analysis. */
static double
mwu_shift(struct compare_power_cache *pc, size_t na, size_t nb)
{
	if (na == nb && na <= DN_MWU_EXACT_MAX) {
		if (pc->mwu_eq[na] == 0)
			pc->mwu_eq[na] = dn_stats_mde_mwu(na, nb, pc->alpha,
			    COMPARE_POWER, COMPARE_POWER_ITERS,
			    COMPARE_POWER_SEED);
		return (pc->mwu_eq[na]);
	}
	if (pc->na != na || pc->nb != nb) {
		pc->na = na;
		pc->nb = nb;
		pc->mwu_ab = dn_stats_mde_mwu(na, nb, pc->alpha,
		    COMPARE_POWER, COMPARE_POWER_ITERS, COMPARE_POWER_SEED);
	}
	return (pc->mwu_ab);
}

/*
 * MDE in the values' unit of the trial-unit test at NA vs NB trials with
 * SDs SA, SB: Welch by simulation with both SDs, the rank test as a shift
 * of their pooled SD.
 */
static double
trial_mde(struct compare_power_cache *pc, double sa, size_t na, double sb,
    size_t nb, size_t family)
{
	double	pooled;

	if (compare_uses_welch(na, nb, family))
		return (dn_stats_mde_welch(sa, na, sb, nb, pc->alpha,
		    COMPARE_POWER, COMPARE_POWER_ITERS, COMPARE_POWER_SEED));
	if (dn_stats_mwu_min_p(na, nb) * family >= COMPARE_ALPHA)
		return (INFINITY);
	pooled = sqrt(((na - 1) * sa * sa + (nb - 1) * sb * sb) /
	    (double)(na + nb - 2));
	if (!(pooled > 0))
		return (NAN);
	return (pooled * mwu_shift(pc, na, nb));
}

/*
 * Trials per side at which the trial-unit test (the one it would use at
 * that count) detects a shift of DELTA with power COMPARE_POWER, the SDs
 * staying SA, SB: searched up to the exact test's limit, then from the
 * normal approximation of the rank test (efficiency 3/pi).  -1 if more
 * than COMPARE_MAX_TRIALS.  FROM: no fewer (the trials at hand).
 */
static long
trials_for(struct compare_power_cache *pc, double sa, double sb,
    double delta, size_t family, size_t from)
{
	double	z, n;
	size_t	k;

	/* No test does better than the normal formula with known SDs,
	 * (z_{1-a/2} + z_power)^2 (sA^2 + sB^2) / delta^2: start there,
	 * which spares the simulations of counts that cannot do. */
	z = dn_stats_norm_quantile(1 - pc->alpha / 2) +
	    dn_stats_norm_quantile(COMPARE_POWER);
	n = floor(z * z * (sa * sa + sb * sb) / (delta * delta));
	if (n > (double)from)
		from = n > DN_MWU_EXACT_MAX ? DN_MWU_EXACT_MAX + 1 : (size_t)n;
	/* The counts where Welch's test stands in, one by one: the rank
	 * test that takes over above them may need more. */
	for (k = from > 2 ? from : 2; k <= DN_MWU_EXACT_MAX &&
	    compare_uses_welch(k, k, family); k++)
		if (trial_mde(pc, sa, k, sb, k, family) <= delta)
			return ((long)k);
	/* The rank test's: its MDE falls with the count.  Out of reach at
	 * its largest, none does; else bisect for the first that does
	 * (a simulation a count, most of a compare's time when they were
	 * all run), then step down past a simulation's wobble. */
	if (k <= DN_MWU_EXACT_MAX && trial_mde(pc, sa, DN_MWU_EXACT_MAX, sb,
	    DN_MWU_EXACT_MAX, family) <= delta) {
		size_t	lo = k, hi = DN_MWU_EXACT_MAX, mid;

		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (trial_mde(pc, sa, mid, sb, mid, family) <= delta)
				hi = mid;
			else
				lo = mid + 1;
		}
		while (hi > k && trial_mde(pc, sa, hi - 1, sb, hi - 1,
		    family) <= delta)
			hi--;
		return ((long)hi);
	}
	n = ceil(M_PI / 3 * z * z * (sa * sa + sb * sb) / (delta * delta));
	if (n <= DN_MWU_EXACT_MAX)
		n = DN_MWU_EXACT_MAX + 1;
	return (n > COMPARE_MAX_TRIALS ? -1 : (long)n);
}

/* Trials per side that show equivalence within TH (in the values' unit)
 * when the true difference is D, SDs SA, SB, with two one-sided Welch
 * tests at level ALPHA each: the smallest k above HAVE with k >= (t_{1 -
 * alpha} + t_power)^2 (sA^2 + sB^2) / (th - |d|)^2, t at the
 * Welch-Satterthwaite df of k a side (the normal formula promises too
 * much at a few trials); -1 out of reach. */
static long
trials_equivalent(double alpha, double sa, double sb, double th, double d,
    size_t have)
{
	double	room = th - fabs(d), v = sa * sa + sb * sb, z, df, t;
	long	k;

	if (!(room > 0) || !(v > 0))
		return (-1);
	z = dn_stats_norm_quantile(1 - alpha) +
	    dn_stats_norm_quantile(COMPARE_POWER);
	if (z * z * v / (room * room) > COMPARE_MAX_TRIALS)
		return (-1);
	/* from the normal formula on: the t quantiles only add */
	k = (long)floor(z * z * v / (room * room));
	if (k < (long)have + 1)
		k = (long)have + 1;
	for (k = k > 2 ? k : 2; k <= COMPARE_MAX_TRIALS; k++) {
		df = v * v / ((pow(sa, 4) + pow(sb, 4)) / (double)(k - 1));
		t = dn_stats_t_crit(2 * alpha, df) +
		    dn_stats_t_crit(2 * (1 - COMPARE_POWER), df);
		if ((double)k >= t * t * v / (room * room))
			return (k);
	}
	return (-1);
}

/* ROW's MDE (mde_pct, mde_note) from values VA, VB of the unit used. */
static void
row_mde(struct compare_row *row, const struct obs *oa, const struct obs *ob,
    int unit, size_t family, struct compare_power_cache *pc)
{
	const double	*va = oa->trial_v, *vb = ob->trial_v;
	size_t		 na = oa->ntrial, nb = ob->ntrial;
	double		 sa, sb, mde, mean_a;

	row->mde_pct = NAN;
	row->mde_note = NULL;
	if (unit == COMPARE_UNIT_NODE) {
		va = oa->node_v;
		na = oa->nnode;
		vb = ob->node_v;
		nb = ob->nnode;
	}
	sa = sd_of(va, na);
	sb = sd_of(vb, nb);
	mean_a = fabs(dn_stats_mean(va, na));
	if (row->constant) {
		/* Any difference is a complete separation: seen if the
		 * exact test's floor allows it, never otherwise. */
		if (dn_stats_mwu_min_p(oa->ntrial, ob->ntrial) * family >=
		    COMPARE_ALPHA) {
			row->mde_pct = INFINITY;
			row->mde_note = "never at these trials (the rank "
			    "test's smallest p is too large)";
		} else
			row->mde_note = "no spread to scale by";
		return;
	}
	if (!(mean_a > 0)) {
		row->mde_note = "A is 0: a change is no percentage of 0";
		return;
	}
	if (na < 2 || nb < 2) {
		row->mde_note = "one trial a side: no spread to scale by";
		return;
	}
	if (unit == COMPARE_UNIT_NODE) {
		/* The clustered test is the normal approximation with its
		 * variance times the design effect: the same inflation of
		 * the rank test's asymptotic MDE.  A rough figure, as the
		 * node unit is (section 1). */
		double	pooled = sqrt(((na - 1) * sa * sa + (nb - 1) * sb *
			    sb) / (double)(na + nb - 2));

		mde = sqrt(M_PI / 3 * row->deff) * (dn_stats_norm_quantile(1 -
		    pc->alpha / 2) + dn_stats_norm_quantile(COMPARE_POWER)) *
		    pooled * sqrt(1.0 / na + 1.0 / nb);
		row->mde_pct = 100 * mde / mean_a;
		return;
	}
	mde = trial_mde(pc, sa, na, sb, nb, family);
	row->mde_pct = isinf(mde) ? mde : 100 * mde / mean_a;
	if (isinf(mde))
		row->mde_note = "never at these trials (the rank test's "
		    "smallest p is too large)";
	else if (isnan(mde))
		row->mde_note = "no spread to scale by";
}

void
compare_row_power(struct compare_row *row, const struct obs *oa,
    const struct obs *ob, int unit, size_t family, double threshold_pct,
    double target_pct, struct compare_power_cache *pc)
{
	double	sa, sb, mean_a, d;
	size_t	have;

	row->target_pct = NAN;
	row->trials_needed = 0;
	row->decide_by = NULL;
	row_mde(row, oa, ob, unit, family, pc);
	if (target_pct <= 0 && strcmp(row->verdict, "undecided") != 0)
		return;
	have = oa->ntrial < ob->ntrial ? oa->ntrial : ob->ntrial;
	if (target_pct <= 0 && compare_row_a_zero(row)) {
		/* A's median 0 with a mean above it too: the change
		 * (of medians) has no base, whatever the MDE of the mean
		 * says */
		row->mde_pct = NAN;
		row->mde_note = "A is 0: a change is no percentage of 0";
		return;
	}
	if (row->constant && target_pct <= 0) {
		/* No spread: only the exact rank test's floor stands in the
		 * way, 2 / C(2k, k) for a difference, half that for each
		 * one-sided test of equivalence, times the family. */
		size_t	k;
		int	eq = row->a.median == row->b.median;

		for (k = have + 1; k <= DN_MWU_EXACT_MAX; k++)
			if (dn_stats_mwu_min_p(k, k) / (eq ? 2 : 1) *
			    (double)family < COMPARE_ALPHA)
				break;
		row->decide_by = eq ? "equivalence" : "difference";
		row->target_pct = eq ? NAN : fabs(row->delta_pct);
		row->trials_needed = k <= DN_MWU_EXACT_MAX ? (long)k : -1;
		return;
	}
	/* Trials needed: always from the per-trial spread, the trial unit
	 * being what more trials buy. */
	sa = sd_of(oa->trial_v, oa->ntrial);
	sb = sd_of(ob->trial_v, ob->ntrial);
	mean_a = fabs(dn_stats_mean(oa->trial_v, oa->ntrial));
	if (isnan(sa) || isnan(sb) || !(sa > 0 || sb > 0) || !(mean_a > 0))
		return;
	if (target_pct > 0 || (!isnan(row->delta_pct) &&
	    fabs(row->delta_pct) >= threshold_pct)) {
		row->target_pct = target_pct > 0 ? target_pct :
		    fabs(row->delta_pct);
		row->decide_by = "difference";
		row->trials_needed = trials_for(pc, sa, sb, row->target_pct /
		    100 * mean_a, family, target_pct > 0 ? 2 : have + 1);
		/* undecided at HAVE: more than that, whatever the
		 * simulation at the observed spread says */
		if (target_pct <= 0 && row->trials_needed > 0 &&
		    (size_t)row->trials_needed <= have)
			row->trials_needed = (long)have + 1;
		return;
	}
	/* Within the threshold: what would show it is, at this spread. */
	d = dn_stats_mean(ob->trial_v, ob->ntrial) - dn_stats_mean(oa->trial_v,
	    oa->ntrial);
	row->decide_by = "equivalence";
	row->trials_needed = trials_equivalent(pc->alpha, sa, sb,
	    threshold_pct / 100 * mean_a, d, have);
}
