/*
 * gossip.c: what the chain thread does with a message on its PULL socket:
 * TXS into the mempool (and forwarded once to every peer), BLOCK into the
 * buffer, HEAD noted per peer, BLOCK_REQ answered with blocks.  Not the
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
	if (buffer_put(n, p, h->len, &b))
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
