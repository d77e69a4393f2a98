/*
 * compare-gate.c: `devnet compare` and `devnet ab` as a CI gate: the
 * --fail-on policy over the primary metrics (worse: one is worse;
 * changed: one is better or worse; not-shown: one is neither better nor
 * shown not-worse; with ":all" the secondary metrics count too), the
 * JUnit XML rendering (one test case per metric, a failure per worse
 * one the gate looks at), and the markdown heading that makes the table
 * ready for a pull-request comment.  The exit status itself (3) is the commands'.
 *
 * Not here: the analysis and the verdicts (compare.c), the table,
 * markdown, CSV and JSON bodies (compare-render.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "xalloc.h"
#include "markup.h"

int
compare_fail_on_parse(const char *s, int *fail_on)
{
	size_t	l = strlen(s);
	int	all = 0;

	/* ":all": secondary metrics may trip it too (issue 35) */
	if (l > 4 && strcmp(s + l - 4, ":all") == 0) {
		all = COMPARE_FAIL_ALL;
		l -= 4;
	}
	if (l == 5 && strncmp(s, "worse", l) == 0)
		*fail_on = COMPARE_FAIL_WORSE;
	else if (l == 7 && strncmp(s, "changed", l) == 0)
		*fail_on = COMPARE_FAIL_CHANGED;
	else if (l == 9 && strncmp(s, "not-shown", l) == 0)
		*fail_on = COMPARE_FAIL_NOT_SHOWN;
	else
		return (-1);
	*fail_on |= all;
	return (0);
}

const char *
compare_fail_on_says(int fail_on)
{
	int	all = fail_on & COMPARE_FAIL_ALL;

	switch (COMPARE_FAIL_KIND(fail_on)) {
	case COMPARE_FAIL_WORSE:
		return (all ? "worse:all: a metric is worse" : "worse: a "
		    "primary metric is worse");
	case COMPARE_FAIL_CHANGED:
		return (all ? "changed:all: a metric changed" : "changed: a "
		    "primary metric changed");
	default:
		return (all ? "not-shown:all: a metric is not shown better "
		    "or not-worse" : "not-shown: a primary metric is not "
		    "shown better or not-worse");
	}
}

/* Whether row I of R counts for FAIL_ON: a primary metric, or any with
 * :all. */
static int
gated(const struct compare_result *r, size_t i, int fail_on)
{
	return (i < r->nprimary || (fail_on & COMPARE_FAIL_ALL));
}

static int
compare_gate_tripped(const struct compare_result *r, int fail_on_all)
{
	int	fail_on = COMPARE_FAIL_KIND(fail_on_all);
	size_t	i;

	for (i = 0; i < r->nrows; i++) {
		const char *v = r->rows[i].verdict;

		if (!gated(r, i, fail_on_all))
			continue;
		if (fail_on == COMPARE_FAIL_WORSE && strcmp(v, "worse") == 0)
			return (1);
		/* a neutral metric that moved never tripped it */
		if (fail_on == COMPARE_FAIL_CHANGED && (strcmp(v, "better") ==
		    0 || strcmp(v, "worse") == 0))
			return (1);
		/* Proof wanted: better, or not-worse by the margin shown
		 * (Holm-adjusted, docs/statistics.md section 8). */
		if (fail_on == COMPARE_FAIL_NOT_SHOWN && strcmp(v, "better") !=
		    0 && !(r->seq != NULL && r->rows[i].p_ni < COMPARE_ALPHA))
			return (1);
	}
	return (0);
}

/* The primary rows' verdicts, counted (the secondary ones are
 * exploratory). */
static void
count_verdicts(const struct compare_result *r, size_t *worse,
    size_t *better, size_t *other)
{
	size_t	i;

	*worse = *better = *other = 0;
	for (i = 0; i < r->nprimary; i++) {
		if (strcmp(r->rows[i].verdict, "worse") == 0)
			(*worse)++;
		else if (strcmp(r->rows[i].verdict, "better") == 0)
			(*better)++;
		else
			(*other)++;
	}
}

/* R as a JUnit suite NAME (dn_junit_suite, metrics/util/markup.c): a
 * test case per metric, a failure per gated worse one. */
static void
compare_junit_render(const struct compare_result *r, const char *name,
    int fail_on, FILE *out)
{
	struct dn_junit_case	*c;
	char			 va[48], vb[48], *cls, **msg;
	size_t			 i;

	c = dn_xcalloc(r->nrows + 1, sizeof(*c));
	msg = dn_xcalloc(r->nrows + 1, sizeof(*msg));
	cls = dn_xasprintf("devnet.%s", name);
	for (i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];

		compare_fmt_value(row->a.median, row->unit, va, sizeof(va));
		compare_fmt_value(row->b.median, row->unit, vb, sizeof(vb));
		msg[i] = dn_xasprintf("%s%s: A %s, B %s, delta %+.2f%% "
		    "(95%% CI %+.1f%% to %+.1f%%), p %.3g (Holm), n %zu+%zu, "
		    "%s is better", row->verdict, row->primary ? "" :
		    " (secondary, exploratory)", va, vb, row->delta_pct,
		    row->delta_ci_low, row->delta_ci_high, row->p, row->a.n,
		    row->b.n, row->better);
		c[i].classname = cls;
		c[i].name = row->name;
		if (gated(r, i, fail_on) && strcmp(row->verdict,
		    "worse") == 0) {
			c[i].status = DN_JUNIT_FAIL;
			c[i].type = "worse";
			c[i].message = msg[i];
			c[i].text = row->desc;
		} else {
			c[i].status = DN_JUNIT_PASS;
			c[i].text = msg[i];
		}
	}
	dn_junit_suite(out, name, r->headline, c, r->nrows);
	for (i = 0; i < r->nrows; i++)
		free(msg[i]);
	free(msg);
	free(cls);
	free(c);
}

static void
compare_markdown_heading(const struct compare_result *r, const char *title,
    FILE *out)
{
	size_t	worse, better, other;

	count_verdicts(r, &worse, &better, &other);
	fprintf(out, "### %s %s: %zu worse, %zu better, %zu equivalent or "
	    "undecided (primary)\n\n", worse > 0 ? ":x:" : ":white_check_mark:",
	    title, worse, better, other);
}

/* Whether a side of SIDE_A, SIDE_B has no runs to stand for it: the
 * baseline (or the candidate) is missing, not merely unreadable. */
static int
no_baseline(struct dn_store *s, const char *side_a, const char *side_b,
    const char *machine)
{
	struct compare_result	 res;
	struct compare_side	 side;
	const char		*spec[2] = { side_a, side_b };
	char			*cause = NULL;
	int			 i, missing = 0;
	size_t			 k;

	for (i = 0; i < 2 && !missing; i++) {
		memset(&res, 0, sizeof(res));
		res.machine = machine;
		if (compare_side_resolve(s, spec[i], &side, &res,
		    &cause) != 0) {
			missing = cause != NULL && strncmp(cause, "no ", 3) == 0;
			free(cause);
			cause = NULL;
		}
		compare_side_release(&side);
		for (k = 0; k < res.nwarnings; k++)
			free(res.warnings[k]);
		free(res.warnings);
	}
	return (missing);
}

int
compare_gate_print(struct dn_store *s, const char *side_a,
    const char *side_b, const struct compare_opts *opts, int junit,
    int fail_on, const char *title, FILE *out, int *tripped, char **cause)
{
	struct compare_result	*r;

	*tripped = 0;
	if (compare_analyze(s, side_a, side_b, opts, &r, cause) != 0) {
		if (fail_on != COMPARE_FAIL_NONE && no_baseline(s, side_a,
		    side_b, opts->machine))
			*tripped = COMPARE_GATE_REFUSED;
		return (-1);
	}
	if (junit)
		compare_junit_render(r, title, fail_on, out);
	else {
		if (opts->format == COMPARE_MARKDOWN)
			compare_markdown_heading(r, title, out);
		compare_render(r, opts->format, out);
	}
	*tripped = compare_gate_tripped(r, fail_on);
	/* A gate passes only on comparable sides (issue 23): the verdict is
	 * printed, then refused. */
	if (fail_on != COMPARE_FAIL_NONE && r->nsetup > 0)
		*tripped = COMPARE_GATE_REFUSED;
	compare_result_free(r);
	return (0);
}
