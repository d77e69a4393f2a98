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

#endif
