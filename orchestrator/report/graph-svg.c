/*
 * graph-svg.c: the gossip graph's two drawings on the A/B page (issue 40;
 * the data and the tables: gossip-graph.c), as inline SVG: the graph and
 * each node's block lag against its hops.  Nothing here reads the store.
 *
 * The layout: nodes on a circle ordered by zone, then index, a gap
 * between zones; every edge a thin straight line, in its zone's colour
 * inside a zone and dashed grey across, so that the zones show as dense
 * arcs and the few edges that join them stand out; readable to 200
 * nodes (node labels up to 64, a hover title on every node).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "report/report-internal.h"
#include "verdict/compare.h"
#include "markup.h"
#include "xalloc.h"

#define GRAPH_W		1080
#define GRAPH_H		540
#define GRAPH_LABELS	64	/* node labels up to this many nodes */

static const char *const zone_colors[] = {
	"#2563eb", "#ea580c", "#059669", "#7c3aed", "#db2777", "#ca8a04",
	"#0891b2", "#65a30d"
};
#define NZONE_COLORS	(sizeof(zone_colors) / sizeof(zone_colors[0]))
#define COLOR_NOZONE	"#6b7280"

static const char *
zone_color(const struct ggraph *g, int v)
{
	return (g->zone[v] < 0 ? COLOR_NOZONE :
	    zone_colors[g->zone[v] % (int)NZONE_COLORS]);
}

const char *
graph_zone_name(const struct ggraph *g, int v)
{
	return (g->zone[v] < 0 ? "(none)" : g->zones[g->zone[v]]);
}

void
graph_peers(FILE *out, const struct ggraph *g, int v)
{
	int	w, first = 1;

	for (w = 0; w < g->n; w++)
		if (g->adj[(size_t)v * g->n + w]) {
			fprintf(out, "%s%d", first ? "" : ",", w);
			first = 0;
		}
}

/* Node V's place on the circle: ordered by zone (none last), then
 * index, a slot left empty between zones. */
static void
circle_layout(const struct ggraph *g, double *x, double *y)
{
	int	v, z, slot = 0, slots, gaps = 0, prev = -2, nz;
	double	a, cx = 280, cy = GRAPH_H / 2.0, rad = GRAPH_H / 2.0 - 36;

	nz = (int)g->nzones;
	for (z = 0; z <= nz; z++) {
		for (v = 0; v < g->n; v++)
			if ((z == nz ? g->zone[v] < 0 : g->zone[v] == z) &&
			    prev != z) {
				gaps += prev != -2;
				prev = z;
			}
	}
	slots = g->n + (g->nzones > 0 ? gaps + 1 : 0);
	prev = -2;
	for (z = 0; z <= nz; z++) {
		for (v = 0; v < g->n; v++) {
			if (!(z == nz ? g->zone[v] < 0 : g->zone[v] == z))
				continue;
			if (prev != z && prev != -2 && g->nzones > 0)
				slot++;
			prev = z;
			a = -M_PI / 2 + 2 * M_PI * slot++ / slots;
			x[v] = cx + rad * cos(a);
			y[v] = cy + rad * sin(a);
		}
	}
}

/* The legend right of the circle: a zone per line with its nodes and
 * inner edges, then the edges across. */
static void
graph_legend(FILE *out, const struct ggraph *g)
{
	size_t	z, inside, across = 0;
	int	v, w, nodes, y = 40;

	for (z = 0; z <= g->nzones; z++) {
		int	zi = z == g->nzones ? -1 : (int)z;

		nodes = 0;
		inside = 0;
		for (v = 0; v < g->n; v++) {
			if (g->zone[v] != zi)
				continue;
			nodes++;
			for (w = v + 1; w < g->n; w++)
				if (g->adj[(size_t)v * g->n + w] &&
				    g->zone[w] == zi)
					inside++;
		}
		if (nodes == 0 || (zi < 0 && g->nzones == 0))
			continue;
		fprintf(out, "<rect x=\"600\" y=\"%d\" width=\"14\" "
		    "height=\"14\" rx=\"3\" fill=\"%s\"/><text "
		    "class=\"gzone\" "
		    "x=\"622\" y=\"%d\" font-size=\"13\" fill=\"#374151\">"
		    "zone ", y - 11, zi < 0 ? COLOR_NOZONE :
		    zone_colors[zi % (int)NZONE_COLORS], y);
		dn_markup_str(out, zi < 0 ? "(none)" : g->zones[zi], 0);
		fprintf(out, ": %d nodes, %zu edges inside</text>\n", nodes,
		    inside);
		y += 22;
	}
	for (v = 0; v < g->n; v++)
		for (w = v + 1; w < g->n; w++)
			across += g->adj[(size_t)v * g->n + w] &&
			    g->zone[v] != g->zone[w];
	if (g->nzones > 0) {
		fprintf(out, "<line x1=\"600\" x2=\"614\" y1=\"%d\" y2=\"%d\" "
		    "stroke=\"#374151\" stroke-dasharray=\"4 3\"/><text "
		    "x=\"622\" y=\"%d\" font-size=\"13\" fill=\"#374151\">%zu "
		    "edges across zones</text>\n", y - 4, y - 4, y, across);
		y += 22;
	}
	fprintf(out, "<text x=\"600\" y=\"%d\" font-size=\"12\" "
	    "fill=\"#6b7280\">%d nodes, %d peers each, %zu edges%s; on a "
	    "circle</text><text x=\"600\" y=\"%d\" font-size=\"12\" "
	    "fill=\"#6b7280\">by zone, then index; hover a node for its "
	    "peers</text>\n", y + 8, g->n, g->degree, g->nedges,
	    g->connected ? "" : " (not connected)", y + 26);
}

void
graph_svg(FILE *out, const struct gside *sd)
{
	const struct ggraph	*g = &sd->g;
	double	*x = dn_xcalloc((size_t)g->n, sizeof(double));
	double	*y = dn_xcalloc((size_t)g->n, sizeof(double));
	double	 r = g->n <= 50 ? 7 : g->n <= 120 ? 5 : 3.5;
	char	 buf[48];
	int	 v, w;

	circle_layout(g, x, y);
	fprintf(out, "<svg class=\"ggraph\" viewBox=\"0 0 %d %d\" "
	    "width=\"100%%\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "role=\"img\" data-nodes=\"%d\" data-edges=\"%zu\">\n", GRAPH_W,
	    GRAPH_H, g->n, g->nedges);
	for (v = 0; v < g->n; v++)
		for (w = v + 1; w < g->n; w++) {
			int	cross = g->zone[v] != g->zone[w];

			if (!g->adj[(size_t)v * g->n + w])
				continue;
			fprintf(out, "<line class=\"gedge\" data-a=\"%d\" "
			    "data-b=\"%d\" x1=\"%.1f\" y1=\"%.1f\" "
			    "x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"%s\" "
			    "stroke-opacity=\"%s\"%s/>\n", v, w, x[v], y[v],
			    x[w], y[w], cross ? "#374151" :
			    zone_color(g, v),
			    cross ? "1.1" : "0.8", cross ? "0.8" : "0.45",
			    cross ? " stroke-dasharray=\"4 3\"" : "");
		}
	for (v = 0; v < g->n; v++) {
		fprintf(out, "<g><title>node %d, zone ", v);
		dn_markup_str(out, graph_zone_name(g, v), 0);
		fputs(": peers ", out);
		graph_peers(out, g, v);
		fprintf(out, "; %.2f hops from the proposers", g->hops[v]);
		if (!isnan(sd->mean[0][v])) {
			compare_fmt_value(sd->mean[0][v], "ms", buf,
			    sizeof(buf));
			fputs("; block lag ", out);
			dn_markup_str(out, buf, 0);
		}
		fprintf(out, "</title><circle class=\"gnode\" "
		    "data-node=\"%d\" "
		    "cx=\"%.1f\" cy=\"%.1f\" r=\"%g\" fill=\"%s\" "
		    "stroke=\"#fff\" stroke-width=\"1\"/>", v, x[v], y[v], r,
		    zone_color(g, v));
		if (g->n <= GRAPH_LABELS)
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" "
			    "font-size=\"10\" fill=\"#374151\" "
			    "text-anchor=\"middle\">%d</text>",
			    280 + (x[v] - 280) * 1.09,
			    GRAPH_H / 2.0 + (y[v] - GRAPH_H / 2.0) * 1.09 +
			    3.5,
			    v);
		fputs("</g>\n", out);
	}
	graph_legend(out, g);
	fputs("</svg>\n", out);
	free(x);
	free(y);
}

/* The x axis's range and tick step for the values X->x of the nodes
 * with a lag: quarter hops, or round numbers of ms. */
static void
lag_xrange(const struct gside *sd, const struct lag_axis *x, double *lo,
    double *hi, double *step)
{
	int	i;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (i = 0; i < sd->g.n; i++) {
		if (isnan(sd->mean[0][i]) || isnan(x->x[i]))
			continue;
		*lo = fmin(*lo, x->x[i]);
		*hi = fmax(*hi, x->x[i]);
	}
	if (x->hops) {
		*lo = floor(*lo * 4) / 4 - 0.25;
		*hi = ceil(*hi * 4) / 4 + 0.25;
		*step = *hi - *lo > 2 ? 0.5 : 0.25;
		return;
	}
	*step = chart_nice_step(*hi > *lo ? *hi - *lo : fmax(*hi, 1));
	*lo = floor(*lo / *step) * *step;
	*hi = ceil(*hi / *step) * *step;
	if (*hi <= *lo)
		*hi = *lo + *step;
}

void
graph_svg_lag(FILE *out, const struct gside *sd, const struct lag_axis *x,
    double slope)
{
	const struct ggraph	*g = &sd->g;
	double			 xlo, xhi, yhi = 0, ylo = 0, step, xstep, v;
	double			 lag, xl = PAD_L, xw = CHART_W - PAD_L - PAD_R;
	double			 yt = PAD_T, yh = CHART_H - PAD_T - PAD_B;
	double			 mx = 0, my = 0;
	char			 buf[48];
	int			 n, i, m = 0;

	lag_xrange(sd, x, &xlo, &xhi, &xstep);
	for (i = 0; i < g->n; i++)
		if (!isnan(lag = sd->mean[0][i]) && !isnan(x->x[i])) {
			yhi = fmax(yhi, lag);
			mx += x->x[i];
			my += lag;
			m++;
		}
	step = chart_nice_step(yhi > 0 ? yhi : 1);
	yhi = ceil((yhi > 0 ? yhi : 1) / step) * step;
#define SX(h)	(xl + xw * ((h) - xlo) / (xhi - xlo))
#define SY(l)	(yt + yh - yh * ((l) - ylo) / (yhi - ylo))
	fprintf(out, "<svg class=\"%s\" viewBox=\"0 0 %d %d\" width=\"100%%\" "
	    "xmlns=\"http://www.w3.org/2000/svg\" role=\"img\">\n", x->cls,
	    CHART_W, CHART_H);
	for (v = ylo; v <= yhi + step / 2; v += step) {
		compare_fmt_value(v, "ms", buf, sizeof(buf));
		fprintf(out, "<line x1=\"%g\" x2=\"%d\" y1=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#e5e7eb\"/><text x=\"%g\" "
		    "y=\"%.1f\" font-size=\"11\" fill=\"#6b7280\" "
		    "text-anchor=\"end\">", xl, CHART_W - PAD_R, SY(v), SY(v),
		    xl - 6, SY(v) + 4);
		dn_markup_str(out, buf, 0);
		fputs("</text>\n", out);
	}
	for (n = 0; xlo + n * xstep <= xhi + 1e-9; n++)
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%g\" "
		    "y2=\"%g\" stroke=\"#9ca3af\"/><text x=\"%.1f\" y=\"%g\" "
		    "font-size=\"11\" fill=\"#6b7280\" text-anchor=\"middle\">"
		    "%g%s</text>\n", SX(xlo + n * xstep), SX(xlo + n * xstep),
		    yt + yh, yt + yh + 4, SX(xlo + n * xstep), yt + yh + 16,
		    xlo + n * xstep, x->hops ? "" : " ms");
	fprintf(out, "<line x1=\"%g\" x2=\"%d\" y1=\"%g\" y2=\"%g\" "
	    "stroke=\"#9ca3af\"/><text x=\"%d\" y=\"%d\" font-size=\"11\" "
	    "fill=\"#6b7280\" text-anchor=\"end\">", xl, CHART_W - PAD_R,
	    yt + yh, yt + yh, CHART_W - PAD_R, CHART_H - 4);
	dn_markup_str(out, x->label, 0);
	fputs("</text>\n", out);
	for (i = 0; i < g->n; i++) {
		if (isnan(lag = sd->mean[0][i]) || isnan(x->x[i]))
			continue;
		compare_fmt_value(lag, "ms", buf, sizeof(buf));
		fprintf(out, "<g><title>node %d, zone ", i);
		dn_markup_str(out, graph_zone_name(g, i), 0);
		fprintf(out, ": %.2f%s, block lag ", x->x[i], x->hops ?
		    " hops" : " ms away");
		dn_markup_str(out, buf, 0);
		fprintf(out, "</title><circle class=\"lagpt\" "
		    "data-node=\"%d\" data-%s=\"%.4f\" data-lag-ms=\"%.4f\" cx=\"%.1f\" "
		    "cy=\"%.1f\" r=\"4.5\" fill=\"%s\" fill-opacity=\"0.8\"/>"
		    "</g>\n", i, x->hops ? "hops" : "ms-away", x->x[i], lag,
		    SX(x->x[i]), SY(lag), zone_color(g, i));
	}
	if (isfinite(slope) && m > 0) {
		mx /= m;
		my /= m;
		fprintf(out, "<line class=\"fit\" x1=\"%.1f\" y1=\"%.1f\" "
		    "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#111827\" "
		    "stroke-opacity=\"0.5\" stroke-dasharray=\"6 4\"/>\n",
		    SX(xlo), SY(fmax(ylo, my + slope * (xlo - mx))), SX(xhi),
		    SY(fmax(ylo, my + slope * (xhi - mx))));
	}
#undef SX
#undef SY
	fputs("</svg>\n", out);
}
