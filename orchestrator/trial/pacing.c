/*
 * pacing.c: the load generator's schedule, shared by its kinds
 * (loadgen.c transfers, loadgen-http.c): the target rate and its ramp,
 * each transaction's intended send time, the account (key) pick by the
 * workload's distribution (uniform or zipf), how the generator waits,
 * and the send-lag record.  It calls nothing of the kinds.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trial/loadgen-internal.h"
#include "trial/pacing.h"
#include "rng.h"
#include "buf.h"
#include "xalloc.h"

/*
 * How this trial's generator waits: it sleeps to the send time, or with
 * workload.realtime sleeps to SPIN_NS before it and yields the rest (at
 * SCHED_FIFO only that met send lag p99 < 1 ms under load; docs/
 * benchmarks.md, "Load generator wait").  DN_LOADGEN_WAIT=spin, sleep or
 * alternate (spin on even trials, sleep on odd ones: both side by side
 * in one run) overrides it for the benchmark: a measuring knob, not a
 * setting.
 */
int
pacing_spins(const struct trial *t)
{
	const char	*w = getenv("DN_LOADGEN_WAIT");

	if (w == NULL || *w == '\0')
		return (t->scn->workload.realtime);
	if (strcmp(w, "spin") == 0)
		return (1);
	if (strcmp(w, "alternate") == 0)
		return (t->pt.index % 2 == 0);
	return (0);
}

/* Target rate at S seconds after t=0. */
double
pacing_rate_at(const struct scenario *scn, double s)
{
	double	ramp = (double)scn->workload.ramp_ms / 1000.0;

	if (ramp > 0 && s < ramp)
		return (scn->workload.ramp_from_tps +
		    (scn->workload.tps - scn->workload.ramp_from_tps) * s /
		    ramp);
	return (scn->workload.tps);
}

/*
 * Intended send time of transaction K, in seconds after t=0: the time at
 * which the integral of the target rate reaches K.  With a linear ramp
 * from r0 to r1 over R seconds that integral is r0 s + (r1 - r0) s^2 / 2R,
 * so s solves a quadratic; written as 2K / (r0 + sqrt(r0^2 + 4aK)) it has
 * no cancellation and holds for r0 = 0 (a ramp from 0, where the rate at
 * t=0 is 0 and stepping by 1 / rate would never leave t=0) and for a ramp
 * down.  After the ramp the rate is constant.
 */
double
pacing_intended_s(const struct scenario *scn, uint64_t k)
{
	double	r0 = scn->workload.ramp_from_tps, r1 = scn->workload.tps;
	double	ramp = (double)scn->workload.ramp_ms / 1000.0;
	double	kk = (double)k, in_ramp, a, disc;

	if (k == 0)
		return (0);
	if (ramp <= 0)
		return (kk / r1);
	in_ramp = ramp * (r0 + r1) / 2;
	if (kk >= in_ramp)
		return (ramp + (kk - in_ramp) / r1);
	a = (r1 - r0) / (2 * ramp);
	disc = r0 * r0 + 4 * a * kk;
	return (2 * kk / (r0 + sqrt(disc > 0 ? disc : 0)));
}

double *
pacing_zipf_cdf(uint32_t n, double s)
{
	double	*cdf = dn_xcalloc(n, sizeof(double)), sum = 0;
	size_t	 k;

	for (k = 0; k < n; k++) {
		sum += 1.0 / pow((double)(k + 1), s);
		cdf[k] = sum;
	}
	for (k = 0; k < n; k++)
		cdf[k] /= sum;
	return (cdf);
}

uint32_t
pacing_pick(struct loadgen *l)
{
	double	u;
	size_t	lo = 0, hi;

	if (l->zipf_cdf == NULL)
		return ((uint32_t)(dn_rand64(&l->rng) % l->accounts));
	u = dn_rand01(&l->rng);
	hi = l->accounts - 1;
	while (lo < hi) {
		size_t	mid = (lo + hi) / 2;

		if (l->zipf_cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return ((uint32_t)lo);
}

static size_t
lag_bucket(double us)
{
	double	b;

	if (!(us >= 1.0))
		return (0);
	b = floor(log(us) / log(LAG_GROWTH)) + 1;
	return (b >= LAG_BUCKETS - 1 ? LAG_BUCKETS - 1 : (size_t)b);
}

void
pacing_add_lag(struct loadgen *l, double us)
{
	struct trial_load	*ld = &l->load;

	pthread_mutex_lock(&ld->mu);
	l->lag_hist[lag_bucket(us)]++;
	l->lag_n++;
	if (us > l->lag_max)
		l->lag_max = us;
	ld->lags = dn_xgrow(ld->lags, &ld->caplags, ld->nlags + 1,
	    sizeof(double));
	ld->lags[ld->nlags++] = us;
	pthread_mutex_unlock(&ld->mu);
}

/* Sleep until WAKE (dn_now_ns clock), absolute, CLOCK_MONOTONIC. */
void
pacing_sleep_until(uint64_t wake)
{
	struct timespec	ts = { (time_t)(wake / 1000000000u),
			    (long)(wake % 1000000000u) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}
