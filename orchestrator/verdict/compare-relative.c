/*
 * compare-relative.c: a relative assertion of the scenario ("METRIC of B
 * vs A <= -10%", docs/scenarios.md "Assertions") judged by the verdict
 * compare computes (Holm-adjusted test, CI of the change, MDE): pass
 * only when the interval lies inside the claim (and, for a claimed
 * change, the test says there is one), fail when it lies outside (the
 * opposite, or a miss), inconclusive otherwise, with the trials per side
 * that would tell.  Not here: the analysis (compare.c), the rows
 * (cmd/cmd-ab.c stores them).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "xalloc.h"

int
compare_relative(struct dn_store *s, const char *side_a, const char *side_b,
    const char *metric, int at_most, double pct, struct compare_claim *out,
    char **cause)
{
	struct compare_opts	 o;
	struct compare_result	*r = NULL;
	const struct compare_row *row = NULL;
	const char		*names[1] = { metric };
	char			 need[96] = "";
	size_t			 i;
	int			 inside, outside;

	memset(out, 0, sizeof(*out));
	out->observed = NAN;
	memset(&o, 0, sizeof(o));
	o.metrics = names;
	o.nmetrics = 1;
	o.named = 1;
	o.target_pct = fabs(pct) > 0 ? fabs(pct) : 1;
	if (compare_analyze(s, side_a, side_b, &o, &r, cause) != 0)
		return (-1);
	for (i = 0; i < r->nrows; i++)
		if (strcmp(r->rows[i].name, metric) == 0)
			row = &r->rows[i];
	if (row == NULL || !isfinite(row->delta_pct)) {
		out->status = "inconclusive";
		out->message = dn_xasprintf("%s of %s vs %s: not measured on "
		    "both sides", metric, side_b, side_a);
		compare_result_free(r);
		return (0);
	}
	out->observed = row->delta_pct;
	/* the whole interval of the change inside the claim, or outside */
	inside = at_most ? row->delta_ci_high <= pct :
	    row->delta_ci_low >= pct;
	outside = at_most ? row->delta_ci_low > pct :
	    row->delta_ci_high < pct;
	/* a claimed change (B lower, or higher) needs the test to see one */
	if (inside && ((at_most && pct < 0) || (!at_most && pct > 0)) &&
	    !row->significant)
		inside = 0;
	if (row->trials_needed > 0)
		snprintf(need, sizeof(need), "; about %ld trials per side "
		    "would tell", row->trials_needed);
	else if (row->trials_needed < 0)
		snprintf(need, sizeof(need), "; more than %d trials per side "
		    "would be needed", COMPARE_MAX_TRIALS);
	out->status = inside ? "pass" : outside ? "fail" : "inconclusive";
	out->message = dn_xasprintf("%s of %s vs %s: %+.1f%% (95%% CI "
	    "%+.1f%%..%+.1f%%, p %.3g after Holm, %s, n %zu+%zu, MDE %.1f%%); "
	    "claim %s %+g%%: %s%s", metric, side_b, side_a, row->delta_pct,
	    row->delta_ci_low, row->delta_ci_high, row->p, row->verdict,
	    row->a.n, row->b.n, row->mde_pct, at_most ? "<=" : ">=", pct,
	    inside ? "shown by the data" : outside ? (at_most ?
	    (row->delta_pct > 0 ? "the data show the opposite" : "the data "
	    "show a smaller change") : (row->delta_pct < 0 ? "the data show "
	    "the opposite" : "the data show a smaller change")) :
	    "the trials cannot tell", inside || outside ? "" : need);
	compare_result_free(r);
	return (0);
}
