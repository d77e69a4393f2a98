/*
 * compare-page.c: the page of `devnet report A B`: one self-contained HTML
 * file (inline CSS and SVG, no script, nothing fetched) with the verdict
 * table of compare.c and one time-series chart per base metric (and per
 * named metric of a foreign node, the same way, its direction in every
 * title): A and B overlaid as a median line with a p10-p90 band across
 * nodes and trials, on one time grid (bins of the sample interval from
 * t=0; counters as per-second rates), the warmup window shaded and events
 * marked, and the scenario's assertions on the charts of their metrics
 * (assert-marks.c; a chart of its own for a metric no verdict row
 * plots).  It does not compute verdicts (compare.c) nor read the
 * verdict's samples again (the charts' data comes from compare's read,
 * chart-feed.c); chart-svg.c draws.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report/report.h"
#include "report/report-internal.h"
#include "verdict/compare.h"
#include "metric-table.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"
#include "markup.h"

/* --- events ---------------------------------------------------------- */


static int
event_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct event_list	*l = arg;
	struct event		*e;
	const char		*kind = values[2] ? values[2] : "?";

	(void)ncols;
	(void)names;
	(void)types;
	l->v = dn_xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	e = &l->v[l->n++];
	e->t_ms = values[0] ? strtoll(values[0], NULL, 10) : 0;
	e->side = l->side;
	/* a stall of a node paused by a `stop` event was asked for */
	e->unplanned = strcmp(kind, "crash") == 0 ||
	    (strcmp(kind, "stalled") == 0 && (values[3] == NULL ||
	    strstr(values[3], "(paused by an event") == NULL)) ||
	    strcmp(kind, "lost_samples") == 0;
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	e->node = values[1] ? atoi(values[1]) : -1;
	e->run = l->run;
	e->text = dn_xasprintf("run %lld node %s: %s%s%s", (long long)l->run,
	    values[1] ? values[1] : "?", kind, values[3] ? " " : "",
	    values[3] ? values[3] : "");
	return (0);
}

static int
events_load(struct dn_store *s, const struct compare_result *r,
    struct event_list *l, char **cause)
{
	const struct compare_side	*sides[2] = { &r->a, &r->b };
	size_t				 i;
	int				 k;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < sides[k]->nruns; i++) {
			l->side = k;
			l->run = sides[k]->runs[i].id;
			if (dn_store_read(s, DN_READ_RUN_EVENTS_FIRST, l->run,
			    event_row, l, cause) != 0)
				return (-1);
		}
	}
	return (0);
}

/* --- the page -------------------------------------------------------- */

/* What a chart shows: a table metric's or a named metric's name, unit,
 * kind, direction and description. */
struct chart_metric {
	int		 id;		/* table id or >= DN_STORE_NAMED_BASE */
	const char	*name;		/* also the anchor: #m-NAME */
	const char	*unit;
	int		 counter;
	const char	*better;	/* lower | higher | neutral */
	const char	*desc;
};

static void
chart_metric_of(const struct compare_row *row, struct chart_metric *cm)
{
	static const char *const dirs[] = { "lower", "higher", "neutral" };
	int	m = row->base_metric;

	cm->id = m;
	if (m >= DN_STORE_NAMED_BASE) {
		/* compare.c's add_named: unit "/s" for a counter's rate */
		cm->name = row->name;
		cm->counter = strcmp(row->unit, "/s") == 0;
		cm->unit = "";
		cm->better = row->better;
		cm->desc = row->desc;
		return;
	}
	cm->name = dn_metric_defs[m].name;
	cm->unit = dn_metric_defs[m].unit;
	cm->counter = dn_metric_defs[m].kind == DN_KIND_C;
	cm->better = dirs[dn_metric_defs[m].better];
	cm->desc = dn_metric_defs[m].desc;
}

/* "lower is better" etc., for a chart's title. */
/* "LABEL: A ...; B ..." under the heading, when either side has one;
 * NONE stands for a side without. */
static void
side_notes(FILE *out, const char *label, const char *a, const char *b,
    const char *none)
{
	if (a == NULL && b == NULL)
		return;
	fprintf(out, "<p class=\"sub\">%s: <b>A</b> ", label);
	dn_markup_str(out, a != NULL ? a : none, 0);
	fputs("; <b>B</b> ", out);
	dn_markup_str(out, b != NULL ? b : none, 0);
	fputs("</p>\n", out);
}

static const char *
direction_str(const char *better)
{
	if (strcmp(better, "lower") == 0)
		return ("lower is better");
	if (strcmp(better, "higher") == 0)
		return ("higher is better");
	return ("no better direction");
}

static void
runs_list(FILE *out, const struct compare_side *sd)
{
	size_t	i;

	for (i = 0; i < sd->nruns; i++)
		fprintf(out, "%s%lld", i ? ", " : "",
		    (long long)sd->runs[i].id);
}

/* NAME with a place to break after each '_' (<wbr>): a long metric name
 * (etcd_mvcc_db_total_size_in_bytes) wraps in its cell rather than
 * widening the table past the page. */
static void
name_breakable(FILE *out, const char *name)
{
	char	seg[64];
	size_t	n;

	while (*name != '\0') {
		n = strcspn(name, "_");
		n += name[n] == '_';
		if (n >= sizeof(seg))
			n = sizeof(seg) - 1;
		memcpy(seg, name, n);
		seg[n] = '\0';
		dn_markup_str(out, seg, 0);
		name += n;
		if (seg[n - 1] == '_' && *name != '\0')
			fputs("<wbr>", out);
	}
}

/* The verdict rows [I0, I1) of R as a table that fits the page: long
 * metric names wrap, the headers are short (their titles say them
 * whole), and on a narrow window the table scrolls, not the page. */
static void
verdict_table(FILE *out, const struct compare_result *r, size_t i0,
    size_t i1)
{
	char	va[48], vb[48], dc[32], aj[48];
	size_t	i;

	fputs("<div class=\"tw\"><table class=\"vt\"><tr><th class=\"l\">"
	    "metric</th><th>A median</th><th>B median</th><th title=\"B "
	    "vs A, % of A's median; ~: not significant\">delta</th>"
	    "<th title=\"95% confidence interval of the delta\">95% CI"
	    "</th><th title=\"p-value, Holm-adjusted in its family\">p"
	    "</th><th title=\"observations, A+B\">n</th><th class=\"l\">"
	    "verdict</th><th title=\"the trials per side that would "
	    "decide it\">to decide</th><th class=\"l\" title=\"what "
	    "the warmup adjustment removed, or the unit that decided "
	    "(the legend above)\">adj/unit</th></tr>\n", out);
	for (i = i0; i < i1; i++) {
		const struct compare_row *row = &r->rows[i];

		compare_fmt_value(row->a.median, row->unit, va, sizeof(va));
		compare_fmt_value(row->b.median, row->unit, vb, sizeof(vb));
		struct chart_metric	 cm;

		chart_metric_of(row, &cm);
		fprintf(out, "<tr><td class=\"l m\" title=\"");
		dn_markup_str(out, row->desc, 0);
		fputs("\"><a href=\"#m-", out);
		dn_markup_str(out, cm.name, 0);
		fputs("\">", out);
		name_breakable(out, row->name);
		fputs("</a></td><td>", out);
		dn_markup_str(out, va, 0);
		fputs("</td><td>", out);
		dn_markup_str(out, vb, 0);
		if (isnan(row->delta_pct))
			fputs("</td><td>-", out);
		else if (row->significant)
			fprintf(out, "</td><td>%+.2f%%", row->delta_pct);
		else
			fprintf(out, "</td><td>~ <span class=\"muted\">"
			    "(%+.1f%%)</span>", row->delta_pct);
		if (isnan(row->delta_ci_low))
			fputs("</td><td>-", out);
		else
			fprintf(out, "</td><td>[%+.1f%%, %+.1f%%]",
			    row->delta_ci_low, row->delta_ci_high);
		compare_fmt_decide(r, row, dc, sizeof(dc));
		fprintf(out, "</td><td>%.2g</td><td>%zu+%zu</td>"
		    "<td class=\"l %s\">%s</td><td>%s</td>", row->p,
		    row->a.n, row->b.n, row->verdict, row->verdict, dc);
		/* the table's adj/unit, and why as its title: the unit's
		 * where time blocks were tried, else the adjustment's */
		compare_fmt_adj(row, aj, sizeof(aj));
		fputs("<td title=\"", out);
		dn_markup_str(out, row->adj.unit_why != NULL ?
		    row->adj.unit_why : row->adj.note != NULL ?
		    row->adj.note : "", 0);
		fputs("\">", out);
		dn_markup_str(out, aj, 0);
		fputs("</td></tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

/* The chart of a metric no verdict row plots, for the assertions that
 * read it: CM from the dictionary (id -1: none). */
static int
extra_metric(struct dn_store *s, const char *name, struct chart_metric *cm,
    char **cause)
{
	static const char *const dirs[] = { "lower", "higher", "neutral" };
	struct dn_metric_info	 info;

	memset(cm, 0, sizeof(*cm));
	if (dn_store_metric_find(s, name, &cm->id, &info, cause) != 0)
		return (-1);
	if (cm->id >= 0 && cm->id < DN_METRIC_COUNT) {
		cm->name = dn_metric_defs[cm->id].name;
		cm->unit = dn_metric_defs[cm->id].unit;
		cm->counter = dn_metric_defs[cm->id].kind == DN_KIND_C;
		cm->better = dirs[dn_metric_defs[cm->id].better];
		cm->desc = dn_metric_defs[cm->id].desc;
	} else if (cm->id >= 0) {
		/* a named metric without a verdict row: it has no samples
		 * on these sides (compare adds every named one it sees) */
		cm->id = -1;
	}
	return (0);
}

/* The notes above the verdict: the unit, the families, the sequential
 * design, the warnings. */
static void
page_notes(FILE *out, const struct compare_result *r)
{
	char	*seq;
	size_t	 i;

	fputs("<div class=\"note\">", out);
	dn_markup_str(out, r->unit_note, 0);
	fprintf(out, ". Threshold %.3g%%; p is Holm-adjusted over the %zu "
	    "primary metrics (", r->threshold_pct, r->nprimary);
	dn_markup_str(out, r->primary_from, 0);
	fputs("), the secondary ones among themselves; <b>~</b> = not "
	    "significant; <i>equivalent</i>: shown within the threshold; "
	    "<i>undecided</i>: neither, <i>to decide</i> says the trials "
	    "per side that would decide it; ", out);
	dn_markup_str(out, compare_adj_legend, 0);
	fputs(".</div>\n", out);
	if ((seq = compare_seq_note(r)) != NULL) {
		fputs("<div class=\"note\">", out);
		dn_markup_str(out, seq, 0);
		fputs(".</div>\n", out);
		free(seq);
	}
	for (i = 0; i < r->nwarnings; i++) {
		fputs("<div class=\"warn\">", out);
		dn_markup_str(out, r->warnings[i], 0);
		fputs("</div>\n", out);
	}
}

/* One chart: heading, the verdict rows from ROW0 on that plot it, the
 * assertions on it, the SVG. */
static int
chart_write(FILE *out, struct report_charts *charts,
    const struct compare_result *r, size_t row0,
    const struct chart_metric *cm, struct chart_data *cd,
    const struct event_list *ev, struct mark_list *marks, char **cause)
{
	const char	*unit;
	char		*u = NULL;
	size_t		 j;

/* a verdict row's metric was binned as compare read it; one only
	 * an assertion reads is read here */
	if (report_charts_take(charts, cm->id, cd) != 0 &&
	    report_charts_load(charts, r, cm->id, cm->counter, cd,
	    cause) != 0)
		return (-1);
	unit = cm->unit;
	if (cm->counter)
		unit = u = dn_xasprintf("%s/s", unit);
	fputs("<div class=\"chart\" id=\"m-", out);
	dn_markup_str(out, cm->name, 0);
	fputs("\"><h3>", out);
	dn_markup_str(out, cm->name, 0);
	fprintf(out, "%s <span class=\"dir\">(%s)</span></h3>"
	    "<p class=\"d\">", cm->counter ? " (per-second rate)" : "",
	    direction_str(cm->better));
	dn_markup_str(out, cm->desc, 0);
	if (row0 >= r->nrows)
		fputs(" &middot; not in the verdict: charted for its "
		    "assertions", out);
	for (j = row0; j < r->nrows; j++) {
		if (r->rows[j].base_metric != cm->id)
			continue;
		fputs(" &middot; ", out);
		dn_markup_str(out, r->rows[j].name, 0);
		fprintf(out, ": <span class=\"%s\">%s",
		    r->rows[j].verdict, r->rows[j].verdict);
		if (r->rows[j].significant)
			fprintf(out, " %+.1f%%", r->rows[j].delta_pct);
		fputs("</span>", out);
	}
	fputs("</p>\n", out);
	cd->nmarks = marks_pick(marks, r, cm->name, unit, &cd->marks);
	marks_caption(out, cd->marks, cd->nmarks, unit);
	report_svg_chart(out, cd, unit, ev);
	fputs("</div>\n", out);
	free(cd->marks);
	cd->marks = NULL;
	cd->nmarks = 0;
	free(u);
	return (0);
}

int
report_compare_write(struct dn_store *s, const struct compare_result *r,
    struct report_charts *charts, const char *db, FILE *out, char **cause)
{
	struct event_list	 ev = { 0 };
	struct mark_list	 marks = { 0 };
	struct chart_data	*cd = dn_xcalloc(1, sizeof(*cd));
	int			 seen[DN_METRIC_COUNT] = { 0 };
	size_t			 i, j;
	char			 when[64], base[128];
	const char		*metric;
	time_t			 now = time(NULL);
	struct tm		 tm;
	int			 rc = -1;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime_r(&now,
	    &tm));
	if (events_load(s, r, &ev, cause) != 0 ||
	    marks_load(s, r, &marks, cause) != 0 ||
	    report_charts_grid(charts, cd, cause) != 0)
		goto out;
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
	    "charset=\"utf-8\"><title>devnet report: ");
	dn_markup_str(out, r->a.spec, 0);
	fputs(" vs ", out);
	dn_markup_str(out, r->b.spec, 0);
	fprintf(out, "</title>\n<style>\n%s%s</style></head><body><main>\n",
	    report_css, report_css_compare);
	fputs("<h1>devnet A/B report</h1>\n<p class=\"headline\">", out);
	dn_markup_str(out, r->headline, 0);
	fputs("</p>\n<p class=\"sub\">", out);
	fprintf(out, "<span class=\"sw\" style=\"background:%s\"></span>"
	    "<b>A</b> = ", COLOR_A);
	dn_markup_str(out, r->a.spec, 0);
	fputs(" (runs ", out);
	runs_list(out, &r->a);
	fprintf(out, ") &nbsp; <span class=\"sw\" style=\"background:%s\">"
	    "</span><b>B</b> = ", COLOR_B);
	dn_markup_str(out, r->b.spec, 0);
	fputs(" (runs ", out);
	runs_list(out, &r->b);
	fputs(") &middot; database ", out);
	dn_markup_str(out, db, 0);
	fprintf(out, " &middot; %s</p>\n", when);
	side_notes(out, "Allocations counted by", r->a.alloc_source,
	    r->b.alloc_source, "not recorded");
	side_notes(out, "Network", r->a.net_conditions, r->b.net_conditions,
	    "loopback");
	page_notes(out, r);
	fputs("<h2>Verdict: primary metrics</h2>\n", out);
	verdict_table(out, r, 0, r->nprimary);
	if (r->nrows > r->nprimary) {
		fputs("<h2>Secondary metrics (exploratory)</h2>\n", out);
		verdict_table(out, r, r->nprimary, r->nrows);
	}
	fprintf(out, "<h2>Time series</h2>\n<p class=\"legend\"><span>"
	    "<span class=\"sw\" style=\"background:%s\"></span>A median, "
	    "band p10&ndash;p90 across nodes and trials</span><span><span "
	    "class=\"sw\" style=\"background:%s\"></span>B</span><span>"
	    "<span class=\"sw\" style=\"background:#e5e7eb\"></span>warmup "
	    "(not compared)</span><span>&#9660; event (red line: "
	    "unplanned); shaded: a stop, kill, partition or link event "
	    "until its cont, restart or heal</span><span><span class=\"sw\" "
	    "style=\"background:%s\"></span>an assertion: its limit (dashed) "
	    "and window; red dot: its first violation in a run</span></p>\n",
	    COLOR_A, COLOR_B, COLOR_MARK);
	for (i = 0; i < r->nrows; i++) {
		int			 m = r->rows[i].base_metric;
		struct chart_metric	 cm;

		/* Several rows plot one table metric (rss_max, rss_avg);
		 * a named metric has one row. */
		if (m < DN_METRIC_COUNT && seen[m])
			continue;
		if (m < DN_METRIC_COUNT)
			seen[m] = 1;
		chart_metric_of(&r->rows[i], &cm);
		if (chart_write(out, charts, r, i, &cm, cd, &ev, &marks,
		    cause) != 0)
			goto out;
	}
	/* The metrics assertions read that no verdict row plots (height,
	 * a load counter): a chart each, so that every mark has one. */
	while ((metric = marks_unplaced(&marks, r, base, sizeof(base))) !=
	    NULL) {
		struct chart_metric	cm;

		if (extra_metric(s, metric, &cm, cause) != 0)
			goto out;
		if (cm.id < 0 || (cm.id < DN_METRIC_COUNT && seen[cm.id])) {
			/* no samples of it, or its chart has no room for
			 * the mark: listed only */
			for (j = 0; j < marks.n; j++)
				if (marks.v[j].chart == NULL)
					marks.v[j].chart = "";
			continue;
		}
		if (cm.id < DN_METRIC_COUNT)
			seen[cm.id] = 1;
		if (chart_write(out, charts, r, r->nrows, &cm, cd, &ev, &marks,
		    cause) != 0)
			goto out;
	}
	/* the peer graph the nodes gossiped over, when they did (issue 40) */
	if (report_graph_write(out, s, r, cause) != 0)
		goto out;
	marks_table(out, &marks);
	fputs("<p class=\"sub\">Written by devnet report. Method: "
	    "docs/statistics.md.</p>\n</main></body></html>\n", out);
	rc = 0;
out:
	for (i = 0; i < ev.n; i++)
		free(ev.v[i].text);
	free(ev.v);
	marks_free(&marks);
	chart_free(cd);
	free(cd);
	return (rc);
}
