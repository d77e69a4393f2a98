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

/* --- chart-svg.c -------------------------------------------------------- */

/* One chart of CD (its y axis in UNIT) with the events EV marked, as an
 * inline <svg> on OUT. */
void	 report_svg_chart(FILE *out, const struct chart_data *cd,
	    const char *unit, const struct event_list *ev);

#endif
