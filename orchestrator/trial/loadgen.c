/*
 * loadgen.c: the open-loop load generator of a trial.
 *
 * Transaction k has a fixed intended send time on a schedule computed
 * from t=0 and the target rate (with an optional linear ramp), never from
 * when the previous one went out: a slow node or a late wake-up cannot
 * make the generator send less (no coordinated omission, as wrk2).  Every
 * transaction carries its intended time, so inclusion latency is measured
 * from it.  Transactions due at the same wake-up are batched into one TXS
 * message for the next node that is up (round-robin); from SPIN_MAX_TPS
 * there is at most one such round per TICK_NS.
 *
 * By default it waits for the next intended time with an absolute
 * clock_nanosleep (timer slack 1 ns) at the default scheduling priority:
 * it must not compete with the nodes it measures.  workload.realtime opts
 * in to SCHED_FIFO and to sleeping until SPIN_NS before each send and
 * yielding the rest: sends on time under load, at the nodes' expense
 * (docs/benchmarks.md, "Load generator wait").
 *
 * It reads only the trial's data (trial.h): the node endpoints the runner
 * named (in_url: ipc, or under network conditions TCP through the hub,
 * loadgen-tcp.c) and which nodes are up; its counters live in a struct
 * trial_load it publishes as trial->load for the collector to read.
 *
 * This file is the front door (create, go, halt, stats) and the
 * transfer kind's thread; the http kind (loadgen-http.c) and the command
 * kind (loadgen-cmd.c) are the others.  The schedule, the account pick,
 * the wait and the send-lag record are pacing.c, shared by the kinds.
 *
 * Not here: inclusion accounting (collector.c).
 */
#include <sys/prctl.h>

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "trial/loadgen.h"
#include "trial/loadgen-internal.h"
#include "trial/pacing.h"
#include "transport.h"
#include "trial/trial.h"
#include "clock.h"
#include "rng.h"
#include "xalloc.h"

static void
flush(struct loadgen *l, int node, uint64_t now)
{
	struct dn_hdr	h = { .kind = DN_MSG_TXS, .token = l->t->token,
			    .node = DN_NODE_NONE };
	uint32_t	c = l->counts[node];
	size_t		len;
	int		rv;

	if (c == 0)
		return;
	len = DN_HDR_SIZE + 8 + (size_t)c * DN_TX_SIZE;
	h.len = (uint32_t)(len - DN_HDR_SIZE);
	h.seq = l->seq++;
	h.t_ns = now;
	dn_hdr_put(l->bufs[node], &h);
	dn_put_u32(l->bufs[node] + DN_HDR_SIZE, c);
	dn_put_u32(l->bufs[node] + DN_HDR_SIZE + 4, 0);
	rv = l->tcp != NULL ? loadgen_tcp_send(l, node, l->bufs[node], len) :
	    dn_sock_send(l->socks[node], l->bufs[node], len, 1);
	if (rv != 0)
		atomic_fetch_add(&l->load.send_errors, c);
	l->counts[node] = 0;
}

static void *
transfer_main(void *arg)
{
	struct loadgen		*l = arg;
	struct trial		*t = l->t;
	const struct scenario	*scn = t->scn;
	uint64_t		 t0 = atomic_load(&t->t0_ns);
	uint64_t		 end = t0 + (uint64_t)scn->duration_ms * 1000000u;
	double			 next_s = 0;	/* intended, s after t0 */
	uint64_t		 id = 0, last_round = 0;
	int			 rr = 0;
	struct sched_param	 sp = { .sched_priority = 1 };

	/* Wake-ups on time without a higher priority: no slack added to
	 * the timer (50 µs by default). */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	/* Opt-in: a real-time priority sends on time even when the nodes
	 * keep every core busy, but takes that time from them. */
	if (scn->workload.realtime && pthread_setschedparam(pthread_self(),
	    SCHED_FIFO, &sp) == 0)
		atomic_store(&l->realtime, 1);

	while (!atomic_load(&l->stop)) {
		uint64_t	now = dn_now_ns();
		uint64_t	due = t0 + (uint64_t)llround(next_s * 1e9);
		uint64_t	go = due;
		int		fast = pacing_rate_at(scn, next_s) >=
				    SPIN_MAX_TPS;
		int		node = -1, tries;

		if (due >= end)
			break;
		/* At high rates one round per TICK_NS: a few large messages
		 * instead of one per transaction (each message costs the
		 * nodes a wake-up; docs/benchmarks.md, load generator). */
		if (fast && go < last_round + TICK_NS)
			go = last_round + TICK_NS;
		if (go > now) {
			uint64_t	wake;

			/* Spin wait only: the last SPIN_NS before a send
			 * are spent yielding, not sleeping (docs/
			 * benchmarks.md, "Load generator wait"). */
			if (l->spin && !fast && go - now <= SPIN_NS) {
				sched_yield();
				continue;
			}
			wake = fast || !l->spin ? go : go - SPIN_NS;
			/* Wake at least every 50 ms to notice a stop. */
			if (wake > now + 50000000u)
				wake = now + 50000000u;
			pacing_sleep_until(wake);
			continue;
		}
		last_round = now;
		loadgen_tcp_pump(l);	/* what a full socket held back */
		/* Everything due by now goes to the next node that is up. */
		for (tries = 0; tries < t->nnodes; tries++) {
			int	k = (rr + tries) % t->nnodes;

			if (atomic_load(&t->nodes[k].up)) {
				node = k;
				break;
			}
		}
		rr = (rr + 1) % t->nnodes;
		while (due <= now && due < end) {
			struct dn_tx	tx;

			tx.id = id++;
			tx.intended_ns = due;
			tx.from = pacing_pick(l);
			do
				tx.to = pacing_pick(l);
			while (tx.to == tx.from && l->accounts > 1);
			tx.amount = 1 + dn_rand64(&l->rng) % 100;
			tx.nonce = l->nonces[tx.from]++;
			atomic_fetch_add(&l->load.submitted, 1);
			if (node < 0) {
				atomic_fetch_add(&l->load.send_errors, 1);
			} else {
				dn_tx_put(l->bufs[node] + DN_HDR_SIZE + 8 +
				    (size_t)l->counts[node] * DN_TX_SIZE, &tx);
				if (++l->counts[node] == BATCH_MAX)
					flush(l, node, now);
			}
			pacing_add_lag(l, (double)(dn_now_ns() - due) / 1e3);
			/* The schedule: intended times from the rate alone. */
			next_s = pacing_intended_s(scn, id);
			due = t0 + (uint64_t)llround(next_s * 1e9);
		}
		if (node >= 0)
			flush(l, node, dn_now_ns());
		atomic_store(&l->load.elapsed_ns, (long long)(now - t0));
	}
	/* Over the whole schedule: a generator that fell behind sent its
	 * last transactions after the end, which lowers the achieved rate. */
	if (!atomic_load(&l->stop) || dn_now_ns() >= end)
		atomic_store(&l->load.elapsed_ns, (long long)((dn_now_ns() >
		    end ? dn_now_ns() : end) - t0));
	return (NULL);
}

int
loadgen_create(struct trial *t, struct loadgen **lp, char **cause)
{
	const struct scenario	*scn = t->scn;
	struct loadgen		*l;
	int			 i;

	l = dn_xcalloc(1, sizeof(*l));
	l->t = t;
	l->n = t->nnodes;
	atomic_init(&l->stop, 0);
	atomic_init(&l->load.submitted, 0);
	atomic_init(&l->load.send_errors, 0);
	atomic_init(&l->load.elapsed_ns, 0);
	pthread_mutex_init(&l->load.mu, NULL);
	if (scn->workload.kind == SCN_WL_HTTP) {
		if (loadgen_http_create(l, cause) != 0)
			goto fail;
		*lp = l;
		t->load = &l->load;
		return (0);
	}
	if (scn->workload.kind == SCN_WL_COMMAND) {
		/* counted by the command's own lines, if it prints any */
		l->load.by_lines = 1;
		atomic_init(&l->load.heard, 0);
		if (loadgen_cmd_create(l, cause) != 0)
			goto fail;
		*lp = l;
		t->load = &l->load;
		return (0);
	}
	l->rng = scn->seed ^ 0x6c6f616467656e00ull ^ (uint64_t)t->pt.index;
	l->spin = pacing_spins(t);
	atomic_init(&l->realtime, 0);
	l->accounts = scn->network.accounts ? scn->network.accounts : 1;
	l->nonces = dn_xcalloc(l->accounts, sizeof(*l->nonces));
	if (scn->workload.dist == SCN_DIST_ZIPF)
		l->zipf_cdf = pacing_zipf_cdf(l->accounts,
		    scn->workload.zipf_s);
	l->socks = dn_xcalloc((size_t)l->n, sizeof(*l->socks));
	l->bufs = dn_xcalloc((size_t)l->n, sizeof(*l->bufs));
	l->counts = dn_xcalloc((size_t)l->n, sizeof(*l->counts));
	for (i = 0; i < l->n; i++)
		l->bufs[i] = dn_xmalloc(DN_HDR_SIZE + 8 +
		    (size_t)BATCH_MAX * DN_TX_SIZE);
	*lp = l;
	t->load = &l->load;
	return (0);
fail:
	loadgen_free(l);
	return (-1);
}

int
loadgen_go(struct loadgen *l, char **cause)
{
	int	i;

	if (l->cmd != NULL && loadgen_cmd_start(l, cause) != 0)
		return (-1);
	/*
	 * transfer: dial the nodes now that they are ready, so listening.
	 * Dialled at spawn, 40 nodes that took 14 s to listen (containers
	 * at half a core) had their dialers retry every 10-50 ms, and each
	 * failed ipc attempt kept a file descriptor with nng 1.5.2: devnet
	 * reached its 20,000 and the collector could no longer accept
	 * (docs/benchmarks.md, "How many nodes one host holds").
	 */
	/* under conditions: TCP through the hub, from the load's namespace */
	if (l->socks != NULL && trial_load_ns(l->t) >= 0) {
		if (loadgen_tcp_create(l, cause) != 0)
			return (-1);
	}
	for (i = 0; l->socks != NULL && l->tcp == NULL && i < l->n; i++) {
		if (dn_sock_open(&l->socks[i], DN_SOCK_PUSH, cause) != 0)
			return (-1);
		dn_sock_set_bufs(l->socks[i], 1024, 0);
		if (dn_sock_dial(l->socks[i], l->t->nodes[i].in_url,
		    cause) != 0)
			return (-1);
	}
	if (pthread_create(&l->thread, NULL, l->cmd != NULL ?
	    loadgen_cmd_main : l->http != NULL ? loadgen_http_main :
	    transfer_main, l) != 0) {
		*cause = dn_xstrdup("cannot start the load generator thread");
		return (-1);
	}
	l->started = 1;
	return (0);
}

void
loadgen_halt(struct loadgen *l)
{
	if (l != NULL && l->cmd != NULL)
		loadgen_cmd_stop(l);
	if (l == NULL || !l->started)
		return;
	atomic_store(&l->stop, 1);
	pthread_join(l->thread, NULL);
	l->started = 0;
}

void
loadgen_disconnect(struct loadgen *l)
{
	int	i;

	if (l == NULL)
		return;
	loadgen_halt(l);
	loadgen_tcp_free(l);
	if (l->socks == NULL)
		return;
	/* one per node: all at once, not a node count of closes */
	dn_sock_close_all(l->socks, (size_t)l->n);
	for (i = 0; i < l->n; i++)
		l->socks[i] = NULL;
}

void
loadgen_free(struct loadgen *l)
{
	int	i;

	if (l == NULL)
		return;
	loadgen_disconnect(l);
	loadgen_http_free(l);
	loadgen_cmd_free(l);
	for (i = 0; i < l->n && l->bufs != NULL; i++)
		free(l->bufs[i]);
	free(l->socks);
	free(l->bufs);
	free(l->counts);
	free(l->nonces);
	free(l->zipf_cdf);
	free(l->load.lags);
	free(l->load.lat);
	pthread_mutex_destroy(&l->load.mu);
	if (l->t->load == &l->load)
		l->t->load = NULL;
	free(l);
}

void
loadgen_stats(struct loadgen *l, struct loadgen_stats *st)
{
	const struct scenario	*scn = l->t->scn;
	double			 e;

	st->submitted = atomic_load(&l->load.submitted);
	st->reported = !l->load.by_lines || atomic_load(&l->load.heard);
	st->wait = l->spin ? "spin" : "sleep";
	st->realtime = atomic_load(&l->realtime);
	st->send_errors = atomic_load(&l->load.send_errors);
	e = (double)atomic_load(&l->load.elapsed_ns) / 1e9;
	st->elapsed_s = e;
	if (scn->workload.ramp_ms > 0 && e > 0) {
		double	ramp = (double)scn->workload.ramp_ms / 1000.0;
		double	r = e < ramp ? e : ramp;
		double	txs = r * (scn->workload.ramp_from_tps +
			    pacing_rate_at(scn, r)) / 2 + (e > ramp ?
			    (e - ramp) * scn->workload.tps : 0);

		st->target_tps = txs / e;
	} else
		st->target_tps = scn->workload.tps;
}

double
loadgen_lag_quantile(struct loadgen *l, double q)
{
	uint64_t	rank, seen = 0;
	double		v = 0;
	size_t		b;

	pthread_mutex_lock(&l->load.mu);
	if (l->lag_n > 0) {
		rank = (uint64_t)ceil(q * (double)l->lag_n);
		if (rank == 0)
			rank = 1;
		v = l->lag_max;
		for (b = 0; b < LAG_BUCKETS; b++) {
			seen += l->lag_hist[b];
			if (seen >= rank) {
				double	hi = b == 0 ? 1.0 :
				    pow(LAG_GROWTH, (double)b);

				if (b < LAG_BUCKETS - 1 && hi < v)
					v = hi;
				break;
			}
		}
	}
	pthread_mutex_unlock(&l->load.mu);
	return (v);
}
