/*
 * control.c: the orchestrator's side of the node (main thread): answering
 * control STATUS (with HALT and the state hash on request) and STOP, and
 * declaring the node ready (DN-NODE-READY, HELLO to the collector).  Not
 * the control loop itself (main in node.c).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "chain.h"
#include "node-internal.h"
#include "protocol.h"
#include "transport.h"
#include "clock.h"

void
on_control(struct node *n, const uint8_t *msg, size_t len)
{
	struct dn_hdr		h;
	struct dn_status	st;
	uint8_t			payload[DN_STATUS_SIZE], *reply;
	uint64_t		height;
	uint32_t		flags = 0;
	char			*cause = NULL;
	int			rv;

	rv = dn_hdr_check(msg, len, n->o.token, n->o.nodes, 1, &h);
	if (rv == 0 && h.kind != DN_MSG_CTL_STATUS &&
	    h.kind != DN_MSG_CTL_STOP)
		rv = -DN_REJ_KIND;
	if (rv != 0) {
		count_reject(n, rv, rv == -DN_REJ_KIND ? &h : NULL);
		return;
	}
	if (h.kind == DN_MSG_CTL_STOP) {
		reply = message(n, DN_MSG_CTL_STOP, NULL, 0, h.seq);
		(void)dn_sock_send(n->ctl, reply, DN_HDR_SIZE, 0);
		free(reply);
		nlog(n, "DN-NODE-CTL-STOP", "stop requested over control");
		atomic_store(&n->stop, 1);
		return;
	}
	if (h.len >= 4)
		flags = dn_get_u32(msg + DN_HDR_SIZE);
	if ((flags & DN_CTL_HALT) && atomic_exchange(&n->halted, 1) == 0)
		nlog(n, "DN-NODE-HALT", "proposals halted over control (end "
		    "of the trial)");
	memset(&st, 0, sizeof(st));
	st.height = atomic_load(&n->height);
	if (flags & DN_CTL_WANT_HASH) {
		if (chain_state_hash(n->store, st.state_hash, &height,
		    &cause) != 0) {
			nlog(n, "DN-NODE-ERROR", "state hash failed: %s",
			    cause);
			free(cause);
		} else
			st.height = height;	/* of the hashed snapshot */
	}
	st.txs_applied = atomic_load(&n->txs_applied);
	st.txs_rejected = atomic_load(&n->txs_rejected);
	st.mempool = (uint32_t)atomic_load(&n->mempool);
	st.peers = (uint32_t)peers_connected(n);
	st.pid = (uint32_t)getpid();
	st.flags = atomic_load(&n->ready) ? DN_CTL_READY : 0;
	dn_status_put(payload, &st);
	reply = message(n, DN_MSG_CTL_STATUS, payload, sizeof(payload), h.seq);
	(void)dn_sock_send(n->ctl, reply, DN_HDR_SIZE + sizeof(payload), 0);
	free(reply);
}

void
check_ready(struct node *n)
{
	uint8_t		hello[DN_HELLO_SIZE];

	if (atomic_load(&n->ready))
		return;
	if (peers_connected(n) < (int)n->npeers)
		return;
	if (n->agent != NULL && !dn_agent_connected(n->agent))
		return;
	/*
	 * The orchestrator waits for this HELLO and for nothing else: one
	 * that could not be sent (a full pipe on a crowded machine) would
	 * leave the node applying blocks but never ready.  So the node is
	 * ready only once its HELLO is on its way; until then the control
	 * loop calls again and it tries again.
	 */
	if (n->agent != NULL) {
		dn_put_u32(hello, (uint32_t)getpid());
		dn_put_u32(hello + 4, 0);
		if (dn_agent_send(n->agent, DN_MSG_HELLO, hello,
		    sizeof(hello), 1000) != 0) {
			nlog(n, "DN-NODE-HELLO-RETRY", "HELLO not sent; "
			    "trying again");
			return;
		}
	}
	atomic_store(&n->ready_ns, dn_now_ns());
	atomic_store(&n->ready, 1);
	nlog(n, "DN-NODE-READY", "index=%u nodes=%u pid=%d in=%s ctl=%s",
	    n->o.index, n->o.nodes, (int)getpid(), n->in_url, n->ctl_url);
}
