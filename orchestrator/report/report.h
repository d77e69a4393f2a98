/*
 * report.h: the pages a person reads, each one self-contained HTML file
 * (inline CSS and SVG, nothing fetched, no script), and their one style
 * sheet.
 */
#ifndef DN_REPORT_H
#define DN_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct compare_feed;
struct compare_result;
struct dn_store;

/*
 * The charts' data of an A/B page, gathered from compare's own read of
 * the samples (chart-feed.c): make one for store S, set
 * compare_opts.feed to report_charts_feed() for compare_analyze, then
 * hand it to report_compare_write.  report_charts_free accepts NULL and a
 * feed stopped half-way.
 */
struct report_charts;
struct report_charts	*report_charts_new(struct dn_store *s);
const struct compare_feed *report_charts_feed(struct report_charts *c);
void	 report_charts_free(struct report_charts *c);

/*
 * The A/B page of R (analysed by compare_analyze on S, the database DB,
 * with CHARTS's feed) on OUT: verdict table and one chart per metric.
 * Takes the charts' bands out of CHARTS.  0, or -1 with *CAUSE (the
 * caller frees it).
 */
int	 report_compare_write(struct dn_store *s,
	    const struct compare_result *r, struct report_charts *charts,
	    const char *db, FILE *out, char **cause);

/*
 * One chart of the live page (live-chart.c, `--serve`): series of one
 * metric, each on side 0 (A) or 1 (B), as the A/B page draws them
 * (median and p10-p90 band per side over nodes and trials), those marked
 * LINE also as a thin line of their own; the events marked.  Inline SVG
 * on OUT.
 */
struct report_live_series {
	const int64_t	*t_ms;
	const double	*v;
	size_t		 n;
	int		 side;
	int		 line;
};
struct report_live_event {
	int64_t		 t_ms;
	int		 side;
	int		 unplanned;
	const char	*text;
	const char	*kind;	/* stop, cont, partition, heal, ... */
	int		 node;	/* -1: the network's */
};
struct report_live_chart {
	const char			*unit;
	int				 counter;
	int64_t				 t_span, warmup_ms, interval_ms;
	const struct report_live_series	*s;
	size_t				 ns;
	const struct report_live_event	*ev;
	size_t				 nev;
	const char			*note;	/* on the plot; NULL none */
};
void	 report_live_chart_write(FILE *out, const struct report_live_chart *c);

/* The style sheet every page shares; each page adds its own rules after
 * it (report_css_compare, report_css_history). */
extern const char report_css[];
extern const char report_css_compare[];
extern const char report_css_history[];
extern const char report_css_live[];

#endif
