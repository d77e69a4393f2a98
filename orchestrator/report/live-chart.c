/*
 * live-chart.c: one chart of the live page (report.h,
 * report_live_chart_write): the series the server copied out of the
 * run's snapshot, put on the A/B page's time grid (chart-bins.c) and
 * drawn by the A/B page's chart (chart-svg.c), so that the live page and
 * `devnet report` look the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/report-internal.h"
#include "store.h"
#include "xalloc.h"

/* Bins in a live chart: fewer than the report's, it is redrawn often. */
#define LIVE_BINS	240

void
report_live_chart_write(FILE *out, const struct report_live_chart *c)
{
	struct chart_data	 cd;
	struct event_list	 ev = { 0 };
	struct bins		 b[2];
	int64_t			 iv = c->interval_ms > 0 ? c->interval_ms : 1000;
	int64_t			 k;
	size_t			 i, nl = 0;

	memset(&cd, 0, sizeof(cd));
	cd.t_span = (c->t_span > 0 ? c->t_span : 10 * iv) + iv;
	cd.warmup_ms = c->warmup_ms;
	k = (cd.t_span / iv + LIVE_BINS - 1) / LIVE_BINS;
	cd.bin_ms = iv * (k > 1 ? k : 1);
	cd.nbins = (size_t)((cd.t_span + cd.bin_ms - 1) / cd.bin_ms);
	for (i = 0; i < c->ns; i++)
		nl += c->s[i].line != 0;
	cd.lines = dn_xcalloc(nl + 1, sizeof(*cd.lines));
	cd.line_side = dn_xcalloc(nl + 1, sizeof(*cd.line_side));
	bins_init(&b[0], cd.nbins, cd.bin_ms);
	bins_init(&b[1], cd.nbins, cd.bin_ms);
	for (i = 0; i < c->ns; i++) {
		const struct report_live_series	*s = &c->s[i];
		struct dn_series		 ds = { .n = s->n,
		    .t_ms = (int64_t *)s->t_ms, .v = (double *)s->v };

		bins_series(&b[s->side ? 1 : 0], &ds, c->counter);
		if (s->line) {
			struct bins	lb;

			bins_init(&lb, cd.nbins, cd.bin_ms);
			bins_series(&lb, &ds, c->counter);
			bins_to_band(&lb, &cd.lines[cd.nlines]);
			cd.line_side[cd.nlines++] = s->side ? 1 : 0;
		}
	}
	bins_to_band(&b[0], &cd.side[0]);
	bins_to_band(&b[1], &cd.side[1]);
	ev.v = dn_xcalloc(c->nev + 1, sizeof(*ev.v));
	for (i = 0; i < c->nev; i++) {
		ev.v[i].t_ms = c->ev[i].t_ms;
		ev.v[i].side = c->ev[i].side;
		ev.v[i].unplanned = c->ev[i].unplanned;
		ev.v[i].text = (char *)c->ev[i].text;
		snprintf(ev.v[i].kind, sizeof(ev.v[i].kind), "%s",
		    c->ev[i].kind != NULL ? c->ev[i].kind : "");
		ev.v[i].node = c->ev[i].node;
	}
	ev.n = c->nev;
	cd.note = c->note;
	report_svg_chart(out, &cd, c->unit, &ev);
	free(ev.v);
	chart_free(&cd);
}
