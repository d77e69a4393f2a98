/*
 * net.c: the node's sockets and the sending side of node-to-node
 * messages: endpoints, opening and closing the PULL (in), REP (control)
 * and per-peer PUSH sockets (every other node, or the --peers of the
 * gossip graph), framing a message, sending to one peer or
 * all, counting connected peers and rejected messages.  Not what a
 * received message does (gossip.c, control.c).
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "node-internal.h"
#include "protocol.h"
#include "transport.h"
#include "clock.h"
#include "xalloc.h"

/* messages queued per peer: 10 s of a peer's gossip at 25 TPS.  A peer
 * that reads later than that is fed by HEAD and BLOCK_REQ; at 8,192 a
 * lagging node's block requests (64 blocks every 250 ms, sync.c) filled
 * its peers' queues to the cap, 4.5 MB of heap a node in the slow end of
 * a 200-node trial (docs/benchmarks.md, "RSS at 200 nodes") */
#define PEER_SENDBUF	256
#define IN_RECVBUF	8192
#define REJECT_LOG_MAX	10	/* rejects logged one by one, then 1/1000 */
#define CTL_PIPES_MAX	16	/* devnet's control connections, and room */

char *
endpoint(const struct opts *o, uint32_t k, int ctl)
{
	/* both --net and --tcp-base: control on ipc, peers over TCP */
	if (o->net != NULL && (o->tcp_base == 0 || ctl))
		return (dn_xasprintf("ipc://%s/n%u.%s", o->net, k,
		    ctl ? "ctl" : "in"));
	/* --peer-hosts: node K at its host, its own listeners included */
	return (dn_xasprintf("tcp://%s:%u", o->peer_hosts != NULL ?
	    o->peer_hosts[k] : "127.0.0.1", o->tcp_base + 2 * k +
	    (ctl ? 1 : 0)));
}

int
open_sockets(struct node *n, char **cause)
{
	uint32_t	 k;
	char		*url;
	int		 rv;

	if (dn_sock_open(&n->in, DN_SOCK_PULL, cause) != 0)
		return (-1);
	dn_sock_set_bufs(n->in, 0, IN_RECVBUF);
	/* reachable by every local user over TCP (issue 38): each peer,
	 * twice while one restarts, the load's two ways in, and a few */
	dn_sock_guard(n->in, (int)(2 * n->o.nodes + 8));
	if (dn_sock_listen(n->in, n->in_url, cause) != 0)
		return (-1);
	if (n->o.net != NULL && n->o.tcp_base != 0) {
		/* the orchestrator's load, from another namespace */
		url = dn_xasprintf("ipc://%s/n%u.in", n->o.net, n->o.index);
		rv = dn_sock_listen(n->in, url, cause);
		free(url);
		if (rv != 0)
			return (-1);
	}
	if (dn_sock_open(&n->ctl, DN_SOCK_REP, cause) != 0)
		return (-1);
	dn_sock_guard(n->ctl, CTL_PIPES_MAX);
	if (dn_sock_listen(n->ctl, n->ctl_url, cause) != 0)
		return (-1);
	n->peers = dn_xcalloc(n->o.nodes, sizeof(*n->peers));
	n->dialed = dn_xcalloc(n->o.nodes, 1);
	/* --peers: only the graph's edges are dialled (the others count as
	 * dialled); else every other node */
	n->gossip = n->o.peer_list != NULL;
	if (n->gossip) {
		memset(n->dialed, 1, n->o.nodes);
		for (k = 0; k < n->o.npeer_list; k++)
			n->dialed[n->o.peer_list[k]] = 0;
	}
	n->dialed[n->o.index] = 1;
	n->npeers = n->gossip ? n->o.npeer_list : n->o.nodes - 1;
	n->dials_pending = n->npeers;
	for (k = 0; k < n->o.nodes; k++) {
		if (n->dialed[k])
			continue;
		if (dn_sock_open(&n->peers[k], DN_SOCK_PUSH, cause) != 0)
			return (-1);
		dn_sock_set_bufs(n->peers[k], PEER_SENDBUF, 0);
		/* a peer connected: check_ready, now (node.c) */
		dn_sock_wake_on_pipe(n->peers[k], n->ctl);
	}
	return (dial_peers(n, cause));
}

/*
 * Dial every peer not dialled yet whose listener is there
 * (dn_sock_url_present: its ipc path exists; a TCP peer is dialled at
 * once and nng redials until it listens).  A dial to an ipc path that
 * is not there yet fails, and nng 1.5.2's poller spins on the failed
 * connection until its reaper frees it, every 10-50 ms redial: in a
 * 10-node start that was a fifth of both cores (issue 26).  The control
 * loop calls again until none is pending.
 */
int
dial_peers(struct node *n, char **cause)
{
	uint32_t	 k;
	char		*url;
	int		 rv = 0;

	for (k = 0; k < n->o.nodes && n->dials_pending > 0 && rv == 0;
	    k++) {
		if (k == n->o.index || n->dialed[k])
			continue;
		url = endpoint(&n->o, k, 0);
		if (dn_sock_url_present(url)) {
			rv = dn_sock_dial(n->peers[k], url, cause);
			n->dialed[k] = 1;
			n->dials_pending--;
		}
		free(url);
	}
	return (rv == 0 ? 0 : -1);
}

void
close_sockets(struct node *n)
{
	uint32_t	k;

	if (n->peers != NULL) {
		for (k = 0; k < n->o.nodes; k++)
			dn_sock_close(n->peers[k]);
	}
	free(n->peers);
	n->peers = NULL;
	free(n->dialed);
	n->dialed = NULL;
	dn_sock_close(n->in);
	dn_sock_close(n->ctl);
	n->in = n->ctl = NULL;
}

/* A whole message of KIND with PAYLOAD; the caller frees. */
uint8_t *
message(struct node *n, uint16_t kind, const void *payload, size_t len,
    uint64_t seq)
{
	struct dn_hdr	 h = { .kind = kind, .token = n->o.token,
			    .node = n->o.index, .len = (uint32_t)len,
			    .seq = seq, .t_ns = dn_now_ns() };
	uint8_t		*buf;

	buf = dn_xmalloc(DN_HDR_SIZE + len);
	dn_hdr_put(buf, &h);
	if (len > 0)
		memcpy(buf + DN_HDR_SIZE, payload, len);
	return (buf);
}

/* Send one message to peer K (non-blocking: a full queue drops it; the
 * peer recovers through HEAD and BLOCK_REQ). */
void
send_peer(struct node *n, uint32_t k, uint16_t kind, const void *payload,
    size_t len)
{
	uint8_t	*buf;

	if (k == n->o.index || n->peers[k] == NULL)
		return;
	buf = message(n, kind, payload, len, ++n->seq);
	(void)dn_sock_send(n->peers[k], buf, DN_HDR_SIZE + len, 1);
	free(buf);
}

void
relay(struct node *n, uint32_t except, uint16_t kind, const void *payload,
    size_t len)
{
	uint32_t	k;

	for (k = 0; k < n->o.nodes; k++) {
		if (k != except)
			send_peer(n, k, kind, payload, len);
	}
}

void
broadcast(struct node *n, uint16_t kind, const void *payload, size_t len)
{
	relay(n, UINT32_MAX, kind, payload, len);
}

int
peers_connected(struct node *n)
{
	uint32_t	k;
	int		c = 0;

	for (k = 0; k < n->o.nodes; k++) {
		if (n->peers[k] != NULL && dn_sock_npipes(n->peers[k]) > 0)
			c++;
	}
	return (c);
}

void
count_reject(struct node *n, int reason, const struct dn_hdr *h)
{
	uint64_t	k = atomic_fetch_add(&n->rejected, 1) + 1;

	if (k <= REJECT_LOG_MAX || k % 1000 == 0)
		nlog(n, "DN-NODE-REJECT", "message rejected: %s (kind %u, "
		    "node %u; %" PRIu64 " rejected so far)",
		    dn_reject_name(reason), h != NULL ? h->kind : 0,
		    h != NULL ? h->node : 0, k);
}
