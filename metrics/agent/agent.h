/*
 * agent.h: the node's metrics agent.  A thread that, every sample
 * interval, fills one struct dn_sample with every metric of source N in
 * metric-table.h and pushes it to the collector without blocking.
 *
 * The agent fills the process metrics (sampler.h), the allocation
 * counters (alloc.h) and samples_dropped itself; everything else comes
 * from a callback the node registers.  It owns the one PUSH socket to the
 * collector, so the node sends HELLO and INCLUDED through it as well
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

struct dn_sock;

struct dn_agent;

/*
 * Called on the agent thread once per sample with VALUES (indexed by
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
	/* woken when the collector connects (dn_sock_wake_on_pipe), or
	 * NULL; closed after the agent stops */
	struct dn_sock		*wake_on_connect;
};

/*
 * Open the PUSH socket, dial URL and start the sampling thread.  The
 * first sample is taken one interval after the start.  Returns 0, or -1
 * with *CAUSE (caller frees).  *AP is owned by the caller: dn_agent_stop.
 */
int	 dn_agent_start(struct dn_agent **ap, const struct dn_agent_config *c,
	    char **cause);

/* 1 once the PUSH socket has a pipe to the collector. */
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
 * Stop the thread, send one last sample flagged DN_SAMPLE_FINAL (waiting
 * at most 500 ms for the collector to take it), close the socket and free
 * A.  Accepts NULL.
 */
void	 dn_agent_stop(struct dn_agent *a);

#endif
