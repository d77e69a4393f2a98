/*
 * gossip.c: what the chain thread does with a message on its PULL socket:
 * TXS into the mempool (and forwarded once to every peer; with --peers
 * relayed hop by hop, each id once), BLOCK into the buffer (relayed once
 * applied: sync.c), HEAD noted per peer, BLOCK_REQ answered with blocks.  Not the
 * applying or catching up itself (sync.c), nor the sockets (net.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "chain.h"
#include "clock.h"
#include "node-internal.h"
#include "protocol.h"
#include "xalloc.h"

/* Seen before (relayed already); else noted now. */
static int
tx_seen(struct node *n, uint64_t id)
{
	uint64_t	 x = id + 0x9e3779b97f4a7c15ull, *slot;

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	slot = &n->tx_seen[(x ^ (x >> 31)) % TX_SEEN_SLOTS];
	/* stored + 1: an empty slot (0) is no id */
	if (*slot == id + 1)
		return (1);
	*slot = id + 1;
	return (0);
}

/*
 * Gossip (--peers): the transactions of this TXS not relayed before go
 * on to every peer but the one they came from, one hop further.  The
 * TXS layout is [u32 count][u32 hops][count txs] (protocol.c).
 */
static void
relay_txs(struct node *n, const struct dn_hdr *h, const uint8_t *p,
    uint32_t count, uint32_t hops, const uint8_t *txs)
{
	struct dn_tx	 tx;
	uint32_t	 i, fresh = 0;
	uint8_t		*fwd;
	size_t		 off;

	if (hops + 1 >= GOSSIP_HOPS_MAX)
		return;
	off = (size_t)(txs - p);
	fwd = dn_xmalloc(off + (size_t)count * DN_TX_SIZE);
	memcpy(fwd, p, off);
	for (i = 0; i < count; i++) {
		const uint8_t	*t = txs + (size_t)i * DN_TX_SIZE;

		dn_tx_get(t, &tx);
		if (tx_seen(n, tx.id))
			continue;
		memcpy(fwd + off + (size_t)fresh * DN_TX_SIZE, t, DN_TX_SIZE);
		fresh++;
	}
	if (fresh > 0) {
		dn_put_u32(fwd, fresh);
		dn_put_u32(fwd + 4, hops + 1);
		relay(n, h->node, DN_MSG_TXS, fwd,
		    off + (size_t)fresh * DN_TX_SIZE);
	}
	free(fwd);
}

static void
on_txs(struct node *n, const struct dn_hdr *h, const uint8_t *msg)
{
	const uint8_t	*p = msg + DN_HDR_SIZE, *txs;
	struct dn_tx	 tx;
	uint32_t	 count, hops, i;
	uint8_t		*fwd;
	int		 rv;

	if ((rv = dn_txs_check(p, h->len, &count, &hops, &txs)) != 0) {
		count_reject(n, rv, h);
		return;
	}
	for (i = 0; i < count; i++) {
		dn_tx_get(txs + (size_t)i * DN_TX_SIZE, &tx);
		(void)chain_mempool_add(n->chain, &tx);
	}
	if (n->gossip) {
		relay_txs(n, h, p, count, hops, txs);
		return;
	}
	if (hops != 0)
		return;
	/* From the load generator: every peer gets it once (full mesh). */
	fwd = dn_xmalloc(h->len);
	memcpy(fwd, p, h->len);
	dn_put_u32(fwd + 4, 1);
	broadcast(n, DN_MSG_TXS, fwd, h->len);
	free(fwd);
}

static void
on_block(struct node *n, const struct dn_hdr *h, const uint8_t *msg)
{
	const uint8_t		*p = msg + DN_HDR_SIZE;
	struct block		 b;
	struct chain_head	 head;
	int			 rv;

	if ((rv = block_decode(p, h->len, &b)) != 0 ||
	    b.proposer >= n->o.nodes) {
		count_reject(n, rv != 0 ? rv : -DN_REJ_PAYLOAD, h);
		return;
	}
	chain_head(n->chain, &head);
	if (b.height <= head.height)
		return;		/* already have it */
	if (b.height > n->best_block) {
		n->best_block = b.height;
		n->best_block_ns = block_ns(n, b.height, b.proposed_ns);
	}
	if (b.height > head.height + BUFFER_SLOTS)
		return;		/* too far ahead: fetched later */
	if (buffer_put(n, p, h->len, &b, h->node))
		note_arrival(n, &b);
	drain_buffer(n);
}

static void
on_head(struct node *n, const struct dn_hdr *h, const uint8_t *msg)
{
	uint64_t	height, ns;
	int		rv;

	if ((rv = head_decode(msg + DN_HDR_SIZE, h->len, &height, &ns)) != 0) {
		count_reject(n, rv, h);
		return;
	}
	n->peer_height[h->node] = height;
	n->peer_head_ns[h->node] = block_ns(n, height, ns);
}

static void
on_block_req(struct node *n, const struct dn_hdr *h, const uint8_t *msg)
{
	struct chain_head	 head;
	uint64_t		 from, ht;
	uint32_t		 max, sent = 0;
	uint8_t			*p;
	size_t			 len;
	char			*cause = NULL;
	int			 rv;

	if ((rv = block_req_decode(msg + DN_HDR_SIZE, h->len, &from,
	    &max)) != 0) {
		count_reject(n, rv, h);
		return;
	}
	if (max > BLOCK_REQ_MAX)
		max = BLOCK_REQ_MAX;
	chain_head(n->chain, &head);
	for (ht = from; ht <= head.height && sent < max; ht++, sent++) {
		rv = chain_block_get(n->chain, ht, &p, &len, &cause);
		if (rv < 0) {
			nlog(n, "DN-NODE-ERROR", "cannot read block %" PRIu64
			    ": %s", ht, cause);
			free(cause);
			return;
		}
		if (rv == 0)
			return;
		send_peer(n, h->node, DN_MSG_BLOCK, p, len);
		free(p);
	}
}

void
on_message(struct node *n, const uint8_t *msg, size_t len)
{
	struct dn_hdr	h;
	int		rv;

	rv = dn_hdr_check(msg, len, n->o.token, n->o.nodes, 1, &h);
	if (rv != 0) {
		count_reject(n, rv, NULL);
		return;
	}
	if (h.kind == DN_MSG_TXS) {
		on_txs(n, &h, msg);
		return;
	}
	/* Everything else must come from another node of the devnet. */
	if (h.node == DN_NODE_NONE || h.node == n->o.index) {
		count_reject(n, -DN_REJ_NODE, &h);
		return;
	}
	clock_seen(n, h.node, h.t_ns, dn_now_ns());
	switch (h.kind) {
	case DN_MSG_BLOCK:
		on_block(n, &h, msg);
		break;
	case DN_MSG_HEAD:
		on_head(n, &h, msg);
		break;
	case DN_MSG_BLOCK_REQ:
		on_block_req(n, &h, msg);
		break;
	default:
		count_reject(n, -DN_REJ_KIND, &h);
	}
}
