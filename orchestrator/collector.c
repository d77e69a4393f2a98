/*
 * collector.c: the trial's collector thread.  Pulls HELLO, SAMPLE and
 * INCLUDED messages from the trial's nodes, checks each (size, magic,
 * version, token, node index, payload), counts what it rejects and the
 * samples it never got (sequence gaps), and writes samples to the store in
 * batches.  It also turns load generator counters (trial->load, which it
 * reads without calling the load generator) and inclusion latencies into
 * load generator samples (node -1) once per sample interval.
 *
 * Not here: spawning, events, the schedule of the load (runner.c,
 * loadgen.c); the trial's clock and events (trial.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector.h"
#include "store.h"
#include "transport.h"
#include "trial.h"
#include "clock.h"
#include "xalloc.h"

#define COMMIT_MS	250
/* The store's own batch: fewer, larger commits rewrite fewer leaf pages
 * (store.h, docs/benchmarks.md "Collector ingest"). */
#define COMMIT_ROWS	DN_STORE_BATCH_ROWS
/* Messages taken without waiting once one has arrived: one wake-up per
 * burst instead of per message. */
#define RECV_BATCH	256

struct row {
	int32_t		node;
	int32_t		metric;
	int64_t		t_ms;
	double		value;
};

struct collector {
	struct trial	*t;
	struct dn_sock	*sock;
	pthread_t	 thread;
	atomic_int	 stop;
	int		 drain_ms;
	/* Rows decoded by the receiving thread, waiting for the writer
	 * thread (under wmu): receiving and sqlite run on two cores. */
	pthread_t	 writer;
	pthread_mutex_t	 wmu;
	pthread_cond_t	 wcv;
	struct row	*pend;
	size_t		 npend, cappend;
	int		 wstop;
	int64_t		 next_lg_ms;	/* next load generator sample */
	int64_t		 prev_submitted; /* at the previous one */

	/* inclusion bookkeeping */
	uint8_t		*seen;		/* bitmap of tx ids with an outcome */
	size_t		 seen_bytes;
	double		*lat;		/* ms, this interval */
	size_t		 nlat, caplat;
};

/* Queue one value for the writer thread; wmu held. */
static void
put(struct collector *c, int node, int metric, int64_t t_ms, double v)
{
	if (c->npend == c->cappend) {
		c->cappend = c->cappend ? c->cappend * 2 : 4096;
		c->pend = dn_xreallocarray(c->pend, c->cappend,
		    sizeof(*c->pend));
	}
	c->pend[c->npend++] = (struct row){ node, metric, t_ms, v };
}

static void
queue_end(struct collector *c)
{
	pthread_cond_signal(&c->wcv);
	pthread_mutex_unlock(&c->wmu);
}

static void
reject(struct collector *c, int reason, uint32_t node)
{
	struct trial	*t = c->t;
	int		 first;

	if (reason < 0)
		reason = -reason;
	if (reason >= DN_REJ_COUNT)
		reason = DN_REJ_PAYLOAD;
	pthread_mutex_lock(&t->mu);
	t->rejected++;
	first = t->rejected_by[reason]++ == 0;
	pthread_mutex_unlock(&t->mu);
	/* One event per reason; the totals go into run_facts at the end. */
	if (first)
		trial_event(t, node < (uint32_t)t->nnodes ? (int)node : -1,
		    "rejected", "%s (further ones counted, not logged)",
		    dn_reject_name(reason));
}

static void
on_hello(struct collector *c, const struct dn_hdr *h)
{
	struct trial		*t = c->t;
	struct trial_node	*n = &t->nodes[h->node];

	pthread_mutex_lock(&t->mu);
	n->hello++;
	n->have_seq = 0;	/* a new process counts from its own start */
	n->last_msg_ns = dn_now_ns();
	pthread_mutex_unlock(&t->mu);
}

static void
on_sample(struct collector *c, const struct dn_hdr *h,
    const struct dn_sample *s)
{
	struct trial		*t = c->t;
	struct trial_node	*n = &t->nodes[h->node];
	int64_t			 tm = trial_t_ms(t, h->t_ns), gap = 0;
	int			 i, count;

	count = s->count < DN_METRIC_COUNT ? s->count : DN_METRIC_COUNT;
	pthread_mutex_lock(&t->mu);
	if (n->have_seq && h->seq > n->next_seq) {
		gap = (int64_t)(h->seq - n->next_seq);
		n->lost += gap;
	}
	n->have_seq = 1;
	n->next_seq = h->seq + 1;
	n->last_msg_ns = dn_now_ns();
	if (s->flags & DN_SAMPLE_FINAL)
		n->final_seen = 1;
	memcpy(n->last, s->values, (size_t)count * sizeof(double));
	if (tm != INT64_MIN && tm >= t->scn->warmup_ms) {
		double	rss = s->values[DN_M_RSS_BYTES];
		double	lag = s->values[DN_M_LAG_BLOCKS];

		if (!n->have_first) {
			memcpy(n->first, s->values,
			    (size_t)count * sizeof(double));
			n->first_t = tm;
			n->have_first = 1;
		}
		n->last_t = tm;
		n->rss_sum += rss;
		n->rss_n++;
		if (rss > n->rss_max)
			n->rss_max = rss;
		if (lag > n->lag_max)
			n->lag_max = lag;
	}
	pthread_mutex_unlock(&t->mu);
	if (gap > 0)
		trial_event(t, (int)h->node, "lost_samples",
		    "%lld sample(s) missing before sequence %llu",
		    (long long)gap, (unsigned long long)h->seq);
	if (tm == INT64_MIN)
		return;	/* before t=0: not part of the trial */

	pthread_mutex_lock(&c->wmu);
	for (i = 0; i < count; i++) {
		if (dn_metric_defs[i].source == DN_SOURCE_N)
			put(c, (int)h->node, i, tm, s->values[i]);
	}
	queue_end(c);
	pthread_mutex_lock(&t->mu);
	t->samples_stored += count;
	pthread_mutex_unlock(&t->mu);
}

/* 1 if ID had no outcome before (and marks it), 0 if it had. */
static int
mark_seen(struct collector *c, uint64_t id)
{
	size_t	byte = (size_t)(id / 8);

	if (id > (uint64_t)1 << 40)
		return (1); /* not one of ours; cannot track */
	if (byte >= c->seen_bytes) {
		size_t	nb = c->seen_bytes ? c->seen_bytes : 4096;

		while (nb <= byte)
			nb *= 2;
		c->seen = dn_xrealloc(c->seen, nb);
		memset(c->seen + c->seen_bytes, 0, nb - c->seen_bytes);
		c->seen_bytes = nb;
	}
	if (c->seen[byte] & (1u << (id % 8)))
		return (0);
	c->seen[byte] |= (uint8_t)(1u << (id % 8));
	return (1);
}

static void
on_included(struct collector *c, const uint8_t *p, size_t len,
    uint32_t node)
{
	struct trial	*t = c->t;
	const uint8_t	*e;
	uint64_t	 height, proposed_ns;
	uint32_t	 count, i;
	int64_t		 ok = 0, bad = 0, dup = 0;

	if (dn_included_check(p, len, &height, &proposed_ns, &count, &e) !=
	    0) {
		reject(c, -DN_REJ_PAYLOAD, node);
		return;
	}
	for (i = 0; i < count; i++, e += DN_INCL_ENTRY) {
		uint64_t	id = dn_get_u64(e);
		uint64_t	intended = dn_get_u64(e + 8);
		uint32_t	status = dn_get_u32(e + 16);

		if (!mark_seen(c, id)) {
			dup++;
			continue;
		}
		if (status == DN_TX_OK)
			ok++;
		else
			bad++;
		if (proposed_ns >= intended && intended != 0) {
			if (c->nlat == c->caplat) {
				c->caplat = c->caplat ? c->caplat * 2 : 1024;
				c->lat = dn_xreallocarray(c->lat, c->caplat,
				    sizeof(double));
			}
			c->lat[c->nlat++] = (double)(proposed_ns - intended) /
			    1e6;
		}
	}
	pthread_mutex_lock(&t->mu);
	t->tx_included += ok;
	t->tx_failed += bad;
	t->tx_duplicates += dup;
	pthread_mutex_unlock(&t->mu);
	if (dup > 0)
		trial_event(t, (int)node, "duplicate_inclusion",
		    "block %llu holds %lld transaction(s) already included",
		    (unsigned long long)height, (long long)dup);
}

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

/* One load generator sample at T_MS: counters, rate, latency and send lag
 * percentiles of the interval just ended. */
static void
loadgen_sample(struct collector *c, int64_t t_ms)
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
	put(c, -1, DN_M_TX_SUBMITTED, t_ms, (double)submitted);
	put(c, -1, DN_M_TX_INCLUDED, t_ms, (double)inc);
	put(c, -1, DN_M_TX_FAILED, t_ms, (double)fail);
	put(c, -1, DN_M_TX_SEND_ERRORS, t_ms, (double)send_errors);
	put(c, -1, DN_M_ACHIEVED_TPS, t_ms, rate);
	if (c->nlat > 0) {
		put(c, -1, DN_M_TX_LATENCY_P50_MS, t_ms,
		    pct(c->lat, c->nlat, 0.50));
		put(c, -1, DN_M_TX_LATENCY_P99_MS, t_ms,
		    pct(c->lat, c->nlat, 0.99));
		put(c, -1, DN_M_TX_LATENCY_MAX_MS, t_ms, c->lat[c->nlat - 1]);
	}
	if (nlags > 0)
		put(c, -1, DN_M_SEND_LAG_P99_US, t_ms, pct(lags, nlags, 0.99));
	queue_end(c);
	c->nlat = 0;
	free(lags);
}

/*
 * The writer thread: takes the queued rows in one swap, hands them to the
 * store and commits every COMMIT_MS or COMMIT_ROWS rows.  Once told to
 * stop, it drains the queue, commits and returns.
 */
static void *
writer_main(void *arg)
{
	struct collector	*c = arg;
	struct trial		*t = c->t;
	struct row		*rows = NULL, *tmp;
	size_t			 n, cap = 0, i, pending = 0;
	uint64_t		 last_commit = dn_now_ns();
	char			*cause = NULL;
	int			 stop;

	for (;;) {
		struct timespec	deadline;

		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_nsec += 50 * 1000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&c->wmu);
		if (c->npend == 0 && !c->wstop)
			pthread_cond_timedwait(&c->wcv, &c->wmu, &deadline);
		tmp = rows;
		rows = c->pend;
		n = c->npend;
		c->pend = tmp;
		c->npend = 0;
		i = cap;
		cap = c->cappend;
		c->cappend = i;
		stop = c->wstop;
		pthread_mutex_unlock(&c->wmu);

		if (n > 0) {
			pthread_mutex_lock(t->store_mu);
			for (i = 0; i < n; i++) {
				if (dn_store_sample(t->store, t->run_id,
				    rows[i].node, rows[i].metric, rows[i].t_ms,
				    rows[i].value, &cause) != 0) {
					trial_store_error(t, cause);
					cause = NULL;
					break;
				}
			}
			pthread_mutex_unlock(t->store_mu);
			pending += n;
		}
		if (pending >= COMMIT_ROWS || stop || (pending > 0 &&
		    dn_now_ns() - last_commit >= COMMIT_MS * 1000000ull)) {
			pthread_mutex_lock(t->store_mu);
			if (dn_store_commit(t->store, &cause) != 0) {
				trial_store_error(t, cause);
				cause = NULL;
			}
			pthread_mutex_unlock(t->store_mu);
			pending = 0;
			last_commit = dn_now_ns();
		}
		if (stop && n == 0)
			break;
	}
	free(rows);
	return (NULL);
}

static void
handle(struct collector *c, const uint8_t *buf, size_t len)
{
	struct trial		*t = c->t;
	struct dn_hdr		 h;
	struct dn_sample	 s;
	int			 rv;

	rv = dn_hdr_check(buf, len, t->token, (uint32_t)t->nnodes, 0, &h);
	if (rv != 0) {
		reject(c, rv, DN_NODE_NONE);
		return;
	}
	switch (h.kind) {
	case DN_MSG_HELLO:
		if (h.len != DN_HELLO_SIZE) {
			reject(c, -DN_REJ_PAYLOAD, h.node);
			return;
		}
		on_hello(c, &h);	/* pid: the nodes table has it */
		break;
	case DN_MSG_SAMPLE:
		if ((rv = dn_sample_decode(buf + DN_HDR_SIZE, h.len, &s)) != 0) {
			reject(c, rv, h.node);
			return;
		}
		on_sample(c, &h, &s);
		break;
	case DN_MSG_INCLUDED:
		on_included(c, buf + DN_HDR_SIZE, h.len, h.node);
		break;
	default:
		reject(c, -DN_REJ_KIND, h.node);
	}
}

static int
all_final(struct trial *t)
{
	int	i, done = 1;

	pthread_mutex_lock(&t->mu);
	for (i = 0; i < t->nnodes; i++) {
		if (!t->nodes[i].final_seen && !t->nodes[i].proc.exited)
			done = 0;
	}
	pthread_mutex_unlock(&t->mu);
	return (done);
}

static void *
collector_main(void *arg)
{
	struct collector	*c = arg;
	struct trial		*t = c->t;
	uint64_t		 drain_end = 0;
	void			*buf;
	size_t			 len;
	int			 rv;

	c->next_lg_ms = t->scn->sample_interval_ms;
	for (;;) {
		uint64_t	now;

		rv = dn_sock_recv(c->sock, &buf, &len, 20);
		if (rv == 0) {
			int	k = 0;

			do {
				handle(c, buf, len);
				dn_msg_free(buf, len);
			} while (++k < RECV_BATCH &&
			    dn_sock_recv(c->sock, &buf, &len, 0) == 0);
		} else if (rv != DN_EAGAIN)
			break;
		now = dn_now_ns();
		if (t->load != NULL && atomic_load(&t->t0_ns) != 0) {
			int64_t	tm = trial_t_ms(t, now);
			int64_t	end = t->scn->duration_ms;

			while (c->next_lg_ms <= tm && c->next_lg_ms <= end +
			    t->scn->sample_interval_ms) {
				loadgen_sample(c, c->next_lg_ms);
				c->next_lg_ms += t->scn->sample_interval_ms;
			}
		}
		if (atomic_load(&c->stop)) {
			if (drain_end == 0)
				drain_end = now +
				    (uint64_t)c->drain_ms * 1000000u;
			/* Keep reading while messages come; stop once every
			 * node said its last word or the drain is over. */
			if (rv == DN_EAGAIN && (now >= drain_end ||
			    all_final(t)))
				break;
		}
	}
	pthread_mutex_lock(&c->wmu);
	c->wstop = 1;
	queue_end(c);
	pthread_join(c->writer, NULL);
	return (NULL);
}

int
collector_start(struct trial *t, struct collector **cp, char **cause)
{
	struct collector	*c;

	c = dn_xcalloc(1, sizeof(*c));
	c->t = t;
	atomic_init(&c->stop, 0);
	if (dn_sock_open(&c->sock, DN_SOCK_PULL, cause) != 0)
		goto fail;
	dn_sock_set_bufs(c->sock, 0, 8192);
	if (dn_sock_listen(c->sock, t->metrics_url, cause) != 0)
		goto fail;
	pthread_mutex_init(&c->wmu, NULL);
	pthread_cond_init(&c->wcv, NULL);
	if (pthread_create(&c->writer, NULL, writer_main, c) != 0) {
		*cause = dn_xstrdup("cannot start the collector's writer "
		    "thread");
		goto fail;
	}
	if (pthread_create(&c->thread, NULL, collector_main, c) != 0) {
		*cause = dn_xstrdup("cannot start the collector thread");
		pthread_mutex_lock(&c->wmu);
		c->wstop = 1;
		queue_end(c);
		pthread_join(c->writer, NULL);
		goto fail;
	}
	*cp = c;
	return (0);
fail:
	dn_sock_close(c->sock);
	free(c);
	return (-1);
}

void
collector_stop(struct collector *c, int drain_ms)
{
	if (c == NULL)
		return;
	c->drain_ms = drain_ms;
	atomic_store(&c->stop, 1);
	pthread_join(c->thread, NULL);
	dn_sock_close(c->sock);
	pthread_mutex_destroy(&c->wmu);
	pthread_cond_destroy(&c->wcv);
	free(c->pend);
	free(c->seen);
	free(c->lat);
	free(c);
}
