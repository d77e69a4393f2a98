/*
 * cmd-report.c: `devnet report A B -o report.html`, one self-contained HTML
 * file (inline CSS and SVG, no script, nothing fetched) with the verdict
 * table of compare.c and one time-series chart per base metric (and per
 * named metric of a foreign node, the same way, its direction in every
 * title): A and B overlaid as a median line with a p10-p90 band across
 * nodes and trials, on one time grid (bins of the sample interval from
 * t=0; counters as per-second rates), the warmup window shaded and events
 * marked.  It does
 * not compute verdicts (compare.c) and fetches nothing when viewed.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "verdict/compare.h"
#include "metric-table.h"
#include "sys/outfile.h"
#include "report/report-history.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"

#define CHART_W		1080
#define CHART_H		250
#define PAD_L		104	/* room for "650 switches/s" */
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
    "  --strict           runs that differ in setup or missed their load\n"
    "                     rate are an error, not a warning\n"
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
    ".chart h3{font-size:15px;margin:0 0 2px}.chart h3 .dir{color:#6b7280;"
    "font-weight:400;font-size:13px}.chart .d{color:#6b7280;"
    "font-size:12.5px;margin:0 0 4px}\n"
    ".legend span{display:inline-block;margin-right:16px;font-size:12.5px}\n"
    ".sw{display:inline-block;width:22px;height:10px;border-radius:2px;"
    "margin-right:6px;vertical-align:middle}\n"
    "svg text{font-family:inherit}\n";

#define COLOR_A	"#2563eb"
#define COLOR_B	"#ea580c"

/* --- data: per side, per bin quantiles of one base metric ------------- */

/*
 * Every series goes onto one time grid: bins of the runs' sample interval
 * from t=0 (a multiple of it when a long run would need more than
 * MAX_BINS), so that the samples of all nodes and trials of a side meet in
 * the same bins whatever their phase.  A bin is drawn at the mean time of
 * what fell into it; a side's line breaks only where more than GAP_BINS
 * bins in a row have no data at all.
 */
#define MAX_BINS	600	/* the plot is ~990 px wide */
#define GAP_BINS	2

struct band {
	double	*t;		/* ms: mean time of the bin's values */
	double	*lo, *mid, *hi;
	int	*have;
};

struct event {
	int64_t	 t_ms;
	int	 side;
	int	 unplanned;
	char	*text;
};

struct chart_data {
	int64_t		 t_span;	/* x axis: 0 .. t_span ms */
	int64_t		 warmup_ms;
	int64_t		 bin_ms;
	size_t		 nbins;
	struct band	 side[2];
};

/* Values per bin for one side, gathered over runs and nodes. */
struct bins {
	size_t	  nbins;
	int64_t	  bin_ms;
	double	**v;
	double	 *tsum;
	size_t	 *n, *cap;
};

static void
bins_init(struct bins *b, size_t nbins, int64_t bin_ms)
{
	b->nbins = nbins;
	b->bin_ms = bin_ms;
	b->v = dn_xcalloc(nbins, sizeof(*b->v));
	b->tsum = dn_xcalloc(nbins, sizeof(*b->tsum));
	b->n = dn_xcalloc(nbins, sizeof(*b->n));
	b->cap = dn_xcalloc(nbins, sizeof(*b->cap));
}

/* Value V at time T_MS (ms since t=0); a time past the grid goes into the
 * last bin. */
static void
bins_add(struct bins *b, double t_ms, double v)
{
	size_t	i;

	if (isnan(v) || !(t_ms >= 0))
		return;
	i = (size_t)(t_ms / (double)b->bin_ms);
	if (i >= b->nbins)
		i = b->nbins - 1;
	if (b->n[i] == b->cap[i]) {
		b->cap[i] = b->cap[i] ? b->cap[i] * 2 : 16;
		b->v[i] = dn_xreallocarray(b->v[i], b->cap[i], sizeof(double));
	}
	b->v[i][b->n[i]++] = v;
	b->tsum[i] += t_ms;
}

/* Quantiles per bin into OUT; frees B. */
static void
bins_to_band(struct bins *b, struct band *out)
{
	size_t	i, n = b->nbins;

	out->t = dn_xcalloc(n, sizeof(double));
	out->lo = dn_xcalloc(n, sizeof(double));
	out->mid = dn_xcalloc(n, sizeof(double));
	out->hi = dn_xcalloc(n, sizeof(double));
	out->have = dn_xcalloc(n, sizeof(int));
	for (i = 0; i < n; i++) {
		out->have[i] = b->n[i] > 0;
		if (out->have[i]) {
			out->t[i] = b->tsum[i] / (double)b->n[i];
			out->lo[i] = dn_stats_quantile(b->v[i], b->n[i], 0.1);
			out->mid[i] = dn_stats_median(b->v[i], b->n[i]);
			out->hi[i] = dn_stats_quantile(b->v[i], b->n[i], 0.9);
		}
		free(b->v[i]);
	}
	free(b->v);
	free(b->tsum);
	free(b->n);
	free(b->cap);
	memset(b, 0, sizeof(*b));
}

static void
band_free(struct band *b)
{
	free(b->t);
	free(b->lo);
	free(b->mid);
	free(b->hi);
	free(b->have);
	memset(b, 0, sizeof(*b));
}

static void
chart_free(struct chart_data *cd)
{
	band_free(&cd->side[0]);
	band_free(&cd->side[1]);
}

/*
 * Add one node's series: gauges as sampled; counters (stored cumulative)
 * as per-second rates between consecutive samples, placed at the middle of
 * the interval they cover (a drop is a restart: rate from 0).
 */
static void
bins_series(struct bins *b, const struct dn_series *s, int counter)
{
	size_t	i;

	for (i = 0; i < s->n; i++) {
		double	v = s->v[i], t = (double)s->t_ms[i];

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
			t = (s->t_ms[i] + s->t_ms[i - 1]) / 2.0;
		}
		bins_add(b, t, v);
	}
}

static int
interval_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	int64_t	*ms = arg, v;

	(void)ncols;
	(void)names;
	(void)types;
	v = values[0] ? strtoll(values[0], NULL, 10) : 0;
	if (v > *ms)
		*ms = v;
	return (0);
}

/*
 * The time grid shared by every chart: the longest planned run plus one
 * sample interval (the final sample comes after the end), in bins of the
 * longest sample interval of the runs on either side.
 */
static int
chart_grid(struct dn_store *s, const struct compare_result *r,
    struct chart_data *cd, char **cause)
{
	const struct compare_side	*sides[2] = { &r->a, &r->b };
	char				 id[32];
	const char			*params[1] = { id };
	int64_t				 iv = 0, k;
	size_t				 i;
	int				 side;

	memset(cd, 0, sizeof(*cd));
	cd->warmup_ms = r->a.nruns ? r->a.runs[0].warmup_ms : 0;
	for (side = 0; side < 2; side++) {
		for (i = 0; i < sides[side]->nruns; i++) {
			const struct compare_run *run = &sides[side]->runs[i];

			if (run->duration_ms > cd->t_span)
				cd->t_span = run->duration_ms;
			snprintf(id, sizeof(id), "%lld", (long long)run->id);
			if (dn_store_query(s, "SELECT sample_interval_ms FROM "
			    "runs WHERE id = ?1", params, 1, interval_row, &iv,
			    cause) != 0)
				return (-1);
		}
	}
	if (iv <= 0)
		iv = 1000;
	if (cd->t_span <= 0)
		cd->t_span = 10 * iv;
	cd->t_span += iv;
	k = (cd->t_span / iv + MAX_BINS - 1) / MAX_BINS;
	cd->bin_ms = iv * (k > 1 ? k : 1);
	cd->nbins = (size_t)((cd->t_span + cd->bin_ms - 1) / cd->bin_ms);
	return (0);
}

/* Load METRIC (a table id or a named metric's; COUNTER: its kind) of
 * every run of both sides onto CD's grid. */
static int
chart_load(struct dn_store *s, const struct compare_result *r, int metric,
    int counter, struct chart_data *cd, char **cause)
{
	const struct compare_side	*sides[2] = { &r->a, &r->b };
	size_t				 i, j;
	int				 k, rc = 0;

	chart_free(cd);
	for (k = 0; k < 2; k++) {
		struct bins	b;

		bins_init(&b, cd->nbins, cd->bin_ms);
		for (i = 0; i < sides[k]->nruns && rc == 0; i++) {
			struct dn_series	*ser;
			size_t			 nser;

			rc = dn_store_series(s, sides[k]->runs[i].id, metric,
			    0, &ser, &nser, cause);
			for (j = 0; rc == 0 && j < nser; j++)
				bins_series(&b, &ser[j], counter);
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
	/* a stall of a node paused by a `stop` event was asked for */
	e->unplanned = strcmp(kind, "crash") == 0 ||
	    (strcmp(kind, "stalled") == 0 && (values[3] == NULL ||
	    strstr(values[3], "(paused by an event") == NULL)) ||
	    strcmp(kind, "lost_samples") == 0;
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

struct yscale {
	double	lo, hi;
	double	top, h;
};

static double
ymap(double v, const struct yscale *y)
{
	return (y->top + y->h - (v - y->lo) / (y->hi - y->lo) * y->h);
}

struct xscale {
	double	left, w;
	double	span;		/* ms */
};

static double
xmap(double t_ms, const struct xscale *x)
{
	if (t_ms > x->span)
		t_ms = x->span;
	return (x->left + x->w * t_ms / x->span);
}

/*
 * The next stretch of bins of B to draw as one piece, from *I on: [*START,
 * *END) with data at both ends and no more than GAP_BINS empty bins in a
 * row inside.  0 when there is none left.
 */
static int
band_segment(const struct band *b, size_t nbins, size_t *i, size_t *start,
    size_t *end)
{
	size_t	last;

	while (*i < nbins && !b->have[*i])
		(*i)++;
	if (*i >= nbins)
		return (0);
	*start = last = *i;
	for (; *i < nbins && *i - last <= GAP_BINS + 1; (*i)++)
		if (b->have[*i])
			last = *i;
	*end = last + 1;
	*i = *end;
	return (1);
}

/* "M x y" or "L x y" (FIRST) for the first bin with data of [START, END)
 * taken in order or BACKward, "L x y" for the others: values V of B. */
static void
svg_points(FILE *out, const struct band *b, const double *v, size_t start,
    size_t end, int back, int first, const struct xscale *xs,
    const struct yscale *ys)
{
	size_t	n, j;

	for (n = 0; n < end - start; n++) {
		j = back ? end - 1 - n : start + n;
		if (!b->have[j])
			continue;
		fprintf(out, "%c%.1f %.1f ", first, xmap(b->t[j], xs),
		    ymap(v[j], ys));
		first = 'L';
	}
}

/*
 * One side: its p10-p90 band as one closed polygon per stretch (upper edge
 * forward, lower edge back), then its median as one path, M then L to
 * every bin of the stretch.  A stretch of one bin is a dot and a whisker.
 */
static void
svg_side(FILE *out, const struct chart_data *cd, int k,
    const struct xscale *xs, const struct yscale *ys)
{
	const struct band	*b = &cd->side[k];
	const char		*color = k ? COLOR_B : COLOR_A;
	const char		*name = k ? "b" : "a";
	size_t			 i, start, end;
	double			 x;

	for (i = 0; band_segment(b, cd->nbins, &i, &start, &end);) {
		if (end - start == 1) {
			x = xmap(b->t[start], xs);
			fprintf(out, "<line class=\"band %s\" x1=\"%.1f\" "
			    "x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"%s\" stroke-opacity=\"0.3\" "
			    "stroke-width=\"4\"/>\n", name, x, x,
			    ymap(b->hi[start], ys), ymap(b->lo[start], ys),
			    color);
			continue;
		}
		fprintf(out, "<path class=\"band %s\" d=\"", name);
		svg_points(out, b, b->hi, start, end, 0, 'M', xs, ys);
		svg_points(out, b, b->lo, start, end, 1, 'L', xs, ys);
		fprintf(out, "Z\" fill=\"%s\" fill-opacity=\"0.16\" "
		    "stroke=\"none\"/>\n", color);
	}
	fprintf(out, "<path class=\"median %s\" d=\"", name);
	for (i = 0; band_segment(b, cd->nbins, &i, &start, &end);)
		svg_points(out, b, b->mid, start, end, 0, 'M', xs, ys);
	/* A wider than B, so that A still shows where B lies on top of it. */
	fprintf(out, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" "
	    "stroke-linejoin=\"round\"/>\n", color, k ? "1.6" : "3.2");
	for (i = 0; band_segment(b, cd->nbins, &i, &start, &end);)
		if (end - start == 1)
			fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" "
			    "r=\"2.5\" fill=\"%s\"/>\n", xmap(b->t[start], xs),
			    ymap(b->mid[start], ys), color);
}

/* The unit of the time axis: seconds under 2 minutes, minutes under 2
 * hours, hours beyond; *DIV is ms per unit. */
static const char *
time_unit(int64_t span_ms, double *div)
{
	if (span_ms < 2 * 60000) {
		*div = 1000;
		return ("s");
	}
	if (span_ms < 2 * 3600000) {
		*div = 60000;
		return ("min");
	}
	*div = 3600000;
	return ("h");
}

static void
svg_chart(FILE *out, const struct chart_data *cd, const char *unit,
    const struct event_list *ev)
{
	struct yscale	ys = { INFINITY, -INFINITY, PAD_T,
			    CHART_H - PAD_T - PAD_B };
	struct xscale	xs = { PAD_L, CHART_W - PAD_L - PAD_R,
			    (double)cd->t_span };
	double		step, v, tspan, tstep, tdiv, scale;
	const char	*tunit;
	char		buf[64];
	size_t		i;
	int		k, n;
	size_t		e;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < cd->nbins; i++) {
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
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
		    "height=\"%.1f\" fill=\"#e5e7eb\" fill-opacity=\"0.7\"/>"
		    "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#6b7280\""
		    ">warmup</text>\n", PAD_L, PAD_T,
		    xmap((double)cd->warmup_ms, &xs) - PAD_L, ys.h,
		    PAD_L + 4.0, PAD_T + 12);
	}
	for (v = ys.lo; v <= ys.hi + step / 2; v += step) {
		double	y = ymap(v, &ys);

		compare_fmt_value(fabs(v) < step / 1e6 ? 0 : v, unit, buf,
		    sizeof(buf));
		fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#e5e7eb\"/><text x=\"%d\" y=\"%.1f\" "
		    "font-size=\"11\" fill=\"#6b7280\" text-anchor=\"end\">",
		    PAD_L, CHART_W - PAD_R, y, y, PAD_L - 6, y + 4);
		compare_markup_str(out, buf, 0);
		fputs("</text>\n", out);
	}
	tunit = time_unit(cd->t_span, &tdiv);
	tspan = cd->t_span / tdiv;
	tstep = nice_step(tspan);
	for (n = 0; n * tstep <= tspan + 1e-9; n++) {
		double	x = xmap(n * tstep * tdiv, &xs);

		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
		    "y2=\"%d\" stroke=\"#9ca3af\"/><text class=\"tick\" "
		    "x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#6b7280\" "
		    "text-anchor=\"middle\">%g%s%s</text>\n", x, x,
		    CHART_H - PAD_B, CHART_H - PAD_B + 4, x,
		    CHART_H - PAD_B + 16, n * tstep, n ? " " : "",
		    n ? tunit : "");
	}
	fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" "
	    "stroke=\"#9ca3af\"/>\n", PAD_L, CHART_W - PAD_R, CHART_H - PAD_B,
	    CHART_H - PAD_B);
	fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
	    "fill=\"#6b7280\" text-anchor=\"end\">time since t=0 (bins of "
	    "%g s)</text>\n", CHART_W - PAD_R, CHART_H - 4,
	    cd->bin_ms / 1000.0);
	/* Bands and lines, A under B. */
	for (k = 0; k < 2; k++)
		svg_side(out, cd, k, &xs, &ys);
	/* Events: a dashed line and a marker with a hover title. */
	for (e = 0; e < ev->n; e++) {
		const struct event	*x = &ev->v[e];
		double			 px;

		if (x->t_ms < 0 || x->t_ms > cd->t_span)
			continue;
		px = xmap((double)x->t_ms, &xs);
		fprintf(out, "<g><title>");
		compare_markup_str(out, x->text, 0);
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
		struct chart_metric	 cm;

		chart_metric_of(row, &cm);
		fprintf(out, "<tr><td class=\"l\" title=\"");
		compare_markup_str(out, row->desc, 0);
		fputs("\"><a href=\"#m-", out);
		compare_markup_str(out, cm.name, 0);
		fputs("\">", out);
		compare_markup_str(out, row->name, 0);
		fputs("</a></td><td>", out);
		compare_markup_str(out, va, 0);
		fputs("</td><td>", out);
		compare_markup_str(out, vb, 0);
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
	if (events_load(s, r, &ev, cause) != 0 ||
	    chart_grid(s, r, cd, cause) != 0)
		goto out;
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
	    "charset=\"utf-8\"><title>devnet report: ");
	compare_markup_str(out, r->a.spec, 0);
	fputs(" vs ", out);
	compare_markup_str(out, r->b.spec, 0);
	fprintf(out, "</title>\n<style>\n%s</style></head><body><main>\n",
	    css);
	fputs("<h1>devnet A/B report</h1>\n<p class=\"sub\">", out);
	fprintf(out, "<span class=\"sw\" style=\"background:%s\"></span>"
	    "<b>A</b> = ", COLOR_A);
	compare_markup_str(out, r->a.spec, 0);
	fputs(" (runs ", out);
	runs_list(out, &r->a);
	fprintf(out, ") &nbsp; <span class=\"sw\" style=\"background:%s\">"
	    "</span><b>B</b> = ", COLOR_B);
	compare_markup_str(out, r->b.spec, 0);
	fputs(" (runs ", out);
	runs_list(out, &r->b);
	fputs(") &middot; database ", out);
	compare_markup_str(out, db, 0);
	fprintf(out, " &middot; %s</p>\n<div class=\"note\">", when);
	compare_markup_str(out, r->unit_note, 0);
	fprintf(out, ". Threshold %.3g%%; p is Holm-adjusted over %zu "
	    "metrics; <b>~</b> = not significant.</div>\n", r->threshold_pct,
	    r->nrows);
	for (i = 0; i < r->nwarnings; i++) {
		fputs("<div class=\"warn\">", out);
		compare_markup_str(out, r->warnings[i], 0);
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
		int			 m = r->rows[i].base_metric;
		struct chart_metric	 cm;
		const char		*unit;
		char			*u = NULL;

		/* Several rows plot one table metric (rss_max, rss_avg);
		 * a named metric has one row. */
		if (m < DN_METRIC_COUNT && seen[m])
			continue;
		if (m < DN_METRIC_COUNT)
			seen[m] = 1;
		chart_metric_of(&r->rows[i], &cm);
		if (chart_load(s, r, m, cm.counter, cd, cause) != 0)
			goto out;
		unit = cm.unit;
		if (cm.counter)
			unit = u = dn_xasprintf("%s/s", unit);
		fputs("<div class=\"chart\" id=\"m-", out);
		compare_markup_str(out, cm.name, 0);
		fputs("\"><h3>", out);
		compare_markup_str(out, cm.name, 0);
		fprintf(out, "%s <span class=\"dir\">(%s)</span></h3>"
		    "<p class=\"d\">", cm.counter ? " (per-second rate)" : "",
		    direction_str(cm.better));
		compare_markup_str(out, cm.desc, 0);
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
	chart_free(cd);
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
		{ "strict", no_argument, NULL, 's' },
		{ "history", no_argument, NULL, 'H' },
		{ "scenario", required_argument, NULL, 'S' },
		{ "repo", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct history_opts	 ho = { .metrics = NULL };
	int			 history = 0;
	const char		*db = CMD_DEFAULT_DB, *output = NULL;
	const char		*metrics[CMD_MAX_METRICS];
	/* named: a foreign node's own metrics are charted too */
	struct compare_opts	 opts = { .metrics = metrics, .named = 1 };
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
			if (cmd_add_metric(metrics, &opts.nmetrics,
			    optarg) != 0)
				return (CMD_EXIT_USAGE);
			break;
		case 't':
		case 'u':
		case 's':
			if (compare_opt_set(&opts, c, optarg, &cause) != 0) {
				cmd_error("%s", cause);
				free(cause);
				return (CMD_EXIT_USAGE);
			}
			break;
		case 'H':
			history = 1;
			break;
		case 'S':
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
