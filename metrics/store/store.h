/*
 * store.h: the sqlite store of runs, nodes, samples and events.  The only
 * door to sqlite3 (the files of metrics/store/: schema.c opens, store-write.c
 * writes, store-read.c reads).  Schema: docs/schema.md.
 *
 * Writers: the collector (one connection, one thread).  Readers: compare,
 * report, query, export, runs, show.  All functions return 0 on success or
 * -1 with *CAUSE set to a message the caller frees (lowercase, names the
 * file, says what to do).
 */
#ifndef DN_STORE_H
#define DN_STORE_H

#include <stddef.h>
#include <stdint.h>

struct dn_store;

/* A run's uuid (runs.uuid): 8-4-4-4-12 lowercase hex. */
#define DN_STORE_UUID_LEN	36

#define DN_STORE_RDONLY	0x1	/* open read-only (query_only as well) */
/* With RDONLY: a file nobody vouches for (devnet import's sources): a
 * regular file only (a FIFO would hang the open), with trusted_schema
 * off, defensive mode, no views or triggers of the file's own schema,
 * values of at most DN_STORE_UNTRUSTED_LEN bytes, a small page cache, and
 * the store's deadline (dn_store_set_deadline) on every statement, the
 * open's own reads included (DN_STORE_UNTRUSTED_MS). */
#define DN_STORE_UNTRUSTED	0x2
#define DN_STORE_UNTRUSTED_LEN	(16 * 1024 * 1024)
#define DN_STORE_UNTRUSTED_MS	60000

/*
 * Returned by dn_store_sample and dn_store_try_commit when another
 * process holds the write lock (beyond DN_STORE_TRY_MS): nothing is lost
 * (the rows stay buffered, or, from dn_store_sample, the row was not
 * taken), call again later.  *CAUSE is set as for an error.
 */
#define DN_STORE_EBUSY	(-2)
/* How long a write waits for another process's write lock before it
 * fails (one-shot writes, dn_store_commit); the open waits 2 s. */
#define DN_STORE_BUSY_MS	120000
/* How long dn_store_sample and dn_store_try_commit wait for it. */
#define DN_STORE_TRY_MS		100

/*
 * Open (creating and migrating the schema unless RDONLY) the database at
 * PATH.  WAL, synchronous=NORMAL, busy timeout 2 s for the open itself,
 * DN_STORE_BUSY_MS for later writes.  Fails cleanly on a
 * locked, read-only, full or corrupt file (checks quick_check on open for
 * writing).  *SP is owned by the caller: dn_store_close.
 */
int	 dn_store_open(struct dn_store **sp, const char *path, int flags,
	    char **cause);
/* Close; accepts NULL.  Commits nothing: call dn_store_commit first. */
void	 dn_store_close(struct dn_store *s);

/* Runs left `running` whose orchestrator (host, pid) is gone become
 * `interrupted`.  Sets *N to how many were changed. */
int	 dn_store_reap_stale(struct dn_store *s, int *n, char **cause);

/* A new A/B group (a set of runs compared together). */
int	 dn_store_group_create(struct dn_store *s, const char *scenario_name,
	    const char *label, int64_t *group_id, char **cause);

/*
 * The machine a run ran on (machines table, docs/schema.md): FINGERPRINT
 * is the hash of the comparable parts (CPU model, cores, threads,
 * memory, kernel, arch, provider and its limits, devnet version), stored
 * in runs.machine; hostname, load1 and governor are only informational.
 * Unknown text NULL, unknown numbers < 0 (load1: NAN).
 */
struct dn_machine_info {
	const char	*fingerprint;
	const char	*cpu_model;
	int		 cores;
	int		 threads;
	int64_t		 mem_bytes;
	const char	*kernel;
	const char	*arch;
	const char	*provider;
	const char	*limits;
	const char	*devnet_version;
	const char	*hostname;
	double		 load1;
	const char	*governor;
};

struct dn_run_info {
	int64_t		 group_id;	/* 0 = none */
	const char	*scenario_name;
	const char	*scenario_path;
	const char	*scenario_yaml;	/* full text as loaded */
	const char	*variant;
	int		 trial;		/* 0-based position in the plan */
	int		 repeat;	/* 0-based repeat of this variant */
	const char	*label;
	const char	*binary;	/* node binary path */
	const char	*binary_sha256;
	const char	*git_describe;	/* may be NULL */
	const char	*git_commit;	/* the binary's commit id, or NULL */
	const char	*run_dir;
	int		 nodes;
	double		 tps;
	int64_t		 duration_ms;
	int64_t		 warmup_ms;
	int64_t		 sample_interval_ms;
	uint64_t	 token;
	const struct dn_machine_info *machine;	/* NULL: not known */
};

/* Insert a run with status `running`, start = now, host and orchestrator
 * pid recorded, a new random uuid (runs.uuid), and its machine when
 * RI->machine is set.  *RUN_ID receives its id. */
int	 dn_store_run_begin(struct dn_store *s, const struct dn_run_info *ri,
	    int64_t *run_id, char **cause);
/* Set status (`ok`, `failed`, `interrupted`), end time and an optional
 * reason; the digest of the run's samples (runs.samples_digest) is
 * stored with them. */
int	 dn_store_run_end(struct dn_store *s, int64_t run_id,
	    const char *status, const char *reason, char **cause);

/* One node of a run: index, pid, binary, sha256, full command line (argv
 * joined with spaces, for humans), environment additions.  Its host is
 * this one's (nodes.host). */
int	 dn_store_node_add(struct dn_store *s, int64_t run_id, int node,
	    int pid, const char *binary, const char *sha256,
	    const char *cmdline, char **cause);
/* Node NODE of RUN_ID runs on HOST (provider swarm: the task's host),
 * not on this one. */
int	 dn_store_node_set_host(struct dn_store *s, int64_t run_id, int node,
	    const char *host, char **cause);

/*
 * Samples: buffered in an open transaction; dn_store_commit ends it (the
 * collector commits every ~250 ms or 10,000 rows).  NODE is -1 for the load
 * generator.  T_MS is ms since the trial's t=0.
 */
/*
 * Rows per commit that sustain >= 500,000 samples/s (10,000-row commits
 * reach ~300,000/s: each commit rewrites the leaf page of every series it
 * touches; docs/benchmarks.md).  Samples are buffered in memory, sorted and
 * written at dn_store_commit; a full buffer of this many rows is committed
 * by dn_store_sample itself.
 */
#define DN_STORE_BATCH_ROWS	65536
int	 dn_store_sample(struct dn_store *s, int64_t run_id, int node,
	    int metric_id, int64_t t_ms, double value, char **cause);
int	 dn_store_commit(struct dn_store *s, char **cause);
/* dn_store_commit for a writer that must not block: DN_STORE_EBUSY when
 * the write lock is not had within DN_STORE_TRY_MS, the rows kept. */
int	 dn_store_try_commit(struct dn_store *s, char **cause);
/* Open the transaction now (if none is open): the writes up to the next
 * dn_store_commit land together, in one commit that writes each page it
 * touches once (the end of a run on a nearly full disk). */
int	 dn_store_begin(struct dn_store *s, char **cause);

/* An event: KIND is a short word (kill, term, stop, cont, restart, crash,
 * exit, stalled, rejoined, rejected, lost_samples, rate_missed, ...), NODE
 * -1 when not about one node, DETAIL free text (may be NULL). */
int	 dn_store_event(struct dn_store *s, int64_t run_id, int node,
	    int64_t t_ms, const char *kind, const char *detail, char **cause);

/* A key/value fact about a run (e.g. final state hash per node, achieved
 * TPS, lost samples): stored in run_facts(run_id, node, key, value). */
int	 dn_store_fact(struct dn_store *s, int64_t run_id, int node,
	    const char *key, const char *value, char **cause);
/*
 * The result of one assertion in one run (table assertions, docs/
 * schema.md): FORM eventually|always|value|relative, STATUS
 * pass|fail|inconclusive; OBSERVED, T_MS and NODE NAN / -1 / INT_MIN when
 * there is none (stored as NULL); SCOPE each_node|all_nodes|any_node|
 * max_spread|load (NULL: relative); FROM_MS..TO_MS the window it was
 * judged over in trial time, -1 when it had none (its event did not
 * fire, a relative one).  A second row of the same name replaces the first.
 */
struct dn_assert_row {
	int64_t		 run_id;
	const char	*name, *form, *status;
	double		 observed, threshold;
	int64_t		 t_ms;
	int		 node;
	const char	*message, *metric, *op, *unit, *scope;
	int64_t		 from_ms, to_ms;
};
int	 dn_store_assertion(struct dn_store *s, const struct dn_assert_row *r,
	    char **cause);
/* One probe of the emulated network (issue 20): sent on link SRC -> DST
 * at T_MS (trial time); OWD_MS / RTT_MS NAN when it or its echo did not
 * come. */
struct dn_link_sample {
	int		 src, dst;
	int64_t		 t_ms;
	double		 owd_ms, rtt_ms;
};
/* Store N probes of run RUN_ID (table link_samples; the view link_stats
 * reads them).  Returns 0 or -1 with *CAUSE. */
int	 dn_store_link_samples(struct dn_store *s, int64_t run_id,
	    const struct dn_link_sample *v, size_t n, char **cause);
/* The distinct values of fact KEY over the nodes (node >= 0) of run
 * RUN_ID, sorted, into *VALS (*N of them; caller frees each and the
 * array).  None: *N 0.  Returns 0 or -1 with *CAUSE. */
int	 dn_store_fact_values(struct dn_store *s, int64_t run_id,
	    const char *key, char ***vals, size_t *n, char **cause);

/*
 * Metrics outside the table (store-names.c): names from foreign nodes
 * (NAMED messages, log extractors, Prometheus keep:), stored in the
 * metrics dictionary with ids from DN_STORE_NAMED_BASE up, unit '', kind
 * from the message, better from the scenario (NULL = neutral).
 */
#define DN_STORE_NAMED_BASE	1000
struct dn_metric_info {
	int		 counter;	/* kind counter (else gauge) */
	char		 better[16];	/* lower | higher | neutral */
};
/* The id of NAME, adding a dictionary row if it is new (a table metric's
 * name gives its table id).  BETTER ("higher" or "lower"; NULL or
 * "neutral": none declared) is stored when the row has no direction yet;
 * one that contradicts the stored direction is an error naming both (a
 * declared direction is fixed per database). */
int	 dn_store_metric_named(struct dn_store *s, const char *name,
	    int counter, const char *better, int *id, char **cause);
/* The id of NAME (-1 if unknown) and, with INFO, its kind and direction. */
int	 dn_store_metric_find(struct dn_store *s, const char *name, int *id,
	    struct dn_metric_info *info, char **cause);
/* The name (caller frees), kind and direction of metric ID. */
int	 dn_store_metric_name(struct dn_store *s, int id, char **name,
	    struct dn_metric_info *info, char **cause);
/* Whether run RUN_ID has any sample of metric NAME (a table metric or a
 * named one) into *HAS (1 or 0; a name without a dictionary row has
 * none): a declared metric no node measured (issue 37). */
int	 dn_store_run_has_metric(struct dn_store *s, int64_t run_id,
	    const char *name, int *has, char **cause);
/* The ids >= DN_STORE_NAMED_BASE with samples in RUN_ID; *IDS is owned
 * by the caller (free). */
int	 dn_store_run_named(struct dn_store *s, int64_t run_id, int **ids,
	    size_t *n, char **cause);

/*
 * Import (store-import-src.c, store-import.c, `devnet import`): the runs
 * of the devnet database at PATH, of any schema version this devnet
 * reads, merged into S (a writer with nothing pending) in one IMMEDIATE
 * transaction: all of the file or, on any error, none of it.
 *
 * The file is checked whole first, before S is touched
 * (dn_store_import_open; docs/security.md, "Files to import"): opened
 * DN_STORE_UNTRUSTED, every table the copy reads a real one, every value
 * of the type, range and NULL-ness of its column, numbers finite, metric
 * ids in its dictionary, uuids well-formed and unique, each finished
 * run's samples digest recomputed (a stored one that differs refuses the
 * file).  Only then is S's write lock taken.
 *
 * A run whose uuid S has is skipped when its samples digest matches and
 * refused when not; runs still `running` are skipped.  Runs and groups
 * get new ids, metrics are mapped by name (a named metric whose declared
 * direction contradicts S's refuses the file).  DRY_RUN: the same work,
 * rolled back.  PROGRESS (may be NULL) is called about once a second.
 */
struct dn_import_stats {
	int64_t	 runs_total;	/* runs in the file */
	int64_t	 runs_done;	/* looked at so far */
	int64_t	 runs_added;
	int64_t	 runs_present;	/* already here, same samples */
	int64_t	 runs_running;	/* still running there: skipped */
	int64_t	 groups;	/* groups added */
	int64_t	 samples;	/* samples added */
	int64_t	 rows;		/* rows added in all per-run tables */
	char	 present_uuid[DN_STORE_UUID_LEN + 1];	/* the first run
				   already here ("" if none) */
};
typedef void (*dn_import_progress_fn)(void *arg,
    const struct dn_import_stats *st);
struct dn_import_src;
/* Open and check the file at PATH (above), reading it for at most
 * LIMIT_MS (0: 60 s and 1 s per 2 MiB of it).  *SRCP is the caller's:
 * dn_store_import_close.  An error says why the file is refused. */
int	 dn_store_import_open(struct dn_import_src **srcp, const char *path,
	    int64_t limit_ms, char **cause);
/* Close; accepts NULL. */
void	 dn_store_import_close(struct dn_import_src *src);
/* Import SRC (opened, checked) into S. */
int	 dn_store_import_from(struct dn_store *s, struct dn_import_src *src,
	    int dry_run, struct dn_import_stats *st,
	    dn_import_progress_fn progress, void *arg, char **cause);
/* The refusals of dn_store_import_from that depend on S (a run whose
 * uuid S has with other samples, a named metric's direction), asked of
 * S opened read-only: `devnet import` asks before it opens S for writing
 * (which rewrites its header), so that a refused file leaves S as it
 * was, byte for byte. */
int	 dn_store_import_conflicts(struct dn_store *s,
	    struct dn_import_src *src, char **cause);
/* dn_store_import_open, dn_store_import_from and close in one. */
int	 dn_store_import(struct dn_store *s, const char *path, int dry_run,
	    struct dn_import_stats *st, dn_import_progress_fn progress,
	    void *arg, char **cause);
/* Whether PATH can be imported at all: dn_store_import_open's checks. */
int	 dn_store_import_check(const char *path, char **cause);

/*
 * Generic read: run SQL (one statement) with optional text parameters
 * (?1..?N) and call ROW for each result row with column count, names and
 * values as text (NULL for SQL NULL) and sqlite types (1 int, 2 float,
 * 3 text, 4 blob, 5 null).  ROW returns nonzero to stop.
 */
typedef int (*dn_store_row_fn)(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types);
int	 dn_store_query(struct dn_store *s, const char *sql,
	    const char *const *params, int nparams, dn_store_row_fn row,
	    void *arg, char **cause);
/*
 * The read model of the display commands (store-views.c): named reads, so
 * that no command holds SQL text against the schema.  Those marked (run)
 * take RUN_ID, the others ignore it.  Rows arrive as for dn_store_query.
 */
enum dn_read {
	DN_READ_RUNS,			/* every run, for `devnet runs` */
	DN_READ_RUN_EXISTS,		/* (run) one row if the run exists */
	DN_READ_RUN_HEADER,		/* (run) its settings, one row */
	DN_READ_RUN_MACHINE,		/* (run) its machines row, or none */
	DN_READ_RUN_NODES,		/* (run) binary, sha256, cmdline */
	DN_READ_RUN_EVENTS,		/* (run) t_ms, node, kind, detail */
	DN_READ_RUN_EVENTS_FIRST,	/* (run) the same, first 200 */
	DN_READ_RUN_FACTS,		/* (run) node, key, value */
	DN_READ_RUN_NODE_SUMMARY,	/* (run) per node, after warmup */
	DN_READ_RUN_SCENARIO,		/* (run) scenario_path, _yaml */
	DN_READ_RUN_TIMING,		/* (run) warmup_ms, interval_ms, uuid */
	DN_READ_RUN_ASSERTIONS,		/* (run) name, form, status, ... */
	DN_READ_RUN_ASSERT_MARKS,	/* (run) the same, for the charts */
	DN_READ_RUN_GRAPH,		/* (run) node, key, value: the gossip
					   graph's facts */
	DN_READ_RUN_NODE_LAG,		/* (run) node, metric, avg: lag_ms and
					   block_prop_ms after warmup */
	DN_READ_RUN_LINK_RTT,		/* (run) src, dst, rtt_ms_p50 of the
					   probed links */
	DN_READ_COUNT
};
int	 dn_store_read(struct dn_store *s, enum dn_read which,
	    int64_t run_id, dn_store_row_fn row, void *arg, char **cause);
/*
 * A time limit for each later dn_store_query, in ms (0, the default: none;
 * `devnet query --timeout`).  A query past it is stopped (sqlite's progress
 * handler) and fails; dn_store_timed_out then returns 1.
 */
void	 dn_store_set_timeout(struct dn_store *s, int64_t ms);
/* Whether the last dn_store_query failed because of the time limit. */
int	 dn_store_timed_out(const struct dn_store *s);

/*
 * Fast typed reads for the analysis (compare, report, export).
 */

/* The path the store was opened with (owned by the store). */
const char *dn_store_path(struct dn_store *s);

/* One node's series of one metric: N points, T_MS ascending. */
struct dn_series {
	int		 node;
	size_t		 n;
	size_t		 cap;
	int64_t		*t_ms;
	double		*v;
};
/*
 * Read metric METRIC_ID of run RUN_ID with t_ms >= T_MIN, one dn_series per
 * node in node order (-1 first), NULL values skipped.  *OUT (an array of
 * *NOUT series, possibly 0) is owned by the caller: dn_series_free.
 */
int	 dn_store_series(struct dn_store *s, int64_t run_id, int metric_id,
	    int64_t t_min, struct dn_series **out, size_t *nout, char **cause);
/* Free an array of N series from dn_store_series; accepts NULL. */
void	 dn_series_free(struct dn_series *v, size_t n);

#endif
