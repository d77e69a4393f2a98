/*
 * store-views.c: the read model of the display commands (store.h,
 * dn_store_read): every query that `devnet runs`, `show`, `export` and the
 * report page ask of the schema, named, in one place, beside the schema
 * they read.  A command picks a read by name and prints the rows it gets;
 * it holds no SQL text of its own, so a schema change touches this file
 * and schema.c only.
 *
 * Not here: the analysis reads (dn_store_series, compare's sides and
 * history's series, which build typed arrays), and `devnet query`, whose
 * SQL is the user's.
 */
#include <stdio.h>

#include "store-internal.h"

struct view {
	const char	*sql;
	int		 run_param;	/* takes ?1 = a run id */
};

static const struct view views[DN_READ_COUNT] = {
	[DN_READ_RUNS] = { "SELECT id, ab_group AS \"group\", scenario, "
	    "variant, trial, label, status, "
	    "strftime('%Y-%m-%d %H:%M:%S', start_ms / 1000, 'unixepoch') "
	    "AS start, round((coalesce(end_ms, start_ms) - start_ms) / "
	    "1000.0, 1) AS duration_s, nodes, "
	    "(SELECT sum(status = 'pass') || '/' || count(*) || CASE WHEN "
	    "sum(status = 'fail') > 0 THEN ' fail' WHEN sum(status = "
	    "'inconclusive') > 0 THEN ' inconclusive' ELSE '' END FROM "
	    "assertions a WHERE a.run_id = runs.id HAVING count(*) > 0) AS "
	    "asserts, machine, uuid FROM runs ORDER BY id", 0 },
	[DN_READ_RUN_EXISTS] = { "SELECT 1 FROM runs WHERE id = ?1", 1 },
	[DN_READ_RUN_HEADER] = { "SELECT id AS run, ab_group AS \"group\", "
	    "scenario, scenario_path, variant, trial, repeat, label, status, "
	    "reason, strftime('%Y-%m-%d %H:%M:%S', start_ms / 1000, "
	    "'unixepoch') || ' UTC' AS start, round((end_ms - start_ms) / "
	    "1000.0, 1) || ' s' AS duration, nodes, tps, warmup_ms, "
	    "duration_ms AS planned_ms, sample_interval_ms, binary, "
	    "binary_sha256, git_describe, host, pid, run_dir, token, uuid, "
	    "samples_digest, machine FROM runs WHERE id = ?1", 1 },
	[DN_READ_RUN_MACHINE] = { "SELECT fingerprint, cpu_model, cores, "
	    "threads, mem_bytes, kernel, arch, provider, limits, "
	    "devnet_version, hostname, load1, governor FROM machines "
	    "WHERE run_id = ?1", 1 },
	[DN_READ_RUN_NODES] = { "SELECT node, pid, sha256, binary, cmdline "
	    "FROM nodes WHERE run_id = ?1 ORDER BY node, rowid", 1 },
	[DN_READ_RUN_EVENTS] = { "SELECT t_ms, node, kind, detail FROM "
	    "events WHERE run_id = ?1 ORDER BY t_ms, id", 1 },
	/* the report's event marks: the first 200 are plenty to shade */
	[DN_READ_RUN_EVENTS_FIRST] = { "SELECT t_ms, node, kind, detail "
	    "FROM events WHERE run_id = ?1 ORDER BY t_ms, id LIMIT 200", 1 },
	[DN_READ_RUN_FACTS] = { "SELECT node, key, value FROM run_facts "
	    "WHERE run_id = ?1 ORDER BY node, key", 1 },
	[DN_READ_RUN_NODE_SUMMARY] = { "SELECT node, "
	    "printf('%.1f MiB', max(CASE WHEN metric = 'rss_bytes' THEN max "
	    "END) / 1048576.0) AS rss_max, "
	    "printf('%.1f MiB', max(CASE WHEN metric = 'rss_bytes' THEN avg "
	    "END) / 1048576.0) AS rss_avg, "
	    "printf('%.0f', max(CASE WHEN metric = 'allocs' THEN rate_per_s "
	    "END)) AS allocs_per_s, "
	    "round(max(CASE WHEN metric = 'lag_blocks' THEN max END), 2) AS "
	    "lag_blocks_max, "
	    "round(max(CASE WHEN metric = 'lag_ms' THEN max END), 1) AS "
	    "lag_ms_max, "
	    "max(CASE WHEN metric = 'height' THEN CAST(max AS INTEGER) END) "
	    "AS height, "
	    "max(n) AS samples "
	    "FROM node_summary WHERE run_id = ?1 AND node >= 0 "
	    "GROUP BY node ORDER BY node", 1 },
	[DN_READ_RUN_SCENARIO] = { "SELECT scenario_path, scenario_yaml "
	    "FROM runs WHERE id = ?1", 1 },
	[DN_READ_RUN_TIMING] = { "SELECT warmup_ms, sample_interval_ms, "
	    "uuid FROM runs WHERE id = ?1", 1 },
	[DN_READ_RUN_ASSERTIONS] = { "SELECT name, form, status, observed, "
	    "threshold, t_ms, node, message FROM assertions WHERE run_id = ?1 "
	    "ORDER BY rowid", 1 },
	/* the report's marks: where each assertion goes on its chart */
	[DN_READ_RUN_ASSERT_MARKS] = { "SELECT name, form, status, metric, "
	    "op, unit, scope, threshold, observed, t_ms, node, window_from_ms, "
	    "window_to_ms, message FROM assertions WHERE run_id = ?1 AND form "
	    "<> 'relative' ORDER BY rowid", 1 },
	/* the report's gossip graph (issue 40): each node's peers and zone,
	 * the run's degree */
	[DN_READ_RUN_GRAPH] = { "SELECT node, key, value FROM run_facts "
	    "WHERE run_id = ?1 AND key IN ('peers', 'zone', 'gossip_peers') "
	    "ORDER BY node, key", 1 },
	/* and each node's mean block lag over the steady state */
	[DN_READ_RUN_NODE_LAG] = { "SELECT node, metric, avg FROM "
	    "node_summary WHERE run_id = ?1 AND node >= 0 AND metric IN "
	    "('lag_ms', 'block_prop_ms') ORDER BY node, metric", 1 },
	/* and the emulated network's delay on each probed link */
	[DN_READ_RUN_LINK_RTT] = { "SELECT src, dst, rtt_ms_p50 FROM "
	    "link_stats WHERE run_id = ?1 AND rtt_ms_p50 IS NOT NULL", 1 },
};

int
dn_store_read(struct dn_store *s, enum dn_read which, int64_t run_id,
    dn_store_row_fn row, void *arg, char **cause)
{
	char		 id[32];
	const char	*params[1] = { id };
	const struct view *v = &views[which];

	snprintf(id, sizeof(id), "%lld", (long long)run_id);
	return (dn_store_query(s, v->sql, params, v->run_param, row, arg,
	    cause));
}
