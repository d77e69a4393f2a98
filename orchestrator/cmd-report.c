/*
 * cmd-report.c: `devnet report A B -o report.html`, one self-contained HTML
 * file (inline CSS and SVG, no script, nothing fetched) with the verdict
 * table of compare.c and one time-series chart per base metric: A and B
 * overlaid as a median line with a p10-p90 band across nodes and trials,
 * the warmup window shaded and events marked.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "compare.h"
#include "metric-table.h"
#include "outfile.h"
#include "report-history.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"

#define MAX_METRICS	64
#define NBINS		240
#define CHART_W		1080
#define CHART_H		250
#define PAD_L		78
#define PAD_R		16
#define PAD_T		18
#define PAD_B		34

static const char report_help[] =
    "A and B as for 'devnet compare' (run id, comma list, GROUP:VARIANT).\n\n"
    "options:\n"
    "  -o, --output F     HTML file to write (required)\n"
    "  --db PATH          database (default devnet.db)\n"
    "  --metric NAME      only NAME (repeatable; see 'devnet compare "
    "--help')\n"
    "  --threshold PCT    practical threshold (default 1)\n"
    "  --unit UNIT        auto (default), trial or node\n"
    "  --history          instead of A and B: the history page of a\n"
    "                     scenario (see 'devnet history'), per metric the\n"
    "                     series in commit order with its change points\n"
    "  --scenario NAME    with --history (default: the only one stored)\n"
    "  --repo PATH        with --history: the git repository that orders\n"
    "                     the commits (default: the current directory)\n"
    "  --help             this text\n";

static int	cmd_report_exec(int, char **);

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "report [--db PATH] [--metric NAME]... [--threshold PCT] "
	    "[--unit UNIT] -o FILE A B | report --history [--scenario NAME] "
	    "-o FILE",
	.summary = "write an HTML report: verdict table and charts",
	.help = report_help,
	.exec = cmd_report_exec,
};

static const char css[] =
    "body{font:14px/1.45 -apple-system,'Segoe UI',Roboto,'DejaVu Sans',"
    "sans-serif;color:#1f2937;background:#f8fafc;margin:0}\n"
    "main{max-width:1140px;margin:0 auto;padding:24px 28px 48px}\n"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}\n"
    ".sub{color:#6b7280;margin:0 0 14px}\n"
    ".note{background:#eef2ff;border-left:4px solid #6366f1;padding:8px 12px;"
    "margin:8px 0;border-radius:4px}\n"
    ".warn{background:#fff7ed;border-left:4px solid #f97316;padding:8px 12px;"
    "margin:6px 0;border-radius:4px}\n"
    "table{border-collapse:collapse;width:100%;background:#fff;"
    "box-shadow:0 1px 2px rgba(0,0,0,.06);font-variant-numeric:"
    "tabular-nums}\n"
    "th,td{padding:5px 10px;border-bottom:1px solid #e5e7eb;text-align:"
    "right;white-space:nowrap}\n"
    "th{background:#f1f5f9;font-weight:600;color:#374151}\n"
    "td.l,th.l{text-align:left}\n"
    ".better{color:#047857;font-weight:600}.worse{color:#b91c1c;"
    "font-weight:600}.same{color:#6b7280}\n"
    ".chart{background:#fff;margin:14px 0;padding:10px 12px 6px;"
    "box-shadow:0 1px 2px rgba(0,0,0,.06);border-radius:6px}\n"
    ".chart h3{font-size:15px;margin:0 0 2px}.chart .d{color:#6b7280;"
    "font-size:12.5px;margin:0 0 4px}\n"
    ".legend span{display:inline-block;margin-right:16px;font-size:12.5px}\n"
    ".sw{display:inline-block;width:22px;height:10px;border-radius:2px;"
    "margin-right:6px;vertical-align:middle}\n"
    "svg text{font-family:inherit}\n";

#define COLOR_A	"#2563eb"
#define COLOR_B	"#ea580c"

static void
html_text(FILE *out, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* --- data: per side, per bin quantiles of one base metric ------------- */

struct band {
	double	lo[NBINS], mid[NBINS], hi[NBINS];
	int	have[NBINS];
};

struct event {
	int64_t	 t_ms;
	int	 side;
	int	 unplanned;
	char	*text;
};

struct chart_data {
	int64_t		 t_max;		/* longest run, ms */
	int64_t		 warmup_ms;
	struct band	 side[2];
};

/* Values per bin for one side, gathered over runs and nodes. */
struct bins {
	double	*v[NBINS];
	size_t	 n[NBINS], cap[NBINS];
};

static void
bins_add(struct bins *b, int i, double v)
{
	if (i < 0 || i >= NBINS || isnan(v))
		return;
	if (b->n[i] == b->cap[i]) {
		b->cap[i] = b->cap[i] ? b->cap[i] * 2 : 64;
		b->v[i] = dn_xreallocarray(b->v[i], b->cap[i], sizeof(double));
	}
	b->v[i][b->n[i]++] = v;
}

static void
bins_to_band(struct bins *b, struct band *out)
{
	int	i;

	for (i = 0; i < NBINS; i++) {
		out->have[i] = b->n[i] > 0;
		if (out->have[i]) {
			out->lo[i] = dn_stats_quantile(b->v[i], b->n[i], 0.1);
			out->mid[i] = dn_stats_median(b->v[i], b->n[i]);
			out->hi[i] = dn_stats_quantile(b->v[i], b->n[i], 0.9);
		}
		free(b->v[i]);
	}
}

/* Add one node's series: gauges as sampled, counters as per-second rates
 * between consecutive samples (a drop is a restart: rate from 0). */
static void
bins_series(struct bins *b, const struct dn_series *s, int counter,
    int64_t t_max)
{
	size_t	i;
	double	scale = (double)NBINS / (double)(t_max + 1);

	for (i = 0; i < s->n; i++) {
		double	v = s->v[i];

		if (counter) {
			double	dt;

			if (i == 0)
				continue;
			dt = (s->t_ms[i] - s->t_ms[i - 1]) / 1000.0;
			if (dt <= 0)
				continue;
			v = s->v[i] - s->v[i - 1];
			if (v < 0)
				v = s->v[i];
			v /= dt;
		}
		bins_add(b, (int)(s->t_ms[i] * scale), v);
	}
}

static int
chart_load(struct dn_store *s, const struct compare_result *r, int metric,
    struct chart_data *cd, char **cause)
{
	const struct compare_side	*sides[2] = { &r->a, &r->b };
	int				 counter;
	size_t				 i, j;
	int				 k, rc = 0;

	counter = dn_metric_defs[metric].kind == DN_KIND_C;
	memset(cd, 0, sizeof(*cd));
	cd->warmup_ms = r->a.nruns ? r->a.runs[0].warmup_ms : 0;
	for (k = 0; k < 2; k++)
		for (i = 0; i < sides[k]->nruns; i++)
			if (sides[k]->runs[i].duration_ms > cd->t_max)
				cd->t_max = sides[k]->runs[i].duration_ms;
	if (cd->t_max <= 0)
		cd->t_max = 1000;
	for (k = 0; k < 2 && rc == 0; k++) {
		struct bins	b;

		memset(&b, 0, sizeof(b));
		for (i = 0; i < sides[k]->nruns && rc == 0; i++) {
			struct dn_series	*ser;
			size_t			 nser;

			rc = dn_store_series(s, sides[k]->runs[i].id, metric,
			    0, &ser, &nser, cause);
			for (j = 0; rc == 0 && j < nser; j++)
				bins_series(&b, &ser[j], counter, cd->t_max);
			if (rc == 0)
				dn_series_free(ser, nser);
		}
		bins_to_band(&b, &cd->side[k]);
	}
	return (rc);
}

/* --- events ---------------------------------------------------------- */

struct event_list {
	struct event	*v;
	size_t		 n;
	int		 side;
	int64_t		 run;
};

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
	e->unplanned = strcmp(kind, "crash") == 0 ||
	    strcmp(kind, "stalled") == 0 || strcmp(kind, "lost_samples") == 0;
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
	char				 id[32];
	const char			*params[1] = { id };
	size_t				 i;
	int				 k;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < sides[k]->nruns; i++) {
			l->side = k;
			l->run = sides[k]->runs[i].id;
			snprintf(id, sizeof(id), "%lld", (long long)l->run);
			if (dn_store_query(s, "SELECT t_ms, node, kind, detail "
			    "FROM events WHERE run_id = ?1 ORDER BY t_ms "
			    "LIMIT 200", params, 1, event_row, l, cause) != 0)
				return (-1);
		}
	}
	return (0);
}

/* --- SVG ------------------------------------------------------------- */

static double
nice_step(double range)
{
	double	raw = range / 5, mag, f;

	if (!(raw > 0))
		return (1);
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return ((f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag);
}

static void
svg_path(FILE *out, const struct band *b, const double *ys, double x0,
    double dx, double (*ymap)(double, void *), void *arg)
{
	int	i, pen = 0;

	fputs("<path d=\"", out);
	for (i = 0; i < NBINS; i++) {
		if (!b->have[i]) {
			pen = 0;
			continue;
		}
		fprintf(out, "%c%.1f %.1f ", pen ? 'L' : 'M',
		    x0 + (i + 0.5) * dx, ymap(ys[i], arg));
		pen = 1;
	}
	fputs("\"", out);
}

struct yscale {
	double	lo, hi;
	double	top, h;
};

static double
ymap(double v, void *arg)
{
	struct yscale	*y = arg;

	return (y->top + y->h - (v - y->lo) / (y->hi - y->lo) * y->h);
}

static void
svg_band(FILE *out, const struct band *b, double x0, double dx,
    struct yscale *ys, const char *color)
{
	int	i, j, start;

	/* One polygon per run of consecutive bins with data. */
	for (i = 0; i < NBINS;) {
		if (!b->have[i]) {
			i++;
			continue;
		}
		for (start = i; i < NBINS && b->have[i]; i++)
			;
		fputs("<path d=\"", out);
		for (j = start; j < i; j++)
			fprintf(out, "%c%.1f %.1f ", j == start ? 'M' : 'L',
			    x0 + (j + 0.5) * dx, ymap(b->hi[j], ys));
		for (j = i - 1; j >= start; j--)
			fprintf(out, "L%.1f %.1f ", x0 + (j + 0.5) * dx,
			    ymap(b->lo[j], ys));
		fprintf(out, "Z\" fill=\"%s\" fill-opacity=\"0.16\" "
		    "stroke=\"none\"/>\n", color);
	}
}

static void
svg_chart(FILE *out, const struct chart_data *cd, const char *unit,
    const struct event_list *ev)
{
	struct yscale	ys = { INFINITY, -INFINITY, PAD_T,
			    CHART_H - PAD_T - PAD_B };
	double		pw = CHART_W - PAD_L - PAD_R;
	double		dx = pw / NBINS, step, v, xmin, xstep, scale;
	char		buf[64];
	int		i, k;
	size_t		e;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < NBINS; i++) {
			if (!cd->side[k].have[i])
				continue;
			ys.lo = fmin(ys.lo, cd->side[k].lo[i]);
			ys.hi = fmax(ys.hi, cd->side[k].hi[i]);
		}
	}
	if (!isfinite(ys.lo)) {
		ys.lo = 0;
		ys.hi = 1;
	}
	if (ys.lo >= 0 && ys.lo < (ys.hi - ys.lo) * 0.5)
		ys.lo = 0;	/* start at 0 unless that flattens the data */
	if (ys.hi <= ys.lo)
		ys.hi = ys.lo + (ys.lo != 0 ? fabs(ys.lo) * 0.1 : 1);
	/* Ticks at round numbers of the unit shown: MiB for bytes. */
	scale = 1;
	if (strncmp(unit, "bytes", 5) == 0)
		while (fmax(fabs(ys.hi), fabs(ys.lo)) / scale >= 1024 &&
		    scale < 1e12)
			scale *= 1024;
	step = nice_step((ys.hi - ys.lo) / scale) * scale;
	ys.lo = floor(ys.lo / step) * step;
	ys.hi = ceil(ys.hi / step) * step;
	if (ys.hi <= ys.lo)
		ys.hi = ys.lo + step;

	fprintf(out, "<svg viewBox=\"0 0 %d %d\" width=\"100%%\" "
	    "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", CHART_W,
	    CHART_H);
	/* Warmup, grid, axes. */
	if (cd->warmup_ms > 0) {
		double	w = pw * cd->warmup_ms / (double)(cd->t_max + 1);

		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
		    "height=\"%.1f\" fill=\"#e5e7eb\" fill-opacity=\"0.7\"/>"
		    "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#6b7280\""
		    ">warmup</text>\n", PAD_L, PAD_T, w, ys.h, PAD_L + 4.0,
		    PAD_T + 12);
	}
	for (v = ys.lo; v <= ys.hi + step / 2; v += step) {
		double	y = ymap(v, &ys);

		compare_fmt_value(fabs(v) < step / 1e6 ? 0 : v, unit, buf,
		    sizeof(buf));
		fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#e5e7eb\"/><text x=\"%d\" y=\"%.1f\" "
		    "font-size=\"11\" fill=\"#6b7280\" text-anchor=\"end\">",
		    PAD_L, CHART_W - PAD_R, y, y, PAD_L - 6, y + 4);
		html_text(out, buf);
		fputs("</text>\n", out);
	}
	xmin = cd->t_max / 60000.0;
	xstep = nice_step(xmin);
	for (v = 0; v <= xmin + 1e-9; v += xstep) {
		double	x = PAD_L + pw * v * 60000.0 / (cd->t_max + 1);

		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
		    "y2=\"%d\" stroke=\"#9ca3af\"/><text x=\"%.1f\" y=\"%d\" "
		    "font-size=\"11\" fill=\"#6b7280\" text-anchor=\"middle\">"
		    "%g%s</text>\n", x, x, CHART_H - PAD_B, CHART_H - PAD_B + 4,
		    x, CHART_H - PAD_B + 16, v, v == 0 ? "" : " min");
	}
	fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" "
	    "stroke=\"#9ca3af\"/>\n", PAD_L, CHART_W - PAD_R, CHART_H - PAD_B,
	    CHART_H - PAD_B);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
	    "fill=\"#6b7280\" text-anchor=\"end\">time since t=0</text>\n",
	    CHART_W - PAD_R, CHART_H - 4);
	/* Bands, then lines on top. */
	for (k = 0; k < 2; k++)
		svg_band(out, &cd->side[k], PAD_L, dx, &ys,
		    k ? COLOR_B : COLOR_A);
	for (k = 0; k < 2; k++) {
		svg_path(out, &cd->side[k], cd->side[k].mid, PAD_L, dx, ymap,
		    &ys);
		fprintf(out, " fill=\"none\" stroke=\"%s\" stroke-width="
		    "\"1.8\" stroke-linejoin=\"round\"/>\n",
		    k ? COLOR_B : COLOR_A);
	}
	/* Events: a dashed line and a marker with a hover title. */
	for (e = 0; e < ev->n; e++) {
		const struct event	*x = &ev->v[e];
		double			 px;

		if (x->t_ms < 0 || x->t_ms > cd->t_max)
			continue;
		px = PAD_L + pw * x->t_ms / (double)(cd->t_max + 1);
		fprintf(out, "<g><title>");
		html_text(out, x->text);
		fprintf(out, "</title><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
		    "y2=\"%d\" stroke=\"%s\" stroke-dasharray=\"3 3\" "
		    "stroke-opacity=\"0.8\"/><path d=\"M%.1f %d l-5 -8 h10 z\" "
		    "fill=\"%s\"/></g>\n", px, px, PAD_T, CHART_H - PAD_B,
		    x->unplanned ? "#dc2626" : "#6b7280", px, PAD_T,
		    x->side ? COLOR_B : COLOR_A);
	}
	fputs("</svg>\n", out);
}

/* --- the page -------------------------------------------------------- */

static void
runs_list(FILE *out, const struct compare_side *sd)
{
	size_t	i;

	for (i = 0; i < sd->nruns; i++)
		fprintf(out, "%s%lld", i ? ", " : "",
		    (long long)sd->runs[i].id);
}

static void
verdict_table(FILE *out, const struct compare_result *r)
{
	char	va[48], vb[48];
	size_t	i;

	fputs("<table><tr><th class=\"l\">metric</th><th>A median</th>"
	    "<th>B median</th><th>delta</th><th>95% CI of delta</th>"
	    "<th>p (Holm)</th><th>n</th><th class=\"l\">verdict</th></tr>\n",
	    out);
	for (i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];

		compare_fmt_value(row->a.median, row->unit, va, sizeof(va));
		compare_fmt_value(row->b.median, row->unit, vb, sizeof(vb));
		fprintf(out, "<tr><td class=\"l\" title=\"");
		html_text(out, row->desc);
		fprintf(out, "\"><a href=\"#m-%s\">%s</a></td><td>", dn_metric_defs[
		    row->base_metric].name, row->name);
		html_text(out, va);
		fputs("</td><td>", out);
		html_text(out, vb);
		if (isnan(row->delta_pct))
			fputs("</td><td>-", out);
		else if (row->significant)
			fprintf(out, "</td><td>%+.2f%%", row->delta_pct);
		else
			fprintf(out, "</td><td>~ <span class=\"same\">"
			    "(%+.1f%%)</span>", row->delta_pct);
		if (isnan(row->delta_ci_low))
			fputs("</td><td>-", out);
		else
			fprintf(out, "</td><td>[%+.1f%%, %+.1f%%]",
			    row->delta_ci_low, row->delta_ci_high);
		fprintf(out, "</td><td>%.2g</td><td>%zu+%zu</td>"
		    "<td class=\"l %s\">%s</td></tr>\n", row->p, row->a.n,
		    row->b.n, row->verdict, row->verdict);
	}
	fputs("</table>\n", out);
}

static int
write_report(struct dn_store *s, const struct compare_result *r,
    const char *db, FILE *out, char **cause)
{
	struct event_list	 ev = { 0 };
	struct chart_data	*cd = dn_xcalloc(1, sizeof(*cd));
	int			 seen[DN_METRIC_COUNT] = { 0 };
	size_t			 i, j;
	char			 when[64];
	time_t			 now = time(NULL);
	int			 rc = -1;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M UTC", gmtime(&now));
	if (events_load(s, r, &ev, cause) != 0)
		goto out;
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
	    "charset=\"utf-8\"><title>devnet report: ");
	html_text(out, r->a.spec);
	fputs(" vs ", out);
	html_text(out, r->b.spec);
	fprintf(out, "</title>\n<style>\n%s</style></head><body><main>\n",
	    css);
	fputs("<h1>devnet A/B report</h1>\n<p class=\"sub\">", out);
	fprintf(out, "<span class=\"sw\" style=\"background:%s\"></span>"
	    "<b>A</b> = ", COLOR_A);
	html_text(out, r->a.spec);
	fputs(" (runs ", out);
	runs_list(out, &r->a);
	fprintf(out, ") &nbsp; <span class=\"sw\" style=\"background:%s\">"
	    "</span><b>B</b> = ", COLOR_B);
	html_text(out, r->b.spec);
	fputs(" (runs ", out);
	runs_list(out, &r->b);
	fputs(") &middot; database ", out);
	html_text(out, db);
	fprintf(out, " &middot; %s</p>\n<div class=\"note\">", when);
	html_text(out, r->unit_note);
	fprintf(out, ". Threshold %.3g%%; p is Holm-adjusted over %zu "
	    "metrics; <b>~</b> = not significant.</div>\n", r->threshold_pct,
	    r->nrows);
	for (i = 0; i < r->nwarnings; i++) {
		fputs("<div class=\"warn\">", out);
		html_text(out, r->warnings[i]);
		fputs("</div>\n", out);
	}
	fputs("<h2>Verdict</h2>\n", out);
	verdict_table(out, r);
	fprintf(out, "<h2>Time series</h2>\n<p class=\"legend\"><span>"
	    "<span class=\"sw\" style=\"background:%s\"></span>A median, "
	    "band p10&ndash;p90 across nodes and trials</span><span><span "
	    "class=\"sw\" style=\"background:%s\"></span>B</span><span>"
	    "<span class=\"sw\" style=\"background:#e5e7eb\"></span>warmup "
	    "(not compared)</span><span>&#9660; event (red line: "
	    "unplanned)</span></p>\n", COLOR_A, COLOR_B);
	for (i = 0; i < r->nrows; i++) {
		int		m = r->rows[i].base_metric;
		const char	*unit = dn_metric_defs[m].unit;
		char		*u = NULL;

		if (seen[m])
			continue;
		seen[m] = 1;
		if (chart_load(s, r, m, cd, cause) != 0)
			goto out;
		if (dn_metric_defs[m].kind == DN_KIND_C)
			unit = u = dn_xasprintf("%s/s", unit);
		fprintf(out, "<div class=\"chart\" id=\"m-%s\"><h3>%s%s</h3>"
		    "<p class=\"d\">", dn_metric_defs[m].name,
		    dn_metric_defs[m].name, dn_metric_defs[m].kind ==
		    DN_KIND_C ? " (per-second rate)" : "");
		html_text(out, dn_metric_defs[m].desc);
		for (j = i; j < r->nrows; j++) {
			if (r->rows[j].base_metric != m)
				continue;
			fprintf(out, " &middot; %s: <span class=\"%s\">%s",
			    r->rows[j].name, r->rows[j].verdict,
			    r->rows[j].verdict);
			if (r->rows[j].significant)
				fprintf(out, " %+.1f%%", r->rows[j].delta_pct);
			fputs("</span>", out);
		}
		fputs("</p>\n", out);
		svg_chart(out, cd, unit, &ev);
		fputs("</div>\n", out);
		free(u);
	}
	fputs("<p class=\"sub\">Written by devnet report. Method: "
	    "docs/statistics.md.</p>\n</main></body></html>\n", out);
	rc = 0;
out:
	for (i = 0; i < ev.n; i++)
		free(ev.v[i].text);
	free(ev.v);
	free(cd);
	return (rc);
}

static int
cmd_report_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "metric", required_argument, NULL, 'm' },
		{ "threshold", required_argument, NULL, 't' },
		{ "unit", required_argument, NULL, 'u' },
		{ "history", no_argument, NULL, 'H' },
		{ "scenario", required_argument, NULL, 's' },
		{ "repo", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct history_opts	 ho = { .metrics = NULL };
	int			 history = 0;
	const char		*db = CMD_DEFAULT_DB, *output = NULL;
	const char		*metrics[MAX_METRICS];
	struct compare_opts	 opts = { .metrics = metrics };
	struct compare_result	*r = NULL;
	struct dn_store		*s = NULL;
	char			*cause = NULL, *tmp = NULL;
	FILE			*out = NULL;
	int			 c, rc = 1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'm':
			if (opts.nmetrics == MAX_METRICS) {
				cmd_error("too many --metric options");
				return (CMD_EXIT_USAGE);
			}
			metrics[opts.nmetrics++] = optarg;
			break;
		case 't':
		case 'u':
			if (compare_opt_set(&opts, c, optarg, &cause) != 0) {
				cmd_error("%s", cause);
				free(cause);
				return (CMD_EXIT_USAGE);
			}
			break;
		case 'H':
			history = 1;
			break;
		case 's':
			ho.scenario = optarg;
			break;
		case 'r':
			ho.repo = optarg;
			break;
		case 'h':
			cmd_usage(&cmd_report_entry, stdout);
			return (0);
		default:
			return (cmd_bad_option(&cmd_report_entry,
			    argv[optind - 1]));
		}
	}
	if (history) {
		/* report-history.c: the page of devnet history. */
		if (argc != optind || output == NULL) {
			cmd_error("report --history: want -o FILE and no "
			    "sides (see 'devnet report --help')");
			return (CMD_EXIT_USAGE);
		}
		ho.metrics = metrics;
		ho.nmetrics = opts.nmetrics;
		if (report_history_write(db, &ho, output, &cause) != 0) {
			cmd_error("%s", cause);
			free(cause);
			return (1);
		}
		printf("wrote %s\n", output);
		return (0);
	}
	if (argc - optind != 2 || output == NULL) {
		cmd_error("report: want -o FILE and two sides, A and B (see "
		    "'devnet report --help')");
		return (CMD_EXIT_USAGE);
	}
	if (dn_store_open(&s, db, DN_STORE_RDONLY, &cause) != 0 ||
	    compare_analyze(s, argv[optind], argv[optind + 1], &opts, &r,
	    &cause) != 0)
		goto fail;
	if ((out = outfile_open(output, &tmp, &cause)) == NULL)
		goto fail;
	if (write_report(s, r, db, out, &cause) != 0)
		goto fail;
	c = outfile_commit(out, tmp, output, &cause);
	out = NULL;
	if (c != 0)
		goto fail;
	printf("wrote %s\n", output);
	rc = 0;
	goto out;
fail:
	cmd_error("%s", cause);
	if (out != NULL)
		outfile_abort(out, tmp);
out:
	free(tmp);
	free(cause);
	compare_result_free(r);
	dn_store_close(s);
	return (rc);
}
