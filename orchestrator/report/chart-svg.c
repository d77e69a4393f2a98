/*
 * chart-svg.c: one chart of the A/B report page as inline SVG: the axes and
 * their ticks, the warmup window shaded, each side's median line and
 * p10-p90 band over the time grid, the events marked, and the scenario's
 * assertions (limit, window, first violation).  The data comes
 * from compare-page.c; nothing here reads the store.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"
#include "verdict/compare.h"
#include "xalloc.h"
#include "markup.h"

/* --- SVG ------------------------------------------------------------- */

double
chart_nice_step(double range)
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

/* The thin per-node lines of the live page, over the bands. */
static void
svg_lines(FILE *out, const struct chart_data *cd, const struct xscale *xs,
    const struct yscale *ys)
{
	size_t	e, i, start, end;

	for (e = 0; e < cd->nlines; e++) {
		const struct band	*b = &cd->lines[e];

		fprintf(out, "<path class=\"node\" d=\"");
		for (i = 0; band_segment(b, cd->nbins, &i, &start, &end);)
			svg_points(out, b, b->mid, start, end, 0, 'M', xs, ys);
		fprintf(out, "\" fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"1\" stroke-opacity=\"0.55\"/>\n",
		    cd->line_side[e] ? COLOR_B : COLOR_A);
	}
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

/* Does CLOSE end the window OPEN began: cont after stop, restart after
 * kill or term (the same node), heal after partition or link, link_end
 * after link (the network's)? */
static int
closes(const struct event *open, const struct event *close)
{
	const char	*o = open->kind, *c = close->kind;

	if (close->run != open->run || close->side != open->side ||
	    close->node != open->node || close->t_ms < open->t_ms)
		return (0);
	if (strcmp(o, "stop") == 0)
		return (strcmp(c, "cont") == 0);
	if (strcmp(o, "kill") == 0 || strcmp(o, "term") == 0)
		return (strcmp(c, "restart") == 0);
	if (strcmp(o, "partition") == 0)
		return (strcmp(c, "heal") == 0);
	if (strcmp(o, "link") == 0)
		return (strcmp(c, "link_end") == 0 || strcmp(c, "heal") == 0);
	return (0);
}

static int
opens(const struct event *e)
{
	static const char *const k[] = { "stop", "kill", "term", "partition",
	    "link" };
	size_t	i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (strcmp(e->kind, k[i]) == 0)
			return (1);
	return (0);
}

/* Event windows shaded under the data: from each opening event to the
 * event that closes it (or the chart's end), in its side's colour. */
static void
svg_spans(FILE *out, const struct event_list *ev, const struct xscale *xs,
    int64_t t_span)
{
	size_t	e, j;

	for (e = 0; e < ev->n; e++) {
		const struct event	*o = &ev->v[e], *c = NULL;
		double			 x0, x1;

		if (!opens(o) || o->t_ms < 0 || o->t_ms > t_span)
			continue;
		for (j = e + 1; j < ev->n && c == NULL; j++)
			if (closes(o, &ev->v[j]))
				c = &ev->v[j];
		x0 = xmap((double)o->t_ms, xs);
		x1 = xmap((double)(c != NULL && c->t_ms < t_span ? c->t_ms :
		    t_span), xs);
		fprintf(out, "<rect class=\"span\" x=\"%.1f\" y=\"%d\" "
		    "width=\"%.1f\" height=\"%d\" fill=\"%s\" "
		    "fill-opacity=\"0.10\"><title>", x0, PAD_T,
		    x1 - x0 > 1 ? x1 - x0 : 1, CHART_H - PAD_T - PAD_B,
		    o->side ? COLOR_B : COLOR_A);
		dn_markup_str(out, o->text, 0);
		fputs(c != NULL ? " .. " : " .. (the end)", out);
		if (c != NULL)
			dn_markup_str(out, c->kind, 0);
		fputs("</title></rect>\n", out);
	}
}

/* --- the assertions' marks ------------------------------------------- */

/* Can a limit at V be shown on a y axis over the data's [LO, HI] without
 * squeezing the data flat?  Up to two data ranges beyond it. */
static int
reachable(double v, double lo, double hi)
{
	double	reach = 2 * fmax(hi - lo, fmax(fabs(hi), fabs(lo)) * 0.5);

	return (isfinite(v) && v >= lo - reach && v <= hi + reach);
}

/* The y range widened to the marks' limits (those within reach) and
 * their violating values, so that both can be drawn. */
static void
marks_range(const struct chart_data *cd, double *lo, double *hi)
{
	double	dlo = *lo, dhi = *hi;
	size_t	i;

	if (!isfinite(dlo))
		return;
	for (i = 0; i < cd->nmarks; i++) {
		const struct mark *m = cd->marks[i];

		if (!m->on_axis)
			continue;
		if (reachable(m->threshold, dlo, dhi)) {
			*lo = fmin(*lo, m->threshold);
			*hi = fmax(*hi, m->threshold);
		}
		if (m->t_ms >= 0 && reachable(m->observed, dlo, dhi)) {
			*lo = fmin(*lo, m->observed);
			*hi = fmax(*hi, m->observed);
		}
	}
}

/* The window of the marks named like M on side SIDE (-1: both), their
 * union over runs; 0 when none has one. */
static int
mark_window(const struct chart_data *cd, const struct mark *m, int side,
    int64_t *from, int64_t *to)
{
	size_t	i;

	*from = -1;
	*to = -1;
	for (i = 0; i < cd->nmarks; i++) {
		const struct mark *x = cd->marks[i];

		if (strcmp(x->name, m->name) != 0 || x->from_ms < 0 ||
		    (side >= 0 && x->side != side))
			continue;
		*from = *from < 0 || x->from_ms < *from ? x->from_ms : *from;
		*to = x->to_ms > *to ? x->to_ms : *to;
	}
	return (*from >= 0);
}

/* Is mark I the first of its name (SIDE >= 0: and of its side) among
 * the chart's marks? */
static int
first_of(const struct chart_data *cd, size_t i, int side)
{
	size_t	j;

	for (j = 0; j < i; j++)
		if (strcmp(cd->marks[j]->name, cd->marks[i]->name) == 0 &&
		    (side < 0 || cd->marks[j]->side == cd->marks[i]->side))
			return (0);
	return (1);
}

/* Each assertion's window, shaded per side: the union of its runs'
 * windows (their events at the rows' times). */
static void
svg_mark_windows(FILE *out, const struct chart_data *cd,
    const struct xscale *xs, const struct yscale *ys)
{
	int64_t	from, to;
	double	x0, x1;
	size_t	i;

	for (i = 0; i < cd->nmarks; i++) {
		const struct mark *m = cd->marks[i];

		if (!first_of(cd, i, 1) ||
		    !mark_window(cd, m, m->side, &from, &to))
			continue;
		x0 = xmap((double)from, xs);
		x1 = xmap((double)to, xs);
		fprintf(out, "<rect class=\"assert-window\" data-side=\"%s\" "
		    "data-from-ms=\"%lld\" data-to-ms=\"%lld\" x=\"%.1f\" "
		    "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" "
		    "fill-opacity=\"0.09\" stroke=\"%s\" stroke-opacity=\"0.5\" "
		    "stroke-dasharray=\"2 3\"><title>", m->side ? "B" : "A",
		    (long long)from, (long long)to, x0, ys->top, x1 - x0 > 1 ?
		    x1 - x0 : 1, ys->h, COLOR_MARK, COLOR_MARK);
		dn_markup_str(out, m->name, 0);
		fprintf(out, ": judged from t=%.1f s to t=%.1f s (%s)</title>"
		    "</rect>\n", from / 1000.0, to / 1000.0, m->side ? "B" :
		    "A");
	}
}

/*
 * A violation's label is set in a box of known size: textLength makes
 * the browser fit the glyphs to LABEL_CW px per character whatever its
 * font, and LABEL_UP/LABEL_DOWN bound the 10 px glyphs above and below
 * the baseline; labels of violations close together would overlap each
 * other or a limit's words (LIMIT_CW per character of 11 px, boxed the
 * same way), so each goes to the nearest free row of LABEL_ROW px
 * (below, then above its dot's) and a thin line leads back to its dot.
 */
#define LABEL_CW	5.6
#define LABEL_UP	9.0
#define LABEL_DOWN	3.0
#define LABEL_ROW	13.0
#define LIMIT_CW	6.2

struct label_box {
	double	x0, y0, x1, y1;
};

static void	svg_mark_violations(FILE *, const struct chart_data *,
		    const struct xscale *, const struct yscale *,
		    struct label_box *, size_t);

/* Each assertion's limit in the chart's unit: a dashed line over its
 * window with its words, or the words at the edge it lies past; then the
 * violations over them.  (The <svg> element carries its axes' mapping as
 * data-*, so that a reader or a test can put a value back on the plot.) */
static void
svg_mark_limits(FILE *out, const struct chart_data *cd,
    const struct xscale *xs, const struct yscale *ys)
{
	struct label_box	*placed;
	int64_t			 from, to;
	double			 x0, x1, y, w;
	char			 lim[256], num[64];
	size_t			 i, n = 0;

	/* the limits' words first, then each violation's label (at most
	 * one per mark) placed clear of all of them */
	placed = dn_xcalloc(2 * cd->nmarks + 1, sizeof(*placed));
	for (i = 0; i < cd->nmarks; i++) {
		const struct mark *m = cd->marks[i];

		if (!first_of(cd, i, -1) || !m->on_axis)
			continue;
		compare_fmt_value(m->threshold, m->unit, num, sizeof(num));
		snprintf(lim, sizeof(lim), "%s: %s %s %s", m->name, m->metric,
		    m->op, num);
		x0 = xs->left;
		x1 = xs->left + xs->w;
		if (mark_window(cd, m, -1, &from, &to)) {
			x0 = xmap((double)from, xs);
			x1 = xmap((double)to, xs);
		}
		if (m->threshold < ys->lo || m->threshold > ys->hi) {
			y = m->threshold > ys->hi ? ys->top + 11 :
			    ys->top + ys->h - 4;
			fprintf(out, "<text class=\"assert-offaxis\" x=\"%.1f\" "
			    "y=\"%.1f\" font-size=\"11\" fill=\"%s\">%s ", x0 +
			    4, y, COLOR_MARK, m->threshold > ys->hi ?
			    "&#9650;" : "&#9660;");
			dn_markup_str(out, lim, 0);
			fputs(" (off the chart)</text>\n", out);
			continue;
		}
		y = ymap(m->threshold, ys);
		w = LIMIT_CW * (double)strlen(lim);
		placed[n++] = (struct label_box){ x0 + 4, y - 4 - LABEL_UP -
		    1, x0 + 4 + w, y - 4 + LABEL_DOWN };
		fprintf(out, "<line class=\"assert-threshold\" data-value=\""
		    "%.17g\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.2f\" y2=\"%.2f\" "
		    "stroke=\"%s\" stroke-width=\"1.6\" stroke-dasharray=\"7 4\">"
		    "<title>", m->threshold, x0, x1, y, y, COLOR_MARK);
		dn_markup_str(out, lim, 0);
		fprintf(out, "</title></line>\n<text class=\"assert-label\" "
		    "x=\"%.1f\" y=\"%.1f\" textLength=\"%.1f\" "
		    "lengthAdjust=\"spacingAndGlyphs\" font-size=\"11\" "
		    "fill=\"%s\">", x0 + 4, y - 4, w, COLOR_MARK);
		dn_markup_str(out, lim, 0);
		fputs("</text>\n", out);
	}
	svg_mark_violations(out, cd, xs, ys, placed, n);
	free(placed);
}

/* 1 when box B meets any of PLACED[0..N-1]. */
static int
label_overlaps(const struct label_box *b, const struct label_box *placed,
    size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (b->x0 < placed[i].x1 && placed[i].x0 < b->x1 &&
		    b->y0 < placed[i].y1 && placed[i].y0 < b->y1)
			return (1);
	return (0);
}

/* The baseline of a label of width W beside a dot at (X, Y): the row
 * nearest the dot whose box meets none of PLACED[0..N-1] and stays in
 * the plot (the dot's own row when nothing is there); the box placed is
 * *B. */
static double
label_row(double x, double y, double w, const struct yscale *ys,
    const struct label_box *placed, size_t n, struct label_box *b)
{
	double	base = y + 3.5, ly;
	size_t	k;

	for (k = 0; k <= 2 * n; k++) {
		/* rows 0, +1, -1, +2, -2, ... */
		ly = base + LABEL_ROW * (double)((k + 1) / 2) *
		    (k % 2 ? 1 : -1);
		b->x0 = x + 7;
		b->x1 = x + 7 + w;
		b->y0 = ly - LABEL_UP;
		b->y1 = ly + LABEL_DOWN;
		if (b->y0 >= ys->top && b->y1 <= ys->top + ys->h &&
		    !label_overlaps(b, placed, n))
			return (ly);
	}
	/* n boxes block at most n rows of 2n + 1 in the plot; a plot too
	 * short for them gets the dot's row */
	b->y0 = base - LABEL_UP;
	b->y1 = base + LABEL_DOWN;
	return (base);
}

/* Each run's first violation: a red dot at its sample (at the top when
 * its value is not in the chart's unit), the node and time beside it, no
 * label over another or over the N boxes already in PLACED (label_row;
 * PLACED has room for one more per mark). */
static void
svg_mark_violations(FILE *out, const struct chart_data *cd,
    const struct xscale *xs, const struct yscale *ys,
    struct label_box *placed, size_t n)
{
	char	text[64];
	double	x, y, ly, w;
	size_t	i;
	int	at_value;

	for (i = 0; i < cd->nmarks; i++) {
		const struct mark *m = cd->marks[i];

		if (strcmp(m->status, "fail") != 0 || m->t_ms < 0 ||
		    m->t_ms > xs->span)
			continue;
		x = xmap((double)m->t_ms, xs);
		at_value = m->on_axis && isfinite(m->observed) &&
		    m->observed >= ys->lo && m->observed <= ys->hi;
		y = at_value ? ymap(m->observed, ys) : ys->top + 6;
		if (m->node >= 0)
			snprintf(text, sizeof(text), "node %d, %.1f s",
			    m->node, m->t_ms / 1000.0);
		else
			snprintf(text, sizeof(text), "%.1f s",
			    m->t_ms / 1000.0);
		w = LABEL_CW * (double)strlen(text);
		ly = label_row(x, y, w, ys, placed, n, &placed[n]);
		n++;
		fprintf(out, "<g class=\"assert-violation\" data-run=\"%lld\" "
		    "data-t-ms=\"%lld\" data-node=\"%d\" data-at-value=\"%d\">"
		    "<title>", (long long)m->run, (long long)m->t_ms,
		    m->node == INT_MIN ? -2 : m->node, at_value);
		dn_markup_str(out, m->message, 0);
		fprintf(out, "</title><circle cx=\"%.1f\" cy=\"%.2f\" r=\"5\" "
		    "fill=\"%s\" stroke=\"#fff\" stroke-width=\"1.5\"/>", x, y,
		    COLOR_VIOL);
		if (ly != y + 3.5)
			fprintf(out, "<line class=\"assert-leader\" x1=\"%.1f\" "
			    "y1=\"%.2f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			    "stroke-width=\"0.8\"/>", x, y, x + 6, ly - 3.5,
			    COLOR_VIOL);
		fprintf(out, "<text class=\"assert-violation-label\" "
		    "x=\"%.1f\" y=\"%.1f\" textLength=\"%.1f\" "
		    "lengthAdjust=\"spacingAndGlyphs\" font-size=\"10\" "
		    "fill=\"%s\">%s</text></g>\n", x + 7, ly, w, COLOR_VIOL,
		    text);
	}
}

/* The values' range: both sides' bands, the live page's lines, and the
 * marks' limits and violations (*LO, *HI start at +inf, -inf). */
static void
data_range(const struct chart_data *cd, double *lo, double *hi)
{
	size_t	i, e;
	int	k;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < cd->nbins; i++) {
			if (!cd->side[k].have[i])
				continue;
			*lo = fmin(*lo, cd->side[k].lo[i]);
			*hi = fmax(*hi, cd->side[k].hi[i]);
		}
	}
	for (e = 0; e < cd->nlines; e++) {
		for (i = 0; i < cd->nbins; i++) {
			if (!cd->lines[e].have[i])
				continue;
			*lo = fmin(*lo, cd->lines[e].mid[i]);
			*hi = fmax(*hi, cd->lines[e].mid[i]);
		}
	}
	marks_range(cd, lo, hi);
}

void
report_svg_chart(FILE *out, const struct chart_data *cd, const char *unit,
    const struct event_list *ev)
{
	struct yscale	ys = { INFINITY, -INFINITY, PAD_T,
			    CHART_H - PAD_T - PAD_B };
	struct xscale	xs = { PAD_L, CHART_W - PAD_L - PAD_R,
			    (double)cd->t_span };
	double		step, v, tspan, tstep, tdiv, scale;
	const char	*tunit;
	char		buf[64];
	size_t		e;
	int		k, n, empty = 0;

	data_range(cd, &ys.lo, &ys.hi);
	if (!isfinite(ys.lo)) {
		ys.lo = 0;
		ys.hi = 1;
		empty = 1;
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
	step = chart_nice_step((ys.hi - ys.lo) / scale) * scale;
	ys.lo = floor(ys.lo / step) * step;
	ys.hi = ceil(ys.hi / step) * step;
	if (ys.hi <= ys.lo)
		ys.hi = ys.lo + step;

	fprintf(out, "<svg viewBox=\"0 0 %d %d\" width=\"100%%\" xmlns=\""
	    "http://www.w3.org/2000/svg\" role=\"img\" data-y-lo=\"%.17g\" "
	    "data-y-hi=\"%.17g\" data-top=\"%g\" data-h=\"%g\" data-left=\"%g\" "
	    "data-w=\"%g\" data-span-ms=\"%g\">\n", CHART_W, CHART_H, ys.lo,
	    ys.hi, ys.top, ys.h, xs.left, xs.w, xs.span);
	/* Warmup, grid, axes. */
	if (cd->warmup_ms > 0) {
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" "
		    "height=\"%.1f\" fill=\"#e5e7eb\" fill-opacity=\"0.7\"/>"
		    "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#6b7280\""
		    ">warmup</text>\n", PAD_L, PAD_T,
		    xmap((double)cd->warmup_ms, &xs) - PAD_L, ys.h,
		    PAD_L + 4.0, PAD_T + 12);
	}
	/* no values on an axis nothing was measured on (cd->note says so) */
	for (v = ys.lo; !(empty && cd->note) && v <= ys.hi + step / 2;
	    v += step) {
		double	y = ymap(v, &ys);

		compare_fmt_value(fabs(v) < step / 1e6 ? 0 : v, unit, buf,
		    sizeof(buf));
		fprintf(out, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
		    "stroke=\"#e5e7eb\"/><text x=\"%d\" y=\"%.1f\" "
		    "font-size=\"11\" fill=\"#6b7280\" text-anchor=\"end\">",
		    PAD_L, CHART_W - PAD_R, y, y, PAD_L - 6, y + 4);
		dn_markup_str(out, buf, 0);
		fputs("</text>\n", out);
	}
	tunit = time_unit(cd->t_span, &tdiv);
	tspan = cd->t_span / tdiv;
	tstep = chart_nice_step(tspan);
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
	svg_spans(out, ev, &xs, cd->t_span);
	svg_mark_windows(out, cd, &xs, &ys);
	/* Bands and lines, A under B. */
	for (k = 0; k < 2; k++)
		svg_side(out, cd, k, &xs, &ys);
	svg_lines(out, cd, &xs, &ys);
	svg_mark_limits(out, cd, &xs, &ys);
	/* An empty plot is not a flat one: it says why it is empty. */
	if (cd->note != NULL) {
		fprintf(out, "<text class=\"chart-note\" x=\"%.1f\" y=\"%.1f\" "
		    "font-size=\"%d\" fill=\"#6b7280\" text-anchor=\"%s\">",
		    empty ? xs.left + xs.w / 2 : xs.left + xs.w - 4, empty ?
		    ys.top + ys.h / 2 : ys.top + 12, empty ? 14 : 11, empty ?
		    "middle" : "end");
		dn_markup_str(out, cd->note, 0);
		fputs("</text>\n", out);
	}
	/* Events: a dashed line and a marker with a hover title. */
	for (e = 0; e < ev->n; e++) {
		const struct event	*x = &ev->v[e];
		double			 px;

		if (x->t_ms < 0 || x->t_ms > cd->t_span)
			continue;
		px = xmap((double)x->t_ms, &xs);
		fprintf(out, "<g><title>");
		dn_markup_str(out, x->text, 0);
		fprintf(out, "</title><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
		    "y2=\"%d\" stroke=\"%s\" stroke-dasharray=\"3 3\" "
		    "stroke-opacity=\"0.8\"/><path d=\"M%.1f %d l-5 -8 h10 z\" "
		    "fill=\"%s\"/></g>\n", px, px, PAD_T, CHART_H - PAD_B,
		    x->unplanned ? "#dc2626" : "#6b7280", px, PAD_T,
		    x->side ? COLOR_B : COLOR_A);
	}
	fputs("</svg>\n", out);
}
