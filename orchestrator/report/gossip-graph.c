/*
 * gossip-graph.c: the A/B page's section on the gossip graph (issue 40),
 * for the sides whose devnet-nodes gossip over a peer graph
 * (network.peers; the graph stored as each node's facts `peers` and
 * `zone`, the run's `gossip_peers`): the graph drawn, and each node's
 * mean block lag (lag_ms after the warmup, node_summary) against its
 * hops from the proposers, as a scatter and as tables (by hops, by zone,
 * by zone pair, per node).  A side of the full mesh has nothing here.
 * Not here: drawing the graph and the scatter (graph-svg.c), making
 * the graph (plan/peer-graph.c), the time series (chart-svg.c).
 *
 * The distance: proposers rotate (block h by node h mod N), so a node's
 * lag is the mean over every proposer of the hops a block travels; its
 * x is the mean BFS distance from all N nodes, itself at 0 hops.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"
#include "verdict/compare.h"
#include "markup.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"

#define HOP_BIN		0.25	/* the hops table's bins */

static void
ggraph_release(struct ggraph *g)
{
	size_t	i;

	for (i = 0; i < g->nzones; i++)
		free(g->zones[i]);
	free(g->zones);
	free(g->adj);
	free(g->zone);
	free(g->dist);
	free(g->hops);
	free(g->ms);
	memset(g, 0, sizeof(*g));
}

/* --- the graph from the facts ------------------------------------------ */

struct facts {
	struct ggraph	 *g;
	char		**zname;	/* [n] */
	double		 *owd;		/* n x n one-way ms, NAN none */
};

/* DN_READ_RUN_GRAPH row: node, key, value. */
static int
fact_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct facts	*f = arg;
	struct ggraph	*g = f->g;
	const char	*p;
	char		*end;
	long		 v, w;

	(void)ncols;
	(void)names;
	(void)types;
	if (values[0] == NULL || values[1] == NULL || values[2] == NULL)
		return (0);
	v = strtol(values[0], NULL, 10);
	if (v < 0) {
		if (strcmp(values[1], "gossip_peers") == 0)
			g->degree = atoi(values[2]);
		return (0);
	}
	if (v >= g->n)
		return (0);
	if (strcmp(values[1], "zone") == 0) {
		free(f->zname[v]);
		f->zname[v] = dn_xstrdup(values[2]);
		return (0);
	}
	if (strcmp(values[1], "peers") != 0)
		return (0);
	for (p = values[2]; *p != '\0'; p = *end == ',' ? end + 1 : end) {
		w = strtol(p, &end, 10);
		if (end == p)
			break;
		if (w >= 0 && w < g->n && w != v)
			g->adj[v * g->n + w] = g->adj[w * g->n + v] = 1;
	}
	return (0);
}

static int
cmp_str(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* The zones' names sorted, each node's index into them. */
static void
zones_index(struct ggraph *g, char **zname)
{
	size_t	i, j;
	int	v;

	g->zones = dn_xcalloc((size_t)g->n + 1, sizeof(char *));
	for (v = 0; v < g->n; v++) {
		if (zname[v] == NULL)
			continue;
		for (i = 0; i < g->nzones; i++)
			if (strcmp(g->zones[i], zname[v]) == 0)
				break;
		if (i == g->nzones)
			g->zones[g->nzones++] = dn_xstrdup(zname[v]);
	}
	qsort(g->zones, g->nzones, sizeof(char *), cmp_str);
	for (v = 0; v < g->n; v++) {
		g->zone[v] = -1;
		for (j = 0; zname[v] != NULL && j < g->nzones; j++)
			if (strcmp(g->zones[j], zname[v]) == 0)
				g->zone[v] = (int)j;
	}
}

/* Every node's BFS hops to every other, and its mean from all N. */
static void
graph_hops(struct ggraph *g)
{
	int	*queue = dn_xcalloc((size_t)g->n, sizeof(int));
	int	 s, v, w, head, tail, n = g->n;
	double	 sum;

	g->dist = dn_xcalloc((size_t)n * n, sizeof(int));
	g->hops = dn_xcalloc((size_t)n, sizeof(double));
	g->connected = 1;
	for (s = 0; s < n; s++) {
		int	*d = &g->dist[(size_t)s * n];

		for (v = 0; v < n; v++)
			d[v] = -1;
		d[s] = 0;
		head = tail = 0;
		queue[tail++] = s;
		while (head < tail) {
			v = queue[head++];
			for (w = 0; w < n; w++)
				if (g->adj[(size_t)v * n + w] && d[w] < 0) {
					d[w] = d[v] + 1;
					queue[tail++] = w;
				}
		}
		g->connected &= tail == n;
	}
	for (v = 0; v < n; v++) {
		sum = 0;
		for (s = 0; s < n && !isnan(sum); s++)
			sum = g->dist[(size_t)s * n + v] < 0 ? NAN :
			    sum + g->dist[(size_t)s * n + v];
		g->hops[v] = sum / n;
	}
	for (v = 0; v < n; v++)
		for (w = v + 1; w < n; w++)
			g->nedges += g->adj[(size_t)v * n + w];
	free(queue);
}

/* DN_READ_RUN_LINK_RTT row: src, dst, rtt_ms_p50 into the n x n
 * matrix of one-way ms (RTT / 2, both ways' mean). */
static int
rtt_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct ggraph	*g = ((struct facts *)arg)->g;
	double		*w = ((struct facts *)arg)->owd, h;
	int		 a, b;

	(void)ncols;
	(void)names;
	(void)types;
	if (values[0] == NULL || values[1] == NULL || values[2] == NULL)
		return (0);
	a = atoi(values[0]);
	b = atoi(values[1]);
	if (a < 0 || b < 0 || a >= g->n || b >= g->n)
		return (0);
	h = strtod(values[2], NULL) / 2;
	w[(size_t)a * g->n + b] = w[(size_t)b * g->n + a] =
	    isnan(w[(size_t)a * g->n + b]) ? h :
	    (w[(size_t)a * g->n + b] + h) / 2;
	return (0);
}

/* G->ms from the one-way ms W of every edge (Dijkstra from each node);
 * left NULL when an edge has none. */
static void
graph_ms(struct ggraph *g, const double *w)
{
	double	*d = dn_xcalloc((size_t)g->n, sizeof(double));
	uint8_t	*done = dn_xcalloc((size_t)g->n, 1);
	int	 s, v, u, n = g->n, i;

	for (i = 0; i < n * n; i++)
		if (g->adj[i] && isnan(w[i]))
			goto out;
	g->ms = dn_xcalloc((size_t)n, sizeof(double));
	for (s = 0; s < n; s++) {
		for (v = 0; v < n; v++)
			d[v] = v == s ? 0 : INFINITY;
		memset(done, 0, (size_t)n);
		for (i = 0; i < n; i++) {
			for (u = -1, v = 0; v < n; v++)
				if (!done[v] && (u < 0 || d[v] < d[u]))
					u = v;
			done[u] = 1;
			for (v = 0; v < n; v++)
				if (g->adj[(size_t)u * n + v])
					d[v] = fmin(d[v], d[u] +
					    w[(size_t)u * n + v]);
		}
		for (v = 0; v < n; v++)
			g->ms[v] += isfinite(d[v]) ? d[v] / n : NAN;
	}
out:
	free(d);
	free(done);
}

/* RUN's graph into G (G->n 0: the run has none, a full mesh), with
 * WITH_MS its distances in ms too.  0, or -1 with *CAUSE. */
static int
graph_load(struct dn_store *s, const struct compare_run *run,
    struct ggraph *g, int with_ms, char **cause)
{
	struct facts	f = { .g = g };
	int		v, rc;

	memset(g, 0, sizeof(*g));
	if (run->nodes < 1)
		return (0);
	g->n = run->nodes;
	g->adj = dn_xcalloc((size_t)g->n * g->n, 1);
	g->zone = dn_xcalloc((size_t)g->n, sizeof(int));
	f.zname = dn_xcalloc((size_t)g->n, sizeof(char *));
	rc = dn_store_read(s, DN_READ_RUN_GRAPH, run->id, fact_row, &f,
	    cause);
	if (rc == 0 && g->degree > 0) {
		zones_index(g, f.zname);
		graph_hops(g);
	}
	if (rc == 0 && g->degree > 0 && with_ms) {
		f.owd = dn_xcalloc((size_t)g->n * g->n, sizeof(double));
		for (v = 0; v < g->n * g->n; v++)
			f.owd[v] = NAN;
		rc = dn_store_read(s, DN_READ_RUN_LINK_RTT, run->id, rtt_row,
		    &f, cause);
		if (rc == 0)
			graph_ms(g, f.owd);
		free(f.owd);
	}
	for (v = 0; v < g->n; v++)
		free(f.zname[v]);
	free(f.zname);
	if (rc != 0 || g->degree <= 0)
		ggraph_release(g);
	return (rc);
}

/* One graph: the same nodes, edges and zones. */
static int
graph_same(const struct ggraph *a, const struct ggraph *b)
{
	size_t	i;
	int	v;

	if (a->n != b->n || a->nzones != b->nzones ||
	    memcmp(a->adj, b->adj, (size_t)a->n * a->n) != 0)
		return (0);
	for (i = 0; i < a->nzones; i++)
		if (strcmp(a->zones[i], b->zones[i]) != 0)
			return (0);
	for (v = 0; v < a->n; v++)
		if (a->zone[v] != b->zone[v])
			return (0);
	return (1);
}

/* --- the lag ----------------------------------------------------------- */

/* DN_READ_RUN_NODE_LAG row: node, metric, avg. */
static int
lag_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct gside	*sd = arg;
	int		 v, k;

	(void)ncols;
	(void)names;
	(void)types;
	if (values[0] == NULL || values[1] == NULL || values[2] == NULL)
		return (0);
	v = atoi(values[0]);
	k = strcmp(values[1], "lag_ms") == 0 ? 0 : 1;
	if (v < 0 || v >= sd->g.n)
		return (0);
	sd->mean[k][v] += strtod(values[2], NULL);
	sd->cnt[k][v]++;
	return (0);
}

/* SD from side SIDE's runs: the first graph, the runs that share it
 * (their lag read), the others listed. */
static int
side_load(struct dn_store *s, const struct compare_side *side,
    struct gside *sd, char **cause)
{
	struct ggraph	g;
	size_t		i;
	int		k, v;

	memset(sd, 0, sizeof(*sd));
	for (i = 0; i < side->nruns; i++) {
		if (graph_load(s, &side->runs[i], &g, sd->g.n == 0,
		    cause) != 0)
			return (-1);
		if (sd->g.n == 0 && g.n > 0) {
			sd->g = g;
			for (k = 0; k < 2; k++) {
				sd->mean[k] = dn_xcalloc((size_t)g.n,
				    sizeof(double));
				sd->cnt[k] = dn_xcalloc((size_t)g.n,
				    sizeof(int));
			}
		} else if (g.n == 0 || !graph_same(&sd->g, &g)) {
			ggraph_release(&g);
			sd->other = dn_xreallocarray(sd->other,
			    sd->nother + 1, sizeof(int64_t));
			sd->other[sd->nother++] = side->runs[i].id;
			continue;
		} else {
			ggraph_release(&g);
		}
		sd->runs = dn_xreallocarray(sd->runs, sd->nruns + 1,
		    sizeof(int64_t));
		sd->runs[sd->nruns++] = side->runs[i].id;
		if (dn_store_read(s, DN_READ_RUN_NODE_LAG, side->runs[i].id,
		    lag_row, sd, cause) != 0)
			return (-1);
	}
	/* the sums into means over the runs, NAN where none measured */
	for (k = 0; k < 2 && sd->g.n > 0; k++)
		for (v = 0; v < sd->g.n; v++)
			sd->mean[k][v] = sd->cnt[k][v] > 0 ?
			    sd->mean[k][v] / sd->cnt[k][v] : NAN;
	return (0);
}

static void
side_release(struct gside *sd)
{
	ggraph_release(&sd->g);
	free(sd->runs);
	free(sd->other);
	free(sd->mean[0]);
	free(sd->mean[1]);
	free(sd->cnt[0]);
	free(sd->cnt[1]);
}


/* --- the tables -------------------------------------------------------- */

/* A cell of a mean in ms, "absent" where nothing was measured (NAN). */
static void
ms_cell(FILE *out, double v)
{
	char	buf[48];

	if (isnan(v)) {
		fputs("<td class=\"muted\">absent</td>", out);
		return;
	}
	compare_fmt_value(v, "ms", buf, sizeof(buf));
	fputs("<td>", out);
	dn_markup_str(out, buf, 0);
	fputs("</td>", out);
}

/* A cell of a distance in ms, "-" where none was measured (NAN). */
static void
dist_cell(FILE *out, double v)
{
	if (isnan(v))
		fputs("<td class=\"muted\">-</td>", out);
	else
		fprintf(out, "<td>%.1f</td>", v);
}

/* One row of a table of nodes: LABEL, the count, their mean hops and
 * their mean lags over the nodes IN[v] selects. */
static void
group_row(FILE *out, const struct gside *sd, const char *label,
    const uint8_t *in, const char *extra)
{
	const struct ggraph	*g = &sd->g;
	double			 hops = 0, ms = 0, sum[2] = { 0, 0 };
	int			 n = 0, cnt[2] = { 0, 0 }, v, k;

	for (v = 0; v < g->n; v++) {
		if (!in[v])
			continue;
		n++;
		hops += g->hops[v];
		ms += g->ms != NULL ? g->ms[v] : NAN;
		for (k = 0; k < 2; k++)
			if (!isnan(sd->mean[k][v])) {
				sum[k] += sd->mean[k][v];
				cnt[k]++;
			}
	}
	if (n == 0)
		return;
	fputs("<tr><td class=\"l\">", out);
	dn_markup_str(out, label, 0);
	fprintf(out, "</td><td>%d</td>%s", n, extra != NULL ? extra : "");
	/* NAN: a node some cannot reach (a graph not connected) */
	if (isnan(hops))
		fputs("<td class=\"muted\">-</td>", out);
	else
		fprintf(out, "<td>%.2f</td>", hops / n);
	dist_cell(out, ms / n);
	for (k = 0; k < 2; k++)
		ms_cell(out, cnt[k] > 0 ? sum[k] / cnt[k] : NAN);
	fputs("</tr>\n", out);
}

static const char lag_heads[] = "<th title=\"mean over the nodes of "
    "each one's mean hops from every proposer\">mean hops</th><th "
    "title=\"mean over the nodes of each one's mean one-way ms from "
    "every proposer along the fastest path\">ms away</th><th "
    "title=\"each node's mean lag_ms after the warmup, mean over the "
    "nodes\">block lag (lag_ms)</th><th title=\"each node's mean "
    "block_prop_ms after the warmup, mean over the nodes\">block "
    "propagation</th></tr>\n";

/* By hops (bins of HOP_BIN), then by zone. */
static void
tables_hops_zones(FILE *out, const struct gside *sd)
{
	const struct ggraph	*g = &sd->g;
	uint8_t			*in = dn_xcalloc((size_t)g->n, 1);
	char			 label[64], extra[48];
	long			 b, lo = 0, hi = -1;
	int			 v, w, z, inside;

	for (v = 0; v < g->n; v++) {
		if (isnan(g->hops[v]))
			continue;
		b = lround(g->hops[v] / HOP_BIN);
		lo = hi < lo ? b : b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	fprintf(out, "<div class=\"tw\"><table class=\"vt hops\"><tr><th "
	    "class=\"l\" title=\"the nodes' mean hops from the proposers, "
	    "to the nearest %g\">hops</th><th>nodes</th>%s", HOP_BIN,
	    lag_heads);
	for (b = lo; b <= hi; b++) {
		for (v = 0; v < g->n; v++)
			in[v] = !isnan(g->hops[v]) &&
			    lround(g->hops[v] / HOP_BIN) == b;
		snprintf(label, sizeof(label), "%.2f", b * HOP_BIN);
		group_row(out, sd, label, in, NULL);
	}
	fputs("</table></div>\n", out);
	if (g->nzones == 0)
		goto out;
	fprintf(out, "<div class=\"tw\"><table class=\"vt zones\"><tr><th "
	    "class=\"l\">zone</th><th>nodes</th><th title=\"edges with both "
	    "ends in the zone\">edges inside</th>%s", lag_heads);
	for (z = -1; z < (int)g->nzones; z++) {
		for (v = 0, inside = 0; v < g->n; v++) {
			in[v] = g->zone[v] == z;
			for (w = v + 1; in[v] && w < g->n; w++)
				inside += g->adj[(size_t)v * g->n + w] &&
				    g->zone[w] == z;
		}
		snprintf(extra, sizeof(extra), "<td>%d</td>", inside);
		group_row(out, sd, z < 0 ? "(none)" : g->zones[z], in,
		    extra);
	}
	fputs("</table></div>\n", out);
out:
	free(in);
}

/* Zones ZA and ZB: the edges between them (inside, when the same) into
 * *EDGES, and the mean hops from a node of ZA to another of ZB (NAN:
 * none reachable). */
static double
zone_pair(const struct ggraph *g, int za, int zb, int *edges)
{
	double	hops = 0;
	int	v, w, d, pairs = 0;

	*edges = 0;
	for (v = 0; v < g->n; v++) {
		for (w = 0; g->zone[v] == za && w < g->n; w++) {
			if (v == w || g->zone[w] != zb)
				continue;
			if (v < w || za != zb)
				*edges += g->adj[(size_t)v * g->n + w];
			if ((d = g->dist[(size_t)v * g->n + w]) >= 0) {
				hops += d;
				pairs++;
			}
		}
	}
	return (pairs > 0 ? hops / pairs : NAN);
}

/* By zone pair: the edges between and the mean hops from a node of one
 * to a node of the other (what a block from the first zone travels). */
static void
table_zone_pairs(FILE *out, const struct ggraph *g)
{
	int	za, zb, edges;
	double	hops;

	if (g->nzones < 2)
		return;
	fputs("<div class=\"tw\"><table class=\"vt zpairs\"><tr><th "
	    "class=\"l\">zones</th><th>edges</th><th title=\"mean BFS "
	    "hops from a node of the first zone to a node of the second, "
	    "itself excluded\">mean hops between</th></tr>\n", out);
	for (za = 0; za < (int)g->nzones; za++)
		for (zb = za; zb < (int)g->nzones; zb++) {
			hops = zone_pair(g, za, zb, &edges);
			fputs("<tr><td class=\"l\">", out);
			dn_markup_str(out, g->zones[za], 0);
			fputs("&ndash;", out);
			dn_markup_str(out, g->zones[zb], 0);
			fprintf(out, "</td><td>%d</td><td>", edges);
			if (isnan(hops))
				fputs("-", out);
			else
				fprintf(out, "%.2f", hops);
			fputs("</td></tr>\n", out);
		}
	fputs("</table></div>\n", out);
}

/* Every node, as data: zone, peers, mean hops, its lags. */
static void
table_nodes(FILE *out, const struct gside *sd)
{
	const struct ggraph	*g = &sd->g;
	int			 v, k;

	fprintf(out, "<details><summary>the %d nodes: zone, peers, hops, "
	    "block lag</summary><div class=\"tw\"><table class=\"vt "
	    "gnodes\"><tr><th>node</th><th class=\"l\">zone</th><th "
	    "class=\"l\">peers</th><th>mean hops</th><th>ms away</th>"
	    "<th>lag_ms</th><th>"
	    "block_prop_ms</th></tr>\n", g->n);
	for (v = 0; v < g->n; v++) {
		fprintf(out, "<tr class=\"gn\"><td>%d</td><td class=\"l\">",
		    v);
		dn_markup_str(out, graph_zone_name(g, v), 0);
		fputs("</td><td class=\"l\">", out);
		graph_peers(out, g, v);
		fprintf(out, "</td><td>%.2f</td>", g->hops[v]);
		dist_cell(out, g->ms != NULL ? g->ms[v] : NAN);
		for (k = 0; k < 2; k++)
			ms_cell(out, sd->mean[k][v]);
		fputs("</tr>\n", out);
	}
	fputs("</table></div></details>\n", out);
}

/* --- the section ------------------------------------------------------- */

static void
runs_line(FILE *out, const char *what, const int64_t *v, size_t n)
{
	size_t	i;

	fputs(what, out);
	for (i = 0; i < n; i++)
		fprintf(out, "%s%lld", i ? ", " : " ", (long long)v[i]);
}

/* One scatter of SD's block lag against X: the line that says what it
 * shows (and its slope), the chart. */
static void
lag_chart(FILE *out, const struct gside *sd, const struct lag_axis *x,
    const char *what, const char *per)
{
	const struct ggraph	*g = &sd->g;
	double			*hx = dn_xcalloc((size_t)g->n, sizeof(double));
	double			*ly = dn_xcalloc((size_t)g->n, sizeof(double));
	double			 slope;
	size_t			 m = 0;
	char			 buf[48];
	int			 v;

	for (v = 0; v < g->n; v++)
		if (!isnan(sd->mean[0][v]) && !isnan(x->x[v])) {
			hx[m] = x->x[v];
			ly[m++] = sd->mean[0][v];
		}
	slope = m > 2 ? dn_stats_slope(hx, ly, m) : NAN;
	fprintf(out, "<p class=\"d\">Block lag against %s: each node's mean "
	    "lag_ms after the warmup (%zu of %d nodes)", what, m, g->n);
	if (isfinite(slope)) {
		snprintf(buf, sizeof(buf), "%.3g", slope);
		fputs("; least-squares slope (dashed) ", out);
		dn_markup_str(out, buf, 0);
		fprintf(out, " ms %s", per);
	}
	fputs(".</p>\n", out);
	graph_svg_lag(out, sd, x, slope);
	free(hx);
	free(ly);
}

/* Side K's part: its graph (unless A's is the same), the scatters and
 * the tables. */
static void
side_write(FILE *out, const struct gside *sd, int k, int same_as_a)
{
	const struct ggraph	*g = &sd->g;
	struct lag_axis		 hops = { g->hops, 1, "mean hops from the "
				    "proposers (each node proposes in turn; "
				    "itself at 0)", "lagscatter" };
	struct lag_axis		 ms = { g->ms, 0, "mean one-way ms from the "
				    "proposers along the fastest path (the "
				    "probe's RTT / 2 on each edge)",
				    "lagdist" };
	int			 v, m = 0;

	fprintf(out, "<div class=\"chart graph\" id=\"graph-%c\"><h3>%c: %d "
	    "nodes, %d peers each</h3><p class=\"d\">", k ? 'b' : 'a',
	    k ? 'B' : 'A', g->n, g->degree);
	runs_line(out, "runs", sd->runs, sd->nruns);
	if (sd->nother > 0)
		runs_line(out, " &middot; not pooled here (another graph, or "
		    "the full mesh): runs", sd->other, sd->nother);
	fputs("</p>\n", out);
	if (same_as_a)
		fputs("<p class=\"d\">The same graph as A (above).</p>\n",
		    out);
	else
		graph_svg(out, sd);
	for (v = 0; v < g->n; v++)
		m += !isnan(sd->mean[0][v]);
	if (m == 0) {
		fputs("<p class=\"warn nolag\">No block lag stored for these "
		    "runs (lag_ms absent): nothing to chart against the hops."
		    "</p>\n", out);
	} else {
		lag_chart(out, sd, &hops, "hops", "per hop");
		if (g->ms != NULL)
			lag_chart(out, sd, &ms, "distance", "per ms away");
		else
			fputs("<p class=\"d nodist\">No distance in ms: the "
			    "run had no emulated network, or its probe did "
			    "not measure every edge of the graph.</p>\n", out);
	}
	tables_hops_zones(out, sd);
	table_zone_pairs(out, g);
	table_nodes(out, sd);
	fputs("</div>\n", out);
}

int
report_graph_write(FILE *out, struct dn_store *s,
    const struct compare_result *r, char **cause)
{
	const struct compare_side	*sides[2] = { &r->a, &r->b };
	struct gside			 sd[2];
	int				 k, rc = -1;

	memset(sd, 0, sizeof(sd));
	for (k = 0; k < 2; k++)
		if (side_load(s, sides[k], &sd[k], cause) != 0)
			goto out;
	rc = 0;
	if (sd[0].g.n == 0 && sd[1].g.n == 0)
		goto out;
	fputs("<h2 id=\"gossip\">Gossip graph</h2>\n<p class=\"sub\">The "
	    "nodes gossip over a peer graph (network.peers): a block "
	    "reaches a node through the hops between it and the block's "
	    "proposer, and proposers rotate over every node. Each node's "
	    "distance is its mean BFS hops from all nodes; its block lag "
	    "the mean of lag_ms after the warmup over the runs with this "
	    "graph (absent: not measured).</p>\n", out);
	for (k = 0; k < 2; k++) {
		if (sd[k].g.n > 0)
			side_write(out, &sd[k], k, k == 1 && sd[0].g.n > 0 &&
			    graph_same(&sd[0].g, &sd[1].g));
		else
			fprintf(out, "<p class=\"sub mesh\"><b>%c</b>: the "
			    "full mesh (every node a peer of every other, "
			    "each block one hop): no graph to draw.</p>\n",
			    k ? 'B' : 'A');
	}
out:
	side_release(&sd[0]);
	side_release(&sd[1]);
	return (rc);
}
