/*
 * workload.h: the node's side workloads, each on its own thread beside
 * the chain: readrandom (point reads of random genesis keys at a rate)
 * and cf-churn (create and drop column families in cycles).  transfer and
 * idle need no worker.  Summaries use db_bench's line format.
 */
#ifndef DN_NODE_WORKLOAD_H
#define DN_NODE_WORKLOAD_H

#include <stdint.h>

struct store;
struct store_cf_options;
struct workload;

enum workload_kind {
	WL_TRANSFER,
	WL_IDLE,
	WL_READRANDOM,
	WL_CF_CHURN
};

struct workload_config {
	enum workload_kind	 kind;
	struct store		*store;
	uint64_t		 seed;
	/* readrandom: KEYS bench keys (chain_bench_key) if > 0, else
	 * ACCOUNTS account keys */
	uint64_t		 keys;
	uint32_t		 accounts;
	double			 rate;		/* reads/s, 0 = flat out */
	uint64_t		 reads;		/* 0 = until stopped */
	/* cf-churn */
	uint32_t		 cf_count;
	uint32_t		 cf_cycles;	/* 0 = until stopped */
	struct store_cf_options	*cf_options;	/* borrowed */
};

/* Name of KIND ("readrandom"); workload_parse: 0 or -1. */
const char *workload_name(enum workload_kind kind);
int	 workload_parse(const char *s, enum workload_kind *kind);

/* Start the worker thread (none for transfer and idle: *WP is then a
 * worker that does nothing).  *WP: workload_stop. */
int	 workload_start(struct workload **wp, const struct workload_config *c,
	    char **cause);
/* Operations done and their total latency in ns (any thread). */
void	 workload_counters(struct workload *w, uint64_t *ops,
	    uint64_t *op_ns);
/* Stop and join the worker, then the db_bench-format summary line
 * (without newline) in *SUMMARY (NULL for transfer and idle) and the
 * first error the worker met in *ERROR (or NULL); both the caller's.
 * Frees W. */
void	 workload_stop(struct workload *w, char **summary, char **error);

#endif
