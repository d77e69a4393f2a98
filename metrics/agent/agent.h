/*
 * agent.h: the node's metrics agent.  Every sample interval it fills one
 * struct dn_sample with every metric of source N in metric-table.h and
 * pushes it to the collector without blocking.  It has no thread of its
 * own: a loop the node already runs calls dn_agent_tick and waits no
 * longer than it says, so a sample costs its work and not a wake-up (a
 * thread that only wakes at 1 Hz costs more than the work on this kind of
 * VM: docs/benchmarks.md, issue 26).
 *
 * The agent fills the process metrics (sampler.h), the allocation
 * counters (alloc.h) and samples_dropped itself; everything else comes
 * from a callback the node registers.  It owns the one connection to the
 * collector's PULL socket (sp-push.h: nng's framing written by devnet, so
 * a send is one send(2) on the ticking thread and wakes no nng thread),
 * and the node sends HELLO and INCLUDED through it as well
 * (dn_agent_send).  It knows nothing of node/.
 *
 * Sequence numbers: SAMPLE messages carry 1, 2, 3, ... with no gaps on the
 * sender side, so the collector can count lost samples; a sample that
 * could not be sent still uses up its number and is counted in
 * samples_dropped and in the next sample's dropped field.  Other messages
 * carry their own sequence (1, 2, ...) of their kind.
 */
#ifndef DN_AGENT_H
#define DN_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

struct dn_agent;

/*
 * Called on dn_agent_tick's thread once per sample with VALUES (indexed by
 * enum dn_metric_id, zeroed) to fill the node-provided metrics: height,
 * lag_blocks, lag_ms, txs_applied, txs_rejected, reads, writes,
 * log_lines, rocksdb_*, mempool_txs, peers, wl_ops, wl_op_us,
 * block_prop_ms; NAN marks one the node could not see this interval
 * (sent absent, never 0).  Must not
 * block for long; reading atomics and RocksDB integer properties is fine.
 */
typedef void (*dn_agent_fill_fn)(void *arg, double *values);

struct dn_agent_config {
	const char		*url;		/* collector PULL endpoint */
	uint64_t		 token;		/* run token, every header */
	uint32_t		 node;		/* header node index */
	int			 interval_ms;	/* sample interval */
	dn_agent_fill_fn	 fill;
	void			*arg;
};

/*
 * Connect to URL (not waited for: a collector not listening yet is
 * tried again by dn_agent_connected, dn_agent_tick and dn_agent_send on
 * their thread, every 10 ms at most); the schedule starts now (the first
 * sample is due one interval later).  Returns 0, or -1 with *CAUSE
 * (caller frees).  *AP is owned by the caller: dn_agent_stop.
 */
int	 dn_agent_start(struct dn_agent **ap, const struct dn_agent_config *c,
	    char **cause);

/* 1 while connected to the collector (it has not closed or reset the
 * connection); when not, tries to connect again (at most every 10 ms). */
int	 dn_agent_connected(struct dn_agent *a);

/*
 * Send one message of KIND with PAYLOAD (LEN bytes) to the collector,
 * header filled by the agent.  Thread-safe.  Non-blocking unless
 * TIMEOUT_MS > 0 (then waits at most that long).  Returns 0 or a negative
 * transport error; failures are counted as dropped.
 */
int	 dn_agent_send(struct dn_agent *a, uint16_t kind, const void *payload,
	    size_t len, int timeout_ms);

/*
 * Take the sample if it is due (the schedule is start + k * interval, so
 * a late sample does not shift the later ones; one more than an interval
 * late is taken once and the schedule goes on from the next point), on
 * the calling thread.  Returns the ms until the next sample is due, at
 * least 1, rounded up: a loop that waits at most that long keeps samples
 * on time.  Call it from one thread only, the one that calls
 * dn_agent_stop (the sampler is not thread-safe).
 */
int	 dn_agent_tick(struct dn_agent *a);

/*
 * Send one last sample flagged DN_SAMPLE_FINAL (waiting at most 500 ms
 * for the collector to take it), close the socket and free A.  Accepts
 * NULL.
 */
void	 dn_agent_stop(struct dn_agent *a);

#endif
