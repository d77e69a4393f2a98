/*
 * chart-feed.c: the A/B page's chart data gathered while compare reads
 * the samples (report.h, compare.h's struct compare_feed), so that `devnet
 * report` reads each series once for the verdict and the charts (issue 26:
 * the second read made the report ~2x compare).  One base metric at a
 * time is binned (both sides), then reduced to its bands (600 bins at
 * most), so memory holds one metric's values, not the file's.  A metric
 * compare does not read (one only an assertion reads) is read here on its
 * own.  Not here: the binning and quantiles (chart-bins.c), the page
 * (compare-page.c).
 */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report-internal.h"
#include "verdict/compare.h"
#include "metric-table.h"
#include "store.h"
#include "xalloc.h"

/*
 * Every series goes onto one time grid: bins of the runs' sample interval
 * from t=0 (a multiple of it when a long run would need more than
 * MAX_BINS), so that the samples of all nodes and trials of a side meet in
 * the same bins whatever their phase.
 */
#define MAX_BINS	600	/* the plot is ~990 px wide */

/* One metric's bands, both sides, until the page takes them. */
struct metric_bands {
	int		metric;
	struct band	side[2];
};

struct report_charts {
	struct dn_store		*s;
	struct compare_feed	 feed;
	struct chart_data	 grid;	/* t_span, warmup, bins; no bands */
	int			 gridded;
	int			 metric;	/* being binned, -1 none */
	int			 counter;
	struct bins		 bins[2];
	struct metric_bands	*v;
	size_t			 n;
};

static int
interval_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	int64_t	*ms = arg, v;

	(void)ncols;
	(void)names;
	(void)types;
	/* DN_READ_RUN_TIMING: warmup_ms, sample_interval_ms */
	v = values[1] ? strtoll(values[1], NULL, 10) : 0;
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
feed_begin(void *arg, const struct compare_result *r, char **cause)
{
	struct report_charts		*c = arg;
	struct chart_data		*cd = &c->grid;
	const struct compare_side	*sides[2] = { &r->a, &r->b };
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
			if (dn_store_read(c->s, DN_READ_RUN_TIMING, run->id,
			    interval_row, &iv, cause) != 0)
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
	c->gridded = 1;
	return (0);
}

/* Whether METRIC is a counter (charted as a per-second rate): the
 * metric table's kind, or a named metric's stored kind. */
static int
metric_counter(struct report_charts *c, int metric, int *counter,
    char **cause)
{
	struct dn_metric_info	 info;
	char			*name = NULL;

	if (metric < DN_METRIC_COUNT) {
		*counter = dn_metric_defs[metric].kind == DN_KIND_C;
		return (0);
	}
	if (dn_store_metric_name(c->s, metric, &name, &info, cause) != 0)
		return (-1);
	free(name);
	*counter = info.counter;
	return (0);
}

static int
feed_series(void *arg, int side, int metric, const struct dn_series *ser,
    size_t n, char **cause)
{
	struct report_charts	*c = arg;
	size_t			 i;

	if (c->metric != metric) {
		if (metric_counter(c, metric, &c->counter, cause) != 0)
			return (-1);
		bins_init(&c->bins[0], c->grid.nbins, c->grid.bin_ms);
		bins_init(&c->bins[1], c->grid.nbins, c->grid.bin_ms);
		c->metric = metric;
	}
	for (i = 0; i < n; i++)
		bins_series(&c->bins[side ? 1 : 0], &ser[i], c->counter);
	return (0);
}

static int
feed_done(void *arg, int metric, char **cause)
{
	struct report_charts	*c = arg;
	struct metric_bands	*mb;

	(void)cause;
	if (c->metric != metric)	/* no run on either side */
		return (0);
	c->v = dn_xreallocarray(c->v, c->n + 1, sizeof(*c->v));
	mb = &c->v[c->n++];
	mb->metric = metric;
	bins_to_band(&c->bins[0], &mb->side[0]);
	bins_to_band(&c->bins[1], &mb->side[1]);
	c->metric = -1;
	return (0);
}

struct report_charts *
report_charts_new(struct dn_store *s)
{
	struct report_charts	*c = dn_xcalloc(1, sizeof(*c));

	c->s = s;
	c->metric = -1;
	c->feed.begin = feed_begin;
	c->feed.series = feed_series;
	c->feed.done = feed_done;
	c->feed.arg = c;
	return (c);
}

const struct compare_feed *
report_charts_feed(struct report_charts *c)
{
	return (&c->feed);
}

int
report_charts_grid(const struct report_charts *c, struct chart_data *cd,
    char **cause)
{
	if (!c->gridded) {
		*cause = dn_xasprintf("no chart data: the comparison was not "
		    "read through the report's feed");
		return (-1);
	}
	memset(cd, 0, sizeof(*cd));
	cd->t_span = c->grid.t_span;
	cd->warmup_ms = c->grid.warmup_ms;
	cd->bin_ms = c->grid.bin_ms;
	cd->nbins = c->grid.nbins;
	return (0);
}

int
report_charts_take(struct report_charts *c, int metric, struct chart_data *cd)
{
	size_t	i;

	chart_free(cd);
	for (i = 0; i < c->n; i++) {
		if (c->v[i].metric != metric)
			continue;
		cd->side[0] = c->v[i].side[0];
		cd->side[1] = c->v[i].side[1];
		memset(c->v[i].side, 0, sizeof(c->v[i].side));
		return (0);
	}
	return (-1);
}

int
report_charts_load(struct report_charts *c, const struct compare_result *r,
    int metric, int counter, struct chart_data *cd, char **cause)
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

			rc = dn_store_series(c->s, sides[k]->runs[i].id,
			    metric, 0, &ser, &nser, cause);
			for (j = 0; rc == 0 && j < nser; j++)
				bins_series(&b, &ser[j], counter);
			if (rc == 0)
				dn_series_free(ser, nser);
		}
		bins_to_band(&b, &cd->side[k]);
	}
	return (rc);
}

void
report_charts_free(struct report_charts *c)
{
	struct chart_data	cd;
	size_t			i;

	if (c == NULL)
		return;
	memset(&cd, 0, sizeof(cd));
	for (i = 0; i < c->n; i++) {
		cd.side[0] = c->v[i].side[0];
		cd.side[1] = c->v[i].side[1];
		chart_free(&cd);
	}
	if (c->metric >= 0) {
		/* stopped mid-metric: the open bins */
		bins_to_band(&c->bins[0], &cd.side[0]);
		bins_to_band(&c->bins[1], &cd.side[1]);
		chart_free(&cd);
	}
	free(c->v);
	free(c);
}
