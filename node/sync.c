/*
 * sync.c: keeping the node's chain in step with the devnet (chain
 * thread): applying a block, buffering blocks that arrive early and
 * applying them in order, asking a peer for missing blocks, and the
 * height and lag gauges other threads read.  Not the rules of a block
 * (chain.c), nor proposing (chain-thread.c).
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "block.h"
#include "chain.h"
#include "node-internal.h"
#include "protocol.h"
#include "clock.h"
#include "xalloc.h"

#define FETCH_RETRY_MS	250

uint64_t
best_height(struct node *n)
{
	uint64_t	best = n->best_block;
	uint32_t	k;

	for (k = 0; k < n->o.nodes; k++) {
		if (n->peer_height[k] > best)
			best = n->peer_height[k];
	}
	return (best);
}

/* Set a lag gauge and raise its peak-since-last-sample. */
static void
set_lag(atomic_uint_fast64_t *cur, atomic_uint_fast64_t *peak, uint64_t v)
{
	uint_fast64_t	p = atomic_load(peak);

	atomic_store(cur, v);
	while (v > p && !atomic_compare_exchange_weak(peak, &p, v))
		;
}

void
publish_state(struct node *n)
{
	struct chain_head	h;
	uint64_t		best, now, since = 0, lowest = UINT64_MAX;
	size_t			i;
	uint32_t		k;

	chain_head(n->chain, &h);
	atomic_store(&n->height, h.height);
	atomic_store(&n->txs_applied, h.txs_applied);
	atomic_store(&n->txs_rejected, h.txs_rejected);
	atomic_store(&n->mempool, chain_mempool_size(n->chain));
	best = best_height(n);
	if (best <= h.height) {
		uint64_t	lag = n->last_apply_delay_ns / 1000000;
		uint64_t	at = block_ns(n, h.height, h.proposed_ns);
		uint64_t	due = at + (uint64_t)n->o.block_ms * 1000000;

		/* Not behind any peer, but the chain itself may be behind
		 * its schedule (a stalled proposer): that counts too. */
		now = dn_now_ns();
		if (at != 0 && now > due &&
		    (now - due) / 1000000 > lag)
			lag = (now - due) / 1000000;
		set_lag(&n->lag_blocks, &n->lag_blocks_peak, 0);
		set_lag(&n->lag_ms, &n->lag_ms_peak, lag);
		return;
	}
	set_lag(&n->lag_blocks, &n->lag_blocks_peak, best - h.height);
	/* Behind: age of the oldest block we know of and have not applied:
	 * a buffered one, else the one a peer announced. */
	for (i = 0; i < BUFFER_SLOTS; i++) {
		if (n->buf[i].height > h.height &&
		    n->buf[i].height < lowest) {
			lowest = n->buf[i].height;
			since = n->buf[i].proposed_ns;
		}
	}
	if (since == 0) {
		for (k = 0; k < n->o.nodes; k++) {
			if (n->peer_height[k] > h.height &&
			    n->peer_head_ns[k] != 0 &&
			    (since == 0 || n->peer_head_ns[k] < since))
				since = n->peer_head_ns[k];
		}
	}
	now = dn_now_ns();
	set_lag(&n->lag_ms, &n->lag_ms_peak, since != 0 && now > since ?
	    (now - since) / 1000000 : 0);
}

static void
send_included(struct node *n, const uint8_t *p, size_t len)
{
	struct block	 b;
	struct dn_tx	 tx;
	uint8_t		*pl;
	size_t		 plen;
	uint32_t	 i;

	if (n->agent == NULL || block_decode(p, len, &b) != 0)
		return;
	plen = 24 + (size_t)b.ntx * DN_INCL_ENTRY;
	pl = dn_xcalloc(1, plen);
	dn_put_u64(pl, b.height);
	dn_put_u64(pl + 8, b.proposed_ns);
	dn_put_u32(pl + 16, b.ntx);
	for (i = 0; i < b.ntx; i++) {
		uint8_t	*e = pl + 24 + (size_t)i * DN_INCL_ENTRY;

		dn_tx_get(b.txs + (size_t)i * DN_TX_SIZE, &tx);
		dn_put_u64(e, tx.id);
		dn_put_u64(e + 8, tx.intended_ns);
		dn_put_u32(e + 16, n->status[i]);
	}
	if (dn_agent_send(n->agent, DN_MSG_INCLUDED, pl, plen, 0) != 0)
		nlog(n, "DN-NODE-INCLUDED-DROP", "INCLUDED of block %" PRIu64
		    " could not be sent to the collector", b.height);
	free(pl);
}

/* Apply block payload P; 0 or -1 (refused, logged). */
int
apply(struct node *n, const uint8_t *p, size_t len, int mine)
{
	struct block	 b;
	char		*cause = NULL;
	uint64_t	 t0 = dn_now_ns(), now, at;
	uint32_t	 i, ok = 0;

	if (block_decode(p, len, &b) != 0)
		return (-1);
	if (b.ntx > n->status_cap) {
		n->status = dn_xrealloc(n->status, b.ntx);
		n->status_cap = b.ntx;
	}
	if (chain_apply(n->chain, p, len, n->status, &cause) != 0) {
		nlog(n, "DN-NODE-BADBLOCK", "block %" PRIu64 " refused: %s",
		    b.height, cause);
		free(cause);
		return (-1);
	}
	now = dn_now_ns();
	at = block_ns(n, b.height, b.proposed_ns);
	n->last_apply_delay_ns = now > at ? now - at : 0;
	for (i = 0; i < b.ntx; i++)
		ok += n->status[i] == DN_TX_OK;
	nlog(n, "DN-NODE-BLOCK", "height=%" PRIu64 " proposer=%u txs=%u "
	    "ok=%u rejected=%u apply_us=%" PRIu64 " delay_ms=%" PRIu64
	    "%s", b.height, b.proposer, b.ntx, ok, b.ntx - ok,
	    (now - t0) / 1000, n->last_apply_delay_ns / 1000000,
	    mine ? " proposed" : "");
	if (mine)
		send_included(n, p, len);
	return (0);
}

/*
 * Block times across hosts.  A block carries its proposer's
 * CLOCK_MONOTONIC; on another host that clock counts from another boot,
 * and pacing (the next proposal is due a block interval after the head)
 * or lag computed on it would be off by the hosts' difference: blocks as
 * fast as they can go, lags of days.  Each message from peer K gives
 * d = our receive time - its send time = delay - (its clock - ours); the
 * least d seen is that difference short by the smallest one-way delay,
 * and K's time plus it is ours.  Only for peers of another host
 * (--peer-hosts): one host's nodes share one clock.
 */
void
clock_seen(struct node *n, uint32_t k, uint64_t t_ns, uint64_t now)
{
	int64_t	d = (int64_t)(now - t_ns);

	if (!n->clock_other[k])
		return;
	if (!n->clock_known[k] || d < n->clock_d[k]) {
		n->clock_d[k] = d;
		n->clock_known[k] = 1;
	}
}

uint64_t
block_ns(const struct node *n, uint64_t height, uint64_t ns)
{
	uint32_t	k = (uint32_t)(height % n->o.nodes);	/* proposer */

	if (ns == 0 || !n->clock_other[k] || !n->clock_known[k])
		return (ns);
	return (ns + (uint64_t)n->clock_d[k]);
}

int
buffer_put(struct node *n, const uint8_t *p, size_t len,
    const struct block *b, uint32_t from)
{
	struct buffered	*s = &n->buf[b->height % BUFFER_SLOTS];

	if (s->height == b->height)
		return (0);
	free(s->p);
	s->height = b->height;
	s->proposed_ns = block_ns(n, b->height, b->proposed_ns);
	s->p = dn_xmalloc(len);
	memcpy(s->p, p, len);
	s->len = len;
	s->from = from;
	return (1);
}

/*
 * Propagation: our receive time minus the proposal time the block
 * carries.  Both are CLOCK_MONOTONIC, which every process of one host
 * shares (network namespaces do not touch clocks) and which no NTP step
 * moves, unlike CLOCK_REALTIME; a proposer on another host is put on our
 * clock by block_ns (its estimated offset).  Counted once per block, at
 * its first arrival (gossip or a fetch after a gap: a block that reached
 * us late through a fetch did propagate that late).
 */
void
note_arrival(struct node *n, const struct block *b)
{
	uint64_t	at = block_ns(n, b->height, b->proposed_ns);
	uint64_t	now = dn_now_ns(), us;

	if (b->proposer == n->o.index || at == 0)
		return;
	us = now > at ? (now - at) / 1000 : 0;
	if (us >= (1ull << PROP_SHIFT))		/* 200 days: not a block */
		return;
	atomic_fetch_add(&n->prop_acc, (1ull << PROP_SHIFT) + us);
}

/* Apply buffered blocks that follow the head, in order. */
void
drain_buffer(struct node *n)
{
	struct chain_head	 h;
	struct buffered		*s;
	int			 rv;

	for (;;) {
		chain_head(n->chain, &h);
		s = &n->buf[(h.height + 1) % BUFFER_SLOTS];
		if (s->height != h.height + 1)
			return;
		rv = apply(n, s->p, s->len, 0);
		/* Gossip: a block goes on once, after it applied here (no
		 * peer gets a block this node refused); its height is its
		 * seen-mark, as the head and the buffer hold it */
		if (rv == 0 && n->gossip)
			relay(n, s->from, DN_MSG_BLOCK, s->p, s->len);
		free(s->p);
		memset(s, 0, sizeof(*s));
		if (rv != 0)
			return;
		n->next_fetch_ns = 0;	/* more may be missing: ask now */
	}
}

void
maybe_fetch(struct node *n, uint64_t now)
{
	struct chain_head	h;
	uint8_t			req[BLOCK_REQ_SIZE];
	uint64_t		best = 0;
	uint32_t		k, from_peer = UINT32_MAX;

	if (now < n->next_fetch_ns)
		return;
	chain_head(n->chain, &h);
	if (best_height(n) <= h.height)
		return;
	/* Ask the peer with the highest announced head; else the proposer
	 * of the next block. */
	for (k = 0; k < n->o.nodes; k++) {
		if (k != n->o.index && n->peer_height[k] > best) {
			best = n->peer_height[k];
			from_peer = k;
		}
	}
	if (from_peer == UINT32_MAX || best <= h.height)
		from_peer = (uint32_t)((h.height + 1) % n->o.nodes);
	/* gossip: the proposer may be no peer; then one of the peers */
	if (n->gossip && n->peers[from_peer] == NULL)
		from_peer = n->o.peer_list[(h.height + 1) %
		    n->o.npeer_list];
	if (from_peer == n->o.index)
		return;
	block_req_encode(req, h.height + 1, BLOCK_REQ_MAX);
	send_peer(n, from_peer, DN_MSG_BLOCK_REQ, req, sizeof(req));
	n->next_fetch_ns = now + FETCH_RETRY_MS * 1000000ull;
}
