/* store-internal.h: internal to metrics/store/, not for other modules. */
/*
 * What the files of the sqlite store share: the store's struct, the
 * sample buffer and the sqlite call helpers of store-sql.c.  Callers
 * outside metrics/store/ use store.h only.  These files are the only ones
 * that call sqlite3_*; they know nothing of YAML, the CLI or the
 * statistics: they store and read back.
 */
#ifndef DN_STORE_INTERNAL_H
#define DN_STORE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "store.h"

/* A sample waiting for dn_store_commit. */
struct pending {
	int64_t		run_id;
	int64_t		t_ms;
	int32_t		metric_id;
	int32_t		node;
	double		value;
};
/* Rows buffered before a forced flush and commit. */
#define PENDING_MAX	DN_STORE_BATCH_ROWS
/* Rows per multi-row INSERT: one step for many rows costs less than one
 * step per row (docs/benchmarks.md, "Collector ingest"). */
#define INS_ROWS	32

/* The counting sort of the buffered rows by series (store-write.c,
 * pending_sort): at most SORT_SERIES_MAX series in a batch (100 nodes of
 * 34 metrics are 3,400) in a table of SORT_SLOTS (a power of two). */
#define SORT_SERIES_MAX	8192
#define SORT_SLOTS	16384
struct series_key;
struct store_sort {
	uint32_t		*slot;	/* hash slot -> series, or ~0 */
	struct series_key	*keys;	/* per series */
	uint32_t		*count;	/* per series: rows, then place */
	uint32_t		*order;	/* series in key order */
	uint32_t		*id;	/* per row: its series */
	struct pending		*out;	/* the sorted batch, then swapped */
};

/* Free what the sort holds (dn_store_close). */
void	 store_sort_release(struct store_sort *ss);

struct dn_store {
	sqlite3		*db;
	struct pending	*pend;
	struct store_sort sort;
	size_t		 npend;
	char		*path;
	int		 rdonly;
	int		 in_txn;
	int		 busy;		/* the last BEGIN found another
					   process's lock: samples only
					   buffer until a flush gets it */
	sqlite3_stmt	*ins_sample;
	sqlite3_stmt	*ins_samples;	/* INS_ROWS rows per statement */
	sqlite3_stmt	*ins_event;
	sqlite3_stmt	*ins_fact;
	sqlite3_stmt	*sel_series;
	int64_t		 timeout_ms;	/* dn_store_query's limit, 0: none */
	uint64_t	 deadline_ns;	/* while a dn_store_query runs */
	int		 timed_out;	/* the last dn_store_query hit it */
	int64_t		 limit_ms;	/* DN_STORE_UNTRUSTED: the limit
					   deadline_ns was set from */
};

/* sqlite's progress handler on S (ARG): stops the running statement once
 * S->deadline_ns (when not 0) is past, setting S->timed_out
 * (store-read.c). */
int	 store_progress_check(void *arg);
/* Every this many sqlite VM instructions, store_progress_check looks at
 * the clock. */
#define PROGRESS_OPS	1000
/* A deadline LIMIT_MS from now for every later statement of S (a store
 * opened DN_STORE_UNTRUSTED). */
void	 store_deadline(struct dn_store *s, int64_t limit_ms);

/*
 * One run's steady-state aggregates per (metric, node): what node_summary
 * shows and series stores.  Completed by a run filter and GROUP BY.
 */
#define SERIES_AGGREGATE						\
    "SELECT s.run_id, s.node, s.metric_id, count(*) AS n,"		\
    " min(s.value) AS min, avg(s.value) AS avg, max(s.value) AS max,"	\
    " min(s.t_ms) AS t_first, max(s.t_ms) AS t_last"			\
    " FROM runs r JOIN samples s ON s.run_id = r.id"			\
    " WHERE s.t_ms >= r.warmup_ms"

/* Run identity (store-identity.c). */
/* A new random (version 4) uuid into OUT; -1 when the kernel gives no
 * random bytes. */
int	 store_uuid_random(char out[DN_STORE_UUID_LEN + 1]);
/* The run columns a derived uuid is made of, in store_uuid_derive's
 * order. */
#define STORE_UUID_COLS	"token, start_ms, host, pid, scenario, variant, trial"
/* The uuid of a run stored before schema version 3, from the
 * STORE_UUID_COLS of the row SEL is on, from column COL. */
void	 store_uuid_derive(sqlite3_stmt *sel, int col,
	    char out[DN_STORE_UUID_LEN + 1]);
/* The schema step to version 3: runs without a uuid get one derived from
 * their row (the same in every copy of the file). */
int	 store_uuids_assign(struct dn_store *s, char **cause);

/*
 * The schema (schema-sql.c): its version, its SQL (always the newest, for
 * a new file and after the steps on an old one), and the migrations: step
 * i takes a database at version FROM = i + 1 to FROM + 1, by SQL or by a
 * function (or both: SQL first), inside the writer's transaction that
 * also recreates the views and refreshes the dictionary.  A step whose
 * result a reader cannot see through the newest shape sets
 * READERS_REFUSE (schema.c).
 */
#define SCHEMA_VERSION	6
struct store_migration {
	int		  from;
	const char	 *what;		/* schema_migrations.what */
	const char	 *sql;		/* or NULL */
	int		(*fn)(struct dn_store *, char **);	/* or NULL */
	int		  readers_refuse;
};
extern const char			 store_schema_sql[];
extern const struct store_migration	 store_migrations[];
/* The digest of run RUN_ID's samples in schema DB ("main", or an
 * attached database's name), 64 hex digits into OUT. */
int	 store_samples_digest(struct dn_store *s, const char *db,
	    int64_t run_id, char out[65], char **cause);
/* Compute and store RUN_ID's runs.samples_digest. */
int	 store_digest_store(struct dn_store *s, int64_t run_id, char **cause);
/* Insert RUN_ID's machines row and set runs.machine (nothing when M has
 * no fingerprint). */
int	 store_machine_add(struct dn_store *s, int64_t run_id,
	    const struct dn_machine_info *m, char **cause);

/* Insert the buffered samples (sorted, INS_ROWS per statement) in the
 * open transaction, opening one if none is (store-write.c). */
int	 store_pending_flush(struct dn_store *s, char **cause);

/*
 * The file an import reads (store-import-src.c), checked whole before the
 * target is touched and kept in its read transaction until the copy
 * (store-import.c) is done.
 */
struct src_metric {
	int64_t	 id;
	char	*name;
	int	 counter;
	char	 better[16];		/* lower | higher | neutral */
};
struct src_run {
	int64_t	 id;
	int64_t	 group;			/* 0: none */
	char	 uuid[DN_STORE_UUID_LEN + 1];
	char	 stored[65];		/* the file's digest, or "" */
	char	 digest[65];		/* its samples' (not running) */
	int	 running;
};
struct dn_import_src {
	struct dn_store		*db;	/* DN_STORE_UNTRUSTED, in a read
					   transaction */
	char			*path;
	int64_t			 limit_ms;
	struct src_metric	*metrics;	/* by id */
	size_t			 nmetrics;
	struct src_run		*runs;		/* by id */
	size_t			 nruns;
};
/* The file's metric ID, or NULL. */
const struct src_metric *import_src_metric(const struct dn_import_src *src,
	    int64_t id);

/* sqlite call helpers (store-sql.c). */
/* A message for the last error on S's connection, naming the file and
 * what to do; WHAT says what was being done.  The caller frees it. */
char	*sql_cause(struct dn_store *s, const char *what);
/* sqlite3_exec SQL; on failure *CAUSE from sql_cause(WHAT). */
int	 sql_exec(struct dn_store *s, const char *sql, const char *what,
	    char **cause);
/* Prepare a persistent statement into *STP (the caller finalizes it). */
int	 sql_prepare(struct dn_store *s, const char *sql, sqlite3_stmt **stp,
	    char **cause);
/* Step a write statement that returns no row, and reset it. */
int	 sql_step_done(struct dn_store *s, sqlite3_stmt *st, const char *what,
	    char **cause);
/* PRAGMA quick_check(1) of S: 0 when it says "ok", else -1 with *CAUSE
 * "database 'PATH' is corrupt (WHAT IT SAID); ADVICE". */
int	 sql_quick_check(struct dn_store *s, const char *advice, char **cause);
/* Bind text V (NULL binds SQL NULL) to parameter I. */
void	 sql_bind_text(sqlite3_stmt *st, int i, const char *v);

#endif
