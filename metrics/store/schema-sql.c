/*
 * schema-sql.c: the store's newest schema as SQL and the migration steps
 * that bring an older file to it (data only; schema.c runs them).  The
 * schema's reference is docs/schema.md; raising SCHEMA_VERSION
 * (store-internal.h) needs a step here and a fixture made by the release
 * before (docs/schema.md, "Migrations").
 */
#include "store-internal.h"

const char store_schema_sql[] =
    "CREATE TABLE IF NOT EXISTS schema_version ("
    " version INTEGER NOT NULL);\n"
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    " id INTEGER PRIMARY KEY,"
    " from_version INTEGER NOT NULL,"
    " to_version INTEGER NOT NULL,"
    " applied_ms INTEGER NOT NULL,"
    " what TEXT NOT NULL);\n"
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
    " reason TEXT,"
    " git_commit TEXT,"
    " uuid TEXT,"
    " samples_digest TEXT,"
    " machine TEXT);\n"
    "CREATE INDEX IF NOT EXISTS runs_group ON runs(ab_group, variant);\n"
    /* The run's identity across copies of the file (devnet import). */
    "CREATE UNIQUE INDEX IF NOT EXISTS runs_uuid ON runs(uuid);\n"
    /* What the run's machine was: the parts runs.machine hashes, and
     * what is only informational (hostname, load1, governor). */
    "CREATE TABLE IF NOT EXISTS machines ("
    " run_id INTEGER PRIMARY KEY,"
    " fingerprint TEXT NOT NULL,"
    " cpu_model TEXT,"
    " cores INTEGER,"
    " threads INTEGER,"
    " mem_bytes INTEGER,"
    " kernel TEXT,"
    " arch TEXT,"
    " provider TEXT,"
    " limits TEXT,"
    " devnet_version TEXT,"
    " hostname TEXT,"
    " load1 REAL,"
    " governor TEXT);\n"
    "CREATE TABLE IF NOT EXISTS nodes ("
    " run_id INTEGER NOT NULL REFERENCES runs(id),"
    " node INTEGER NOT NULL,"
    " pid INTEGER,"
    " binary TEXT,"
    " sha256 TEXT,"
    " cmdline TEXT,"
    " host TEXT);\n"
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
    /* One row per assertion of the scenario per run (issue 21). */
    "CREATE TABLE IF NOT EXISTS assertions ("
    " run_id INTEGER NOT NULL,"
    " name TEXT NOT NULL,"
    " form TEXT NOT NULL,"
    " status TEXT NOT NULL,"
    " observed REAL,"
    " threshold REAL,"
    " t_ms INTEGER,"
    " node INTEGER,"
    " message TEXT,"
    " metric TEXT,"
    " op TEXT,"
    " unit TEXT,"
    " scope TEXT,"
    " window_from_ms INTEGER,"
    " window_to_ms INTEGER,"
    " PRIMARY KEY (run_id, name));\n"
    "CREATE TABLE IF NOT EXISTS run_facts ("
    " run_id INTEGER NOT NULL,"
    " node INTEGER NOT NULL,"
    " key TEXT NOT NULL,"
    " value TEXT,"
    " PRIMARY KEY (run_id, node, key));\n"
    /* The emulated network's probe (issue 20): one row per probe sent on
     * a directed link; owd_ms NULL = it did not arrive, rtt_ms NULL = no
     * echo came back. */
    "CREATE TABLE IF NOT EXISTS link_samples ("
    " run_id INTEGER NOT NULL,"
    " src INTEGER NOT NULL,"
    " dst INTEGER NOT NULL,"
    " t_ms INTEGER NOT NULL,"
    " owd_ms REAL,"
    " rtt_ms REAL,"
    " PRIMARY KEY (run_id, src, dst, t_ms)) WITHOUT ROWID;\n"
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
    " r.binary_sha256, r.git_describe, r.git_commit, r.uuid, r.machine"
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
    " WHERE rate_per_s IS NOT NULL AND rate_per_s >= 0;\n"
    /* Per directed link over the steady state (after the warmup):
     * nearest-rank quantiles of the RTT, the one-way loss. */
    "CREATE VIEW IF NOT EXISTS link_stats AS"
    " WITH w AS (SELECT l.run_id, l.src, l.dst, l.owd_ms, l.rtt_ms"
    "  FROM link_samples l JOIN runs r ON r.id = l.run_id"
    "  WHERE l.t_ms >= r.warmup_ms),"
    " k AS (SELECT run_id, src, dst, rtt_ms, row_number() OVER"
    "  (PARTITION BY run_id, src, dst ORDER BY rtt_ms) AS rn,"
    "  count(*) OVER (PARTITION BY run_id, src, dst) AS n"
    "  FROM w WHERE rtt_ms IS NOT NULL),"
    " q AS (SELECT run_id, src, dst,"
    "  min(CASE WHEN rn >= 0.5 * n THEN rtt_ms END) AS p50,"
    "  min(CASE WHEN rn >= 0.99 * n THEN rtt_ms END) AS p99"
    "  FROM k GROUP BY run_id, src, dst)"
    " SELECT w.run_id, w.src, w.dst, q.p50 AS rtt_ms_p50,"
    "  q.p99 AS rtt_ms_p99,"
    "  100.0 * sum(w.owd_ms IS NULL) / count(*) AS loss_pct,"
    "  count(*) AS probes"
    " FROM w LEFT JOIN q ON q.run_id = w.run_id AND q.src = w.src"
    "  AND q.dst = w.dst"
    " GROUP BY w.run_id, w.src, w.dst;\n";

/*
 * The migrations: step i takes a database at version FROM = i + 1 to
 * FROM + 1, by SQL or by a function (or both: SQL first), inside the
 * writer's transaction that also recreates the views and refreshes the
 * dictionary.  store_schema_sql above is always the newest schema, used as is
 * for a new file and run after the steps on an old one (it adds new
 * tables, indexes and views).  A step whose result a reader cannot see
 * through the newest shape (anything but new columns, tables, indexes and
 * views: a rename, a new meaning, rewritten rows) sets READERS_REFUSE:
 * readers then refuse the older file until a writer has migrated it.
 */
const struct store_migration store_migrations[] = {
	{ 1, "runs.git_commit, nodes.host, schema_migrations",
	    "ALTER TABLE runs ADD COLUMN git_commit TEXT;"
	    "ALTER TABLE nodes ADD COLUMN host TEXT", NULL, 0 },
	{ 2, "runs.uuid, runs.samples_digest, runs.machine, machines",
	    "ALTER TABLE runs ADD COLUMN uuid TEXT;"
	    "ALTER TABLE runs ADD COLUMN samples_digest TEXT;"
	    "ALTER TABLE runs ADD COLUMN machine TEXT", store_uuids_assign, 0 },
	/* the table comes from the current schema */
	{ 3, "table assertions", NULL, NULL, 0 },
	/* new table and view only: store_schema_sql adds them */
	{ 4, "link_samples, link_stats", NULL, NULL, 0 },
	/* the scope and the window an assertion was judged over, for the
	 * report's marks; a file from before step 4 first gets the table as
	 * step 4 made it */
	{ 5, "assertions.scope, window_from_ms, window_to_ms",
	    "CREATE TABLE IF NOT EXISTS assertions (run_id INTEGER NOT NULL,"
	    " name TEXT NOT NULL, form TEXT NOT NULL, status TEXT NOT NULL,"
	    " observed REAL, threshold REAL, t_ms INTEGER, node INTEGER,"
	    " message TEXT, metric TEXT, op TEXT, unit TEXT,"
	    " PRIMARY KEY (run_id, name));"
	    "ALTER TABLE assertions ADD COLUMN scope TEXT;"
	    "ALTER TABLE assertions ADD COLUMN window_from_ms INTEGER;"
	    "ALTER TABLE assertions ADD COLUMN window_to_ms INTEGER", NULL, 0 },
};
_Static_assert(sizeof(store_migrations) / sizeof(store_migrations[0]) ==
    SCHEMA_VERSION - 1, "one migration step per schema version");
