/*
 * chain-thread.c: the chain thread's loop (chain_main): wait for a
 * message, propose a block on our turn, ask for missing blocks, announce
 * our head, publish the gauges.  It alone touches the chain, the mempool
 * and the chain-thread fields of struct node.  Not the message handlers
 * (gossip.c) nor catching up (sync.c).
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "block.h"
#include "chain.h"
#include "node-internal.h"
#include "transport.h"
#include "clock.h"

/* Our turn and time: build, apply (one batch), then gossip. */
static void
maybe_propose(struct node *n, uint64_t now)
{
	struct chain_head	 h;
	uint64_t		 at, interval;
	uint8_t			*p = NULL;
	size_t			 len;
	char			*cause = NULL;

	n->propose_at_ns = UINT64_MAX;
	if (!atomic_load(&n->ready) || atomic_load(&n->halted))
		return;
	interval = (uint64_t)n->o.block_ms * 1000000;
	chain_head(n->chain, &h);
	if ((h.height + 1) % n->o.nodes != n->o.index ||
	    best_height(n) > h.height)
		return;
	/* the head's time on our clock (another host's proposer: sync.c) */
	at = block_ns(n, h.height, h.proposed_ns);
	/* Genesis, or a head from another boot (monotonic clock reset):
	 * count from readiness. */
	if (at == 0 || at > now + interval)
		at = atomic_load(&n->ready_ns);
	at += interval;
	if (now < at) {
		n->propose_at_ns = at;
		return;
	}
	if (chain_build(n->chain, n->o.index, now, n->o.block_max_txs, &p,
	    &len, &cause) != 0) {
		nlog(n, "DN-NODE-ERROR", "cannot build block %" PRIu64 ": %s",
		    h.height + 1, cause);
		free(cause);
		return;
	}
	/* Applied (durable) before anyone sees it: a crash can never leave
	 * two different blocks at one height. */
	if (apply(n, p, len, 1) == 0) {
		broadcast(n, DN_MSG_BLOCK, p, len);
		n->next_head_ns = 0;
	}
	free(p);
}

/* How long the chain thread may wait for a message: until the next
 * thing it must do on its own (propose, announce, re-fetch), 1-100 ms. */
static int
wait_ms(struct node *n)
{
	struct chain_head	h;
	uint64_t		next = n->next_head_ns, now = dn_now_ns();

	if (n->propose_at_ns < next)
		next = n->propose_at_ns;
	chain_head(n->chain, &h);
	if (best_height(n) > h.height && n->next_fetch_ns < next)
		next = n->next_fetch_ns;
	if (next <= now + 1000000)
		return (1);
	if (next - now >= 100000000)
		return (100);
	return ((int)((next - now) / 1000000));
}

void *
chain_main(void *arg)
{
	struct node		*n = arg;
	struct chain_head	 h;
	uint8_t			 hp[HEAD_SIZE];
	uint64_t		 now;
	void			*msg;
	size_t			 len;
	int			 rv;

	while (!atomic_load(&n->stop)) {
		rv = dn_sock_recv_idle(n->in, &msg, &len, wait_ms(n));
		if (rv == 0) {
			on_message(n, msg, len);
			dn_msg_free(msg, len);
		} else if (rv != DN_EAGAIN) {
			nlog(n, "DN-NODE-ERROR", "receive failed: %s",
			    dn_sock_strerror(rv));
			dn_msleep(10);
		}
		now = dn_now_ns();
		maybe_propose(n, now);
		maybe_fetch(n, now);
		if (now >= n->next_head_ns) {
			chain_head(n->chain, &h);
			head_encode(hp, h.height, h.proposed_ns);
			broadcast(n, DN_MSG_HEAD, hp, sizeof(hp));
			n->next_head_ns = now +
			    (uint64_t)n->o.block_ms * 1000000;
		}
		publish_state(n);
	}
	return (NULL);
}
