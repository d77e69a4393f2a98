/*
 * metric-table.h: the one table that defines every metric devnet knows.
 *
 * The wire codec (value slot = metric id), the sqlite `metrics` dictionary,
 * the node's agent, the collector and the compare output all read this
 * table, so adding a metric is one line here (and a bump of
 * DN_PROTOCOL_VERSION in protocol.h, since the sample payload grows).
 * Never reorder or remove rows: ids are stored in databases.
 *
 * X(ID, name, unit, kind, better, source, description)
 *   kind:   G gauge (stored as sampled) | C counter (stored cumulative,
 *           rates derived at query time)
 *   better: L lower is better | H higher is better | N neutral
 *   source: N reported by every node | L reported by the load generator
 *           (stored with node = -1)
 */
#ifndef DN_METRIC_TABLE_H
#define DN_METRIC_TABLE_H

#define DN_METRICS(X)                                                        \
	X(RSS_BYTES, "rss_bytes", "bytes", G, L, N, "resident set size")     \
	X(HWM_BYTES, "hwm_bytes", "bytes", G, L, N, "peak resident set size (VmHWM)") \
	X(THREADS, "threads", "threads", G, L, N, "threads in the process")  \
	X(MINFLT, "minflt", "faults", C, L, N, "minor page faults")          \
	X(MAJFLT, "majflt", "faults", C, L, N, "major page faults")          \
	X(CPU_USER_S, "cpu_user_s", "s", C, L, N, "user CPU time")           \
	X(CPU_SYS_S, "cpu_sys_s", "s", C, L, N, "system CPU time")           \
	X(CTX_VOL, "ctx_vol", "switches", C, L, N, "voluntary context switches") \
	X(CTX_INVOL, "ctx_invol", "switches", C, L, N, "involuntary context switches") \
	X(IO_READ_BYTES, "io_read_bytes", "bytes", C, L, N, "bytes read from storage (/proc/PID/io read_bytes)") \
	X(IO_WRITE_BYTES, "io_write_bytes", "bytes", C, L, N, "bytes written to storage (/proc/PID/io write_bytes)") \
	X(FDS, "fds", "fds", G, L, N, "open file descriptors")               \
	X(ALLOCS, "allocs", "allocs", C, L, N, "heap allocations (malloc, calloc, realloc, memalign, new), whole process") \
	X(FREES, "frees", "frees", C, L, N, "heap frees, whole process")     \
	X(ALLOC_BYTES, "alloc_bytes", "bytes", C, L, N, "bytes requested from the heap") \
	X(HEAP_LIVE_BYTES, "heap_live_bytes", "bytes", G, L, N, "heap bytes allocated and not yet freed") \
	X(HEIGHT, "height", "blocks", G, H, N, "applied block height")       \
	X(LAG_BLOCKS, "lag_blocks", "blocks", G, L, N, "best height known from peers minus own height") \
	X(LAG_MS, "lag_ms", "ms", G, L, N, "how far behind the newest known block, in time (docs/architecture.md)") \
	X(TXS_APPLIED, "txs_applied", "txs", C, H, N, "transactions applied successfully") \
	X(TXS_REJECTED, "txs_rejected", "txs", C, N, N, "transactions rejected by the rules (funds, nonce, duplicate)") \
	X(READS, "reads", "reads", C, N, N, "RocksDB point reads")           \
	X(WRITES, "writes", "writes", C, N, N, "RocksDB keys written")       \
	X(LOG_LINES, "log_lines", "lines", C, N, N, "lines written to the node log") \
	X(ROCKSDB_BLOCK_CACHE_BYTES, "rocksdb_block_cache_bytes", "bytes", G, L, N, "rocksdb.block-cache-usage") \
	X(ROCKSDB_MEMTABLE_BYTES, "rocksdb_memtable_bytes", "bytes", G, L, N, "rocksdb.cur-size-all-mem-tables") \
	X(ROCKSDB_TABLE_READERS_BYTES, "rocksdb_table_readers_bytes", "bytes", G, L, N, "rocksdb.estimate-table-readers-mem") \
	X(MEMPOOL_TXS, "mempool_txs", "txs", G, N, N, "transactions waiting in the mempool") \
	X(PEERS, "peers", "peers", G, H, N, "connected outbound peer pipes")   \
	X(SAMPLES_DROPPED, "samples_dropped", "samples", C, L, N, "metric messages the agent could not send") \
	X(WL_OPS, "wl_ops", "ops", C, H, N, "operations of a readrandom or cf-churn workload") \
	X(WL_OP_US, "wl_op_us", "us", G, L, N, "mean latency of workload operations in the last interval") \
	X(TX_SUBMITTED, "tx_submitted", "txs", C, N, L, "transactions the load generator sent") \
	X(TX_INCLUDED, "tx_included", "txs", C, H, L, "transactions seen applied in a block") \
	X(TX_FAILED, "tx_failed", "txs", C, L, L, "transactions seen rejected in a block") \
	X(TX_SEND_ERRORS, "tx_send_errors", "txs", C, L, L, "transactions the load generator could not hand to a node") \
	X(ACHIEVED_TPS, "achieved_tps", "tx/s", G, H, L, "transactions sent per second in the last interval") \
	X(TX_LATENCY_P50_MS, "tx_latency_p50_ms", "ms", G, L, L, "intended send time to inclusion, p50 of the interval") \
	X(TX_LATENCY_P99_MS, "tx_latency_p99_ms", "ms", G, L, L, "intended send time to inclusion, p99 of the interval") \
	X(TX_LATENCY_MAX_MS, "tx_latency_max_ms", "ms", G, L, L, "intended send time to inclusion, max of the interval") \
	X(SEND_LAG_P99_US, "send_lag_p99_us", "us", G, L, L, "actual minus intended send time, p99 of the interval") \
	X(CGROUP_MEM_BYTES, "cgroup_mem_bytes", "bytes", G, L, N, "memory charged to the node's container cgroup, page cache included (0 outside a container; docs/providers.md)") \
	X(BLOCK_PROP_MS, "block_prop_ms", "ms", G, L, N, "block propagation: from a block's proposal (its proposer's CLOCK_MONOTONIC) to its arrival here, mean over the blocks of other proposers that arrived in the interval; absent when none did (docs/node.md)")

/*
 * The verdict's metrics: what `devnet compare` and `ab` judge, one value
 * per node per trial from a trial's steady-state window.  The same names
 * are written in `--metric`, assertions (value and relative), history,
 * the live page and /metrics; `devnet metrics` prints this table and the
 * one above, and docs/metrics.md is its output (a test keeps it so).
 *
 * X(name, unit, better, M1, M2, fold, agg_max, description)
 *   M1, M2:  base metrics (DN_M_*); M2 is -1, or a second counter summed
 *            with M1 (cpu user + system)
 *   fold:    what one node's window gives: MAX, MEAN, P99, MEDIAN,
 *            SLOPE_MIN (least-squares slope per minute), RATE (counter
 *            increase per second, restarts handled)
 *   agg_max: across the nodes of a trial, 1 the max, 0 the mean
 */
#define DN_VERDICT_METRICS(X)                                                 \
	X("rss_max", "bytes", "lower", DN_M_RSS_BYTES, -1, MAX, 1,           \
	    "maximum resident set size")                                     \
	X("rss_avg", "bytes", "lower", DN_M_RSS_BYTES, -1, MEAN, 0,          \
	    "average resident set size")                                     \
	X("hwm_max", "bytes", "lower", DN_M_HWM_BYTES, -1, MAX, 1,           \
	    "peak resident set size (VmHWM)")                                \
	X("rss_growth", "bytes/min", "lower", DN_M_RSS_BYTES, -1, SLOPE_MIN, \
	    0, "least-squares slope of RSS")                                 \
	X("heap_live_avg", "bytes", "lower", DN_M_HEAP_LIVE_BYTES, -1, MEAN, \
	    0, "average live heap bytes")                                    \
	X("allocs_per_s", "allocs/s", "lower", DN_M_ALLOCS, -1, RATE, 0,     \
	    "heap allocations per second")                                   \
	X("alloc_bytes_per_s", "bytes/s", "lower", DN_M_ALLOC_BYTES, -1,     \
	    RATE, 0, "heap bytes requested per second")                      \
	X("threads_avg", "threads", "lower", DN_M_THREADS, -1, MEAN, 0,      \
	    "average thread count")                                          \
	X("threads_max", "threads", "lower", DN_M_THREADS, -1, MAX, 1,       \
	    "maximum thread count")                                          \
	X("minflt_per_s", "faults/s", "lower", DN_M_MINFLT, -1, RATE, 0,     \
	    "minor page faults per second")                                  \
	X("majflt_per_s", "faults/s", "lower", DN_M_MAJFLT, -1, RATE, 0,     \
	    "major page faults per second")                                  \
	X("cpu_s_per_s", "s/s", "lower", DN_M_CPU_USER_S, DN_M_CPU_SYS_S,    \
	    RATE, 0, "CPU seconds (user + system) per second")               \
	X("ctx_per_s", "switches/s", "lower", DN_M_CTX_VOL, DN_M_CTX_INVOL,  \
	    RATE, 0, "context switches (voluntary + involuntary) per s")     \
	X("lag_blocks_mean", "blocks", "lower", DN_M_LAG_BLOCKS, -1, MEAN,   \
	    0, "mean block lag")                                             \
	X("lag_blocks_p99", "blocks", "lower", DN_M_LAG_BLOCKS, -1, P99, 1,  \
	    "p99 of block lag samples")                                      \
	X("lag_blocks_max", "blocks", "lower", DN_M_LAG_BLOCKS, -1, MAX, 1,  \
	    "maximum block lag")                                             \
	X("lag_ms_mean", "ms", "lower", DN_M_LAG_MS, -1, MEAN, 0,            \
	    "mean block lag in time")                                        \
	X("lag_ms_p99", "ms", "lower", DN_M_LAG_MS, -1, P99, 1,              \
	    "p99 of block lag samples in time")                              \
	X("lag_ms_max", "ms", "lower", DN_M_LAG_MS, -1, MAX, 1,              \
	    "maximum block lag in time")                                     \
	X("block_prop_ms_mean", "ms", "lower", DN_M_BLOCK_PROP_MS, -1, MEAN, \
	    0, "mean block propagation time (proposal to arrival)")          \
	X("block_prop_ms_max", "ms", "lower", DN_M_BLOCK_PROP_MS, -1, MAX,   \
	    1, "highest interval mean of block propagation time")            \
	X("log_lines_per_s", "lines/s", "neutral", DN_M_LOG_LINES, -1, RATE, \
	    0, "log lines per second")                                       \
	X("txs_applied_per_s", "txs/s", "higher", DN_M_TXS_APPLIED, -1,      \
	    RATE, 0, "transactions applied per second")                      \
	X("reads_per_s", "reads/s", "neutral", DN_M_READS, -1, RATE, 0,      \
	    "RocksDB point reads per second")                                \
	X("writes_per_s", "writes/s", "neutral", DN_M_WRITES, -1, RATE, 0,   \
	    "RocksDB keys written per second")                               \
	X("wl_ops_per_s", "ops/s", "higher", DN_M_WL_OPS, -1, RATE, 0,       \
	    "workload operations per second")                                \
	X("wl_op_us", "us", "lower", DN_M_WL_OP_US, -1, MEDIAN, 0,           \
	    "median of the per-interval mean workload latency")              \
	X("tx_latency_p50_ms", "ms", "lower", DN_M_TX_LATENCY_P50_MS, -1,    \
	    MEDIAN, 0, "median of the per-interval p50 latency")             \
	X("tx_latency_p99_ms", "ms", "lower", DN_M_TX_LATENCY_P99_MS, -1,    \
	    MEDIAN, 0, "median of the per-interval p99 latency")             \
	X("tx_latency_max_ms", "ms", "lower", DN_M_TX_LATENCY_MAX_MS, -1,    \
	    MAX, 1, "maximum of the per-interval max latency")               \
	X("achieved_tps", "tx/s", "higher", DN_M_ACHIEVED_TPS, -1, MEAN, 0,  \
	    "transactions sent per second")

enum dn_metric_id {
#define DN_METRIC_ENUM(id, name, unit, kind, better, source, desc) DN_M_##id,
	DN_METRICS(DN_METRIC_ENUM)
#undef DN_METRIC_ENUM
	DN_METRIC_COUNT
};

enum dn_metric_kind { DN_KIND_G, DN_KIND_C };
enum dn_metric_better { DN_BETTER_L, DN_BETTER_H, DN_BETTER_N };
enum dn_metric_source { DN_SOURCE_N, DN_SOURCE_L };

struct dn_metric_def {
	const char		*name;
	const char		*unit;
	enum dn_metric_kind	 kind;
	enum dn_metric_better	 better;
	enum dn_metric_source	 source;
	const char		*desc;
};

/* The table, indexed by enum dn_metric_id. */
extern const struct dn_metric_def dn_metric_defs[DN_METRIC_COUNT];

/* Id of the metric called NAME, or -1. */
int dn_metric_lookup(const char *name);

/* What one node's window of a verdict metric gives (DN_VERDICT_METRICS). */
enum dn_fold { DN_FOLD_MAX, DN_FOLD_MEAN, DN_FOLD_P99, DN_FOLD_MEDIAN,
	DN_FOLD_SLOPE_MIN, DN_FOLD_RATE };

struct dn_verdict_def {
	const char	*name;
	const char	*unit;
	const char	*better;	/* "lower", "higher", "neutral" */
	int		 m1, m2;	/* base metrics; m2 -1 or summed */
	enum dn_fold	 fold;
	int		 agg_max;	/* across nodes: 1 max, 0 mean */
	const char	*desc;
};

enum {
#define DN_VERDICT_COUNT_ONE(...) +1
	DN_VERDICT_COUNT = 0 DN_VERDICT_METRICS(DN_VERDICT_COUNT_ONE)
#undef DN_VERDICT_COUNT_ONE
};

/* The verdict's metrics, in the order compare prints them. */
extern const struct dn_verdict_def dn_verdict_defs[DN_VERDICT_COUNT];

/* Index in dn_verdict_defs of the verdict metric NAME, or -1. */
int dn_verdict_lookup(const char *name);

/* The verdict metric that is base metric ID folded by FOLD on its own
 * (rss_bytes by MEAN: rss_avg), or -1: the name a value form of an
 * assertion has among the verdict's rows. */
int dn_verdict_of(int id, enum dn_fold fold);

#endif
