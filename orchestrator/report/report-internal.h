/*
 * report-internal.h: what the files of the A/B report page share
 * (compare-page.c gathers the data and writes the page, chart-svg.c draws
 * one chart): the time grid's bands, the events, the chart geometry.
 */
#ifndef DN_REPORT_INTERNAL_H
#define DN_REPORT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CHART_W		1080
#define CHART_H		250
#define PAD_L		104	/* room for "650 switches/s" */
#define PAD_R		16
#define PAD_T		18
#define PAD_B		34


/* A side's line breaks only where more than GAP_BINS bins in a row have
 * no data at all. */
#define GAP_BINS	2

#define COLOR_A	"#2563eb"
#define COLOR_B	"#ea580c"
#define COLOR_MARK	"#7c3aed"	/* assertions: threshold, window */
#define COLOR_VIOL	"#dc2626"	/* an assertion's first violation */

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
	/* what opens or closes a shaded window (chart-svg.c): the event's
	 * kind ("stop", "cont", "partition", "heal", ...), its node (-1:
	 * the network's) and run */
	char	 kind[24];
	int	 node;
	int64_t	 run;
};

/* One stored assertion result of one run (table assertions), as the
 * page marks it on the chart of its metric (assert-marks.c). */
struct mark {
	int64_t		 run;
	int		 side;
	char		*name, *form, *status, *metric, *op, *unit, *scope;
	char		*message;
	double		 threshold, observed;	/* NAN: none */
	int64_t		 t_ms;			/* the violation; -1 none */
	int64_t		 from_ms, to_ms;	/* its window; -1 none */
	int		 node;			/* INT_MIN none, -1 load */
	/* set by marks_pick: the chart it is on (NULL: none yet), and
	 * whether its limit and value are in that chart's unit (not a
	 * spread's, not a counter's total on a chart of its rate) */
	const char	*chart;
	int		 on_axis;
};

struct mark_list {
	struct mark	*v;
	size_t		 n;
};

struct chart_data {
	int64_t		 t_span;	/* x axis: 0 .. t_span ms */
	int64_t		 warmup_ms;
	int64_t		 bin_ms;
	size_t		 nbins;
	struct band	 side[2];
	/* Thin lines over the bands (the live page: one per node of the
	 * trial running), LINE_SIDE[i] their colour; only mid is drawn. */
	struct band	*lines;
	int		*line_side;
	size_t		 nlines;
	/* The assertions drawn on this chart (the report page; not owned) */
	struct mark	**marks;
	size_t		 nmarks;
	/* Words on the plot (not owned; NULL none): what was not measured
	 * (the live page), in the middle of a chart with no data, else at
	 * its top right. */
	const char	*note;
};

struct event_list {
	struct event	*v;
	size_t		 n;
	int		 side;
	int64_t		 run;
};

/* Values per bin for one side, gathered over runs and nodes. */
struct bins {
	size_t	  nbins;
	int64_t	  bin_ms;
	double	**v;
	double	 *tsum;
	size_t	 *n, *cap;
};

struct dn_series;

/* --- chart-bins.c ------------------------------------------------------ */

void	 bins_init(struct bins *b, size_t nbins, int64_t bin_ms);
/* Quantiles per bin into OUT; frees B. */
void	 bins_to_band(struct bins *b, struct band *out);
/* Both sides' bands and the lines of CD. */
void	 chart_free(struct chart_data *cd);
/* One node's series: gauges as sampled, counters as per-second rates
 * between samples (a drop is a restart). */
void	 bins_series(struct bins *b, const struct dn_series *s, int counter);

/* --- assert-marks.c ---------------------------------------------------- */

struct compare_result;
struct dn_store;

/* The stored assertions of every run of both sides of R into L (rows of
 * `relative` ones are the verdict's, not a chart's).  0, or -1 with
 * *CAUSE. */
int	 marks_load(struct dn_store *s, const struct compare_result *r,
	    struct mark_list *l, char **cause);
void	 marks_free(struct mark_list *l);
/* The marks of L not yet on a chart whose metric is NAME, drawn in UNIT,
 * into *OUT (an array the caller frees; NULL when none): each gets
 * ->chart and ->on_axis.  Returns how many. */
size_t	 marks_pick(struct mark_list *l, const struct compare_result *r,
	    const char *name, const char *unit, struct mark ***out);
/* The sampled metric the first mark of L without a chart reads (a
 * metric name, in BUF), or NULL when every mark has one. */
const char *marks_unplaced(const struct mark_list *l,
	    const struct compare_result *r, char *buf, size_t cap);
/* Under a chart: one line per assertion of V[0..N-1], what it claims,
 * where, how it came out per side, and why a mark is not drawn. */
void	 marks_caption(FILE *out, struct mark **v, size_t n,
	    const char *unit);
/* The page's list of every assertion of every run, linked to its chart
 * (#m-NAME) or saying it has none. */
void	 marks_table(FILE *out, const struct mark_list *l);

/* --- chart-feed.c ------------------------------------------------------ */

struct report_charts;
/* CD empty on the charts' time grid (span, warmup, bins); -1 with *CAUSE
 * when compare did not read through C's feed. */
int	 report_charts_grid(const struct report_charts *c,
	    struct chart_data *cd, char **cause);
/* METRIC's bands of both sides into CD (its old ones freed), moved out
 * of C; -1 when C has none for METRIC. */
int	 report_charts_take(struct report_charts *c, int metric,
	    struct chart_data *cd);
/* A metric compare did not read (one only an assertion reads): read
 * every run of both sides of R into CD's bands (COUNTER: as rates).
 * 0, or -1 with *CAUSE. */
int	 report_charts_load(struct report_charts *c,
	    const struct compare_result *r, int metric, int counter,
	    struct chart_data *cd, char **cause);

/* --- chart-svg.c -------------------------------------------------------- */

/* One chart of CD (its y axis in UNIT) with the events EV marked, as an
 * inline <svg> on OUT. */
void	 report_svg_chart(FILE *out, const struct chart_data *cd,
	    const char *unit, const struct event_list *ev);
/* A round step (1, 2 or 5 times a power of 10) that cuts RANGE into
 * about five ticks. */
double	 chart_nice_step(double range);

/* --- gossip-graph.c, graph-svg.c ---------------------------------------- */

/* The gossip graph of a run (network.peers, issue 40), from its facts. */
struct ggraph {
	int	  n, degree;	/* nodes; peers each (gossip_peers) */
	uint8_t	 *adj;		/* n x n */
	int	 *zone;		/* [n]: index into zones, -1 none */
	char	**zones;	/* the zones' names, sorted */
	size_t	  nzones;
	int	 *dist;		/* n x n BFS hops, -1 unreachable */
	double	 *hops;		/* [n]: mean hops from every node (NAN:
				   some cannot reach it) */
	double	 *ms;		/* [n]: mean one-way ms from every node
				   along the fastest path, by the probe's
				   RTTs (NULL: not every edge measured) */
	size_t	  nedges;
	int	  connected;
};

/* One side: the graph of its first run that has one, and each node's
 * mean over the side's runs with that same graph of its lag_ms (MEAN[0])
 * and block_prop_ms (MEAN[1]) after the warmup, NAN where none measured
 * it. */
struct gside {
	struct ggraph	 g;
	int64_t		*runs;		/* pooled */
	size_t		 nruns;
	int64_t		*other;		/* another graph or none */
	size_t		 nother;
	double		*mean[2];
	int		*cnt[2];
};

/* Node V's zone's name, "(none)" when it is in none (static). */
const char *graph_zone_name(const struct ggraph *g, int v);
/* Node V's peers on OUT, "3,7,9". */
void	 graph_peers(FILE *out, const struct ggraph *g, int v);
/* SD's graph on OUT as inline SVG: nodes on a circle by zone, every edge,
 * the zones' legend (graph-svg.c). */
void	 graph_svg(FILE *out, const struct gside *sd);
/* The x of a lag scatter: X[v] per node (NAN: none), HOPS 1 for hops
 * (quarter ticks, the points' data-hops), 0 for ms (data-ms-away); the
 * axis's LABEL, the svg's class CLS. */
struct lag_axis {
	const double	*x;
	int		 hops;
	const char	*label, *cls;
};
/* SD's nodes' block lag against X, in their zones' colours, with the
 * least-squares line of SLOPE (ms per unit of X; NAN none). */
void	 graph_svg_lag(FILE *out, const struct gside *sd,
	    const struct lag_axis *x, double slope);

/* The section of the sides of R whose nodes gossip over a peer graph
 * (network.peers, issue 40): the graph drawn, block lag against hops
 * charted and tabled; nothing when no run of R has a graph.  0, or -1
 * with *CAUSE. */
int	 report_graph_write(FILE *out, struct dn_store *s,
	    const struct compare_result *r, char **cause);

#endif
