/*
 * agent.c: the metrics agent (see agent.h).  One sample per interval on a
 * fixed schedule (start + k * interval, so a slow sample does not shift
 * the later ones), taken on the thread that ticks it and written to the
 * collector's socket on that thread, non-blocking (sp-push.h).  Not the
 * loop that ticks it (devnet-node's control loop).
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "alloc.h"
#include "clock.h"
#include "metric-table.h"
#include "sampler.h"
#include "sp-push.h"
#include "transport.h"
#include "xalloc.h"

#define FINAL_TIMEOUT_MS	500
#define FINAL_FLUSH_MS		100	/* the final sample's write, at most */
/* bytes held for the collector when its socket is full or not yet
 * there: ~1,000 samples, what nng's queue of 1024 messages held */
#define AGENT_SENDBUF		(512u << 10)
/* A tick this close before the due time takes the sample: nng's timeouts
 * count whole milliseconds from a truncated clock, so a wait of the ms
 * dn_agent_tick returned can end up to 1 ms early, and a second wait for
 * the rest would be the wake-up this design saves. */
#define TICK_SLACK_NS		1000000ull

struct dn_agent {
	struct dn_agent_config	 c;
	char			*url;
	struct dn_sppush	*push;
	struct dn_sampler	 sampler;
	int			 started;
	uint64_t		 interval_ns;
	uint64_t		 next_ns;	/* when the next sample is due */

	pthread_mutex_t		 lock;	/* guards the send path */

	uint64_t		 sample_seq;	/* the ticking thread only */
	uint64_t		 other_seq;	/* under lock */
	atomic_uint_fast64_t	 dropped;
};

int
dn_agent_connected(struct dn_agent *a)
{
	return (dn_sppush_connected(a->push));
}

/* Send BUF; waits up to TIMEOUT_MS if > 0.  Called under a->lock, so
 * that messages leave in the order of their sequence numbers. */
static int
send_locked(struct dn_agent *a, const void *buf, size_t len, int timeout_ms)
{
	int	rv;

	rv = dn_sppush_send(a->push, buf, len, timeout_ms);
	if (rv != 0)
		atomic_fetch_add(&a->dropped, 1);
	return (rv);
}

int
dn_agent_send(struct dn_agent *a, uint16_t kind, const void *payload,
    size_t len, int timeout_ms)
{
	struct dn_hdr	 h = { .kind = kind, .token = a->c.token,
			    .node = a->c.node, .len = (uint32_t)len };
	uint8_t		*buf;
	int		 rv;

	if (len > DN_MSG_MAX - DN_HDR_SIZE)
		return (-1);
	buf = dn_xmalloc(DN_HDR_SIZE + len);
	if (len > 0)
		memcpy(buf + DN_HDR_SIZE, payload, len);
	pthread_mutex_lock(&a->lock);
	h.seq = ++a->other_seq;
	h.t_ns = dn_now_ns();
	dn_hdr_put(buf, &h);
	rv = send_locked(a, buf, DN_HDR_SIZE + len, timeout_ms);
	pthread_mutex_unlock(&a->lock);
	free(buf);
	return (rv);
}

/* Take one sample and send it (final: flagged, with a short wait). */
static void
sample_once(struct dn_agent *a, int final)
{
	struct dn_sample	s;
	struct dn_alloc_stats	st;
	struct dn_hdr		h = { .token = a->c.token, .node = a->c.node };
	uint8_t			buf[DN_HDR_SIZE + 8 + 8 * DN_SAMPLE_MAX];
	size_t			n;
	int			i;

	memset(&s, 0, sizeof(s));
	s.count = DN_METRIC_COUNT;
	s.flags = final ? DN_SAMPLE_FINAL : 0;
	if (a->c.fill != NULL)
		a->c.fill(a->c.arg, s.values);
	s.absent = dn_sampler_read(&a->sampler, s.values);
	/* what the node's fill could not see this interval (NAN): absent,
	 * not 0 */
	for (i = 0; i < DN_METRIC_COUNT; i++)
		if (isnan(s.values[i])) {
			s.absent |= 1ull << i;
			s.values[i] = 0;
		}
	dn_alloc_read(&st);
	s.values[DN_M_ALLOCS] = (double)st.allocs;
	s.values[DN_M_FREES] = (double)st.frees;
	s.values[DN_M_ALLOC_BYTES] = (double)st.alloc_bytes;
	s.values[DN_M_HEAP_LIVE_BYTES] = st.alloc_bytes >= st.free_bytes ?
	    (double)(st.alloc_bytes - st.free_bytes) : 0;
	/* no counter linked (sanitizer builds: the runtime owns malloc):
	 * the heap figures are not measured, so absent, never a 0 */
	if (!dn_alloc_enabled())
		s.absent |= 1ull << DN_M_ALLOCS | 1ull << DN_M_FREES |
		    1ull << DN_M_ALLOC_BYTES | 1ull << DN_M_HEAP_LIVE_BYTES;
	/* and those a lost connection cut in half */
	s.dropped = (uint32_t)(atomic_load(&a->dropped) +
	    dn_sppush_lost(a->push));
	s.values[DN_M_SAMPLES_DROPPED] = (double)s.dropped;
	h.seq = ++a->sample_seq;
	h.t_ns = dn_now_ns();
	n = dn_sample_encode(buf, sizeof(buf), &h, &s);
	if (n == 0) {
		atomic_fetch_add(&a->dropped, 1);
		return;
	}
	pthread_mutex_lock(&a->lock);
	(void)send_locked(a, buf, n, final ? FINAL_TIMEOUT_MS : 0);
	pthread_mutex_unlock(&a->lock);
}

int
dn_agent_tick(struct dn_agent *a)
{
	uint64_t	now = dn_now_ns();

	if (now + TICK_SLACK_NS >= a->next_ns) {
		sample_once(a, 0);
		a->next_ns += a->interval_ns;
		/* more than an interval late (a stopped process, a long
		 * control request): one sample for the gap, then on schedule */
		now = dn_now_ns();
		if (a->next_ns <= now)
			a->next_ns += (now - a->next_ns) / a->interval_ns *
			    a->interval_ns + a->interval_ns;
	}
	return (a->next_ns <= now + 1000000 ? 1 :
	    (int)((a->next_ns - now + 999999) / 1000000));
}

int
dn_agent_start(struct dn_agent **ap, const struct dn_agent_config *c,
    char **cause)
{
	struct dn_agent		*a;

	a = dn_xcalloc(1, sizeof(*a));
	a->c = *c;
	a->url = dn_xstrdup(c->url);
	a->c.url = a->url;
	if (a->c.interval_ms <= 0)
		a->c.interval_ms = 1000;
	a->sampler.fd_status = a->sampler.fd_fds = a->sampler.fd_cgmem = -1;
	atomic_init(&a->dropped, 0);
	pthread_mutex_init(&a->lock, NULL);
	if (dn_sampler_open(&a->sampler, cause) != 0)
		goto fail;
	/* not nng's PUSH socket: each of its sends woke nng's task
	 * threads, ~50 us of them per sample (issue 26, fourth round) */
	if (dn_sppush_open(&a->push, a->url, AGENT_SENDBUF, cause) != 0)
		goto fail;
	a->interval_ns = (uint64_t)a->c.interval_ms * 1000000;
	a->next_ns = dn_now_ns() + a->interval_ns;
	a->started = 1;
	*ap = a;
	return (0);
fail:
	dn_agent_stop(a);
	return (-1);
}

void
dn_agent_stop(struct dn_agent *a)
{
	if (a == NULL)
		return;
	if (a->started) {
		sample_once(a, 1);
		/* what the socket has not taken yet (a full socket held
		 * it back) must reach the kernel before the close: once there
		 * the peer reads it after the close too; FINAL_FLUSH_MS at
		 * most (issue 26). */
		(void)dn_sppush_flush(a->push, FINAL_FLUSH_MS);
	}
	dn_sppush_close(a->push);
	dn_sampler_close(&a->sampler);
	pthread_mutex_destroy(&a->lock);
	free(a->url);
	free(a);
}
