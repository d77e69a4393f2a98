/*
 * compare-rule.c: the one rule that turns tested rows into verdicts
 * (compare-internal.h): Holm over one family (the primary metrics, or
 * the secondary ones among themselves), then per row: significant after
 * Holm, at least the practical threshold, and an interval that clears 0
 * is better or worse by the metric's direction (changed for a neutral
 * one); else shown within +-threshold by two one-sided tests at the
 * family's level, with the interval inside the band, is equivalent; else
 * undecided.  compare.c (a fixed design) and compare-seq.c (each look of
 * a sequential one) both call compare_row_decide, so the two never
 * disagree on what "better" means.
 *
 * Not here: the tests themselves (compare.c), what would decide an
 * undecided row (compare-power.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare-internal.h"
#include "verdict/sequential.h"
#include "stats.h"
#include "xalloc.h"

static const char *
verdict_of(const struct compare_row *row, int eq)
{
	if (row->significant) {
		if (strcmp(row->better, "neutral") == 0)
			return ("changed");
		if ((row->delta_pct < 0) == (strcmp(row->better, "lower") ==
		    0))
			return ("better");
		return ("worse");
	}
	return (eq ? "equivalent" : "undecided");
}

void
compare_row_decide(struct compare_row *row, double threshold_pct)
{
	int	ci_clear, ci_inside, eq;

	/* An interval that could not be computed (a resampled median of A
	 * was 0) is no evidence: it never clears 0, nor lies in a band. */
	ci_clear = !isnan(row->delta_ci_low) && !isnan(row->delta_ci_high) &&
	    (row->delta_ci_low > 0 || row->delta_ci_high < 0);
	ci_inside = !isnan(row->delta_ci_low) && !isnan(row->delta_ci_high) &&
	    row->delta_ci_low > -threshold_pct &&
	    row->delta_ci_high < threshold_pct;
	row->significant = !isnan(row->p) && row->p < COMPARE_ALPHA &&
	    !isnan(row->delta_pct) && fabs(row->delta_pct) >= threshold_pct &&
	    ci_clear;
	eq = !isnan(row->p_eq) && row->p_eq < COMPARE_ALPHA && ci_inside;
	row->verdict = verdict_of(row, eq);
}

double
compare_equivalence_p(const double *a, size_t na, const double *b,
    size_t nb, double threshold_pct, double deff)
{
	double	th = threshold_pct / 100, ma, lo, hi;

	if (na < 2 || nb < 2)
		return (NAN);
	ma = dn_stats_mean(a, na);
	if (ma == 0 || isnan(ma))
		return (NAN);	/* no band: th % of 0 is 0 */
	/* The band is A +- th |A|: B above its lower edge, and below its
	 * upper one; a negative A (a slope) swaps the factors. */
	if (ma > 0) {
		lo = seq_shift_p_deff(a, na, b, nb, 1 - th, -1, deff);
		hi = seq_shift_p_deff(a, na, b, nb, 1 + th, 1, deff);
	} else {
		lo = seq_shift_p_deff(a, na, b, nb, 1 + th, -1, deff);
		hi = seq_shift_p_deff(a, na, b, nb, 1 - th, 1, deff);
	}
	if (isnan(lo) || isnan(hi))
		return (NAN);
	return (fmax(lo, hi));
}

/* Holm over the N values V (NAN: no test, kept NAN) into ADJ. */
static void
holm_nan(const double *v, size_t n, double *adj)
{
	double	*in, *out;
	size_t	 i, k = 0;

	in = dn_xcalloc(n + 1, sizeof(*in));
	out = dn_xcalloc(n + 1, sizeof(*out));
	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			in[k++] = v[i];
	dn_stats_holm(in, k, out);
	for (i = 0, k = 0; i < n; i++)
		adj[i] = isnan(v[i]) ? NAN : out[k++];
	free(in);
	free(out);
}

void
compare_family_decide(struct compare_row *rows, size_t n,
    double threshold_pct)
{
	double	*v, *adj;
	size_t	 i;

	if (n == 0)
		return;
	v = dn_xcalloc(n, sizeof(*v));
	adj = dn_xcalloc(n, sizeof(*adj));
	for (i = 0; i < n; i++)
		v[i] = rows[i].p_raw;
	dn_stats_holm(v, n, adj);
	for (i = 0; i < n; i++) {
		rows[i].p = adj[i];
		v[i] = rows[i].p_eq_raw;
	}
	/* Equivalence is a claim of its own: its own Holm over the same
	 * family, so that the family shows no false equivalence with
	 * probability above alpha either. */
	holm_nan(v, n, adj);
	for (i = 0; i < n; i++) {
		rows[i].p_eq = adj[i];
		compare_row_decide(&rows[i], threshold_pct);
	}
	free(v);
	free(adj);
}

int
compare_row_a_zero(const struct compare_row *row)
{
	return (row->a.median == 0 || row->a.mean == 0);
}
