/*
 * collector-load.c: the load generator's samples (node -1), made by the
 * collector thread once per sample interval from the load's counters
 * (trial->load, read without calling the load generator) and the
 * latencies it measured: counters, the achieved rate, latency and send
 * lag percentiles of the interval just ended, stored like a node's and
 * kept for the live snapshot and the assertions.  A command load's come
 * from its DN-LOAD lines (loadgen-cmd.c): none before the first.
 *
 * Not here: the load's schedule (loadgen.c), the nodes' messages
 * (collector.c).
 */
#include <stdlib.h>

#include "trial/collector-internal.h"
#include "trial/snapshot.h"
#include "trial/trial.h"
#include "metric-table.h"
#include "stats.h"
#include "buf.h"
#include "xalloc.h"

/* Quantiles of the load's figures, as compare and the report take them
 * (dn_stats_quantile, type 7), so a p99 devnet stores per interval is
 * the p99 every other figure of devnet means; quantile 1 is the max. */
static const double lat_q[3] = { 0.50, 0.99, 1.0 };
static const double lag_q[1] = { 0.99 };

/* The load generator's sample just queued (the last rows of c->pend, at
 * T_MS; wmu held) into the live snapshot. */
static void
loadgen_snapshot(struct collector *c, int64_t t_ms)
{
	double		 v[DN_METRIC_COUNT] = { 0 };
	uint64_t	 present = 0;
	size_t		 i;

	for (i = c->npend; i > 0 && c->pend[i - 1].node == -1 &&
	    c->pend[i - 1].t_ms == t_ms; i--) {
		if (c->pend[i - 1].metric >= DN_METRIC_COUNT)
			continue;
		v[c->pend[i - 1].metric] = c->pend[i - 1].value;
		present |= (uint64_t)1 << c->pend[i - 1].metric;
	}
	snapshot_sample(c->t, -1, t_ms, v, present);
}

void
collector_load_sample(struct collector *c, int64_t t_ms)
{
	struct trial		*t = c->t;
	struct trial_load	*ld = t->load;
	double			*lags = NULL, rate;
	size_t			 nlags = 0;
	int64_t			 inc, fail, submitted, send_errors;
	double			 interval_s = (double)t->scn->sample_interval_ms /
				    1000.0;
	double			*own = NULL;
	double			 lat[3], lag99;
	size_t			 nown = 0, i;

	/* a command that reported nothing yet: no rows, not zeros */
	if (ld->by_lines && !atomic_load(&ld->heard))
		return;
	submitted = atomic_load(&ld->submitted);
	send_errors = atomic_load(&ld->send_errors);
	trial_load_take_lags(ld, &lags, &nlags);
	/* latencies the load generator measured (http answers) */
	trial_load_take_lat(ld, &own, &nown);
	for (i = 0; i < nown; i++) {
		c->lat = dn_xgrow(c->lat, &c->caplat, c->nlat + 1,
		    sizeof(double));
		c->lat[c->nlat++] = own[i];
	}
	free(own);
	pthread_mutex_lock(&t->mu);
	inc = t->tx_included;
	fail = t->tx_failed;
	pthread_mutex_unlock(&t->mu);
	rate = (double)(submitted - c->prev_submitted) / interval_s;
	c->prev_submitted = submitted;
	/* both arrays are this interval's own, reordered freely */
	dn_stats_quantiles_inplace(c->lat, c->nlat, lat_q, lat, 3);
	dn_stats_quantiles_inplace(lags, nlags, lag_q, &lag99, 1);

	pthread_mutex_lock(&c->wmu);
	collector_put(c, -1, DN_M_TX_SUBMITTED, t_ms, (double)submitted);
	collector_put(c, -1, DN_M_TX_INCLUDED, t_ms, (double)inc);
	collector_put(c, -1, DN_M_TX_FAILED, t_ms, (double)fail);
	collector_put(c, -1, DN_M_TX_SEND_ERRORS, t_ms, (double)send_errors);
	collector_put(c, -1, DN_M_ACHIEVED_TPS, t_ms, rate);
	if (c->nlat > 0) {
		collector_put(c, -1, DN_M_TX_LATENCY_P50_MS, t_ms, lat[0]);
		collector_put(c, -1, DN_M_TX_LATENCY_P99_MS, t_ms, lat[1]);
		collector_put(c, -1, DN_M_TX_LATENCY_MAX_MS, t_ms, lat[2]);
	}
	if (nlags > 0)
		collector_put(c, -1, DN_M_SEND_LAG_P99_US, t_ms, lag99);
	if (t->snap != NULL)
		loadgen_snapshot(c, t_ms);
	collector_queue_end(c);
	/* The same values for the assertions' live view (assert/). */
	pthread_mutex_lock(&t->mu);
	t->load_last[DN_M_TX_SUBMITTED] = (double)submitted;
	t->load_last[DN_M_TX_INCLUDED] = (double)inc;
	t->load_last[DN_M_TX_FAILED] = (double)fail;
	t->load_last[DN_M_TX_SEND_ERRORS] = (double)send_errors;
	t->load_last[DN_M_ACHIEVED_TPS] = rate;
	t->load_have |= (uint64_t)1 << DN_M_TX_SUBMITTED |
	    (uint64_t)1 << DN_M_TX_INCLUDED | (uint64_t)1 << DN_M_TX_FAILED |
	    (uint64_t)1 << DN_M_TX_SEND_ERRORS |
	    (uint64_t)1 << DN_M_ACHIEVED_TPS;
	if (c->nlat > 0) {
		t->load_last[DN_M_TX_LATENCY_P50_MS] = lat[0];
		t->load_last[DN_M_TX_LATENCY_P99_MS] = lat[1];
		t->load_last[DN_M_TX_LATENCY_MAX_MS] = lat[2];
		t->load_have |= (uint64_t)1 << DN_M_TX_LATENCY_P50_MS |
		    (uint64_t)1 << DN_M_TX_LATENCY_P99_MS |
		    (uint64_t)1 << DN_M_TX_LATENCY_MAX_MS;
	}
	if (nlags > 0) {
		t->load_last[DN_M_SEND_LAG_P99_US] = lag99;
		t->load_have |= (uint64_t)1 << DN_M_SEND_LAG_P99_US;
	}
	t->load_samples++;
	t->load_tm = t_ms;
	pthread_mutex_unlock(&t->mu);
	c->nlat = 0;
	free(lags);
}
