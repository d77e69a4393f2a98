/*
 * collector-internal.h: what the collector's two threads share
 * (collector.c receives and decodes, collector-writer.c stores): the
 * collector itself and the queue of rows between them.
 */
#ifndef DN_COLLECTOR_INTERNAL_H
#define DN_COLLECTOR_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"
#include "store.h"
#include "trial/trial-store.h"
#include "xalloc.h"

#define COMMIT_MS	250
/* The store's own batch: fewer, larger commits rewrite fewer leaf pages
 * (store.h, docs/benchmarks.md "Collector ingest"). */
#define COMMIT_ROWS	DN_STORE_BATCH_ROWS

/* A message of a node on another host, held until the offset of its
 * clock has seen the messages after it (collector-clock.c). */
struct held {
	struct dn_hdr	 h;		/* t_ns still the node's */
	uint8_t		*buf;		/* the whole message */
	uint64_t	 rx_ns;		/* when it arrived */
};

struct collector {
	struct trial	*t;
	struct dn_sock	*sock;
	pthread_t	 thread;
	atomic_int	 stop;
	int		 drain_ms;
	/* Rows decoded by the receiving thread, waiting for the writer
	 * thread (under wmu): receiving and sqlite run on two cores. */
	pthread_t	 writer;
	pthread_mutex_t	 wmu;
	pthread_cond_t	 wcv;
	struct trial_row *pend;
	size_t		 npend, cappend;
	int		 wstop;
	uint64_t	 rx_ns;		/* arrival of the message handled */
	struct held	*held;		/* in arrival order */
	size_t		 nheld, capheld;
	int64_t		 next_lg_ms;	/* next load generator sample */
	int64_t		 prev_submitted; /* at the previous one */

	/* The wire's guard (issue 38): node i's connection (its pipe,
	 * 0 = none yet), and the guard's counts already turned into
	 * rejects */
	uint32_t	*bound;
	uint64_t	 refused_seen, gone_seen;
	unsigned	 relistens_seen;	/* dn_sock_relistens */

	/* inclusion bookkeeping */
	/* NAMED: names seen and their metric ids (collector thread only) */
	char		**names;
	int		*name_ids;
	size_t		 nnames;

	uint8_t		*seen;		/* bitmap of tx ids with an outcome */
	size_t		 seen_bytes;
	double		*lat;		/* ms, this interval */
	size_t		 nlat, caplat;
};

/* Queue one value for the writer thread; wmu held. */
static inline void
collector_put(struct collector *c, int node, int metric, int64_t t_ms,
    double v)
{
	if (c->npend == c->cappend) {
		c->cappend = c->cappend ? c->cappend * 2 : 4096;
		c->pend = dn_xreallocarray(c->pend, c->cappend,
		    sizeof(*c->pend));
	}
	c->pend[c->npend++] = (struct trial_row){ node, metric, t_ms, v };
}

/*
 * The values queued since wmu was taken go to the writer; wmu released.
 * The writer is woken only for WAKE_ROWS rows or its stop: woken per
 * message it took a few rows per wake-up, each a futex wake and two
 * context switches; below that it finds them at its 50 ms timeout, well
 * inside COMMIT_MS (docs/benchmarks.md, "Ingest against its plain-sqlite
 * floor").
 */
#define WAKE_ROWS	8192
static inline void
collector_queue_end(struct collector *c)
{
	if (c->npend >= WAKE_ROWS || c->wstop)
		pthread_cond_signal(&c->wcv);
	pthread_mutex_unlock(&c->wmu);
}

/* One load generator sample at T_MS (collector-load.c): counters, rate,
 * latency and send lag percentiles of the interval just ended, queued
 * for the writer (takes wmu itself). */
void	 collector_load_sample(struct collector *c, int64_t t_ms);

/* A node on another host (collector-clock.c): note a message's times
 * (-1: a clock jump, refuse it); whether its offset can be used yet; a
 * node time on ours; hold a message; take back the next one due at NOW
 * (ALL: any). */
int	 collector_clock_seen(struct collector *c, uint32_t node,
	    uint64_t t_ns, uint64_t now);
int	 collector_clock_settled(struct collector *c, uint32_t node,
	    uint64_t now);
uint64_t collector_clock_ours(struct collector *c, uint32_t node,
	    uint64_t t_ns);
void	 collector_hold(struct collector *c, const struct dn_hdr *h,
	    const uint8_t *buf, size_t len, uint64_t now);
int	 collector_clock_next(struct collector *c, uint64_t now, int all,
	    struct held *out);

/* The writer thread (collector-writer.c): ARG is the collector. */
void	*collector_writer_main(void *arg);

/* collector-guard.c: a message (or connection) refused for REASON (its
 * negative is taken too), counted, an event the first time; whether the
 * connection PIPE may speak for H's node (0, or -DN_REJ_PIPE); the
 * transport guard's refused and unauthenticated connections as rejects. */
void	 collector_reject(struct collector *c, int reason, uint32_t node);
int	 collector_pipe_ok(struct collector *c, const struct dn_hdr *h,
	    uint32_t pipe);
void	 collector_guard_rejects(struct collector *c);

#endif
