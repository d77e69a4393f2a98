/*
 * compare-power.c: what a comparison could not see (docs/statistics.md,
 * section 4).  For every metric, the minimum detectable effect (MDE) of
 * the test actually used, at the observed spread and trial counts, at
 * Holm's first-step level alpha / family and power COMPARE_POWER; and for
 * a `same` whose interval excludes 0 (or every metric, with
 * --target-effect), the trials per side that would detect the effect.
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
 * than COMPARE_MAX_TRIALS.
 */
static long
trials_for(struct compare_power_cache *pc, double sa, double sb,
    double delta, size_t family)
{
	double	z, n;
	size_t	k;

	for (k = 2; k <= DN_MWU_EXACT_MAX; k++) {
		double	m = trial_mde(pc, sa, k, sb, k, family);

		if (m <= delta)
			return ((long)k);
	}
	z = dn_stats_norm_quantile(1 - pc->alpha / 2) +
	    dn_stats_norm_quantile(COMPARE_POWER);
	n = ceil(M_PI / 3 * z * z * (sa * sa + sb * sb) / (delta * delta));
	if (n <= DN_MWU_EXACT_MAX)
		n = DN_MWU_EXACT_MAX + 1;
	return (n > COMPARE_MAX_TRIALS ? -1 : (long)n);
}

void
compare_row_power(struct compare_row *row, const struct obs *oa,
    const struct obs *ob, int unit, size_t family, double threshold_pct,
    double target_pct, struct compare_power_cache *pc)
{
	const double	*va = oa->trial_v, *vb = ob->trial_v;
	size_t		 na = oa->ntrial, nb = ob->ntrial;
	double		 sa, sb, mde, mean_a, t;

	row->mde_pct = NAN;
	row->target_pct = NAN;
	row->trials_needed = 0;
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
		    COMPARE_ALPHA)
			row->mde_pct = INFINITY;
	} else if (unit == COMPARE_UNIT_NODE) {
		/* The clustered test is the normal approximation with its
		 * variance times the design effect: the same inflation of
		 * the rank test's asymptotic MDE.  A rough figure, as the
		 * node unit is (section 1). */
		double	pooled = sqrt(((na - 1) * sa * sa + (nb - 1) * sb *
			    sb) / (double)(na + nb - 2));

		mde = sqrt(M_PI / 3 * row->deff) * (dn_stats_norm_quantile(1 -
		    pc->alpha / 2) + dn_stats_norm_quantile(COMPARE_POWER)) *
		    pooled * sqrt(1.0 / na + 1.0 / nb);
		if (mean_a > 0 && na >= 2 && nb >= 2)
			row->mde_pct = 100 * mde / mean_a;
	} else if (mean_a > 0) {
		mde = trial_mde(pc, sa, na, sb, nb, family);
		row->mde_pct = isinf(mde) ? mde : 100 * mde / mean_a;
	}

	/* Trials needed: always from the per-trial spread, the trial unit
	 * being what more trials buy. */
	if (target_pct > 0)
		t = target_pct;
	else if (!row->significant && !isnan(row->delta_pct) &&
	    !isnan(row->delta_ci_low) && !isnan(row->delta_ci_high) &&
	    (row->delta_ci_low > 0 || row->delta_ci_high < 0) &&
	    fabs(row->delta_pct) >= threshold_pct)
		t = fabs(row->delta_pct);
	else
		return;
	sa = sd_of(oa->trial_v, oa->ntrial);
	sb = sd_of(ob->trial_v, ob->ntrial);
	mean_a = fabs(dn_stats_mean(oa->trial_v, oa->ntrial));
	if (isnan(sa) || isnan(sb) || !(sa > 0 || sb > 0) || !(mean_a > 0))
		return;
	row->target_pct = t;
	row->trials_needed = trials_for(pc, sa, sb, t / 100 * mean_a, family);
}
