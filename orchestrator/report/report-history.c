/*
 * report-history.c: the HTML page of `devnet report --history` (see
 * report-history.h): a summary of the change points with their suspect
 * commit ranges, then one section per metric: an SVG chart of the series
 * (one point per run, in commit order), the mean of each segment between
 * change points as a line, each change point as a dashed red line, and
 * the table of its changes.
 *
 * Not here: ordering runs and finding change points (history.c), the A/B
 * report (cmd-report.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "verdict/compare.h"
#include "verdict/history.h"
#include "sys/outfile.h"
#include "report/report.h"
#include "report/report-history.h"
#include "store.h"
#include "xalloc.h"
#include "markup.h"

#define W	1080
#define H	260
#define PL	116
#define PR	16
#define PT	16
#define PB	58

static const char *
run_label(const struct history_run *r, char *buf, size_t cap)
{
	if (r->describe != NULL)
		snprintf(buf, cap, "%s", r->describe);
	else if (r->commit != NULL)
		snprintf(buf, cap, "%.10s", r->commit);
	else
		snprintf(buf, cap, "run %lld", (long long)r->id);
	return (buf);
}

static void
changes_table(FILE *out, const struct history *h,
    const struct history_series *sr)
{
	char	range[64], mb[48], ma[48], la[96], lb[96];
	size_t	i;

	fputs("<table><tr><th class=l>suspect commits</th><th class=l>"
	    "from</th><th class=l>to</th><th>point</th><th>before</th>"
	    "<th>after</th><th>change</th><th>p</th><th class=l>"
	    "direction</th></tr>\n", out);
	for (i = 0; i < sr->nchanges; i++) {
		const struct history_change *c = &sr->changes[i];

		history_range(h, sr, c->cp.index, range, sizeof(range));
		compare_fmt_value(c->cp.mean_before, sr->unit, mb,
		    sizeof(mb));
		compare_fmt_value(c->cp.mean_after, sr->unit, ma, sizeof(ma));
		fputs("<tr><td class=l><code>", out);
		dn_markup_str(out, range, 0);
		fputs("</code></td><td class=l>", out);
		dn_markup_str(out, run_label(&h->runs[sr->run[
		    c->cp.index - 1]], la, sizeof(la)), 0);
		fputs("</td><td class=l>", out);
		dn_markup_str(out, run_label(&h->runs[sr->run[
		    c->cp.index]], lb, sizeof(lb)), 0);
		fprintf(out, "</td><td>%zu</td><td>", c->cp.index);
		dn_markup_str(out, mb, 0);
		fputs("</td><td>", out);
		dn_markup_str(out, ma, 0);
		fprintf(out, "</td><td>%+.1f%%</td><td>%.2g</td><td class=\"l "
		    "%s\">%s</td></tr>\n", c->cp.change_pct, c->cp.p,
		    c->direction, c->direction);
	}
	fputs("</table>\n", out);
}

static void
chart(FILE *out, const struct history *h, const struct history_series *sr)
{
	double	 lo = INFINITY, hi = -INFINITY, pw = W - PL - PR;
	double	 ph = H - PT - PB, x, y, sum;
	char	 lab[96], v[48];
	size_t	 i, j, s0, s1, step;

	for (i = 0; i < sr->n; i++) {
		lo = fmin(lo, sr->v[i]);
		hi = fmax(hi, sr->v[i]);
	}
	if (!(hi > lo)) {
		hi = lo + fabs(lo) * 0.05 + 1e-9;
		lo -= fabs(lo) * 0.05 + 1e-9;
	} else {
		double	m = (hi - lo) * 0.08;

		lo -= m;
		hi += m;
	}
#define X(k) (PL + (sr->n > 1 ? pw * (double)(k) / (sr->n - 1) : pw / 2))
#define Y(val) (PT + ph * (1.0 - ((val) - lo) / (hi - lo)))
	fprintf(out, "<svg viewBox=\"0 0 %d %d\" width=\"100%%\" role=\"img\">"
	    "\n<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"#fff\" stroke=\"#e5e7eb\"/>\n", W, H, PL, PT, pw, ph);
	for (i = 0; i <= 4; i++) {
		double	val = lo + (hi - lo) * i / 4.0;

		compare_fmt_value(val, sr->unit, v, sizeof(v));
		fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#f1f5f9\"/><text x=\"%d\" "
		    "y=\"%.1f\" text-anchor=\"end\">", PL, W - PR,
		    Y(val), Y(val), PL - 6, Y(val) + 4);
		dn_markup_str(out, v, 0);
		fputs("</text>\n", out);
	}
	/* Segment means between change points. */
	for (j = 0; j <= sr->nchanges; j++) {
		s0 = j == 0 ? 0 : sr->changes[j - 1].cp.index;
		s1 = j == sr->nchanges ? sr->n : sr->changes[j].cp.index;
		if (s1 <= s0)
			continue;
		for (sum = 0, i = s0; i < s1; i++)
			sum += sr->v[i];
		y = Y(sum / (double)(s1 - s0));
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#6366f1\" stroke-width=\"2\" "
		    "opacity=\".7\"/>\n", X(s0), X(s1 - 1), y, y);
	}
	for (j = 0; j < sr->nchanges; j++) {
		size_t	k = sr->changes[j].cp.index;

		x = (X(k - 1) + X(k)) / 2;
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
		    "y2=\"%.0f\" stroke=\"#dc2626\" stroke-dasharray=\"5 4\" "
		    "stroke-width=\"1.5\"/><text x=\"%.1f\" y=\"%d\" "
		    "fill=\"#b91c1c\">%+.1f%%</text>\n", x, x, PT, PT + ph,
		    x + 4, PT + 12, sr->changes[j].cp.change_pct);
	}
	for (i = 0; i < sr->n; i++) {
		compare_fmt_value(sr->v[i], sr->unit, v, sizeof(v));
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" "
		    "fill=\"#1f2937\"><title>run %lld, ", X(i), Y(sr->v[i]),
		    (long long)h->runs[sr->run[i]].id);
		dn_markup_str(out, run_label(&h->runs[sr->run[i]], lab,
		    sizeof(lab)), 0);
		fputs(": ", out);
		dn_markup_str(out, v, 0);
		fputs("</title></circle>\n", out);
	}
	step = sr->n > 24 ? (sr->n + 23) / 24 : 1;
	for (i = 0; i < sr->n; i += step) {
		fprintf(out, "<text transform=\"translate(%.1f,%d) "
		    "rotate(30)\">", X(i), PT + (int)ph + 12);
		run_label(&h->runs[sr->run[i]], lab, sizeof(lab));
		lab[14] = '\0';	/* an axis label, not the whole name */
		dn_markup_str(out, lab, 0);
		fputs("</text>\n", out);
	}
	fputs("</svg>\n", out);
#undef X
#undef Y
}

static void
page(FILE *out, const struct history *h, const char *db)
{
	const struct history_series	*sr;
	char				 when[64];
	time_t				 now = time(NULL);
	struct tm			 tm;
	size_t				 j, nch = 0;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", &tm);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head>"
	    "<meta charset=\"utf-8\"><title>devnet history: ", out);
	dn_markup_str(out, h->scenario, 0);
	fprintf(out, "</title>\n<style>%s%s</style></head><body><main>\n"
	    "<h1>History of ", report_css, report_css_history);
	dn_markup_str(out, h->scenario, 0);
	fprintf(out, "</h1>\n<p class=sub>%zu runs, %zu commits; ",
	    h->nruns, h->ncommits);
	dn_markup_str(out, h->order, 0);
	fputs(". Database <code>", out);
	dn_markup_str(out, db, 0);
	fprintf(out, "</code>, written %s. Change points: E-divisive means "
	    "with Hunter's t-test, p &lt; 0.001 (docs/statistics.md). A "
	    "range <code>A..B</code> means: after A, up to and including B."
	    "</p>\n<h2>Change points</h2>\n", when);
	for (j = 0; j < h->nseries; j++)
		nch += h->series[j].nchanges;
	if (nch == 0)
		fputs("<p>None: no metric moved between builds.</p>\n", out);
	for (j = 0; j < h->nseries; j++) {
		sr = &h->series[j];
		if (sr->nchanges == 0)
			continue;
		fputs("<h3><a href=\"#", out);
		dn_markup_str(out, sr->name, 0);
		fputs("\">", out);
		dn_markup_str(out, sr->name, 0);
		fputs("</a></h3>\n", out);
		changes_table(out, h, sr);
	}
	for (j = 0; j < h->nseries; j++) {
		sr = &h->series[j];
		fputs("<div class=chart id=\"", out);
		dn_markup_str(out, sr->name, 0);
		fputs("\"><h3>", out);
		dn_markup_str(out, sr->name, 0);
		fputs("</h3><p class=d>", out);
		dn_markup_str(out, sr->desc, 0);
		fputs(" (", out);
		dn_markup_str(out, sr->unit, 0);
		fputs("; ", out);
		dn_markup_str(out, sr->better, 0);
		fprintf(out, " is better); %zu points, %zu change point%s</p>\n",
		    sr->n, sr->nchanges, sr->nchanges == 1 ? "" : "s");
		if (sr->n > 0)
			chart(out, h, sr);
		if (sr->nchanges > 0)
			changes_table(out, h, sr);
		fputs("</div>\n", out);
	}
	fputs("</main></body></html>\n", out);
}

int
report_history_write(const char *db, const struct history_opts *o,
    const char *output, char **cause)
{
	struct dn_store	*s = NULL;
	struct history	*h = NULL;
	FILE		*out = NULL;
	char		*tmp = NULL;
	int		 rc = -1;

	if (dn_store_open(&s, db, DN_STORE_RDONLY, cause) != 0 ||
	    history_load(s, o, &h, cause) != 0)
		goto out;
	if ((out = outfile_open(output, &tmp, cause)) == NULL)
		goto out;
	page(out, h, db);
	rc = outfile_commit(out, tmp, output, cause);
	out = NULL;
out:
	if (out != NULL)
		outfile_abort(out, tmp);
	free(tmp);
	history_free(h);
	dn_store_close(s);
	return (rc);
}
