/*
 * collector-clock.c: the times of a node on another host, moved onto
 * ours.  CLOCK_MONOTONIC is one clock on one host; a node on another
 * (provider swarm) counts from its own boot.  Each message from it gives
 * d = our receive time - its send time = delay - (its clock - ours); the
 * least d seen is the offset short by the smallest one-way delay (tens of
 * microseconds on a LAN), and a node time plus it is ours.  Nodes of this
 * host are left alone.
 *
 * The least d is only as good as the messages seen.  A node's first
 * message late by a scheduling delay (milliseconds on a loaded machine)
 * would, alone, put its first samples that much late, and nothing after
 * would move them back.  So a remote node's first messages (all but
 * HELLO, whose time is stored nowhere) are held until the offset has
 * seen CLOCK_SETTLE_MSGS of its messages or CLOCK_SETTLE_NS has passed
 * since the first, and handled then, in arrival order, at that offset;
 * after that each message is handled as it comes.  At the collector's
 * stop and before a remote node's HELLO (a restarted process) every held
 * message is handled first.  The cost: a remote node's first samples
 * reach the store, the live view and the assertions up to
 * CLOCK_SETTLE_NS later (a burst: the live judge takes the latest).
 *
 * Not here: the messages' meaning (collector.c, which takes the held
 * ones back with collector_clock_next).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "trial/collector-internal.h"
#include "trial/trial.h"
#include "buf.h"
#include "xalloc.h"

/*
 * A message stamped more than CLOCK_JUMP_NS ahead of what the offset so
 * far says (a monotonic clock does not jump: a forged or broken one)
 * moves nothing and is refused: else every later sample would land
 * before t=0.
 */
#define CLOCK_JUMP_NS		1000000000LL
#define CLOCK_SETTLE_MSGS	4
#define CLOCK_SETTLE_NS		1500000000ull

int
collector_clock_seen(struct collector *c, uint32_t node, uint64_t t_ns,
    uint64_t now)
{
	struct trial		*t = c->t;
	struct trial_node	*n = &t->nodes[node];
	int64_t			 d = (int64_t)(now - t_ns);
	int			 rv = 0;

	pthread_mutex_lock(&t->mu);
	if (n->have_clock && d < n->clock_d - CLOCK_JUMP_NS)
		rv = -1;
	else {
		if (!n->have_clock || d < n->clock_d) {
			n->clock_d = d;
			n->have_clock = 1;
		}
		if (n->clock_msgs++ == 0)
			n->clock_first_ns = now;
	}
	pthread_mutex_unlock(&t->mu);
	return (rv);
}

/* Whether NODE's offset has seen enough to be used at NOW (collector
 * thread: the only writer of the counts). */
int
collector_clock_settled(struct collector *c, uint32_t node, uint64_t now)
{
	const struct trial_node	*n = &c->t->nodes[node];

	return (n->clock_msgs >= CLOCK_SETTLE_MSGS ||
	    (n->clock_msgs > 0 && now - n->clock_first_ns >= CLOCK_SETTLE_NS));
}

uint64_t
collector_clock_ours(struct collector *c, uint32_t node, uint64_t t_ns)
{
	struct trial	*t = c->t;
	int64_t		 d;

	pthread_mutex_lock(&t->mu);
	d = t->nodes[node].clock_d;
	pthread_mutex_unlock(&t->mu);
	return (t_ns + (uint64_t)d);
}

void
collector_hold(struct collector *c, const struct dn_hdr *h,
    const uint8_t *buf, size_t len, uint64_t now)
{
	struct held	*m;

	c->held = dn_xgrow(c->held, &c->capheld, c->nheld + 1,
	    sizeof(*c->held));
	m = &c->held[c->nheld++];
	m->h = *h;
	m->buf = dn_xmalloc(len);
	memcpy(m->buf, buf, len);
	m->rx_ns = now;
}

/*
 * The oldest held message whose node's offset has settled by NOW (ALL:
 * any), its time on ours, into *OUT; 0 when there is none.  The caller
 * handles it and frees out->buf.  Few are ever held (CLOCK_SETTLE_MSGS
 * per remote node): a linear scan and a move.
 */
int
collector_clock_next(struct collector *c, uint64_t now, int all,
    struct held *out)
{
	size_t	i;

	for (i = 0; i < c->nheld; i++) {
		if (!all && !collector_clock_settled(c, c->held[i].h.node, now))
			continue;
		*out = c->held[i];
		out->h.t_ns = collector_clock_ours(c, out->h.node,
		    out->h.t_ns);
		memmove(c->held + i, c->held + i + 1,
		    (c->nheld - i - 1) * sizeof(*c->held));
		c->nheld--;
		return (1);
	}
	return (0);
}
