/*
 * collector-guard.c: who may speak to the collector, and the count of
 * what it refused (issue 38).  A node's messages come through the
 * connection of its first HELLO; connections the transport's guard
 * refused at the cap or that ended before showing the token become
 * rejects; every reject is counted per reason, with one event per reason.
 * Called by collector.c (the thread); calls nothing of it.
 */
#include "trial/collector-internal.h"
#include "transport.h"
#include "trial/trial.h"

/* N messages (or connections) rejected for REASON. */
static void
reject_n(struct collector *c, int reason, uint32_t node, int64_t n)
{
	struct trial	*t = c->t;
	int		 first;

	if (reason < 0)
		reason = -reason;
	if (reason >= DN_REJ_COUNT)
		reason = DN_REJ_PAYLOAD;
	pthread_mutex_lock(&t->mu);
	t->rejected += n;
	first = t->rejected_by[reason] == 0;
	t->rejected_by[reason] += n;
	pthread_mutex_unlock(&t->mu);
	/* One event per reason; the totals go into run_facts at the end. */
	if (first)
		trial_event(t, node < (uint32_t)t->nnodes ? (int)node : -1,
		    "rejected", "%s (further ones counted, not logged)",
		    dn_reject_name(reason));
}

void
collector_reject(struct collector *c, int reason, uint32_t node)
{
	reject_n(c, reason, node, 1);
}

/* The guard's connections refused at the cap and ended before they
 * showed the token, since the last look: rejects. */
void
collector_guard_rejects(struct collector *c)
{
	uint64_t	refused, gone;

	dn_sock_guard_counts(c->sock, &refused, &gone);
	if (refused > c->refused_seen)
		reject_n(c, -DN_REJ_CONN, DN_NODE_NONE,
		    (int64_t)(refused - c->refused_seen));
	if (gone > c->gone_seen)
		reject_n(c, -DN_REJ_UNAUTH, DN_NODE_NONE,
		    (int64_t)(gone - c->gone_seen));
	c->refused_seen = refused;
	c->gone_seen = gone;
	if (dn_sock_relistens(c->sock) > c->relistens_seen) {
		c->relistens_seen = dn_sock_relistens(c->sock);
		trial_event(c->t, -1, "listener", "the collector's listener "
		    "stopped taking connections (nng 1.5.2: a peer went away "
		    "before its handshake) and was opened again (%u times); "
		    "the connections it held were closed and their nodes "
		    "dial again", c->relistens_seen);
	}
}

/*
 * Message H of a node came through PIPE: 0 if the node's messages may
 * come from there.  A first message with the token trusts its pipe.  The
 * node's first HELLO since devnet (re)started it binds the node to its
 * pipe; from then on the node's messages come through that pipe alone,
 * for as long as it lives (a node that reconnects has a new one once its
 * old one is gone), so a token holder cannot speak for a node that has
 * its own connection.  Before that HELLO nothing holds the node; once
 * the node's process has exited, nobody takes its place.
 */
int
collector_pipe_ok(struct collector *c, const struct dn_hdr *h, uint32_t pipe)
{
	struct trial	*t = c->t;
	uint32_t	*b = &c->bound[h->node];
	int		 first;

	if (*b == pipe)
		return (0);	/* the common case: no lock taken */
	/* the token is good: trusted, also when nng has not yet told the
	 * guard of the pipe (-1; the guard notes it for then) */
	if (dn_sock_pipe_state(c->sock, pipe) <= 0)
		dn_sock_pipe_trust(c->sock, pipe);
	if (h->kind == DN_MSG_HELLO) {
		pthread_mutex_lock(&t->mu);
		first = t->nodes[h->node].hello == 0;
		pthread_mutex_unlock(&t->mu);
		if (first) {
			*b = pipe;
			return (0);
		}
	}
	if (*b == 0)
		return (0);
	if (dn_sock_pipe_state(c->sock, *b) >= 0)
		return (-DN_REJ_PIPE);
	/* its connection is gone: the node's new one, unless the node
	 * itself is gone (a token holder then spoke for it, and a sender
	 * that outlives the trial was taken for node 0) */
	pthread_mutex_lock(&t->mu);
	first = t->nodes[h->node].proc.exited;
	pthread_mutex_unlock(&t->mu);
	if (first)
		return (-DN_REJ_PIPE);
	*b = pipe;
	return (0);
}
