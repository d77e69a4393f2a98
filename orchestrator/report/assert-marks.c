/*
 * assert-marks.c: the scenario's assertions on the A/B report page (issue
 * 21): each run's stored results read back (table assertions), matched to
 * the chart of the metric they read, and said in words under that chart
 * and in the page's list.  The drawing (threshold line, shaded window,
 * violation marker) is chart-svg.c's; nothing here judges anything: the
 * rows are what the trials decided.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"
#include "verdict/compare.h"
#include "metric-table.h"
#include "store.h"
#include "xalloc.h"
#include "markup.h"

struct mark_load {
	struct mark_list	*l;
	int			 side;
	int64_t			 run;
};

static char *
dup_text(const char *s)
{
	return (dn_xstrdup(s != NULL ? s : ""));
}

static int
mark_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	struct mark_load	*ml = arg;
	struct mark		*m;

	(void)names;
	(void)types;
	if (ncols < 14)
		return (0);
	ml->l->v = dn_xreallocarray(ml->l->v, ml->l->n + 1, sizeof(*m));
	m = &ml->l->v[ml->l->n++];
	memset(m, 0, sizeof(*m));
	m->run = ml->run;
	m->side = ml->side;
	/* DN_READ_RUN_ASSERT_MARKS: name, form, status, metric, op, unit,
	 * scope, threshold, observed, t_ms, node, window_from_ms,
	 * window_to_ms, message */
	m->name = dup_text(v[0]);
	m->form = dup_text(v[1]);
	m->status = dup_text(v[2]);
	m->metric = dup_text(v[3]);
	m->op = dup_text(v[4]);
	m->unit = dup_text(v[5]);
	m->scope = dup_text(v[6]);
	m->threshold = v[7] != NULL ? strtod(v[7], NULL) : NAN;
	m->observed = v[8] != NULL ? strtod(v[8], NULL) : NAN;
	m->t_ms = v[9] != NULL ? strtoll(v[9], NULL, 10) : -1;
	m->node = v[10] != NULL ? atoi(v[10]) : INT_MIN;
	/* rows stored before schema 6 have no window: nothing shaded */
	m->from_ms = v[11] != NULL && v[12] != NULL ? strtoll(v[11], NULL,
	    10) : -1;
	m->to_ms = v[11] != NULL && v[12] != NULL ? strtoll(v[12], NULL,
	    10) : -1;
	m->message = dup_text(v[13]);
	return (0);
}

int
marks_load(struct dn_store *s, const struct compare_result *r,
    struct mark_list *l, char **cause)
{
	const struct compare_side	*sides[2] = { &r->a, &r->b };
	struct mark_load		 ml = { .l = l };
	size_t				 i;

	for (ml.side = 0; ml.side < 2; ml.side++) {
		for (i = 0; i < sides[ml.side]->nruns; i++) {
			ml.run = sides[ml.side]->runs[i].id;
			if (dn_store_read(s, DN_READ_RUN_ASSERT_MARKS, ml.run,
			    mark_row, &ml, cause) != 0)
				return (-1);
		}
	}
	return (0);
}

void
marks_free(struct mark_list *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		struct mark *m = &l->v[i];

		free(m->name);
		free(m->form);
		free(m->status);
		free(m->metric);
		free(m->op);
		free(m->unit);
		free(m->scope);
		free(m->message);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * The sampled metric METRIC reads, into BUF: the base of the verdict's
 * row of that name (rss_max: rss_bytes), a metric as it is (lag_ms,
 * tx_latency_p99_ms), or a derived name's (height_max, lag_ms_p99,
 * allocs_per_s; `rss` is rss_bytes), as docs/scenarios.md names them.
 */
static void
mark_base(const struct compare_result *r, const char *metric, char *buf,
    size_t cap)
{
	static const char *const suffix[] = { "_max", "_min", "_mean",
	    "_p99", "_growth", "_per_s" };
	size_t	i, n = strlen(metric), k;

	for (i = 0; i < r->nrows; i++) {
		if (strcmp(r->rows[i].name, metric) == 0 &&
		    r->rows[i].base_metric < DN_METRIC_COUNT) {
			snprintf(buf, cap, "%s",
			    dn_metric_defs[r->rows[i].base_metric].name);
			return;
		}
	}
	snprintf(buf, cap, "%s", metric);
	if (dn_metric_lookup(metric) >= 0)
		return;
	for (k = 0; k < sizeof(suffix) / sizeof(suffix[0]); k++) {
		size_t	sl = strlen(suffix[k]);

		if (n > sl && strcmp(metric + n - sl, suffix[k]) == 0) {
			snprintf(buf, cap, "%.*s", (int)(n - sl), metric);
			break;
		}
	}
	if (strcmp(buf, "rss") == 0)
		snprintf(buf, cap, "rss_bytes");
}

size_t
marks_pick(struct mark_list *l, const struct compare_result *r,
    const char *name, const char *unit, struct mark ***out)
{
	char	base[128];
	size_t	i, n = 0;

	*out = NULL;
	for (i = 0; i < l->n; i++) {
		struct mark *m = &l->v[i];

		if (m->chart != NULL)
			continue;
		mark_base(r, m->metric, base, sizeof(base));
		if (strcmp(base, name) != 0)
			continue;
		m->chart = name;
		/* a row stored before schema 6 has no scope: whether its
		 * limit is a spread's is unknown, so no line */
		m->on_axis = strcmp(m->unit, unit) == 0 && m->scope[0] &&
		    strcmp(m->scope, "max_spread") != 0;
		*out = dn_xreallocarray(*out, n + 1, sizeof(**out));
		(*out)[n++] = m;
	}
	return (n);
}

const char *
marks_unplaced(const struct mark_list *l, const struct compare_result *r,
    char *buf, size_t cap)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].chart == NULL) {
			mark_base(r, l->v[i].metric, buf, cap);
			return (buf);
		}
	}
	return (NULL);
}

/* "A: pass 2 of 2" for side K of the marks named like V[I], and the first
 * violation of that side. */
static void
side_outcome(FILE *out, struct mark **v, size_t n, size_t i, int k)
{
	const struct mark	*first = NULL;
	size_t			 j, runs = 0, fail = 0, pass = 0;

	for (j = 0; j < n; j++) {
		if (v[j]->side != k || strcmp(v[j]->name, v[i]->name) != 0)
			continue;
		runs++;
		pass += strcmp(v[j]->status, "pass") == 0;
		if (strcmp(v[j]->status, "fail") == 0) {
			fail++;
			if (first == NULL && v[j]->t_ms >= 0)
				first = v[j];
		}
	}
	if (runs == 0)
		return;
	fprintf(out, "; <b>%s</b>: ", k ? "B" : "A");
	if (fail > 0)
		fprintf(out, "<span class=\"worse\">fail in %zu of %zu</span>",
		    fail, runs);
	else
		fprintf(out, "pass in %zu of %zu%s", pass, runs, pass < runs ?
		    " (the rest inconclusive)" : "");
	if (first != NULL) {
		fprintf(out, " (first violation: run %lld, ",
		    (long long)first->run);
		if (first->node >= 0)
			fprintf(out, "node %d, ", first->node);
		else if (first->node == -1)
			fputs("the load generator, ", out);
		fprintf(out, "t=%.1f s)", first->t_ms / 1000.0);
	}
}

void
marks_caption(FILE *out, struct mark **v, size_t n, const char *unit)
{
	char	num[64];
	size_t	i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && strcmp(v[j]->name, v[i]->name) != 0; j++)
			;
		if (j < i)
			continue;	/* said with the first of its name */
		fputs("<p class=\"amark\"><span class=\"sw\" style=\""
		    "background:" COLOR_MARK "\"></span>assertion <b>", out);
		dn_markup_str(out, v[i]->name, 0);
		fputs("</b> (", out);
		dn_markup_str(out, v[i]->form, 0);
		fputs(", ", out);
		dn_markup_str(out, v[i]->scope, 0);
		fputs("): ", out);
		dn_markup_str(out, v[i]->metric, 0);
		fprintf(out, " %s ", strcmp(v[i]->op, "<") == 0 ? "&lt;" :
		    strcmp(v[i]->op, "<=") == 0 ? "&lt;=" :
		    strcmp(v[i]->op, ">") == 0 ? "&gt;" :
		    strcmp(v[i]->op, ">=") == 0 ? "&gt;=" : "==");
		compare_fmt_value(v[i]->threshold, v[i]->unit, num,
		    sizeof(num));
		dn_markup_str(out, num, 0);
		if (v[i]->from_ms >= 0)
			fprintf(out, ", judged from t=%.1f s to t=%.1f s",
			    v[i]->from_ms / 1000.0, v[i]->to_ms / 1000.0);
		side_outcome(out, v, n, i, 0);
		side_outcome(out, v, n, i, 1);
		if (!v[i]->on_axis) {
			fputs("; no threshold line: ", out);
			if (strcmp(v[i]->scope, "max_spread") == 0)
				fputs("its limit is on the spread over the "
				    "nodes, not on a value of this chart", out);
			else if (v[i]->scope[0] == '\0')
				fputs("its scope was not stored (a run from "
				    "before schema 6)", out);
			else {
				fputs("its limit is in ", out);
				dn_markup_str(out, v[i]->unit[0] ?
				    v[i]->unit : "(no unit)", 0);
				fputs(", the chart shows ", out);
				dn_markup_str(out, unit[0] ? unit :
				    "(no unit)", 0);
			}
		}
		fputs("</p>\n", out);
	}
}

void
marks_table(FILE *out, const struct mark_list *l)
{
	size_t	i;

	if (l->n == 0)
		return;
	fputs("<h2>Assertions</h2>\n<table class=\"asserts\"><tr><th>run"
	    "</th><th>side</th><th class=\"l\">assertion</th><th class=\"l\">"
	    "status</th><th class=\"l\">result</th><th class=\"l\">chart</th>"
	    "</tr>\n", out);
	for (i = 0; i < l->n; i++) {
		const struct mark *m = &l->v[i];

		fprintf(out, "<tr><td>%lld</td><td>%s</td><td class=\"l\">",
		    (long long)m->run, m->side ? "B" : "A");
		dn_markup_str(out, m->name, 0);
		fprintf(out, "</td><td class=\"l %s\">", strcmp(m->status,
		    "fail") == 0 ? "worse" : strcmp(m->status, "pass") == 0 ?
		    "better" : "undecided");
		dn_markup_str(out, m->status, 0);
		fputs("</td><td class=\"l\">", out);
		dn_markup_str(out, m->message, 0);
		fputs("</td><td class=\"l\">", out);
		if (m->chart != NULL) {
			fputs("<a href=\"#m-", out);
			dn_markup_str(out, m->chart, 0);
			fputs("\">", out);
			dn_markup_str(out, m->chart, 0);
			fputs("</a>", out);
		} else
			fputs("none: no samples of its metric", out);
		fputs("</td></tr>\n", out);
	}
	fputs("</table>\n", out);
}
