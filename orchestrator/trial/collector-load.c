/*
 * collector-load.c: the load generator's samples (node -1), made by the
 * collector thread once per sample interval from the load's counters
 * (trial->load, read without calling the load generator) and the
 * latencies it measured: counters, the achieved rate, latency and send
 * lag percentiles of the interval just ended, stored like a node's and
 * kept for the live snapshot and the assertions.
 *
 * Not here: the load's schedule (loadgen.c), the nodes' messages
 * (collector.c).
 */
#include <math.h>
#include <stdlib.h>

#include "trial/collector-internal.h"
#include "trial/snapshot.h"
#include "trial/trial.h"
#include "metric-table.h"
#include "xalloc.h"

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

/* Nearest-rank percentile of sorted V. */
static double
pct(const double *v, size_t n, double q)
{
	size_t	k;

	if (n == 0)
		return (0);
	k = (size_t)ceil(q * (double)n);
	if (k == 0)
		k = 1;
	return (v[k - 1]);
}

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
	size_t			 nown = 0, i;

	submitted = atomic_load(&ld->submitted);
	send_errors = atomic_load(&ld->send_errors);
	trial_load_take_lags(ld, &lags, &nlags);
	/* latencies the load generator measured (http answers) */
	trial_load_take_lat(ld, &own, &nown);
	for (i = 0; i < nown; i++) {
		if (c->nlat == c->caplat) {
			c->caplat = c->caplat ? c->caplat * 2 : 1024;
			c->lat = dn_xreallocarray(c->lat, c->caplat,
			    sizeof(double));
		}
		c->lat[c->nlat++] = own[i];
	}
	free(own);
	pthread_mutex_lock(&t->mu);
	inc = t->tx_included;
	fail = t->tx_failed;
	pthread_mutex_unlock(&t->mu);
	rate = (double)(submitted - c->prev_submitted) / interval_s;
	c->prev_submitted = submitted;
	if (c->nlat > 0)
		qsort(c->lat, c->nlat, sizeof(double), cmp_double);
	if (nlags > 0)
		qsort(lags, nlags, sizeof(double), cmp_double);

	pthread_mutex_lock(&c->wmu);
	collector_put(c, -1, DN_M_TX_SUBMITTED, t_ms, (double)submitted);
	collector_put(c, -1, DN_M_TX_INCLUDED, t_ms, (double)inc);
	collector_put(c, -1, DN_M_TX_FAILED, t_ms, (double)fail);
	collector_put(c, -1, DN_M_TX_SEND_ERRORS, t_ms, (double)send_errors);
	collector_put(c, -1, DN_M_ACHIEVED_TPS, t_ms, rate);
	if (c->nlat > 0) {
		collector_put(c, -1, DN_M_TX_LATENCY_P50_MS, t_ms,
		    pct(c->lat, c->nlat, 0.50));
		collector_put(c, -1, DN_M_TX_LATENCY_P99_MS, t_ms,
		    pct(c->lat, c->nlat, 0.99));
		collector_put(c, -1, DN_M_TX_LATENCY_MAX_MS, t_ms, c->lat[c->nlat - 1]);
	}
	if (nlags > 0)
		collector_put(c, -1, DN_M_SEND_LAG_P99_US, t_ms, pct(lags, nlags, 0.99));
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
		t->load_last[DN_M_TX_LATENCY_P50_MS] = pct(c->lat, c->nlat,
		    0.50);
		t->load_last[DN_M_TX_LATENCY_P99_MS] = pct(c->lat, c->nlat,
		    0.99);
		t->load_last[DN_M_TX_LATENCY_MAX_MS] = c->lat[c->nlat - 1];
		t->load_have |= (uint64_t)1 << DN_M_TX_LATENCY_P50_MS |
		    (uint64_t)1 << DN_M_TX_LATENCY_P99_MS |
		    (uint64_t)1 << DN_M_TX_LATENCY_MAX_MS;
	}
	if (nlags > 0) {
		t->load_last[DN_M_SEND_LAG_P99_US] = pct(lags, nlags, 0.99);
		t->load_have |= (uint64_t)1 << DN_M_SEND_LAG_P99_US;
	}
	t->load_samples++;
	t->load_tm = t_ms;
	pthread_mutex_unlock(&t->mu);
	c->nlat = 0;
	free(lags);
}
