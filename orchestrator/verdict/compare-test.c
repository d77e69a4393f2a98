/*
 * compare-test.c: the test of one metric's observations (compare-
 * internal.h): each side's statistics and the bootstrap interval of the
 * difference (compare_row_test), and the p of the test the unit and the
 * counts call for, with the zero-spread rule (compare_row_p, also alone:
 * what the adjustment's guard and the simulations need, without the
 * interval).  docs/statistics.md, section 3.
 *
 * Not here: which observations (compare-derive.c, compare-adjust.c),
 * Holm and the verdict (compare-rule.c), the power (compare-power.c).
 */
#include <math.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "stats.h"

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

/* Every value of V equal (and at least one). */
static int
constant(const double *v, size_t n)
{
	size_t	i;

	for (i = 1; i < n; i++)
		if (v[i] != v[0])
			return (0);
	return (n > 0);
}

/* The observations of UNIT: per (trial, node) with their trial index, or
 * per trial (*C NULL). */
static void
unit_values(const struct obs *o, int unit, const double **v,
    const int **c, size_t *n)
{
	if (unit == COMPARE_UNIT_NODE) {
		*v = o->node_v;
		*c = o->node_c;
		*n = o->nnode;
	} else {
		*v = o->trial_v;
		*c = NULL;
		*n = o->ntrial;
	}
}

void
compare_row_test(struct compare_row *row, const struct obs *oa,
    const struct obs *ob, int unit, size_t family)
{
	const double	*va, *vb;
	const int	*ca, *cb;
	size_t		 na, nb;
	struct dn_boot	 bt;

	unit_values(oa, unit, &va, &ca, &na);
	unit_values(ob, unit, &vb, &cb, &nb);
	dn_stats_bootstrap(va, ca, na, vb, cb, nb, COMPARE_BOOT_ITERS,
	    COMPARE_BOOT_SEED, 0.95, &bt);
	stat_fill(&row->a, va, na, bt.a_lo, bt.a_hi);
	stat_fill(&row->b, vb, nb, bt.b_lo, bt.b_hi);
	row->delta_pct = row->a.median != 0 ?
	    100.0 * (row->b.median / row->a.median - 1.0) : NAN;
	row->delta_ci_low = bt.d_lo;
	row->delta_ci_high = bt.d_hi;
	compare_row_p(row, oa, ob, unit, family);
}

void
compare_row_p(struct compare_row *row, const struct obs *oa,
    const struct obs *ob, int unit, size_t family)
{
	const double	*va, *vb;
	const int	*ca, *cb;
	size_t		 na, nb;
	struct dn_mwu	 mw;

	unit_values(oa, unit, &va, &ca, &na);
	unit_values(ob, unit, &vb, &cb, &nb);
	/*
	 * Trials: the exact rank test when it can reach significance after
	 * Holm, else Welch's t, which has no floor on p (docs/statistics.md).
	 * Nodes: the rank test with the variance inflated by the design
	 * effect of the trials the nodes share.
	 */
	if (unit == COMPARE_UNIT_NODE) {
		dn_stats_mwu_clustered(va, ca, na, vb, cb, nb, &mw);
		row->test = "mwu-clustered";
	} else if (compare_uses_welch(na, nb, family)) {
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
	/*
	 * Zero spread on both sides (docs/statistics.md, "zero spread"):
	 * equal values are no difference (p = 1); different ones are a
	 * complete separation, whose exact rank-test p, 2 / C(nA + nB, nA)
	 * over the trials, is the only evidence there is -- never Welch's,
	 * which is undefined there, nor the normal approximation's, which
	 * the ties make too small.  Trials, not nodes: nodes of a trial
	 * share its luck.
	 */
	row->constant = constant(va, na) && constant(vb, nb);
	if (row->constant) {
		row->p_raw = va[0] == vb[0] ? 1 :
		    dn_stats_mwu_min_p(oa->ntrial, ob->ntrial);
		row->test = "mwu";
		row->deff = 1;
	}
}
