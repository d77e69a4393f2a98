/*
 * endcheck.c: the end-of-trial checks: wait until every submitted
 * transaction has an outcome (drain), then halt the nodes and check that
 * they agree on the state hash at one height.
 *
 * Not here: stopping the nodes and the facts of the load (finish.c).
 */
#include <stdlib.h>
#include <string.h>

#include "trial/loadgen.h"
#include "provider/provider.h"
#include "run/runner-internal.h"
#include "transport.h"
#include "clock.h"
#include "sha256.h"
#include "xalloc.h"

#define STATUS_TIMEOUT_MS	2000

/*
 * Ask every node with ASK[k] set for its status at (nearly) the same
 * moment: all requests go out before any reply is read, so that the
 * answers describe one instant as closely as the nodes allow.  FLAGS are
 * DN_CTL_* request flags.  OK[k] says whether node k answered.  S holds
 * one REQ socket per node across the rounds of one check (opened and
 * dialled at the first, closed all at once at its end with
 * dn_sock_close_all): a round used to open, dial and close one per
 * node, 200 of each a round at 200 nodes, and a
 * close that hangs (nanomsg/nng#1543) left every later socket and its
 * connection open in the nodes (issue 40).  A request that timed out is
 * cancelled by the next one on the same socket; its late reply is
 * dropped by REQ.
 */
static void
ctl_status_all(struct trial *t, struct dn_sock **s, const int *ask,
    uint32_t flags, struct dn_status *st, int *ok)
{
	struct dn_hdr	  h = { .kind = DN_MSG_CTL_STATUS, .token = t->token,
			      .node = DN_NODE_NONE, .len = 4 };
	uint8_t		  req[DN_HDR_SIZE + 4];
	char		 *url, *cause = NULL;
	int		  k;

	for (k = 0; k < t->nnodes; k++) {
		ok[k] = 0;
		if (!ask[k] || s[k] != NULL)
			continue;
		if (dn_sock_open(&s[k], DN_SOCK_REQ, &cause) == 0) {
			url = setup_node_url(t, k, 1);
			if (dn_sock_dial(s[k], url, &cause) != 0) {
				dn_sock_close(s[k]);
				s[k] = NULL;
			} else
				dn_sock_set_timeouts(s[k], STATUS_TIMEOUT_MS,
				    STATUS_TIMEOUT_MS);
			free(url);
		}
		free(cause);
		cause = NULL;
	}
	for (k = 0; k < t->nnodes; k++) {
		if (s[k] == NULL)
			continue;
		h.t_ns = dn_now_ns();
		dn_hdr_put(req, &h);
		dn_put_u32(req + DN_HDR_SIZE, flags);
		if (dn_sock_send(s[k], req, sizeof(req), 0) != 0) {
			dn_sock_close(s[k]);
			s[k] = NULL;
		}
	}
	for (k = 0; k < t->nnodes; k++) {
		struct dn_hdr	 rh;
		void		*buf;
		size_t		 len;

		if (s[k] == NULL)
			continue;
		if (dn_sock_recv(s[k], &buf, &len, STATUS_TIMEOUT_MS) == 0) {
			ok[k] = dn_hdr_check(buf, len, t->token,
			    (uint32_t)t->nnodes, 0, &rh) == 0 &&
			    rh.kind == DN_MSG_CTL_STATUS && dn_status_get(
			    (uint8_t *)buf + DN_HDR_SIZE, rh.len, &st[k]) == 0;
			dn_msg_free(buf, len);
		}
	}
}

/* After the load: wait until every submitted transaction has an outcome
 * (or the drain time is over). */
void
endcheck_drain_txs(struct trial **ts, int nt)
{
	uint64_t	deadline = 0, t0 = dn_now_ns();
	int		i, pending;

	for (i = 0; i < nt; i++) {
		uint64_t d = (uint64_t)(4 * ts[i]->scn->network.block_interval_ms
		    + 2000) * 1000000u;
		if (d > deadline)
			deadline = d;
	}
	deadline += dn_now_ns();
	do {
		pending = 0;
		for (i = 0; i < nt; i++) {
			struct trial		*t = ts[i];
			struct loadgen_stats	 st;

			if (t->lg == NULL)
				continue;
			loadgen_stats(t->lg, &st);
			pthread_mutex_lock(&t->mu);
			if (t->tx_included + t->tx_failed <
			    st.submitted - st.send_errors)
				pending = 1;
			pthread_mutex_unlock(&t->mu);
		}
		if (!pending || signals_count > 0)
			break;
		/* the last inclusion ends the wait within 2 ms, not 20: this
		 * wait is part of every trial's overhead (issue 26) */
		signals_tick(READY_TICK_MS);
	} while (dn_now_ns() < deadline);
	for (i = 0; i < nt; i++)
		ts[i]->end_drain_ms = (int64_t)((dn_now_ns() - t0) / 1000000u);
}

/* Whether every node that answered reports one height. */
static int
heights_agree(const struct trial *t, const struct dn_status *st,
    const int *ok)
{
	int	k, ref = -1;

	for (k = 0; k < t->nnodes; k++) {
		if (!ok[k])
			continue;
		if (ref < 0)
			ref = k;
		else if (st[k].height != st[ref].height)
			return (0);
	}
	return (1);
}

/*
 * Check that the nodes agree on the state.  Blocks keep coming until the
 * nodes are told to stop proposing (DN_CTL_HALT), so: halt every running
 * node, wait until all report the same height (bounded), then take every
 * node's state hash in one round, and accept that round only if it too
 * shows one height.  A block proposed just before the halt can still be
 * on its way, hop by hop over the peer graph, when one round sees equal
 * heights (CI of stop 42: 50 nodes under ASan, one node a block ahead in
 * the hash round); the check then waits again.  Nodes at one height must
 * have one hash; a disagreement fails the trial.  Nodes left at
 * different heights when the time is up are each compared with the first
 * node at their own height.
 */
void
endcheck_state(struct trial *t)
{
	struct dn_status	*st;
	struct dn_sock		**socks;
	int			*ok, *ask, k, j, same, hashed;
	uint64_t		 deadline, t0 = dn_now_ns();
	char			 hex[65], hex2[65];

	if (node_kind(t)->skip_state_check(t))
		return;

	st = dn_xcalloc((size_t)t->nnodes, sizeof(*st));
	ok = dn_xcalloc((size_t)t->nnodes, sizeof(*ok));
	ask = dn_xcalloc((size_t)t->nnodes, sizeof(*ask));
	socks = dn_xcalloc((size_t)t->nnodes, sizeof(*socks));
	/* a node that died since the watch's last look (the drain) is a
	 * crash, said as one; it was only left out of the check */
	watch_exits(t);
	for (k = 0; k < t->nnodes; k++)
		ask[k] = !t->nodes[k].down && !t->nodes[k].stopped &&
		    !t->nodes[k].proc.exited;
	deadline = dn_now_ns() + (uint64_t)(10 *
	    t->scn->network.block_interval_ms + 5000) * 1000000u;
	/* same: the last round showed one height; the next asks for the
	 * hashes, and is the answer if it shows one height as well */
	same = 0;
	for (;;) {
		hashed = same;
		ctl_status_all(t, socks, ask, DN_CTL_HALT |
		    (hashed ? DN_CTL_WANT_HASH : 0), st, ok);
		t->end_state_rounds++;
		same = heights_agree(t, st, ok);
		if (hashed && same)
			break;
		if (signals_count || dn_now_ns() >= deadline) {
			if (!hashed) {
				ctl_status_all(t, socks, ask, DN_CTL_HALT |
				    DN_CTL_WANT_HASH, st, ok);
				t->end_state_rounds++;
			}
			break;
		}
		if (same)
			continue;
		/* the halted nodes converge in a gossip round trip: look
		 * again soon (at most a quarter block interval) */
		signals_tick(t->scn->network.block_interval_ms / 4 + 1 < 10 ?
		    (int)(t->scn->network.block_interval_ms / 4) + 1 : 10);
	}
	dn_sock_close_all(socks, (size_t)t->nnodes);
	free(socks);
	/* and one that died during the check (a node on a full disk,
	 * asked for its hash under ASan: CI of stop 43) */
	watch_exits(t);
	t->end_state_ms = (int64_t)((dn_now_ns() - t0) / 1000000u);
	if (!heights_agree(t, st, ok))
		trial_event(t, -1, "height_split", "the nodes still reported "
		    "more than one height when the state check ended; each "
		    "is compared with the first node at its own height");
	for (k = 0; k < t->nnodes; k++) {
		if (!ok[k]) {
			if (ask[k])
				trial_event(t, k, "no_status", "did not answer "
				    "the final status request");
			continue;
		}
		dn_hex(st[k].state_hash, 32, hex);
		trial_fact(t, k, "height", "%llu",
		    (unsigned long long)st[k].height);
		trial_fact(t, k, "state_hash", "%s", hex);
		for (j = 0; j < k; j++)
			if (ok[j] && st[j].height == st[k].height)
				break;
		if (j == k ||
		    memcmp(st[k].state_hash, st[j].state_hash, 32) == 0)
			continue;
		dn_hex(st[j].state_hash, 32, hex2);
		trial_event(t, k, "state_mismatch", "height %llu: "
		    "node %d has %.16s, node %d has %.16s",
		    (unsigned long long)st[k].height, j, hex2, k, hex);
		trial_fail(t, "nodes %d and %d disagree on the state at "
		    "height %llu", j, k, (unsigned long long)st[k].height);
	}
	free(st);
	free(ok);
	free(ask);
}
