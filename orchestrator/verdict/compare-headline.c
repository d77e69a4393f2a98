/*
 * compare-headline.c: the verdict in one line of words (compare.h,
 * compare_headline), first in every output: each primary metric that
 * changed, by how much, with its interval, as a percentage and as a
 * ratio; what was shown equivalent; what is undecided and what would
 * decide it; then the secondary metrics, exploratory, in one clause.
 *
 * Not here: the verdicts themselves (compare-rule.c), the tables
 * (compare-render.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "xalloc.h"

/* "+33.6% (x1.34; 95% CI +32.9% to +34.9%)" of ROW into BUF. */
static void
change_text(const struct compare_row *row, char *buf, size_t len)
{
	int	o;

	if (isnan(row->delta_pct)) {
		snprintf(buf, len, "A is 0, no relative change");
		return;
	}
	o = snprintf(buf, len, "%+.3g%% (x%.3g", row->delta_pct,
	    1 + row->delta_pct / 100);
	if (o < 0 || (size_t)o >= len)
		return;
	if (!isnan(row->delta_ci_low) && !isnan(row->delta_ci_high))
		snprintf(buf + o, len - o, "; 95%% CI %+.3g%% to %+.3g%%)",
		    row->delta_ci_low, row->delta_ci_high);
	else
		snprintf(buf + o, len - o, ")");
}

/* What would decide undecided ROW of R, into BUF. */
static void
decide_text(const struct compare_result *r, const struct compare_row *row,
    char *buf, size_t len)
{
	double	th = r->threshold_pct;
	char	what[64];

	if (compare_row_a_zero(row)) {
		snprintf(buf, len, "A is 0, so a change of it is no "
		    "percentage and cannot be decided here (read the B "
		    "median)");
		return;
	}
	if (r->seq != NULL) {
		if (row->seq_needed > 0)
			snprintf(buf, len, "deciding it needs about %ld "
			    "trials per side%s", row->seq_needed,
			    row->futile ? ", more than the design allows" :
			    "");
		else if (row->seq_needed < 0)
			snprintf(buf, len, "deciding it is out of reach "
			    "(more than %d trials per side at this spread)",
			    COMPARE_MAX_TRIALS);
		else
			snprintf(buf, len, "no spread to say how many trials "
			    "would decide it");
		return;
	}
	if (row->a.n < 2 || row->b.n < 2) {
		snprintf(buf, len, "one trial a side shows no spread: run at "
		    "least 2 per side");
		return;
	}
	if (row->decide_by == NULL) {
		snprintf(buf, len, isnan(row->delta_pct) ? "A is 0, so a "
		    "change of it is no percentage and cannot be decided "
		    "here (read the B median)" : "no spread to say how many "
		    "trials would decide it");
		return;
	}
	if (strcmp(row->decide_by, "equivalence") == 0)
		snprintf(what, sizeof(what), "showing it within +-%.3g%%", th);
	else
		snprintf(what, sizeof(what), "deciding a %.3g%% change",
		    row->target_pct);
	if (row->trials_needed < 0)
		snprintf(buf, len, "%s is out of reach (more than %d trials "
		    "per side at this spread)", what, COMPARE_MAX_TRIALS);
	else if (compare_row_blocks(row))
		snprintf(buf, len, "%s needs about %ld time blocks of %.3g s "
		    "per side (a longer run)", what, row->trials_needed,
		    row->adj.block_s);
	else
		snprintf(buf, len, "%s needs about %ld trials per side", what,
		    row->trials_needed);
}

static void
add(char **s, const char *sep, const char *t)
{
	char	*n;

	n = dn_xasprintf("%s%s%s", *s ? *s : "", *s ? sep : "", t);
	free(*s);
	*s = n;
}

static int
moved(const struct compare_row *row)
{
	return (strcmp(row->verdict, "better") == 0 ||
	    strcmp(row->verdict, "worse") == 0 ||
	    strcmp(row->verdict, "changed") == 0);
}

/* How much undecided ROW points somewhere: an interval that clears 0
 * first, then the larger |delta| (a headline names the likeliest
 * first). */
static double
lean(const struct compare_row *row)
{
	double	d = fabs(row->delta_pct);

	if (isnan(d))
		return (-1);
	if (!isnan(row->delta_ci_low) && !isnan(row->delta_ci_high) &&
	    (row->delta_ci_low > 0 || row->delta_ci_high < 0))
		return (1e12 + d);
	return (d);
}

/* The undecided rows of [0, N), each with what would decide it: all of
 * them up to HEADLINE_UNDECIDED, else those that lean most, and a
 * count. */
#define HEADLINE_UNDECIDED	3
static void
undecided_clause(const struct compare_result *r, size_t n, char **s)
{
	size_t	 i, j, nu = 0, pick[HEADLINE_UNDECIDED], np = 0;
	char	 ch[128], dc[192], *t;

	for (i = 0; i < n; i++) {
		if (strcmp(r->rows[i].verdict, "undecided") != 0)
			continue;
		nu++;
		/* keep the HEADLINE_UNDECIDED that lean most, in order */
		for (j = np; j > 0 && lean(&r->rows[pick[j - 1]]) <
		    lean(&r->rows[i]); j--)
			if (j < HEADLINE_UNDECIDED)
				pick[j] = pick[j - 1];
		if (j < HEADLINE_UNDECIDED) {
			pick[j] = i;
			if (np < HEADLINE_UNDECIDED)
				np++;
		}
	}
	for (j = 0; j < np; j++) {
		const struct compare_row *row = &r->rows[pick[j]];

		decide_text(r, row, dc, sizeof(dc));
		if (isnan(row->delta_pct))
			t = dn_xasprintf("%s undecided: %s", row->name, dc);
		else {
			change_text(row, ch, sizeof(ch));
			t = dn_xasprintf("%s undecided at %s: %s", row->name,
			    ch, dc);
		}
		add(s, "; ", t);
		free(t);
	}
	if (nu > np) {
		t = dn_xasprintf("%zu more undecided (the table says what "
		    "would decide each)", nu - np);
		add(s, "; ", t);
		free(t);
	}
}

/* The clause of the primary rows [0, N). */
static char *
primary_clause(const struct compare_result *r, size_t n)
{
	char	*s = NULL, *eq = NULL, *t, ch[128];
	size_t	 i, pass;

	/* worse first: it is what a reader must not miss */
	for (pass = 0; pass < 3; pass++) {
		static const char *const order[] = { "worse", "better",
		    "changed" };

		for (i = 0; i < n; i++) {
			const struct compare_row *row = &r->rows[i];

			if (strcmp(row->verdict, order[pass]) != 0)
				continue;
			change_text(row, ch, sizeof(ch));
			t = dn_xasprintf("%s %s %s", row->name, row->verdict,
			    ch);
			add(&s, "; ", t);
			free(t);
		}
	}
	for (i = 0; i < n; i++) {
		const struct compare_row *row = &r->rows[i];

		if (strcmp(row->verdict, "equivalent") == 0 ||
		    strcmp(row->verdict, "not-worse") == 0) {
			t = dn_xasprintf("%s%s", row->name, row->verdict[0] ==
			    'n' ? " (not-worse)" : "");
			add(&eq, ", ", t);
			free(t);
		}
	}
	if (eq != NULL) {
		t = dn_xasprintf("equivalent within +-%.3g%%: %s",
		    r->threshold_pct, eq);
		add(&s, "; ", t);
		free(t);
		free(eq);
	}
	undecided_clause(r, n, &s);
	return (s);
}

/* The clause of the secondary rows [N0, NROWS). */
static char *
secondary_clause(const struct compare_result *r, size_t n0)
{
	char	*s = NULL, *t, ch[128];
	size_t	 i, neq = 0, nun = 0, nmoved = 0;

	for (i = n0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];

		if (moved(row)) {
			snprintf(ch, sizeof(ch), "%+.3g%% (x%.3g)",
			    row->delta_pct, 1 + row->delta_pct / 100);
			t = dn_xasprintf("%s %s %s", row->name, row->verdict,
			    ch);
			add(&s, ", ", t);
			free(t);
			nmoved++;
		} else if (strcmp(row->verdict, "undecided") == 0)
			nun++;
		else
			neq++;
	}
	t = dn_xasprintf("secondary (%zu metrics, exploratory, Holm among "
	    "themselves): %s%s%zu equivalent, %zu undecided", r->nrows - n0,
	    nmoved ? s : "none moved", "; ", neq, nun);
	free(s);
	return (t);
}

char *
compare_headline(const struct compare_result *r)
{
	char	*p, *sec = NULL, *h;

	p = r->nprimary > 0 ? primary_clause(r, r->nprimary) : NULL;
	if (r->nrows > r->nprimary)
		sec = secondary_clause(r, r->nprimary);
	h = dn_xasprintf("B vs A: %s%s%s", p != NULL ? p : r->nprimary > 0 ?
	    "" : "no primary metric measured on both sides", sec ? ". " : "",
	    sec ? sec : "");
	free(p);
	free(sec);
	return (h);
}
