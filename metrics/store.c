/*
 * store.c: the sqlite store (see store.h; schema: docs/schema.md).  The only
 * file that calls sqlite3_*.  It knows nothing of YAML, the CLI or the
 * statistics; it stores and reads back.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "metric-table.h"
#include "store.h"
#include "util.h"

#define SCHEMA_VERSION	1
#define BUSY_TIMEOUT_MS	2000
/* quick_check reads every page: only on databases small enough for it to
 * be quick (docs/schema.md). */
#define QUICK_CHECK_MAX	(256ll * 1024 * 1024)

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

struct dn_store {
	sqlite3		*db;
	struct pending	*pend;
	size_t		 npend;
	char		*path;
	int		 rdonly;
	int		 in_txn;
	sqlite3_stmt	*ins_sample;
	sqlite3_stmt	*ins_samples;	/* INS_ROWS rows per statement */
	sqlite3_stmt	*ins_event;
	sqlite3_stmt	*ins_fact;
	sqlite3_stmt	*sel_series;
};

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

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS schema_version ("
    " version INTEGER NOT NULL);\n"
    "CREATE TABLE IF NOT EXISTS ab_groups ("
    " id INTEGER PRIMARY KEY,"
    " scenario TEXT NOT NULL,"
    " label TEXT,"
    " created_ms INTEGER NOT NULL);\n"
    "CREATE TABLE IF NOT EXISTS runs ("
    " id INTEGER PRIMARY KEY,"
    " ab_group INTEGER REFERENCES ab_groups(id),"
    " scenario TEXT NOT NULL,"
    " scenario_path TEXT,"
    " scenario_yaml TEXT,"
    " variant TEXT,"
    " trial INTEGER,"
    " repeat INTEGER,"
    " label TEXT,"
    " binary TEXT,"
    " binary_sha256 TEXT,"
    " git_describe TEXT,"
    " host TEXT,"
    " pid INTEGER,"
    " run_dir TEXT,"
    " nodes INTEGER,"
    " tps REAL,"
    " duration_ms INTEGER,"
    " warmup_ms INTEGER NOT NULL DEFAULT 0,"
    " sample_interval_ms INTEGER,"
    " token TEXT,"
    " start_ms INTEGER NOT NULL,"
    " end_ms INTEGER,"
    " status TEXT NOT NULL DEFAULT 'running'"
    "  CHECK(status IN ('running','ok','failed','interrupted')),"
    " reason TEXT);\n"
    "CREATE INDEX IF NOT EXISTS runs_group ON runs(ab_group, variant);\n"
    "CREATE TABLE IF NOT EXISTS nodes ("
    " run_id INTEGER NOT NULL REFERENCES runs(id),"
    " node INTEGER NOT NULL,"
    " pid INTEGER,"
    " binary TEXT,"
    " sha256 TEXT,"
    " cmdline TEXT);\n"
    "CREATE INDEX IF NOT EXISTS nodes_run ON nodes(run_id, node);\n"
    "CREATE TABLE IF NOT EXISTS metrics ("
    " id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL UNIQUE,"
    " unit TEXT NOT NULL,"
    " kind TEXT NOT NULL CHECK(kind IN ('gauge','counter')),"
    " better TEXT NOT NULL CHECK(better IN ('lower','higher','neutral')),"
    " source TEXT NOT NULL CHECK(source IN ('node','loadgen')),"
    " description TEXT);\n"
    "CREATE TABLE IF NOT EXISTS samples ("
    " run_id INTEGER NOT NULL,"
    " node INTEGER NOT NULL,"
    " metric_id INTEGER NOT NULL,"
    " t_ms INTEGER NOT NULL,"
    " value REAL,"
    " PRIMARY KEY (run_id, metric_id, node, t_ms)) WITHOUT ROWID;\n"
    /* Per-series steady-state aggregates of a finished run, written by
     * dn_store_run_end (and for runs reaped as interrupted) so that
     * node_summary does not rescan millions of samples; runs without rows
     * here are aggregated when queried (docs/schema.md). */
    "CREATE TABLE IF NOT EXISTS series ("
    " run_id INTEGER NOT NULL,"
    " metric_id INTEGER NOT NULL,"
    " node INTEGER NOT NULL,"
    " n INTEGER NOT NULL,"
    " min REAL,"
    " avg REAL,"
    " max REAL,"
    " t_first INTEGER,"
    " t_last INTEGER,"
    " PRIMARY KEY (run_id, metric_id, node)) WITHOUT ROWID;\n"
    "CREATE TABLE IF NOT EXISTS events ("
    " id INTEGER PRIMARY KEY,"
    " run_id INTEGER NOT NULL,"
    " t_ms INTEGER NOT NULL,"
    " node INTEGER NOT NULL,"
    " kind TEXT NOT NULL,"
    " detail TEXT);\n"
    "CREATE INDEX IF NOT EXISTS events_run ON events(run_id, t_ms);\n"
    "CREATE TABLE IF NOT EXISTS run_facts ("
    " run_id INTEGER NOT NULL,"
    " node INTEGER NOT NULL,"
    " key TEXT NOT NULL,"
    " value TEXT,"
    " PRIMARY KEY (run_id, node, key));\n"
    /* Views: the common questions (docs/schema.md). */
    "CREATE VIEW IF NOT EXISTS run_summary AS SELECT"
    " r.id AS run_id, r.ab_group, r.scenario, r.variant, r.trial,"
    " r.repeat, r.label, r.status, r.reason,"
    " datetime(r.start_ms / 1000, 'unixepoch') AS start_utc,"
    " (r.end_ms - r.start_ms) / 1000.0 AS duration_s,"
    " r.nodes, r.tps,"
    " (SELECT value FROM run_facts f WHERE f.run_id = r.id"
    "  AND f.node = -1 AND f.key = 'achieved_tps') AS achieved_tps,"
    " (SELECT value FROM run_facts f WHERE f.run_id = r.id"
    "  AND f.node = -1 AND f.key = 'tx_included') AS tx_included,"
    " (SELECT value FROM run_facts f WHERE f.run_id = r.id"
    "  AND f.node = -1 AND f.key = 'lost_samples') AS lost_samples,"
    " (SELECT count(*) FROM events e WHERE e.run_id = r.id AND e.kind IN"
    "  ('crash','stalled','lost_samples')) AS unplanned_events,"
    " r.binary_sha256, r.git_describe"
    " FROM runs r;\n"
    /* Aggregate first, name later: joining metrics per group instead of
     * per row halves the cost of a whole-run summary.  Finished runs read
     * their stored aggregates (series); the others are aggregated here. */
    "CREATE VIEW IF NOT EXISTS node_summary AS SELECT"
    " a.run_id, a.node, m.name AS metric, m.unit, m.kind, a.n, a.min,"
    " a.avg, a.max, a.t_first, a.t_last,"
    " CASE WHEN m.kind = 'counter' AND a.t_last > a.t_first"
    "  THEN (a.max - a.min) * 1000.0 / (a.t_last - a.t_first)"
    "  END AS rate_per_s"
    " FROM (SELECT run_id, node, metric_id, n, min, avg, max, t_first,"
    "  t_last FROM series"
    "  UNION ALL " SERIES_AGGREGATE
    "  AND NOT EXISTS (SELECT 1 FROM series x WHERE x.run_id = r.id)"
    "  GROUP BY s.run_id, s.metric_id, s.node) a"
    " JOIN metrics m ON m.id = a.metric_id;\n"
    "CREATE VIEW IF NOT EXISTS sample_rates AS SELECT"
    " run_id, node, metric, t_ms, rate_per_s FROM (SELECT s.run_id,"
    " s.node, m.name AS metric, s.t_ms,"
    " (s.value - lag(s.value) OVER w) * 1000.0"
    "  / (s.t_ms - lag(s.t_ms) OVER w) AS rate_per_s"
    " FROM samples s JOIN metrics m ON m.id = s.metric_id"
    " WHERE m.kind = 'counter'"
    " WINDOW w AS (PARTITION BY s.run_id, s.metric_id, s.node"
    "  ORDER BY s.t_ms))"
    " WHERE rate_per_s IS NOT NULL AND rate_per_s >= 0;\n";

static char *
store_cause(struct dn_store *s, const char *what)
{
	int	 code = sqlite3_extended_errcode(s->db);
	int	 prim = code & 0xff;

	if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
		return (dn_xasprintf("database '%s' is locked by another "
		    "process; wait for it or use --db", s->path));
	if (prim == SQLITE_NOTADB || prim == SQLITE_CORRUPT)
		return (dn_xasprintf("database '%s' is not a devnet sqlite "
		    "database or is corrupt (%s); move it away or use --db",
		    s->path, sqlite3_errmsg(s->db)));
	if (prim == SQLITE_READONLY)
		return (dn_xasprintf("database '%s' is read-only (%s); use a "
		    "writable file or --db", s->path, sqlite3_errmsg(s->db)));
	if (prim == SQLITE_FULL)
		return (dn_xasprintf("database '%s': disk full; free space "
		    "or use --db elsewhere", s->path));
	return (dn_xasprintf("database '%s': %s: %s", s->path, what,
	    sqlite3_errmsg(s->db)));
}

static int
exec_sql(struct dn_store *s, const char *sql, const char *what, char **cause)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		*cause = store_cause(s, what);
		return (-1);
	}
	return (0);
}

static int
prepare(struct dn_store *s, const char *sql, sqlite3_stmt **stp,
    char **cause)
{
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, stp,
	    NULL) != SQLITE_OK) {
		*cause = store_cause(s, "prepare");
		return (-1);
	}
	return (0);
}

/* The INS_ROWS-row sample insert. */
static int
prepare_ins_samples(struct dn_store *s, char **cause)
{
	static const char	head[] = "INSERT OR IGNORE INTO samples "
				    "(run_id, node, metric_id, t_ms, value) "
				    "VALUES ";
	static const char	row[] = "(?, ?, ?, ?, ?),";
	char			sql[sizeof(head) + INS_ROWS * (sizeof(row) - 1)];
	size_t			off = sizeof(head) - 1;
	int			i, rv;

	memcpy(sql, head, off);
	for (i = 0; i < INS_ROWS; i++, off += sizeof(row) - 1)
		memcpy(sql + off, row, sizeof(row) - 1);
	sql[off - 1] = '\0';	/* the last comma */
	rv = prepare(s, sql, &s->ins_samples, cause);
	return (rv);
}

/* Step a write statement that returns no row, and reset it. */
static int
step_done(struct dn_store *s, sqlite3_stmt *st, const char *what,
    char **cause)
{
	int	rc = sqlite3_step(st);

	if (rc != SQLITE_DONE) {
		*cause = store_cause(s, what);
		sqlite3_reset(st);
		return (-1);
	}
	sqlite3_reset(st);
	return (0);
}

static void
bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

static const char *
kind_word(enum dn_metric_kind k)
{
	return (k == DN_KIND_C ? "counter" : "gauge");
}

static const char *
better_word(enum dn_metric_better b)
{
	if (b == DN_BETTER_L)
		return ("lower");
	if (b == DN_BETTER_H)
		return ("higher");
	return ("neutral");
}

/* Create or upgrade the schema and refresh the metrics dictionary, in one
 * IMMEDIATE transaction (which is also where a competing writer shows). */
static int
migrate(struct dn_store *s, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 i, version = 0, rc = -1;

	if (exec_sql(s, "BEGIN IMMEDIATE", "begin", cause) != 0)
		return (-1);
	/* Views hold no data: recreate them so that every database has the
	 * current definitions. */
	if (exec_sql(s, "DROP VIEW IF EXISTS run_summary; "
	    "DROP VIEW IF EXISTS node_summary; "
	    "DROP VIEW IF EXISTS sample_rates", "drop views", cause) != 0 ||
	    exec_sql(s, schema_sql, "create schema", cause) != 0)
		goto out;
	if (prepare(s, "SELECT max(version) FROM schema_version", &st,
	    cause) != 0)
		goto out;
	if (sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (version > SCHEMA_VERSION) {
		*cause = dn_xasprintf("database '%s' has schema version %d, "
		    "newer than this devnet understands (%d); upgrade devnet "
		    "or use --db", s->path, version, SCHEMA_VERSION);
		goto out;
	}
	if (version < SCHEMA_VERSION) {
		char	*sql = dn_xasprintf("DELETE FROM schema_version; "
		    "INSERT INTO schema_version VALUES (%d)", SCHEMA_VERSION);
		int	 r = exec_sql(s, sql, "schema version", cause);

		free(sql);
		if (r != 0)
			goto out;
	}
	if (prepare(s, "INSERT OR REPLACE INTO metrics (id, name, unit, kind,"
	    " better, source, description) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	    &st, cause) != 0)
		goto out;
	for (i = 0; i < DN_METRIC_COUNT; i++) {
		const struct dn_metric_def *d = &dn_metric_defs[i];

		sqlite3_bind_int(st, 1, i);
		bind_text(st, 2, d->name);
		bind_text(st, 3, d->unit);
		bind_text(st, 4, kind_word(d->kind));
		bind_text(st, 5, better_word(d->better));
		bind_text(st, 6, d->source == DN_SOURCE_L ? "loadgen" : "node");
		bind_text(st, 7, d->desc);
		if (step_done(s, st, "fill metrics", cause) != 0)
			goto out;
	}
	if (exec_sql(s, "COMMIT", "commit schema", cause) != 0)
		goto out;
	rc = 0;
out:
	sqlite3_finalize(st);
	if (rc != 0)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return (rc);
}

static int
check_integrity(struct dn_store *s, char **cause)
{
	sqlite3_stmt	*st = NULL;
	struct stat	 sb;
	const char	*res;
	int		 rc = -1;

	if (stat(s->path, &sb) != 0 || sb.st_size > QUICK_CHECK_MAX)
		return (0);
	if (prepare(s, "PRAGMA quick_check(1)", &st, cause) != 0)
		return (-1);
	if (sqlite3_step(st) != SQLITE_ROW) {
		*cause = store_cause(s, "quick_check");
		goto out;
	}
	res = (const char *)sqlite3_column_text(st, 0);
	if (res == NULL || strcmp(res, "ok") != 0) {
		*cause = dn_xasprintf("database '%s' is corrupt (%s); move it "
		    "away or use --db", s->path, res ? res : "?");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return (rc);
}

/* Refuse what sqlite would only notice later, with a message that says
 * which of file or directory is the problem. */
static int
check_access(const char *path, int rdonly, char **cause)
{
	char	*dir, *slash;
	int	 rc = 0;

	if (access(path, F_OK) != 0) {
		if (rdonly) {
			*cause = dn_xasprintf("database '%s' does not exist; "
			    "run 'devnet run' first or use --db", path);
			return (-1);
		}
		dir = dn_xstrdup(path);
		if ((slash = strrchr(dir, '/')) == NULL) {
			free(dir);
			dir = dn_xstrdup(".");
		} else if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (access(dir, W_OK) != 0) {
			*cause = dn_xasprintf("cannot create database '%s': "
			    "directory '%s' is %s; use --db elsewhere", path,
			    dir, errno == ENOENT ? "missing" : "not writable");
			rc = -1;
		}
		free(dir);
		return (rc);
	}
	if (!rdonly && access(path, W_OK) != 0) {
		*cause = dn_xasprintf("database '%s' is read-only; use a "
		    "writable file or --db", path);
		return (-1);
	}
	return (0);
}

int
dn_store_open(struct dn_store **sp, const char *path, int flags,
    char **cause)
{
	struct dn_store	*s;
	int		 oflags, rc;

	*sp = NULL;
	if (check_access(path, flags & DN_STORE_RDONLY, cause) != 0)
		return (-1);
	s = dn_xcalloc(1, sizeof(*s));
	s->path = dn_xstrdup(path);
	s->rdonly = (flags & DN_STORE_RDONLY) != 0;
	oflags = s->rdonly ? SQLITE_OPEN_READONLY :
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(path, &s->db, oflags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		if (s->db == NULL)
			*cause = dn_xasprintf("database '%s': out of memory",
			    path);
		else
			*cause = dn_xasprintf("cannot open database '%s': %s; "
			    "check the path or use --db", path,
			    sqlite3_errmsg(s->db));
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	/* Touch the schema first: a file that is not a database says so
	 * here, not in the middle of a write. */
	if (exec_sql(s, "SELECT count(*) FROM sqlite_master", "read schema",
	    cause) != 0)
		goto fail;
	if (s->rdonly) {
		/* mmap: readers scan millions of rows (compare); it halves
		 * their system time against pread of every page. */
		if (exec_sql(s, "PRAGMA query_only = 1; "
		    "PRAGMA cache_size = -65536; "
		    "PRAGMA mmap_size = 1073741824", "pragmas", cause) != 0)
			goto fail;
	} else {
		if (check_integrity(s, cause) != 0)
			goto fail;
		if (exec_sql(s, "PRAGMA journal_mode = WAL; "
		    "PRAGMA synchronous = NORMAL; "
		    "PRAGMA cache_size = -65536; "
		    "PRAGMA temp_store = MEMORY; "
		    "PRAGMA wal_autocheckpoint = 10000", "pragmas", cause) != 0)
			goto fail;
		if (migrate(s, cause) != 0)
			goto fail;
		if (prepare(s, "INSERT OR IGNORE INTO samples (run_id, node, "
		    "metric_id, t_ms, value) VALUES (?1, ?2, ?3, ?4, ?5)",
		    &s->ins_sample, cause) != 0 ||
		    prepare_ins_samples(s, cause) != 0 ||
		    prepare(s, "INSERT INTO events (run_id, t_ms, node, kind, "
		    "detail) VALUES (?1, ?2, ?3, ?4, ?5)", &s->ins_event,
		    cause) != 0 ||
		    prepare(s, "INSERT OR REPLACE INTO run_facts (run_id, node, "
		    "key, value) VALUES (?1, ?2, ?3, ?4)", &s->ins_fact,
		    cause) != 0)
			goto fail;
	}
	*sp = s;
	return (0);
fail:
	dn_store_close(s);
	return (-1);
}

void
dn_store_close(struct dn_store *s)
{
	if (s == NULL)
		return;
	sqlite3_finalize(s->ins_sample);
	sqlite3_finalize(s->ins_samples);
	sqlite3_finalize(s->ins_event);
	sqlite3_finalize(s->ins_fact);
	sqlite3_finalize(s->sel_series);
	if (s->in_txn)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close_v2(s->db);
	free(s->pend);
	free(s->path);
	free(s);
}

static int
need_writable(struct dn_store *s, char **cause)
{
	if (s->rdonly) {
		*cause = dn_xasprintf("database '%s' was opened read-only",
		    s->path);
		return (-1);
	}
	return (0);
}

static int
txn_begin(struct dn_store *s, char **cause)
{
	if (s->in_txn)
		return (0);
	if (exec_sql(s, "BEGIN IMMEDIATE", "begin", cause) != 0)
		return (-1);
	s->in_txn = 1;
	return (0);
}

/* Undo the open transaction, if any (the error path of every write). */
static void
txn_rollback(struct dn_store *s)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_txn = 0;
}

static int	pending_flush(struct dn_store *, char **);

int
dn_store_commit(struct dn_store *s, char **cause)
{
	if (pending_flush(s, cause) != 0) {
		txn_rollback(s);
		return (-1);
	}
	if (!s->in_txn)
		return (0);
	if (exec_sql(s, "COMMIT", "commit", cause) != 0) {
		txn_rollback(s);
		return (-1);
	}
	s->in_txn = 0;
	return (0);
}

int
dn_store_begin(struct dn_store *s, char **cause)
{
	if (need_writable(s, cause) != 0)
		return (-1);
	return (txn_begin(s, cause));
}

/* Run a one-shot write now and make it (and any open batch) durable, so
 * that other readers see runs and groups as soon as they exist. */
static int
write_now(struct dn_store *s, sqlite3_stmt *st, const char *what,
    char **cause)
{
	int	rc = step_done(s, st, what, cause);

	sqlite3_finalize(st);
	if (rc != 0)
		return (-1);
	return (dn_store_commit(s, cause));
}

static void
host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
}

/*
 * Store run RUN_ID's per-series aggregates, in the open transaction, after
 * its last sample: node_summary then reads a few hundred rows instead of
 * aggregating every sample of the run (docs/benchmarks.md, "Compare").
 */
static int
series_store(struct dn_store *s, int64_t run_id, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 rc;

	if (prepare(s, "INSERT OR REPLACE INTO series (run_id, node, "
	    "metric_id, n, min, avg, max, t_first, t_last) " SERIES_AGGREGATE
	    " AND r.id = ?1 GROUP BY s.metric_id, s.node", &st, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	rc = step_done(s, st, "store run aggregates", cause);
	sqlite3_finalize(st);
	return (rc);
}

int
dn_store_reap_stale(struct dn_store *s, int *n, char **cause)
{
	sqlite3_stmt	*sel = NULL, *upd = NULL;
	char		 host[256];
	int		 rc = -1, r;

	*n = 0;
	if (need_writable(s, cause) != 0)
		return (-1);
	host_name(host, sizeof(host));
	if (prepare(s, "SELECT id, pid FROM runs WHERE status = 'running' "
	    "AND host = ?1", &sel, cause) != 0 ||
	    prepare(s, "UPDATE runs SET status = 'interrupted', end_ms = "
	    "coalesce(start_ms + (SELECT max(t_ms) FROM samples WHERE run_id = "
	    "?1 AND metric_id = 0), ?2), reason = ?3 WHERE id = ?1 AND status = 'running'", &upd,
	    cause) != 0)
		goto out;
	bind_text(sel, 1, host);
	while ((r = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t	 id = sqlite3_column_int64(sel, 0);
		int	 pid = sqlite3_column_int(sel, 1);
		char	*why;

		if (pid == getpid() || pid <= 0 ||
		    kill(pid, 0) == 0 || errno == EPERM)
			continue;
		why = dn_xasprintf("orchestrator (pid %d on %s) is gone", pid,
		    host);
		sqlite3_bind_int64(upd, 1, id);
		sqlite3_bind_int64(upd, 2, dn_wall_ms());
		sqlite3_bind_text(upd, 3, why, -1, SQLITE_TRANSIENT);
		free(why);
		if (step_done(s, upd, "reap stale run", cause) != 0 ||
		    series_store(s, id, cause) != 0)
			goto out;
		(*n)++;
	}
	if (r != SQLITE_DONE) {
		*cause = store_cause(s, "list running runs");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	return (rc);
}

int
dn_store_group_create(struct dn_store *s, const char *scenario_name,
    const char *label, int64_t *group_id, char **cause)
{
	sqlite3_stmt	*st = NULL;

	if (need_writable(s, cause) != 0)
		return (-1);
	if (prepare(s, "INSERT INTO ab_groups (scenario, label, created_ms) "
	    "VALUES (?1, ?2, ?3)", &st, cause) != 0)
		return (-1);
	bind_text(st, 1, scenario_name ? scenario_name : "");
	bind_text(st, 2, label);
	sqlite3_bind_int64(st, 3, dn_wall_ms());
	if (write_now(s, st, "create group", cause) != 0)
		return (-1);
	*group_id = sqlite3_last_insert_rowid(s->db);
	return (0);
}

int
dn_store_run_begin(struct dn_store *s, const struct dn_run_info *ri,
    int64_t *run_id, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		 host[256], token[17];

	if (need_writable(s, cause) != 0)
		return (-1);
	if (prepare(s, "INSERT INTO runs (ab_group, scenario, scenario_path, "
	    "scenario_yaml, variant, trial, repeat, label, binary, "
	    "binary_sha256, git_describe, host, pid, run_dir, nodes, tps, "
	    "duration_ms, warmup_ms, sample_interval_ms, token, start_ms, "
	    "status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
	    "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, 'running')",
	    &st, cause) != 0)
		return (-1);
	host_name(host, sizeof(host));
	snprintf(token, sizeof(token), "%016llx",
	    (unsigned long long)ri->token);
	if (ri->group_id > 0)
		sqlite3_bind_int64(st, 1, ri->group_id);
	bind_text(st, 2, ri->scenario_name ? ri->scenario_name : "");
	bind_text(st, 3, ri->scenario_path);
	bind_text(st, 4, ri->scenario_yaml);
	bind_text(st, 5, ri->variant);
	sqlite3_bind_int(st, 6, ri->trial);
	sqlite3_bind_int(st, 7, ri->repeat);
	bind_text(st, 8, ri->label);
	bind_text(st, 9, ri->binary);
	bind_text(st, 10, ri->binary_sha256);
	bind_text(st, 11, ri->git_describe);
	bind_text(st, 12, host);
	sqlite3_bind_int(st, 13, getpid());
	bind_text(st, 14, ri->run_dir);
	sqlite3_bind_int(st, 15, ri->nodes);
	sqlite3_bind_double(st, 16, ri->tps);
	sqlite3_bind_int64(st, 17, ri->duration_ms);
	sqlite3_bind_int64(st, 18, ri->warmup_ms);
	sqlite3_bind_int64(st, 19, ri->sample_interval_ms);
	bind_text(st, 20, token);
	sqlite3_bind_int64(st, 21, dn_wall_ms());
	if (write_now(s, st, "insert run", cause) != 0)
		return (-1);
	*run_id = sqlite3_last_insert_rowid(s->db);
	return (0);
}

int
dn_store_run_end(struct dn_store *s, int64_t run_id, const char *status,
    const char *reason, char **cause)
{
	sqlite3_stmt	*st = NULL;

	if (need_writable(s, cause) != 0)
		return (-1);
	if (status == NULL || (strcmp(status, "ok") != 0 &&
	    strcmp(status, "failed") != 0 &&
	    strcmp(status, "interrupted") != 0)) {
		*cause = dn_xasprintf("run status '%s' is not ok, failed or "
		    "interrupted", status ? status : "(null)");
		return (-1);
	}
	/* The buffered samples are made durable first; the status and the
	 * aggregates over them then land together or not at all. */
	if (dn_store_commit(s, cause) != 0)
		return (-1);
	if (txn_begin(s, cause) != 0 || prepare(s, "UPDATE runs SET "
	    "status = ?2, reason = ?3, end_ms = ?4 WHERE id = ?1", &st,
	    cause) != 0)
		goto fail;
	sqlite3_bind_int64(st, 1, run_id);
	bind_text(st, 2, status);
	bind_text(st, 3, reason);
	sqlite3_bind_int64(st, 4, dn_wall_ms());
	if (step_done(s, st, "end run", cause) != 0)
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_changes(s->db) != 1) {
		*cause = dn_xasprintf("database '%s': no run %lld", s->path,
		    (long long)run_id);
		goto fail;
	}
	if (series_store(s, run_id, cause) != 0)
		goto fail;
	return (dn_store_commit(s, cause));
fail:
	sqlite3_finalize(st);
	txn_rollback(s);
	return (-1);
}

int
dn_store_node_add(struct dn_store *s, int64_t run_id, int node, int pid,
    const char *binary, const char *sha256, const char *cmdline,
    char **cause)
{
	sqlite3_stmt	*st = NULL;

	if (need_writable(s, cause) != 0)
		return (-1);
	if (prepare(s, "INSERT INTO nodes (run_id, node, pid, binary, sha256, "
	    "cmdline) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &st, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, node);
	sqlite3_bind_int(st, 3, pid);
	bind_text(st, 4, binary);
	bind_text(st, 5, sha256);
	bind_text(st, 6, cmdline);
	return (write_now(s, st, "insert node", cause));
}

static int
pending_cmp(const void *a, const void *b)
{
	const struct pending	*x = a, *y = b;

	if (x->run_id != y->run_id)
		return (x->run_id < y->run_id ? -1 : 1);
	if (x->metric_id != y->metric_id)
		return (x->metric_id < y->metric_id ? -1 : 1);
	if (x->node != y->node)
		return (x->node < y->node ? -1 : 1);
	if (x->t_ms != y->t_ms)
		return (x->t_ms < y->t_ms ? -1 : 1);
	return (0);
}

/*
 * Insert the buffered samples in primary-key order: consecutive inserts
 * then land on the same leaf page, which is what makes the clustered
 * WITHOUT ROWID table fast to fill (docs/schema.md).
 */
static int
pending_flush(struct dn_store *s, char **cause)
{
	sqlite3_stmt	*st = s->ins_sample;
	size_t		 i;

	if (s->npend == 0)
		return (0);
	if (txn_begin(s, cause) != 0)
		return (-1);
	qsort(s->pend, s->npend, sizeof(*s->pend), pending_cmp);
	for (i = 0; i + INS_ROWS <= s->npend; i += INS_ROWS) {
		sqlite3_stmt	*m = s->ins_samples;
		int		 k;

		for (k = 0; k < INS_ROWS; k++) {
			const struct pending *p = &s->pend[i + (size_t)k];

			sqlite3_bind_int64(m, k * 5 + 1, p->run_id);
			sqlite3_bind_int(m, k * 5 + 2, p->node);
			sqlite3_bind_int(m, k * 5 + 3, p->metric_id);
			sqlite3_bind_int64(m, k * 5 + 4, p->t_ms);
			sqlite3_bind_double(m, k * 5 + 5, p->value);
		}
		if (step_done(s, m, "insert sample", cause) != 0) {
			s->npend = 0;
			return (-1);
		}
	}
	for (; i < s->npend; i++) {
		const struct pending *p = &s->pend[i];

		sqlite3_bind_int64(st, 1, p->run_id);
		sqlite3_bind_int(st, 2, p->node);
		sqlite3_bind_int(st, 3, p->metric_id);
		sqlite3_bind_int64(st, 4, p->t_ms);
		sqlite3_bind_double(st, 5, p->value);
		if (step_done(s, st, "insert sample", cause) != 0) {
			s->npend = 0;
			return (-1);
		}
	}
	s->npend = 0;
	return (0);
}

int
dn_store_sample(struct dn_store *s, int64_t run_id, int node, int metric_id,
    int64_t t_ms, double value, char **cause)
{
	struct pending	*p;

	/* The transaction opens with the first sample, as store.h says: the
	 * write lock is held from here to dn_store_commit. */
	if (need_writable(s, cause) != 0 || txn_begin(s, cause) != 0)
		return (-1);
	if (s->npend == PENDING_MAX && (pending_flush(s, cause) != 0 ||
	    dn_store_commit(s, cause) != 0))
		return (-1);
	if (s->pend == NULL)
		s->pend = dn_xreallocarray(NULL, PENDING_MAX, sizeof(*p));
	p = &s->pend[s->npend++];
	p->run_id = run_id;
	p->node = node;
	p->metric_id = metric_id;
	p->t_ms = t_ms;
	p->value = value;
	return (0);
}

int
dn_store_event(struct dn_store *s, int64_t run_id, int node, int64_t t_ms,
    const char *kind, const char *detail, char **cause)
{
	sqlite3_stmt	*st = s->ins_event;

	if (need_writable(s, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, t_ms);
	sqlite3_bind_int(st, 3, node);
	bind_text(st, 4, kind ? kind : "");
	bind_text(st, 5, detail);
	return (step_done(s, st, "insert event", cause));
}

int
dn_store_fact(struct dn_store *s, int64_t run_id, int node, const char *key,
    const char *value, char **cause)
{
	sqlite3_stmt	*st = s->ins_fact;

	if (need_writable(s, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, node);
	bind_text(st, 3, key ? key : "");
	bind_text(st, 4, value);
	return (step_done(s, st, "insert fact", cause));
}

static int
only_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
	    *p == ';')
		p++;
	return (*p == '\0');
}

int
dn_store_query(struct dn_store *s, const char *sql,
    const char *const *params, int nparams, dn_store_row_fn row, void *arg,
    char **cause)
{
	sqlite3_stmt	 *st = NULL;
	const char	 *tail = NULL;
	const char	**names = NULL, **vals = NULL;
	int		 *types = NULL;
	int		  i, n, r, rc = -1;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, &tail) != SQLITE_OK) {
		*cause = dn_xasprintf("sql error: %s", sqlite3_errmsg(s->db));
		return (-1);
	}
	if (st == NULL) {
		*cause = dn_xasprintf("sql error: empty statement");
		return (-1);
	}
	if (tail != NULL && !only_blanks(tail)) {
		*cause = dn_xasprintf("sql error: one statement at a time "
		    "(found more after ';')");
		goto out;
	}
	if (s->rdonly && !sqlite3_stmt_readonly(st)) {
		*cause = dn_xasprintf("database '%s' is open read-only: "
		    "statements that write are refused", s->path);
		goto out;
	}
	for (i = 0; i < nparams; i++)
		bind_text(st, i + 1, params[i]);
	n = sqlite3_column_count(st);
	names = dn_xcalloc(n + 1, sizeof(*names));
	vals = dn_xcalloc(n + 1, sizeof(*vals));
	types = dn_xcalloc(n + 1, sizeof(*types));
	for (i = 0; i < n; i++)
		names[i] = sqlite3_column_name(st, i);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			types[i] = sqlite3_column_type(st, i);
			vals[i] = (const char *)sqlite3_column_text(st, i);
		}
		if (row != NULL && row(arg, n, names, vals, types) != 0)
			break;
	}
	if (r != SQLITE_ROW && r != SQLITE_DONE) {
		if ((r & 0xff) == SQLITE_READONLY)
			*cause = dn_xasprintf("database '%s' is open "
			    "read-only: statements that write are refused",
			    s->path);
		else
			*cause = dn_xasprintf("sql error: %s",
			    sqlite3_errmsg(s->db));
		goto out;
	}
	rc = 0;
out:
	free(names);
	free(vals);
	free(types);
	sqlite3_finalize(st);
	return (rc);
}

const char *
dn_store_path(struct dn_store *s)
{
	return (s->path);
}

void
dn_series_free(struct dn_series *v, size_t n)
{
	size_t	i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].t_ms);
		free(v[i].v);
	}
	free(v);
}

int
dn_store_series(struct dn_store *s, int64_t run_id, int metric_id,
    int64_t t_min, struct dn_series **out, size_t *nout, char **cause)
{
	struct dn_series	*v = NULL, *cur = NULL;
	size_t			 n = 0, cap = 0;
	int			 r;

	*out = NULL;
	*nout = 0;
	if (s->sel_series == NULL && prepare(s, "SELECT node, t_ms, value "
	    "FROM samples WHERE run_id = ?1 AND metric_id = ?2 AND "
	    "t_ms >= ?3 ORDER BY node, t_ms", &s->sel_series, cause) != 0)
		return (-1);
	sqlite3_bind_int64(s->sel_series, 1, run_id);
	sqlite3_bind_int(s->sel_series, 2, metric_id);
	sqlite3_bind_int64(s->sel_series, 3, t_min);
	while ((r = sqlite3_step(s->sel_series)) == SQLITE_ROW) {
		int	node = sqlite3_column_int(s->sel_series, 0);

		if (sqlite3_column_type(s->sel_series, 2) == SQLITE_NULL)
			continue;
		if (cur == NULL || cur->node != node) {
			if (n == cap) {
				cap = cap ? cap * 2 : 16;
				v = dn_xreallocarray(v, cap, sizeof(*v));
			}
			cur = &v[n++];
			memset(cur, 0, sizeof(*cur));
			cur->node = node;
		}
		if (cur->n == cur->cap) {
			cur->cap = cur->cap ? cur->cap * 2 : 1024;
			cur->t_ms = dn_xreallocarray(cur->t_ms, cur->cap,
			    sizeof(*cur->t_ms));
			cur->v = dn_xreallocarray(cur->v, cur->cap,
			    sizeof(*cur->v));
		}
		cur->t_ms[cur->n] = sqlite3_column_int64(s->sel_series, 1);
		cur->v[cur->n] = sqlite3_column_double(s->sel_series, 2);
		cur->n++;
	}
	sqlite3_reset(s->sel_series);
	if (r != SQLITE_DONE) {
		*cause = store_cause(s, "read samples");
		dn_series_free(v, n);
		return (-1);
	}
	*out = v;
	*nout = n;
	return (0);
}
