/*
 * schema.c: opening and closing the sqlite store (see store.h; schema:
 * docs/schema.md): access and integrity checks, pragmas, creating and
 * migrating the schema, filling the metrics dictionary and preparing the
 * write statements.  Not the writes or reads themselves (store-write.c,
 * store-read.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "metric-table.h"
#include "store-internal.h"
#include "xalloc.h"

/* 1: the first schema.  2: runs.git_commit (issue 14; migrate_v2). */
#define SCHEMA_VERSION	2
#define BUSY_TIMEOUT_MS	2000
/* quick_check reads every page: only on databases small enough for it to
 * be quick (docs/schema.md). */
#define QUICK_CHECK_MAX	(256ll * 1024 * 1024)

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
    " git_commit TEXT,"
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
    " r.binary_sha256, r.git_describe, r.git_commit"
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
	rv = sql_prepare(s, sql, &s->ins_samples, cause);
	return (rv);
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

/*
 * Schema step 2: runs.git_commit, the commit a `rev:` variant was built
 * from (devnet history orders runs by it).  A database created before it
 * has a runs table without the column; new ones get it from schema_sql.
 * Runs before the views are created, since run_summary names the column.
 */
static int
migrate_v2(struct dn_store *s, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 have_runs = 0, have_col = 0;

	if (sql_prepare(s, "SELECT (SELECT count(*) FROM sqlite_master"
	    " WHERE type = 'table' AND name = 'runs'),"
	    " (SELECT count(*) FROM pragma_table_info('runs')"
	    " WHERE name = 'git_commit')", &st, cause) != 0)
		return (-1);
	if (sqlite3_step(st) == SQLITE_ROW) {
		have_runs = sqlite3_column_int(st, 0);
		have_col = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	if (!have_runs || have_col)
		return (0);
	return (sql_exec(s, "ALTER TABLE runs ADD COLUMN git_commit TEXT",
	    "add runs.git_commit", cause));
}

/* Create or upgrade the schema and refresh the metrics dictionary, in one
 * IMMEDIATE transaction (which is also where a competing writer shows). */
static int
migrate(struct dn_store *s, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 i, version = 0, rc = -1;

	if (sql_exec(s, "BEGIN IMMEDIATE", "begin", cause) != 0)
		return (-1);
	/* Views hold no data: recreate them so that every database has the
	 * current definitions. */
	if (sql_exec(s, "DROP VIEW IF EXISTS run_summary; "
	    "DROP VIEW IF EXISTS node_summary; "
	    "DROP VIEW IF EXISTS sample_rates", "drop views", cause) != 0 ||
	    migrate_v2(s, cause) != 0 ||
	    sql_exec(s, schema_sql, "create schema", cause) != 0)
		goto out;
	if (sql_prepare(s, "SELECT max(version) FROM schema_version", &st,
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
		int	 r = sql_exec(s, sql, "schema version", cause);

		free(sql);
		if (r != 0)
			goto out;
	}
	if (sql_prepare(s, "INSERT OR REPLACE INTO metrics (id, name, unit,"
	    " kind, better, source, description)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &st, cause) != 0)
		goto out;
	for (i = 0; i < DN_METRIC_COUNT; i++) {
		const struct dn_metric_def *d = &dn_metric_defs[i];

		sqlite3_bind_int(st, 1, i);
		sql_bind_text(st, 2, d->name);
		sql_bind_text(st, 3, d->unit);
		sql_bind_text(st, 4, kind_word(d->kind));
		sql_bind_text(st, 5, better_word(d->better));
		sql_bind_text(st, 6,
		    d->source == DN_SOURCE_L ? "loadgen" : "node");
		sql_bind_text(st, 7, d->desc);
		if (sql_step_done(s, st, "fill metrics", cause) != 0)
			goto out;
	}
	if (sql_exec(s, "COMMIT", "commit schema", cause) != 0)
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
	if (sql_prepare(s, "PRAGMA quick_check(1)", &st, cause) != 0)
		return (-1);
	if (sqlite3_step(st) != SQLITE_ROW) {
		*cause = sql_cause(s, "quick_check");
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
	if (sql_exec(s, "SELECT count(*) FROM sqlite_master", "read schema",
	    cause) != 0)
		goto fail;
	if (s->rdonly) {
		/* mmap: readers scan millions of rows (compare); it halves
		 * their system time against pread of every page. */
		if (sql_exec(s, "PRAGMA query_only = 1; "
		    "PRAGMA cache_size = -65536; "
		    "PRAGMA mmap_size = 1073741824", "pragmas", cause) != 0)
			goto fail;
	} else {
		if (check_integrity(s, cause) != 0)
			goto fail;
		if (sql_exec(s, "PRAGMA journal_mode = WAL; "
		    "PRAGMA synchronous = NORMAL; "
		    "PRAGMA cache_size = -65536; "
		    "PRAGMA temp_store = MEMORY; "
		    "PRAGMA wal_autocheckpoint = 10000", "pragmas", cause) != 0)
			goto fail;
		if (migrate(s, cause) != 0)
			goto fail;
		if (sql_prepare(s, "INSERT OR IGNORE INTO samples (run_id, "
		    "node, metric_id, t_ms, value) "
		    "VALUES (?1, ?2, ?3, ?4, ?5)",
		    &s->ins_sample, cause) != 0 ||
		    prepare_ins_samples(s, cause) != 0 ||
		    sql_prepare(s, "INSERT INTO events (run_id, t_ms, node, "
		    "kind, detail) VALUES (?1, ?2, ?3, ?4, ?5)", &s->ins_event,
		    cause) != 0 ||
		    sql_prepare(s, "INSERT OR REPLACE INTO run_facts (run_id, "
		    "node, key, value) VALUES (?1, ?2, ?3, ?4)", &s->ins_fact,
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

