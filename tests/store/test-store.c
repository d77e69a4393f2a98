/* test-store.c: the sqlite store round-trips and fails cleanly. */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "clock.h"
#include "metric-table.h"
#include "store.h"
#include "xalloc.h"

#include "store-testlib.h"

static int64_t
write_run(const char *db, int group)
{
	struct dn_store		*s;
	struct dn_run_info	 ri = {
		.scenario_name = "smoke", .scenario_path = "smoke.yaml",
		.scenario_yaml = "name: smoke\n", .variant = "A",
		.label = "test", .binary = "/bin/true",
		.binary_sha256 = "abc", .git_commit = "0123abcd",
		.run_dir = "/tmp/x", .nodes = 2,
		.tps = 25, .duration_ms = 10000, .warmup_ms = 2000,
		.sample_interval_ms = 1000, .token = 0xfeedull << 40 };
	char			*cause = NULL;
	int64_t			 gid, rid;
	int			 node, t, m;

	assert_int_equal(dn_store_open(&s, db, 0, &cause), 0);
	if (group) {
		assert_int_equal(dn_store_group_create(s, "smoke", "g", &gid,
		    &cause), 0);
		ri.group_id = gid;
	}
	assert_int_equal(dn_store_run_begin(s, &ri, &rid, &cause), 0);
	assert_true(rid > 0);
	for (node = 0; node < 2; node++)
		assert_int_equal(dn_store_node_add(s, rid, node, 100 + node,
		    "/bin/true", "abc", "devnet-node --index 0", &cause), 0);
	for (t = 0; t < 10; t++) {
		for (node = -1; node < 2; node++) {
			for (m = 0; m < DN_METRIC_COUNT; m++) {
				assert_int_equal(dn_store_sample(s, rid, node,
				    m, t * 1000, node * 1000.0 + m + t,
				    &cause), 0);
			}
		}
		/* A retransmitted sample must not abort the batch. */
		assert_int_equal(dn_store_sample(s, rid, 0, 0, t * 1000,
		    -5.0, &cause), 0);
		assert_int_equal(dn_store_commit(s, &cause), 0);
	}
	assert_int_equal(dn_store_event(s, rid, 1, 5000, "kill", "SIGKILL",
	    &cause), 0);
	assert_int_equal(dn_store_event(s, rid, -1, 6000, "rate_missed",
	    NULL, &cause), 0);
	assert_int_equal(dn_store_fact(s, rid, 0, "state_hash", "00ff",
	    &cause), 0);
	assert_int_equal(dn_store_fact(s, rid, -1, "achieved_tps", "24.9",
	    &cause), 0);
	assert_int_equal(dn_store_fact(s, rid, -1, "achieved_tps", "25.0",
	    &cause), 0);
	assert_int_equal(dn_store_run_end(s, rid, "ok", NULL, &cause), 0);
	dn_store_close(s);
	return (rid);
}

static void
round_trip(void **state)
{
	struct tmp		*t = *state;
	struct dn_store		*s;
	struct dn_series	*v;
	size_t			 n;
	char			*cause = NULL;
	char			 sql[256];
	int64_t			 rid = write_run(t->db, 1);

	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause), 0);
	expect(s, "SELECT version FROM schema_version", "6");
	expect(s, "SELECT from_version, to_version, what FROM "
	    "schema_migrations", "0,6,created");
	expect(s, "SELECT git_commit FROM run_summary", "0123abcd");
	expect(s, "SELECT count(*) FROM nodes WHERE host = (SELECT host FROM "
	    "runs)", "2");
	snprintf(sql, sizeof(sql), "SELECT status, variant, nodes, warmup_ms, "
	    "token, ab_group IS NOT NULL FROM runs WHERE id = %lld",
	    (long long)rid);
	expect(s, sql, "ok,A,2,2000,00feed0000000000,1");
	snprintf(sql, sizeof(sql), "%d", 10 * 3 * DN_METRIC_COUNT);
	expect(s, "SELECT count(*) FROM samples", sql);
	/* First write wins for a duplicate key (INSERT OR IGNORE). */
	expect(s, "SELECT value FROM samples WHERE node = 0 AND metric_id = 0 "
	    "AND t_ms = 3000", "3.0");
	expect(s, "SELECT node, pid FROM nodes ORDER BY node", "0,100;1,101");
	expect(s, "SELECT t_ms, node, kind, detail FROM events ORDER BY t_ms",
	    "5000,1,kill,SIGKILL;6000,-1,rate_missed,NULL");
	expect(s, "SELECT node, key, value FROM run_facts ORDER BY node",
	    "-1,achieved_tps,25.0;0,state_hash,00ff");
	expect(s, "SELECT name, unit, kind, better, source FROM metrics "
	    "WHERE id = 0", "rss_bytes,bytes,gauge,lower,node");
	snprintf(sql, sizeof(sql), "%d", DN_METRIC_COUNT);
	expect(s, "SELECT count(*) FROM metrics", sql);
	/* The views answer. */
	expect(s, "SELECT n, min, max FROM node_summary WHERE node = 1 AND "
	    "metric = 'rss_bytes'", "8,1002.0,1009.0");
	expect(s, "SELECT rate_per_s FROM node_summary WHERE node = 1 AND "
	    "metric = 'allocs'", "1.0");
	expect(s, "SELECT count(*), min(rate_per_s) FROM sample_rates WHERE "
	    "node = 0 AND metric = 'allocs'", "9,1.0");
	expect(s, "SELECT status, unplanned_events, achieved_tps FROM "
	    "run_summary", "ok,0,25.0");
	/* Typed series read. */
	assert_int_equal(dn_store_series(s, rid, DN_M_RSS_BYTES, 2000, &v, &n,
	    &cause), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].node, -1);
	assert_int_equal(v[2].node, 1);
	assert_int_equal(v[2].n, 8);
	assert_int_equal(v[2].t_ms[0], 2000);
	assert_true(v[2].v[7] == 1009.0);
	dn_series_free(v, n);
	assert_int_equal(dn_store_series(s, rid + 99, 0, 0, &v, &n, &cause),
	    0);
	assert_int_equal(n, 0);
	dn_series_free(v, n);
	dn_store_close(s);
}

static void
readonly_refuses_writes(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*s;
	char		*cause = NULL;

	write_run(t->db, 0);
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause), 0);
	assert_int_equal(dn_store_query(s, "DELETE FROM runs", NULL, 0, NULL,
	    NULL, &cause), -1);
	assert_non_null(strstr(cause, "read-only"));
	free(cause);
	cause = NULL;
	assert_int_equal(dn_store_query(s, "SELECT 1; SELECT 2", NULL, 0,
	    NULL, NULL, &cause), -1);
	free(cause);
	cause = NULL;
	assert_int_equal(dn_store_query(s, "SELEC nonsense", NULL, 0, NULL,
	    NULL, &cause), -1);
	assert_non_null(strstr(cause, "sql error"));
	free(cause);
	cause = NULL;
	assert_int_equal(dn_store_sample(s, 1, 0, 0, 0, 1.0, &cause), -1);
	free(cause);
	dn_store_close(s);
}

static void
bad_files(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*s;
	char		*cause = NULL, path[128];
	int		 fd;

	/* Not a database at all. */
	fd = open(t->db, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(write(fd, "this is not sqlite, honest!\n", 28),
		    28);
	close(fd);
	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), -1);
	assert_null(s);
	assert_non_null(strstr(cause, t->db));
	assert_non_null(strstr(cause, "not a devnet sqlite database"));
	free(cause);
	cause = NULL;
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause),
	    -1);
	assert_non_null(strstr(cause, "not a devnet sqlite database"));
	free(cause);
	cause = NULL;

	/* Missing for reading; missing directory for writing. */
	snprintf(path, sizeof(path), "%s/none.db", t->dir);
	assert_int_equal(dn_store_open(&s, path, DN_STORE_RDONLY, &cause), -1);
	assert_non_null(strstr(cause, "does not exist"));
	free(cause);
	cause = NULL;
	snprintf(path, sizeof(path), "%s/no/such/dir.db", t->dir);
	assert_int_equal(dn_store_open(&s, path, 0, &cause), -1);
	assert_non_null(strstr(cause, "directory"));
	free(cause);
	cause = NULL;

	/* A read-only file (root ignores modes: only check when it shows). */
	unlink(t->db);
	write_run(t->db, 0);
	chmod(t->db, 0444);
	if (access(t->db, W_OK) != 0) {
		assert_int_equal(dn_store_open(&s, t->db, 0, &cause), -1);
		assert_non_null(strstr(cause, "read-only"));
		free(cause);
		cause = NULL;
	}
	chmod(t->db, 0644);
}

static void
locked_by_writer(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*a, *b;
	char		*cause = NULL;

	assert_int_equal(dn_store_open(&a, t->db, 0, &cause), 0);
	/* An open batch holds the write lock. */
	assert_int_equal(dn_store_sample(a, 1, 0, 0, 0, 1.0, &cause), 0);
	assert_int_equal(dn_store_open(&b, t->db, 0, &cause), -1);
	assert_non_null(strstr(cause, "is locked by another process"));
	assert_non_null(strstr(cause, t->db));
	free(cause);
	cause = NULL;
	assert_int_equal(dn_store_commit(a, &cause), 0);
	assert_int_equal(dn_store_open(&b, t->db, 0, &cause), 0);
	dn_store_close(b);
	dn_store_close(a);
}

static void
reap_stale_runs(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*s;
	char		*cause = NULL;
	pid_t		 pid;
	int		 status, n;

	/* A child begins a run and dies without ending it. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct dn_run_info	 ri = { .scenario_name = "x",
					    .variant = "A", .nodes = 1 };
		int64_t			 rid;

		if (dn_store_open(&s, t->db, 0, &cause) != 0 ||
		    dn_store_run_begin(s, &ri, &rid, &cause) != 0 ||
		    dn_store_sample(s, rid, 0, 0, 1000, 7.0, &cause) != 0 ||
		    dn_store_sample(s, rid, 0, 0, 2000, 9.0, &cause) != 0 ||
		    dn_store_commit(s, &cause) != 0)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(status, 0);
	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	/* A run of our own (alive) stays running. */
	write_run(t->db, 0);
	{
		struct dn_run_info	 ri = { .scenario_name = "y",
					    .variant = "B", .nodes = 1 };
		int64_t			 rid;

		assert_int_equal(dn_store_run_begin(s, &ri, &rid, &cause), 0);
	}
	/* A run left by an earlier process that had our pid (devnet is
	 * pid 1 in every container: issue 19 #13): it began an hour
	 * before this process did, so it is not ours. */
	{
		struct dn_run_info	 ri = { .scenario_name = "z",
					    .variant = "A", .nodes = 1 };
		int64_t			 rid;
		char			*sql;

		assert_int_equal(dn_store_run_begin(s, &ri, &rid, &cause), 0);
		sql = dn_xasprintf("UPDATE runs SET start_ms = start_ms - "
		    "3600000 WHERE id = %lld", (long long)rid);
		assert_int_equal(dn_store_query(s, sql, NULL, 0, NULL, NULL,
		    &cause), 0);
		free(sql);
	}
	assert_int_equal(dn_store_reap_stale(s, &n, &cause), 0);
	assert_int_equal(n, 2);
	expect(s, "SELECT scenario, status FROM runs ORDER BY id",
	    "x,interrupted;smoke,ok;y,running;z,interrupted");
	/* The interrupted run's aggregates are stored too. */
	expect(s, "SELECT n, min, avg, max FROM series WHERE run_id = 1",
	    "2,7.0,8.0,9.0");
	assert_int_equal(dn_store_reap_stale(s, &n, &cause), 0);
	assert_int_equal(n, 0);
	assert_int_equal(dn_store_run_end(s, 99, "ok", NULL, &cause), -1);
	free(cause);
	cause = NULL;
	assert_int_equal(dn_store_run_end(s, 1, "bogus", NULL, &cause), -1);
	free(cause);
	dn_store_close(s);
}

/*
 * node_summary gives the same answer while a run is open (aggregated from
 * samples) and after dn_store_run_end (read from the stored series).
 */
static void
summary_stored_at_end(void **state)
{
	struct tmp		*t = *state;
	struct dn_store		*s;
	struct dn_run_info	 ri = { .scenario_name = "x", .variant = "A",
				    .nodes = 3, .warmup_ms = 4000 };
	struct collect		 live = { .buf = "" }, stored = { .buf = "" };
	const char		*sql = "SELECT count(*), sum(n), total(min), "
	    "total(avg), total(max), sum(t_first), sum(t_last), "
	    "total(rate_per_s), count(rate_per_s) FROM node_summary "
	    "WHERE run_id = 1";
	char			*cause = NULL;
	int64_t			 rid;
	int			 node, k, m;

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	assert_int_equal(dn_store_run_begin(s, &ri, &rid, &cause), 0);
	for (k = 0; k < 20; k++)
		for (node = -1; node < 3; node++)
			for (m = 0; m < DN_METRIC_COUNT; m++)
				assert_int_equal(dn_store_sample(s, rid, node,
				    m, k * 500, (node + 2) * 1.5 * m + k * k,
				    &cause), 0);
	assert_int_equal(dn_store_commit(s, &cause), 0);
	expect(s, "SELECT count(*) FROM series", "0");
	assert_int_equal(dn_store_query(s, sql, NULL, 0, collect_row, &live,
	    &cause), 0);
	assert_int_equal(dn_store_run_end(s, rid, "ok", NULL, &cause), 0);
	assert_int_equal(dn_store_query(s, sql, NULL, 0, collect_row, &stored,
	    &cause), 0);
	assert_string_equal(live.buf, stored.buf);
	/* 4 series per metric, 12 of 20 samples each past the warm-up. */
	{
		char	want[64];

		snprintf(want, sizeof(want), "%d,%d", 4 * DN_METRIC_COUNT,
		    4 * DN_METRIC_COUNT * 12);
		expect(s, "SELECT count(*), sum(n) FROM series", want);
	}
	dn_store_close(s);
}

/* --timeout: an unbounded recursive CTE is stopped near its limit, says
 * so, and the next query on the connection is not affected. */
static void
query_timeout(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*s;
	char		*cause = NULL;
	uint64_t	 t0;
	double		 took;

	write_run(t->db, 0);
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause), 0);
	dn_store_set_timeout(s, 300);
	t0 = dn_now_ns();
	alarm(10);	/* without the limit, SIGALRM ends the test */
	assert_int_equal(dn_store_query(s, "WITH RECURSIVE c(x) AS (SELECT 1 "
	    "UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c", NULL, 0,
	    NULL, NULL, &cause), -1);
	alarm(0);
	took = (dn_now_ns() - t0) / 1e9;
	assert_true(dn_store_timed_out(s));
	assert_non_null(strstr(cause, "time limit"));
	free(cause);
	cause = NULL;
	if (took < 0.29 || took > 5.0)
		fail_msg("stopped after %.3f s, want about 0.3 s", took);
	expect(s, "SELECT count(*) FROM runs", "1");
	assert_false(dn_store_timed_out(s));
	/* Other errors are not time-outs. */
	assert_int_equal(dn_store_query(s, "SELEC x", NULL, 0, NULL, NULL,
	    &cause), -1);
	assert_false(dn_store_timed_out(s));
	free(cause);
	cause = NULL;
	/* With the limit off (0), the handler is gone. */
	dn_store_set_timeout(s, 0);
	expect(s, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 "
	    "FROM c) SELECT x FROM c LIMIT 1 OFFSET 99999", "100000");
	dn_store_close(s);
}

/* What the fixture holds, the same before and after migration. */
static const char fixture_data[] =
    "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM samples), "
    "(SELECT count(*) FROM series), (SELECT count(*) FROM nodes), "
    "(SELECT count(*) FROM events), (SELECT count(*) FROM run_facts), "
    "(SELECT count(*) FROM ab_groups), (SELECT group_concat(variant || "
    "status, '') FROM (SELECT * FROM runs ORDER BY id)), "
    "(SELECT printf('%.1f', total(value)) FROM samples), "
    "(SELECT count(*) || ':' || printf('%.1f', total(avg)) FROM "
    "node_summary), (SELECT count(*) FROM sample_rates), "
    "(SELECT group_concat(achieved_tps, ' ') FROM run_summary)";

/*
 * The frame of every migration test below.  migration_open copies the
 * fixture of schema VERSION over t->db and opens it read-only;
 * migration_read keeps what the fixture holds (fixture_data) and checks
 * that reading changed no byte; the test writes; migration_reopen opens
 * the migrated file read-only at today's version; migration_done checks
 * that every old row is as it was and that the file has exactly the shape
 * of a database created today (a schema change without a migration step
 * shows here), ADDED being a part of today's schema the step brought.
 */
#define CURRENT_VERSION	"6"

struct migration {
	struct tmp	*t;
	char		*fixture;
	struct collect	 before;
};

static struct dn_store *
migration_open(struct migration *m, struct tmp *t, const char *version)
{
	const char	*src = getenv("DN_SOURCE_DIR");
	struct dn_store	*s;
	char		*cause = NULL;

	assert_non_null(src);
	memset(m, 0, sizeof(*m));
	m->t = t;
	m->before.buf[0] = '\0';
	m->fixture = dn_xasprintf("%s/tests/store/fixtures/schema-v%s.db",
	    src, version);
	assert_int_equal(copy_file(m->fixture, t->db), 0);
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause), 0);
	expect(s, "SELECT version FROM schema_version", version);
	return (s);
}

static void
migration_read(struct migration *m, struct dn_store *s)
{
	char	*cause = NULL;

	assert_int_equal(dn_store_query(s, fixture_data, NULL, 0, collect_row,
	    &m->before, &cause), 0);
	dn_store_close(s);
	assert_true(same_bytes(m->fixture, m->t->db));
}

static struct dn_store *
migration_reopen(struct migration *m)
{
	struct dn_store	*s;
	char		*cause = NULL;

	assert_int_equal(dn_store_open(&s, m->t->db, DN_STORE_RDONLY, &cause),
	    0);
	expect(s, "SELECT version FROM schema_version", CURRENT_VERSION);
	return (s);
}

static void
migration_done(struct migration *m, struct dn_store *s, const char *added)
{
	struct collect	 after = { .buf = "" };
	struct shape	 fresh, migrated;
	char		*fresh_db, *cause = NULL;

	assert_int_equal(dn_store_query(s, fixture_data, NULL, 0, collect_row,
	    &after, &cause), 0);
	assert_string_equal(m->before.buf, after.buf);
	dn_store_close(s);
	fresh_db = dn_xasprintf("%s/fresh.db", m->t->dir);
	shape_of(fresh_db, &fresh);
	shape_of(m->t->db, &migrated);
	assert_string_equal(fresh.buf, migrated.buf);
	assert_non_null(strstr(fresh.buf, added));
	free(fresh_db);
	free(m->fixture);
}

/*
 * A version-1 database written by the previous release
 * (fixtures/README.md): a reader sees it in today's shape without
 * changing a byte; a writer migrates it to the current version with every row
 * intact, once; the result has exactly the shape of a new database.
 */
static void
migrate_v1_fixture(void **state)
{
	struct tmp		*t = *state;
	struct dn_store		*s;
	struct migration	 m;
	char			*cause = NULL;

	/* Read: version 1, new columns NULL, the file untouched. */
	s = migration_open(&m, t, "1");
	expect(s, "SELECT count(*), count(git_commit), count(git_describe) "
	    "FROM runs", "4,0,0");
	expect(s, "SELECT count(*), count(host) FROM nodes", "12,0");
	expect(s, "SELECT count(*) FROM run_summary WHERE git_commit IS NULL",
	    "4");
	expect(s, "SELECT count(*) FROM schema_migrations", "0");
	migration_read(&m, s);
	assert_string_equal(m.before.buf, "4,2064,420,12,4,84,1,AokBokBokAok,"
	    "2290696989.9,420:459399699.9,912,50.000 50.000 50.000 50.000");

	/* Write: migrated to the current version, each step recorded, data
	 * intact, every old run given a uuid, the shape of a new database. */
	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	dn_store_close(s);
	s = migration_reopen(&m);
	expect(s, "SELECT from_version, to_version, what FROM "
	    "schema_migrations ORDER BY id", "1,2,runs.git_commit, "
	    "nodes.host, schema_migrations;2,3,runs.uuid, runs.samples_digest, "
	    "runs.machine, machines;3,4,table assertions;4,5,link_samples, "
	    "link_stats;5,6,assertions.scope, window_from_ms, window_to_ms");
	expect(s, "SELECT count(DISTINCT uuid), count(machine) FROM runs",
	    "4,0");
	migration_done(&m, s, "git_commit TEXT");

	/* Twice: nothing more happens. */
	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	expect(s, "SELECT count(*), max(version) FROM schema_version", "1,6");
	expect(s, "SELECT count(*) FROM schema_migrations", "5");
	expect(s, "SELECT count(*) FROM pragma_table_info('nodes') WHERE "
	    "name = 'host' AND type = 'TEXT'", "1");
	dn_store_close(s);

	/* And it takes new runs, with the new columns filled. */
	write_run(t->db, 1);
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause), 0);
	expect(s, "SELECT count(*), count(git_commit) FROM runs", "5,1");
	expect(s, "SELECT count(host) FROM nodes", "2");
	dn_store_close(s);
}

/*
 * A version-3 database written by the release before the assertions
 * (fixtures/README.md): a reader sees an empty `assertions` table and
 * leaves the file as it was; a writer migrates it to version 4 (the one
 * step "table assertions"), keeps every row, and takes assertion rows.
 */
static void
migrate_v3_fixture(void **state)
{
	struct tmp		*t = *state;
	struct dn_store		*s;
	struct migration	 m;
	struct dn_assert_row	 r = { .name = "chain advances",
			    .form = "eventually", .status = "fail",
			    .observed = 9, .threshold = 50, .t_ms = 1886,
			    .node = 2, .message = "m", .metric = "height",
			    .op = ">=", .unit = "blocks" };
	char			*cause = NULL;

	s = migration_open(&m, t, "3");
	expect(s, "SELECT count(*), count(message) FROM assertions", "0,0");
	migration_read(&m, s);

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	r.run_id = 1;
	assert_int_equal(dn_store_assertion(s, &r, &cause), 0);
	r.status = "pass";	/* the same name replaces the row */
	r.observed = NAN;
	r.t_ms = -1;
	r.node = INT_MIN;
	assert_int_equal(dn_store_assertion(s, &r, &cause), 0);
	assert_int_equal(dn_store_commit(s, &cause), 0);
	dn_store_close(s);
	s = migration_reopen(&m);
	expect(s, "SELECT from_version, to_version, what FROM "
	    "schema_migrations WHERE to_version = 4", "3,4,table assertions");
	expect(s, "SELECT run_id, name, form, status, observed, threshold, "
	    "t_ms, node, metric, op, unit FROM assertions", "1,chain advances,"
	    "eventually,pass,NULL,50.0,NULL,NULL,height,>=,blocks");
	migration_done(&m, s, "assertions");
}

/*
 * A version-4 database written by the release before the emulated
 * network's probe samples (fixtures/README.md): a reader sees empty
 * `link_samples` and `link_stats` and leaves the file as it was; a writer
 * migrates it to the current version (the step to 5: "link_samples,
 * link_stats"),
 * keeps every row, and takes probe samples the view then summarizes.
 */
static void
migrate_v4_fixture(void **state)
{
	struct tmp		*t = *state;
	struct dn_store		*s;
	struct migration	 m;
	struct dn_link_sample	 ls[3] = {
		{ 0, 1, 1500, 2.0, 4.0 }, { 0, 1, 1600, NAN, NAN },
		{ 0, 1, 1700, 2.5, 5.0 },
	};
	char			*cause = NULL;

	s = migration_open(&m, t, "4");
	expect(s, "SELECT (SELECT count(*) FROM link_samples), (SELECT "
	    "count(*) FROM link_stats)", "0,0");
	migration_read(&m, s);

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	assert_int_equal(dn_store_link_samples(s, 1, ls, 3, &cause), 0);
	assert_int_equal(dn_store_commit(s, &cause), 0);
	dn_store_close(s);
	s = migration_reopen(&m);
	expect(s, "SELECT from_version, to_version, what FROM "
	    "schema_migrations WHERE to_version = 5", "4,5,link_samples, "
	    "link_stats");
	/* warmup 1 s: all three count; the lost one has no RTT */
	expect(s, "SELECT run_id, src, dst, rtt_ms_p50, rtt_ms_p99, "
	    "printf('%.1f', loss_pct), probes FROM link_stats",
	    "1,0,1,4.0,5.0,33.3,3");
	migration_done(&m, s, "link_samples");
}

/*
 * A version-5 database written by the release before the assertions'
 * scope and window (fixtures/README.md): a reader sees the 8 stored
 * assertions with NULL scope and window and leaves the file as it was; a
 * writer migrates it to version 6 (the step "assertions.scope,
 * window_from_ms, window_to_ms"), keeps every row as it was, and stores
 * the new columns of a new row.
 */
static void
migrate_v5_fixture(void **state)
{
	struct tmp		*t = *state;
	struct dn_store		*s;
	struct migration	 m;
	struct dn_assert_row	 r = { .run_id = 1, .name = "lag bounded",
			    .form = "always", .status = "fail",
			    .observed = 1155, .threshold = 1000,
			    .t_ms = 3400, .node = 2, .message = "m",
			    .metric = "lag_ms", .op = "<", .unit = "ms",
			    .scope = "each_node", .from_ms = 2013,
			    .to_ms = 4402 };
	const char		*old_rows = "SELECT count(*), "
			    "sum(status = 'pass'), "
			    "count(scope), count(window_from_ms), "
			    "count(window_to_ms), group_concat(DISTINCT metric) "
			    "FROM assertions WHERE run_id <= 4";
	char			*cause = NULL;

	s = migration_open(&m, t, "5");
	expect(s, old_rows, "8,8,0,0,0,height");
	migration_read(&m, s);

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	assert_int_equal(dn_store_assertion(s, &r, &cause), 0);
	assert_int_equal(dn_store_commit(s, &cause), 0);
	dn_store_close(s);
	s = migration_reopen(&m);
	expect(s, "SELECT from_version, to_version, what FROM "
	    "schema_migrations WHERE to_version = 6", "5,6,assertions.scope, "
	    "window_from_ms, window_to_ms");
	expect(s, old_rows, "9,8,1,1,1,height,lag_ms");
	expect(s, "SELECT scope, window_from_ms, window_to_ms, t_ms, node "
	    "FROM assertions WHERE name = 'lag bounded'",
	    "each_node,2013,4402,3400,2");
	migration_done(&m, s, "window_from_ms");
}

/* A database from a newer devnet is refused, by writers and readers. */
static void
newer_refused(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*s;
	char		*cause = NULL;

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	assert_int_equal(dn_store_query(s, "UPDATE schema_version SET "
	    "version = 99", NULL, 0, NULL, NULL, &cause), 0);
	dn_store_close(s);
	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), -1);
	assert_non_null(strstr(cause, "schema version 99, newer than this "
	    "devnet understands (6); upgrade devnet"));
	free(cause);
	cause = NULL;
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause),
	    -1);
	assert_non_null(strstr(cause, "newer than this devnet"));
	free(cause);
}

/* A named metric's direction: undeclared (neutral) takes the first
 * declaration; a declared one stays, and a declaration of the other is
 * refused naming both, so that old verdicts keep their meaning. */
static void
named_direction_fixed(void **state)
{
	struct tmp		*t = *state;
	struct dn_store		*s;
	struct dn_metric_info	 info;
	char			*cause = NULL;
	int			 id, id2;

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	/* seen in a NAMED message first: neutral */
	assert_int_equal(dn_store_metric_named(s, "ops_per_s", 0, NULL, &id,
	    &cause), 0);
	assert_true(id >= DN_STORE_NAMED_BASE);
	expect(s, "SELECT better FROM metrics WHERE name = 'ops_per_s'",
	    "neutral");
	/* then declared */
	assert_int_equal(dn_store_metric_named(s, "ops_per_s", 0, "higher",
	    &id2, &cause), 0);
	assert_int_equal(id2, id);
	expect(s, "SELECT better FROM metrics WHERE name = 'ops_per_s'",
	    "higher");
	/* the same again, or nothing declared: fine, unchanged */
	assert_int_equal(dn_store_metric_named(s, "ops_per_s", 0, "higher",
	    &id2, &cause), 0);
	assert_int_equal(dn_store_metric_named(s, "ops_per_s", 0, NULL,
	    &id2, &cause), 0);
	assert_int_equal(dn_store_metric_named(s, "ops_per_s", 0, "neutral",
	    &id2, &cause), 0);
	expect(s, "SELECT better FROM metrics WHERE name = 'ops_per_s'",
	    "higher");
	/* the other direction: refused, naming both */
	assert_int_equal(dn_store_metric_named(s, "ops_per_s", 0, "lower",
	    &id2, &cause), -1);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "'ops_per_s'"));
	assert_non_null(strstr(cause, "declares better: lower"));
	assert_non_null(strstr(cause, "already has it as better: higher"));
	free(cause);
	cause = NULL;
	assert_int_equal(dn_store_commit(s, &cause), 0);
	assert_int_equal(dn_store_metric_find(s, "ops_per_s", &id2, &info,
	    &cause), 0);
	assert_string_equal(info.better, "higher");
	dn_store_close(s);
}

/*
 * A named metric whose name a later metric table takes (as
 * cgroup_mem_bytes was taken when it was added): opening the file again
 * keeps the named row, under NAME@ID, and every sample of it (issue 19
 * #12: INSERT OR REPLACE deleted that row); the table's row gets NAME.
 */
static void
named_name_taken(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*s;
	char		*cause = NULL, *sql, want[160];
	const char	*name = dn_metric_defs[DN_M_CGROUP_MEM_BYTES].name;
	int		 i;

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	/* the file as an older devnet left it: no table row of that name,
	 * a named metric of it with samples */
	sql = dn_xasprintf("DELETE FROM metrics WHERE id = %d",
	    DN_M_CGROUP_MEM_BYTES);
	assert_int_equal(dn_store_query(s, sql, NULL, 0, NULL, NULL, &cause),
	    0);
	free(sql);
	sql = dn_xasprintf("INSERT INTO metrics VALUES (%d, '%s', '', "
	    "'gauge', 'higher', 'node', 'from the node (NAMED)')",
	    DN_STORE_NAMED_BASE, name);
	assert_int_equal(dn_store_query(s, sql, NULL, 0, NULL, NULL, &cause),
	    0);
	free(sql);
	for (i = 0; i < 5; i++) {
		sql = dn_xasprintf("INSERT INTO samples VALUES (1, 0, %d, %d, "
		    "%d)", DN_STORE_NAMED_BASE, i * 100, i);
		assert_int_equal(dn_store_query(s, sql, NULL, 0, NULL, NULL,
		    &cause), 0);
		free(sql);
	}
	dn_store_close(s);

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	sql = dn_xasprintf("SELECT m.name, m.better, count(*) FROM samples "
	    "JOIN metrics m ON m.id = metric_id WHERE metric_id = %d",
	    DN_STORE_NAMED_BASE);
	snprintf(want, sizeof(want), "%s@%d,higher,5", name,
	    DN_STORE_NAMED_BASE);
	expect(s, sql, want);
	free(sql);
	sql = dn_xasprintf("SELECT id, unit FROM metrics WHERE name = '%s'",
	    name);
	snprintf(want, sizeof(want), "%d,%s", DN_M_CGROUP_MEM_BYTES,
	    dn_metric_defs[DN_M_CGROUP_MEM_BYTES].unit);
	expect(s, sql, want);
	free(sql);
	expect(s, "SELECT count(*) FROM samples WHERE metric_id NOT IN "
	    "(SELECT id FROM metrics)", "0");
	dn_store_close(s);
	/* and again: nothing more renamed */
	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	expect(s, "SELECT count(*) FROM metrics WHERE name LIKE '%@%'", "1");
	dn_store_close(s);
}

/* A new database and its -wal and -shm are 0600 whatever the umask: it
 * holds tokens, command lines and env values (issue 19 #13). */
/*
 * The order a flush inserts in (pending_sort): a trigger logs every
 * inserted row, and the log must be in primary-key order within each
 * commit, a series that came out of time order included, a duplicate
 * keeping its first value; then a batch of more series than the counting
 * sort holds (SORT_SERIES_MAX), which goes to qsort.
 */
static void
flush_in_key_order(void **state)
{
	struct tmp		*t = *state;
	struct dn_store		*s;
	struct dn_run_info	 ri = { .scenario_name = "order",
		.scenario_path = "o.yaml", .scenario_yaml = "name: order\n",
		.variant = "A", .binary = "/bin/true", .binary_sha256 = "abc",
		.run_dir = "/tmp/x", .nodes = 3, .duration_ms = 10000,
		.sample_interval_ms = 1000, .token = 7 };
	static const char *const unordered = "SELECT count(*) FROM ins_log a "
	    "JOIN ins_log b ON b.rowid = a.rowid + 1 WHERE (b.run_id, "
	    "b.metric_id, b.node, b.t_ms) <= (a.run_id, a.metric_id, a.node, "
	    "a.t_ms)";
	sqlite3			*raw;
	char			*cause = NULL, want[32];
	int64_t			 r1, r2;
	int			 k, node, m, run;

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	assert_int_equal(dn_store_run_begin(s, &ri, &r1, &cause), 0);
	assert_int_equal(dn_store_run_begin(s, &ri, &r2, &cause), 0);
	dn_store_close(s);
	assert_int_equal(sqlite3_open(t->db, &raw), SQLITE_OK);
	assert_int_equal(sqlite3_exec(raw, "CREATE TABLE ins_log (run_id, "
	    "metric_id, node, t_ms, value); CREATE TRIGGER ins_log_t AFTER "
	    "INSERT ON samples BEGIN INSERT INTO ins_log VALUES (new.run_id, "
	    "new.metric_id, new.node, new.t_ms, new.value); END", NULL, NULL,
	    NULL), SQLITE_OK);

	/* Arrival order: time, then the later run first, node, metric
	 * downwards; node 1's metric 2 comes in time order backwards. */
	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	for (k = 0; k < 6; k++)
		for (run = 0; run < 2; run++)
			for (node = -1; node < 2; node++)
				for (m = 4; m >= 0; m--)
					assert_int_equal(dn_store_sample(s,
					    run ? r1 : r2, node, m,
					    (node == 1 && m == 2 ? 5 - k : k) *
					    1000, k, &cause), 0);
	assert_int_equal(dn_store_sample(s, r1, 0, 3, 2000, -1.0, &cause), 0);
	assert_int_equal(dn_store_commit(s, &cause), 0);
	dn_store_close(s);
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause),
	    0);
	expect(s, "SELECT count(*) FROM ins_log", "180");
	expect(s, unordered, "0");
	expect(s, "SELECT group_concat(t_ms) FROM (SELECT t_ms FROM ins_log "
	    "WHERE run_id = 1 AND node = 1 AND metric_id = 2 ORDER BY rowid)",
	    "0,1000,2000,3000,4000,5000");
	expect(s, "SELECT value FROM samples WHERE run_id = 1 AND node = 0 "
	    "AND metric_id = 3 AND t_ms = 2000", "2.0");
	dn_store_close(s);
	assert_int_equal(sqlite3_exec(raw, "DELETE FROM ins_log", NULL, NULL,
	    NULL), SQLITE_OK);

	/* More series than the counting sort takes: 9,000 nodes, one row
	 * each, arriving from the highest node down. */
	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	for (node = 8999; node >= 0; node--)
		assert_int_equal(dn_store_sample(s, r2, node, 1, 9000, node,
		    &cause), 0);
	assert_int_equal(dn_store_commit(s, &cause), 0);
	dn_store_close(s);
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause),
	    0);
	snprintf(want, sizeof(want), "%d", 9000);
	expect(s, "SELECT count(*) FROM ins_log", want);
	expect(s, unordered, "0");
	dn_store_close(s);
	sqlite3_close(raw);
}

static void
private_files(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*s;
	struct stat	 sb;
	char		*cause = NULL, path[128];
	const char	*sfx[] = { "", "-wal", "-shm" };
	mode_t		 old = umask(022);
	size_t		 i;

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	expect(s, "SELECT count(*) FROM metrics WHERE id = 0", "1");
	for (i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", t->db, sfx[i]);
		assert_int_equal(stat(path, &sb), 0);
		if ((sb.st_mode & 0777) != 0600)
			fail_msg("%s: mode %03o, want 600", path,
			    (unsigned)(sb.st_mode & 0777));
	}
	dn_store_close(s);
	umask(old);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(readonly_refuses_writes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(bad_files, setup, teardown),
		cmocka_unit_test_setup_teardown(locked_by_writer, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(summary_stored_at_end, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(reap_stale_runs, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(query_timeout, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(migrate_v1_fixture, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(migrate_v4_fixture, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(migrate_v5_fixture, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(migrate_v3_fixture, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(newer_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(private_files, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(flush_in_key_order, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(named_name_taken, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(named_direction_fixed, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
