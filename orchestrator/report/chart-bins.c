/*
 * chart-bins.c: the time grid of the charts (report-internal.h): values
 * per bin over runs and nodes, and each bin's p10, median and p90; shared
 * by the A/B page (compare-page.c) and the live page's charts
 * (live-chart.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"

void
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
void
bins_to_band(struct bins *b, struct band *out)
{
	static const double	 qs[3] = { 0.1, 0.5, 0.9 };
	double			 qv[3];
	size_t			 i, n = b->nbins;

	out->t = dn_xcalloc(n, sizeof(double));
	out->lo = dn_xcalloc(n, sizeof(double));
	out->mid = dn_xcalloc(n, sizeof(double));
	out->hi = dn_xcalloc(n, sizeof(double));
	out->have = dn_xcalloc(n, sizeof(int));
	for (i = 0; i < n; i++) {
		out->have[i] = b->n[i] > 0;
		if (out->have[i]) {
			out->t[i] = b->tsum[i] / (double)b->n[i];
			dn_stats_quantiles_inplace(b->v[i], b->n[i], qs, qv, 3);
			out->lo[i] = qv[0];
			out->mid[i] = qv[1];
			out->hi[i] = qv[2];
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

void
chart_free(struct chart_data *cd)
{
	size_t	i;

	band_free(&cd->side[0]);
	band_free(&cd->side[1]);
	for (i = 0; i < cd->nlines; i++)
		band_free(&cd->lines[i]);
	free(cd->lines);
	free(cd->line_side);
	cd->lines = NULL;
	cd->line_side = NULL;
	cd->nlines = 0;
}

/*
 * Add one node's series: gauges as sampled; counters (stored cumulative)
 * as per-second rates between consecutive samples, placed at the middle of
 * the interval they cover (a drop is a restart: rate from 0).
 */
void
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

