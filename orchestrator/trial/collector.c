/*
 * collector.c: the trial's collector thread.  Pulls HELLO, SAMPLE, NAMED
 * and INCLUDED messages from the trial's nodes, checks each (size, magic,
 * version, token, node index, payload), counts what it rejects and the
 * samples it never got (sequence gaps), and writes samples to the store in
 * batches.  It also turns load generator counters (trial->load, which it
 * reads without calling the load generator) and inclusion latencies into
 * load generator samples (node -1) once per sample interval (collector-
 * load.c).
 *
 * Over TCP anyone who can connect reaches it (issue 38): at most
 * 2 x nodes + 4 connections, no frame longer than the scenario's largest
 * message, and a connection whose first message has no token is closed;
 * a node's messages come through the connection that sent its first one
 * (docs/security.md).
 *
 * Protocol 3 (docs/probe.md): a metric a foreign node's probe marks absent
 * is not stored (nothing, not 0) and does not count in the trial's
 * summaries; NAMED values are stored under their own names (a dictionary
 * row per new name, store-names.c); a foreign node's lag comes from the
 * heights of all nodes (foreign-lag.c).
 *
 * Not here: spawning, events, the schedule of the load (runner.c,
 * loadgen.c); the trial's clock and events (trial.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trial/collector.h"
#include "trial/collector-internal.h"
#include "store.h"
#include "transport.h"
#include "trial/trial.h"
#include "trial/snapshot.h"
#include "sys/wake.h"
#include "clock.h"
#include "buf.h"
#include "xalloc.h"

/* Messages taken without waiting once one has arrived: one wake-up per
 * burst instead of per message. */
#define RECV_BATCH	256
#define DRAIN_CUT_MS	50	/* counting what a cut drain leaves */
#define QUIET_NS	20000000ull	/* without a message: the end */
/* Connections beyond one per node: a restarted node's new one while its
 * old one goes, and a few more. */
#define PIPES_MAX(n)	(2 * (n) + 4)

static void
on_hello(struct collector *c, const struct dn_hdr *h, uint32_t pid)
{
	struct trial		*t = c->t;
	struct trial_node	*n = &t->nodes[h->node];
	int			 first;

	pthread_mutex_lock(&t->mu);
	/* Only the first HELLO since devnet (re)started the node (the
	 * runner zeroes hello on a restart event): a new process counts
	 * from its own start.  A second one, forged or not, neither resets
	 * the sequence tracking (that would hide lost samples) nor changes
	 * the command's pid. */
	if ((first = n->hello++ == 0)) {
		n->cmd_pid = (pid_t)pid;
		n->have_seq = 0;
		n->final_seen = 0;	/* the new process's last word */
	}
	n->last_msg_ns = c->rx_ns;
	pthread_mutex_unlock(&t->mu);
	/* the runner waits for every node's first (run/watch.c) */
	if (first)
		wake_main();
}

static void
on_sample(struct collector *c, const struct dn_hdr *h,
    const struct dn_sample *s)
{
	struct trial		*t = c->t;
	struct trial_node	*n = &t->nodes[h->node];
	int64_t			 tm = trial_t_ms(t, h->t_ns), gap = 0;
	double			 values[DN_METRIC_COUNT], lagb, lagm;
	uint64_t		 present;
	int			 i, count, stored = 0;

	memcpy(values, s->values, sizeof(values));

	count = s->count < DN_METRIC_COUNT ? s->count : DN_METRIC_COUNT;
	present = ~s->absent;
	if (count < 64)
		present &= ((uint64_t)1 << count) - 1;
	pthread_mutex_lock(&t->mu);
	/* A node that knows its height only (a foreign node): its lag
	 * comes from all. */
	if (t->lag_from_heights && dn_sample_absent(s, DN_M_LAG_BLOCKS) &&
	    !dn_sample_absent(s, DN_M_HEIGHT) && tm != INT64_MIN) {
		foreign_lag(t, (int)h->node, tm, s->values[DN_M_HEIGHT],
		    &lagb, &lagm);
		values[DN_M_LAG_BLOCKS] = lagb;
		values[DN_M_LAG_MS] = lagm;
		present |= (uint64_t)1 << DN_M_LAG_BLOCKS |
		    (uint64_t)1 << DN_M_LAG_MS;
	}
	if (n->have_seq && h->seq > n->next_seq) {
		gap = (int64_t)(h->seq - n->next_seq);
		n->lost += gap;
	}
	n->have_seq = 1;
	n->next_seq = h->seq + 1;
	n->last_msg_ns = c->rx_ns;
	if (tm != INT64_MIN)
		n->samples++;	/* accepted for the trial: each one stored */
	if (s->flags & DN_SAMPLE_FINAL)
		n->final_seen = 1;
	for (i = 0; i < count; i++)
		if (present >> i & 1)
			n->last[i] = values[i];
	n->have_last |= present;
	if (tm != INT64_MIN)
		n->last_tm = tm;
	if (tm != INT64_MIN && tm >= t->scn->warmup_ms) {
		double	rss = values[DN_M_RSS_BYTES];
		double	lag = values[DN_M_LAG_BLOCKS];

		if (!n->have_first) {
			n->first_t = tm;
			n->have_first = 1;
		}
		/* Each metric's first value is its first present one. */
		for (i = 0; i < count; i++) {
			if ((present >> i & 1) && !(n->have_firsts >> i & 1))
				n->first[i] = values[i];
		}
		n->have_firsts |= present;
		n->last_t = tm;
		if (present >> DN_M_RSS_BYTES & 1) {
			n->rss_sum += rss;
			n->rss_n++;
			if (rss > n->rss_max)
				n->rss_max = rss;
		}
		if (present >> DN_M_LAG_BLOCKS & 1) {
			n->lag_n++;
			if (lag > n->lag_max)
				n->lag_max = lag;
		}
	}
	pthread_mutex_unlock(&t->mu);
	if (gap > 0)
		trial_event(t, (int)h->node, "lost_samples",
		    "%lld sample(s) missing before sequence %llu",
		    (long long)gap, (unsigned long long)h->seq);
	if (tm == INT64_MIN)
		return;	/* before t=0: not part of the trial */
	snapshot_sample(t, (int)h->node, tm, values, present);

	pthread_mutex_lock(&c->wmu);
	for (i = 0; i < count; i++) {
		if (dn_metric_defs[i].source == DN_SOURCE_N &&
		    (present >> i & 1)) {
			collector_put(c, (int)h->node, i, tm, values[i]);
			stored++;
		}
	}
	collector_queue_end(c);
	pthread_mutex_lock(&t->mu);
	t->samples_stored += stored;
	pthread_mutex_unlock(&t->mu);
}

/* The metric id of NAMED name NAME (a dictionary row if new), or -1 when
 * the store refused (the error goes to the trial). */
static int
named_id(struct collector *c, const char *name, int counter)
{
	struct trial	*t = c->t;
	size_t		 i;
	int		 id;

	for (i = 0; i < c->nnames; i++)
		if (strcmp(c->names[i], name) == 0)
			return (c->name_ids[i]);
	if (trial_store_metric_named(t, name, counter, &id) != 0)
		return (-1);
	c->names = dn_xreallocarray(c->names, c->nnames + 1,
	    sizeof(*c->names));
	c->name_ids = dn_xreallocarray(c->name_ids, c->nnames + 1,
	    sizeof(*c->name_ids));
	c->names[c->nnames] = dn_xstrdup(name);
	c->name_ids[c->nnames++] = id;
	return (id);
}

/* 1 if NAME is a named metric the scenario declares for its foreign
 * nodes (log and JSON metrics, Prometheus map and keep, and the probe's
 * own probe_scrape_failures with a Prometheus or JSON URL); nothing else
 * ever gets a
 * dictionary row. */
static int
name_declared(const struct trial *t, const char *name)
{
	const struct scn_node	*o = &t->var->node;
	size_t			 i, l;

	for (i = 0; i < o->nlogm; i++)
		if (strcmp(o->logm[i].name, name) == 0)
			return (1);
	for (i = 0; i < o->nprom_keep; i++)
		if (strcmp(o->prom_keep[i], name) == 0)
			return (1);
	for (i = 0; i < o->nprom_map; i++) {
		l = strcspn(o->prom_map[i], "=");
		if (strncmp(o->prom_map[i], name, l) == 0 && name[l] == '\0')
			return (1);
	}
	return ((o->prom_url != NULL || o->json_url != NULL) &&
	    strcmp(name, "probe_scrape_failures") == 0);
}

/* NAMED: each (name, value) stored for the node at the header's time. */
static void
on_named(struct collector *c, const struct dn_hdr *h, const uint8_t *p)
{
	struct dn_named		 v[DN_NAMED_MAX];	/* ~20 kB */
	struct trial		*t = c->t;
	struct trial_node	*n = &t->nodes[h->node];
	int64_t			 tm = trial_t_ms(t, h->t_ns);
	uint16_t		 flags;
	size_t			 nv, i;
	int			 rv, ids[DN_NAMED_MAX];

	if ((rv = dn_named_decode(p, h->len, &flags, v, DN_NAMED_MAX,
	    &nv)) != 0) {
		collector_reject(c, rv, h->node);
		return;
	}
	/* A message with a name not declared is refused whole: a genuine
	 * probe sends only the declared ones, and a token holder cannot grow
	 * the dictionary (one row per new name) without bound. */
	for (i = 0; i < nv; i++) {
		if (!name_declared(t, v[i].name)) {
			collector_reject(c, -DN_REJ_NAME, h->node);
			return;
		}
	}
	pthread_mutex_lock(&t->mu);
	n->last_msg_ns = c->rx_ns;
	if (flags & DN_SAMPLE_FINAL)
		n->final_seen = 1;
	/* The last value of the named metrics shown (progress, summary). */
	for (i = 0; i < nv && n->nlast != NULL; i++) {
		size_t	j;

		for (j = 0; j < t->nncols; j++) {
			if (strcmp(t->ncols[j], v[i].name) != 0)
				continue;
			n->nlast[j] = v[i].value;
			n->nhave |= (uint64_t)1 << j;
		}
	}
	pthread_mutex_unlock(&t->mu);
	if (tm == INT64_MIN)
		return;	/* before t=0: not part of the trial */
	for (i = 0; i < nv; i++)
		ids[i] = named_id(c, v[i].name, v[i].kind ==
		    DN_NAMED_COUNTER);
	pthread_mutex_lock(&c->wmu);
	for (i = 0; i < nv; i++)
		if (ids[i] >= 0)
			collector_put(c, (int)h->node, ids[i], tm, v[i].value);
	collector_queue_end(c);
	pthread_mutex_lock(&t->mu);
	t->samples_stored += (int64_t)nv;
	pthread_mutex_unlock(&t->mu);
}

/* 1 if ID had no outcome before (and marks it), 0 if it had.  ID is one
 * the load generator submitted (on_included checked), so the bitmap never
 * grows beyond one bit per transaction sent. */
static int
mark_seen(struct collector *c, uint64_t id)
{
	size_t	byte = (size_t)(id / 8);

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

/*
 * Transactions submitted so far: the load generator numbers them from 0
 * and counts one before it sends it, so an id at or above this count (or
 * any id at all without a load generator) was never sent by us.
 */
static uint64_t
submitted_ids(struct collector *c)
{
	struct trial_load	*ld = c->t->load;
	long long		 n;

	/* a command's counts are its own, no id of ours */
	if (ld == NULL || ld->by_lines)
		return (0);
	n = atomic_load(&ld->submitted);
	return (n > 0 ? (uint64_t)n : 0);
}

static void
on_included(struct collector *c, const uint8_t *p, size_t len,
    uint32_t node)
{
	struct trial	*t = c->t;
	const uint8_t	*e, *first;
	uint64_t	 height, proposed_ns, limit;
	uint32_t	 count, i;
	int64_t		 ok = 0, bad = 0, dup = 0;

	if (dn_included_check(p, len, &height, &proposed_ns, &count, &e) !=
	    0) {
		collector_reject(c, -DN_REJ_PAYLOAD, node);
		return;
	}
	/* the proposer's block time on our clock (collector-clock.c) */
	if (t->nodes[node].remote_clock)
		proposed_ns = collector_clock_ours(c, node, proposed_ns);
	/* All or nothing: a message naming one transaction we never sent
	 * is not from an honest node, and none of it is counted. */
	limit = submitted_ids(c);
	for (i = 0, first = e; i < count; i++, e += DN_INCL_ENTRY) {
		if (dn_get_u64(e) >= limit) {
			collector_reject(c, -DN_REJ_TX_ID, node);
			return;
		}
	}
	for (i = 0, e = first; i < count; i++, e += DN_INCL_ENTRY) {
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
			c->lat = dn_xgrow(c->lat, &c->caplat, c->nlat + 1,
			    sizeof(double));
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

/* One checked message of node H->node, its time on ours. */
static void
dispatch(struct collector *c, const struct dn_hdr *hp, const uint8_t *buf)
{
	struct dn_hdr		 h = *hp;
	struct dn_sample	 s;
	int			 rv;

	switch (h.kind) {
	case DN_MSG_HELLO:
		if (h.len != DN_HELLO_SIZE) {
			collector_reject(c, -DN_REJ_PAYLOAD, h.node);
			return;
		}
		/* A probe's HELLO carries its COMMAND's pid (the group
		 * the runner ends last, foreign.c). */
		on_hello(c, &h, dn_get_u32(buf + DN_HDR_SIZE));
		break;
	case DN_MSG_SAMPLE:
		if ((rv = dn_sample_decode(buf + DN_HDR_SIZE, h.len, &s)) != 0) {
			collector_reject(c, rv, h.node);
			return;
		}
		on_sample(c, &h, &s);
		break;
	case DN_MSG_INCLUDED:
		on_included(c, buf + DN_HDR_SIZE, h.len, h.node);
		break;
	case DN_MSG_NAMED:
		on_named(c, &h, buf + DN_HDR_SIZE);
		break;
	default:
		collector_reject(c, -DN_REJ_KIND, h.node);
	}
}

/* The held messages of nodes on another host that are due at NOW (ALL:
 * every one), oldest first, each at its arrival time. */
static void
release(struct collector *c, uint64_t now, int all)
{
	struct held	m;

	while (c->nheld > 0 && collector_clock_next(c, now, all, &m)) {
		c->rx_ns = m.rx_ns;
		dispatch(c, &m.h, m.buf);
		free(m.buf);
	}
}

/* Check one message and handle it, or hold it (a node on another host
 * whose clock offset has not settled, collector-clock.c). */
static void
handle(struct collector *c, const uint8_t *buf, size_t len, uint32_t pipe)
{
	struct trial	*t = c->t;
	struct dn_hdr	 h;
	uint64_t	 now = dn_now_ns();
	int		 rv, st;

	rv = dn_hdr_check(buf, len, t->token, (uint32_t)t->nnodes, 0, &h);
	if (rv != 0) {
		st = dn_sock_pipe_state(c->sock, pipe);
		/* a connection whose end was counted already (its message
		 * read late): one connection, one reject */
		if (st != -2)
			collector_reject(c, rv, DN_NODE_NONE);
		/* the first message of a connection, without the token:
		 * nothing more is read from it (-1: maybe before nng told
		 * the guard of its pipe) */
		if (st == 0 || st == -1)
			dn_sock_pipe_close(c->sock, pipe);
		return;
	}
	if ((rv = collector_pipe_ok(c, &h, pipe)) != 0) {
		collector_reject(c, rv, h.node);
		return;
	}
	if (t->nodes[h.node].remote_clock) {
		if (collector_clock_seen(c, h.node, h.t_ns, now) != 0) {
			collector_reject(c, -DN_REJ_CLOCK, h.node);
			return;
		}
		if (h.kind == DN_MSG_HELLO || atomic_load(&c->stop))
			release(c, now, 1);	/* what came before it */
		else if (!collector_clock_settled(c, h.node, now) ||
		    c->nheld > 0) {
			/* (also while any is held: a node's messages keep
			 * their order, release takes each node's oldest) */
			collector_hold(c, &h, buf, len, now);
			release(c, now, 0);
			return;
		}
		h.t_ns = collector_clock_ours(c, h.node, h.t_ns);
	}
	c->rx_ns = now;
	dispatch(c, &h, buf);
}

/* 2 when every node's final sample is in (nothing more will come), 1
 * when every node either sent it or exited, else 0. */
static int
all_final(struct trial *t)
{
	int	i, done = 2;

	pthread_mutex_lock(&t->mu);
	for (i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].final_seen)
			continue;
		if (!t->nodes[i].proc.exited)
			done = 0;
		else if (done == 2)
			done = 1;
	}
	pthread_mutex_unlock(&t->mu);
	return (done);
}

/*
 * The drain ended with messages still coming (issue 19 #2: a sender that
 * never stops must not hold the trial open): read what still comes, for
 * at most DRAIN_CUT_MS, without handling it, and say how much was not
 * stored; 20 ms without a message is the end.  WHY: why the drain ended.
 */
static void
drain_cut(struct collector *c, const char *why)
{
	struct trial	*t = c->t;
	uint64_t	 now = dn_now_ns();
	uint64_t	 until = now + DRAIN_CUT_MS * 1000000ull;
	uint64_t	 quiet = now + QUIET_NS;
	int64_t		 n = 0;
	void		*buf;
	size_t		 len;
	int		 more = 0, rv;

	while (now < quiet) {
		rv = dn_sock_recv(c->sock, &buf, &len,
		    (int)((quiet - now + 999999) / 1000000));
		now = dn_now_ns();
		if (rv == 0) {
			dn_msg_free(buf, len);
			n++;
			if ((more = now >= until))
				break;
			quiet = now + QUIET_NS;
		} else if (rv != DN_EAGAIN)
			break;
		/* DN_EAGAIN before the quiet is up: a wake (collector_stop's)
		 * ended the wait early; wait out the rest */
	}
	if (n == 0)
		return;
	pthread_mutex_lock(&t->mu);
	t->drain_unread = n;
	pthread_mutex_unlock(&t->mu);
	trial_event(t, -1, "drain_cut", "the drain after the nodes stopped "
	    "(%s) ended with messages still arriving: %lld not read nor "
	    "stored%s (fact drain_unread)", why, (long long)n,
	    more ? ", those of 50 ms; more were coming" : "");
}

static void *
collector_main(void *arg)
{
	struct collector	*c = arg;
	struct trial		*t = c->t;
	uint64_t		 drain_end = 0, last_rx = 0, last_rej = 0;
	int64_t			 rej;
	void			*buf;
	size_t			 len;
	uint32_t		 pipe;
	int			 rv, fin;

	c->next_lg_ms = t->scn->sample_interval_ms;
	for (;;) {
		uint64_t	now;

		/* (only this thread counts rejects: read without the lock) */
		rej = t->rejected;
		rv = dn_sock_recv_pipe(c->sock, &buf, &len, &pipe, 20);
		if (rv == 0) {
			int	k = 0;

			do {
				handle(c, buf, len, pipe);
				dn_msg_free(buf, len);
			} while (++k < RECV_BATCH &&
			    dn_sock_recv_pipe(c->sock, &buf, &len, &pipe,
			    0) == 0);
		} else if (rv != DN_EAGAIN)
			break;
		/* Connections gone without showing the token are counted
		 * only with the queue found empty: one that sent a message
		 * before it closed is judged by that message (a reject, and
		 * its end not counted again), however far behind a loaded
		 * collector reads. */
		if (rv == DN_EAGAIN)
			collector_guard_rejects(c);
		now = dn_now_ns();
		if (c->nheld > 0)
			release(c, now, atomic_load(&c->stop));
		if (rv == 0)
			last_rx = now;
		if (t->rejected != rej)
			last_rej = now;
		if (t->load != NULL && atomic_load(&t->t0_ns) != 0) {
			int64_t	tm = trial_t_ms(t, now);
			int64_t	end = t->scn->duration_ms;

			while (c->next_lg_ms <= tm && c->next_lg_ms <= end +
			    t->scn->sample_interval_ms) {
				collector_load_sample(c, c->next_lg_ms);
				c->next_lg_ms += t->scn->sample_interval_ms;
			}
		}
		if (atomic_load(&c->stop)) {
			if (drain_end == 0)
				drain_end = now +
				    (uint64_t)c->drain_ms * 1000000u;
			/* Stop once every node said its last word (its final
			 * sample: nothing comes after it); with nodes that
			 * exited without one, after 20 ms without a message;
			 * and at the drain's end whatever still comes.  (The
			 * wake of collector_stop may end a receive early: the
			 * quiet is measured, not taken from the timeout.) */
			fin = all_final(t);
			if (fin == 2) {
				/* No node sends after its final sample: what
				 * still comes is from none of ours.  A sender
				 * whose messages were rejected in the last
				 * 100 ms is still at it: count what it sends
				 * (a clean stop waits for nothing). */
				if (last_rej != 0 &&
				    now - last_rej < 100 * 1000000ull)
					drain_cut(c, "every final sample in");
				break;
			}
			if (fin == 1 && rv == DN_EAGAIN &&
			    now - last_rx >= QUIET_NS)
				break;
			if (now >= drain_end) {
				if (rv == 0)
					drain_cut(c, "its time up");
				break;
			}
		}
	}
	collector_guard_rejects(c);	/* the last ones gone */
	release(c, 0, 1);	/* a receive error ended the loop */
	pthread_mutex_lock(&c->wmu);
	c->wstop = 1;
	collector_queue_end(c);
	pthread_join(c->writer, NULL);
	return (NULL);
}

/*
 * The longest message a sender of T has a reason to send: an INCLUDED of
 * a full block (24 bytes a transaction), twice over, or a full NAMED;
 * never more than DN_MSG_MAX.  The size limit is what a connection that
 * stalls mid-frame holds, times PIPES_MAX.
 */
static size_t
recv_max(const struct trial *t)
{
	size_t	incl = 2 * (DN_HDR_SIZE + 24 + (size_t)DN_INCL_ENTRY *
	    t->scn->network.block_max_txs);
	size_t	named = DN_HDR_SIZE + 8 + DN_NAMED_MAX * (2 + DN_NAME_MAX + 8);
	size_t	m = incl > named ? incl : named;

	return (m < DN_MSG_MAX ? m : DN_MSG_MAX);
}

int
collector_start(struct trial *t, struct collector **cp, char **cause)
{
	struct collector	*c;

	c = dn_xcalloc(1, sizeof(*c));
	c->t = t;
	atomic_init(&c->stop, 0);
	c->bound = dn_xcalloc((size_t)t->nnodes + 1, sizeof(*c->bound));
	if (dn_sock_open(&c->sock, DN_SOCK_PULL, cause) != 0)
		goto fail;
	dn_sock_set_bufs(c->sock, 0, 8192);
	dn_sock_guard(c->sock, PIPES_MAX(t->nnodes));
	dn_sock_set_recv_max(c->sock, recv_max(t));
	if (dn_sock_listen(c->sock, t->metrics_url, cause) != 0)
		goto fail;
	pthread_mutex_init(&c->wmu, NULL);
	pthread_cond_init(&c->wcv, NULL);
	if (pthread_create(&c->writer, NULL, collector_writer_main, c) != 0) {
		*cause = dn_xstrdup("cannot start the collector's writer "
		    "thread");
		goto fail;
	}
	if (pthread_create(&c->thread, NULL, collector_main, c) != 0) {
		*cause = dn_xstrdup("cannot start the collector thread");
		pthread_mutex_lock(&c->wmu);
		c->wstop = 1;
		collector_queue_end(c);
		pthread_join(c->writer, NULL);
		goto fail;
	}
	*cp = c;
	return (0);
fail:
	dn_sock_close(c->sock);
	free(c->bound);
	free(c);
	return (-1);
}

void
collector_stop(struct collector *c, int drain_ms)
{
	size_t	i;

	if (c == NULL)
		return;
	c->drain_ms = drain_ms;
	atomic_store(&c->stop, 1);
	dn_sock_wake(c->sock);	/* look at the stop now, not in 20 ms */
	pthread_join(c->thread, NULL);
	dn_sock_close(c->sock);
	pthread_mutex_destroy(&c->wmu);
	pthread_cond_destroy(&c->wcv);
	free(c->pend);
	free(c->held);
	free(c->seen);
	free(c->lat);
	free(c->bound);
	for (i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	free(c->name_ids);
	free(c);
}
