/*
 * fill-metrics.c: the node's values for each metrics sample
 * (fill_metrics, called by the metrics agent on the control loop's
 * thread, main).  Not the agent or the sampler themselves
 * (metrics/agent/agent.c, metrics/agent/sampler.c).
 */
#include <math.h>
#include <stdatomic.h>

#include "metric-table.h"
#include "node-internal.h"
#include "rocks.h"
#include "workload.h"

void
fill_metrics(void *arg, double *v)
{
	struct node	*n = arg;
	uint64_t	 ops = 0, ns = 0, acc;

	v[DN_M_HEIGHT] = (double)atomic_load(&n->height);
	/* The peak since the last sample; the next interval starts from
	 * the current value. */
	v[DN_M_LAG_BLOCKS] = (double)atomic_exchange(&n->lag_blocks_peak,
	    atomic_load(&n->lag_blocks));
	v[DN_M_LAG_MS] = (double)atomic_exchange(&n->lag_ms_peak,
	    atomic_load(&n->lag_ms));
	/* the mean over the blocks that arrived since the last sample;
	 * none: absent (NAN, the agent's mark), never 0 */
	acc = atomic_exchange(&n->prop_acc, 0);
	v[DN_M_BLOCK_PROP_MS] = (acc >> PROP_SHIFT) == 0 ? NAN :
	    (double)(acc & ((1ull << PROP_SHIFT) - 1)) / 1e3 /
	    (double)(acc >> PROP_SHIFT);
	v[DN_M_TXS_APPLIED] = (double)atomic_load(&n->txs_applied);
	v[DN_M_TXS_REJECTED] = (double)atomic_load(&n->txs_rejected);
	v[DN_M_READS] = (double)store_reads(n->store);
	v[DN_M_WRITES] = (double)store_writes(n->store);
	v[DN_M_LOG_LINES] = (double)atomic_load(&n->log_lines);
	v[DN_M_ROCKSDB_BLOCK_CACHE_BYTES] = (double)store_property(n->store,
	    STORE_PROP_BLOCK_CACHE);
	v[DN_M_ROCKSDB_MEMTABLE_BYTES] = (double)store_property(n->store,
	    STORE_PROP_MEMTABLES);
	v[DN_M_ROCKSDB_TABLE_READERS_BYTES] = (double)store_property(n->store,
	    STORE_PROP_TABLE_READERS);
	v[DN_M_MEMPOOL_TXS] = (double)atomic_load(&n->mempool);
	v[DN_M_PEERS] = peers_connected(n);
	if (n->wl != NULL)
		workload_counters(n->wl, &ops, &ns);
	v[DN_M_WL_OPS] = (double)ops;
	v[DN_M_WL_OP_US] = ops > n->prev_wl_ops ? (double)(ns -
	    n->prev_wl_ns) / 1000.0 / (double)(ops - n->prev_wl_ops) : 0;
	n->prev_wl_ops = ops;
	n->prev_wl_ns = ns;
}
