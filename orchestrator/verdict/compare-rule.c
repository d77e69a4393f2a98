/*
 * compare-rule.c: the one rule that turns a tested row into a verdict
 * (compare-internal.h, compare_row_decide): significant after Holm, at
 * least the practical threshold, and an interval that clears 0; then
 * better or worse by the metric's direction.  compare.c (a fixed design)
 * and compare-seq.c (each look of a sequential one) both call it, so the
 * two never disagree on what "better" means.
 */
#include <math.h>
#include <string.h>

#include "verdict/compare-internal.h"

static const char *
verdict_of(const struct compare_row *row)
{
	if (!row->significant || strcmp(row->better, "neutral") == 0)
		return ("same");
	if ((row->delta_pct < 0) == (strcmp(row->better, "lower") == 0))
		return ("better");
	return ("worse");
}

void
compare_row_decide(struct compare_row *row, double threshold_pct)
{
	int	ci_clear;

	/* An interval that could not be computed (a resampled median of A
	 * was 0) is no evidence: it never clears 0. */
	ci_clear = !isnan(row->delta_ci_low) && !isnan(row->delta_ci_high) &&
	    (row->delta_ci_low > 0 || row->delta_ci_high < 0);
	row->significant = !isnan(row->p) && row->p < COMPARE_ALPHA &&
	    !isnan(row->delta_pct) && fabs(row->delta_pct) >= threshold_pct &&
	    ci_clear;
	row->verdict = verdict_of(row);
}
