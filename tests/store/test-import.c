/*
 * test-import.c: dn_store_import, the store side of `devnet import`
 * (docs/schema.md, "Import"): the same file twice adds nothing; files of
 * older schema versions come in with the uuids a migration gives; two
 * files with the same run ids, group ids and named metric ids land
 * apart with every sample under the right name; a named metric whose
 * direction contradicts the target's, a run whose samples differ from
 * its copy, and a damaged file are refused with the target as it was;
 * so is each file whose damage only import's own check of every value
 * finds (issue 38: sqlite's quick_check finds nothing in them); --dry-run
 * changes nothing; runs still running are skipped; a run already there
 * is named by its uuid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "store.h"
#include "xalloc.h"

#include "store-testlib.h"

struct spec {
	const char	*named;		/* a named metric, or NULL */
	const char	*better;	/* its direction */
	const char	*named2;	/* a second one, first in the file */
	int		 grouped;	/* the runs in one group */
	int		 runs;
	int		 end;		/* end them (else left running) */
	double		 v0;
};

/* A database at PATH after SP: runs of 2 nodes x 3 metrics x 4 points,
 * an event, a fact, a node row each. */
static void
make_db(const char *path, const struct spec *sp)
{
	static const struct dn_machine_info mi = { .fingerprint =
	    "aaaabbbbccccdddd", .cpu_model = "T", .cores = 1, .threads = 1,
	    .mem_bytes = 1 << 30, .load1 = 0.5 };
	struct dn_run_info	 ri = { .scenario_name = "s", .variant = "A",
	    .binary = "/bin/true", .nodes = 2, .duration_ms = 4000,
	    .sample_interval_ms = 1000, .machine = &mi };
	struct dn_store		*s;
	char			*cause = NULL;
	int64_t			 id, g = 0;
	int			 r, k, node, m, nid = -1, nid2 = -1;

	assert_int_equal(dn_store_open(&s, path, 0, &cause), 0);
	if (sp->named2 != NULL)
		assert_int_equal(dn_store_metric_named(s, sp->named2, 0, NULL,
		    &nid2, &cause), 0);
	if (sp->named != NULL)
		assert_int_equal(dn_store_metric_named(s, sp->named, 0,
		    sp->better, &nid, &cause), 0);
	if (sp->grouped)
		assert_int_equal(dn_store_group_create(s, "s", "g", &g,
		    &cause), 0);
	ri.group_id = g;
	for (r = 0; r < sp->runs; r++) {
		ri.trial = r;
		ri.token = (uint64_t)r + 1;
		assert_int_equal(dn_store_run_begin(s, &ri, &id, &cause), 0);
		assert_int_equal(dn_store_node_add(s, id, 0, 10, "/bin/true",
		    "x", "true", &cause), 0);
		for (k = 0; k < 4; k++)
			for (node = 0; node < 2; node++) {
				for (m = 0; m < 3; m++)
					assert_int_equal(dn_store_sample(s,
					    id, node, m, k * 1000, sp->v0 + r +
					    k, &cause), 0);
				if (nid >= 0)
					assert_int_equal(dn_store_sample(s,
					    id, node, nid, k * 1000, 100 +
					    sp->v0 + k, &cause), 0);
				if (nid2 >= 0)
					assert_int_equal(dn_store_sample(s,
					    id, node, nid2, k * 1000, 200 +
					    sp->v0 + k, &cause), 0);
			}
		assert_int_equal(dn_store_commit(s, &cause), 0);
		assert_int_equal(dn_store_event(s, id, 0, 1500, "kill", "x",
		    &cause), 0);
		assert_int_equal(dn_store_fact(s, id, -1, "achieved_tps", "9",
		    &cause), 0);
		assert_int_equal(dn_store_commit(s, &cause), 0);
		if (sp->end)
			assert_int_equal(dn_store_run_end(s, id, "ok", NULL,
			    &cause), 0);
	}
	dn_store_close(s);
}

static int
import(const char *dst, const char *src, int dry, struct dn_import_stats *st,
    char **cause)
{
	struct dn_store	*s;
	int		 rc;

	assert_int_equal(dn_store_open(&s, dst, 0, cause), 0);
	rc = dn_store_import(s, src, dry, st, NULL, NULL, cause);
	dn_store_close(s);
	return (rc);
}

static void
expect_db(const char *db, const char *sql, const char *want)
{
	struct dn_store	*s;
	char		*cause = NULL;

	assert_int_equal(dn_store_open(&s, db, DN_STORE_RDONLY, &cause), 0);
	expect(s, sql, want);
	dn_store_close(s);
}

/* Everything of the target, as text: counts, and each run's samples by
 * metric name. */
static const char content_sql[] =
    "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM ab_groups), "
    "(SELECT count(*) FROM samples), (SELECT count(*) FROM events), "
    "(SELECT count(*) FROM run_facts), (SELECT count(*) FROM nodes), "
    "(SELECT count(*) FROM machines), (SELECT count(*) FROM series), "
    "(SELECT count(*) FROM metrics)";

static char *
names(const char *dir, const char *file)
{
	return (dn_xasprintf("%s/%s", dir, file));
}

/* content_sql's answer for DB into WANT. */
static void
fix_content(const char *db, char *want, size_t cap)
{
	struct dn_store	*s;
	struct collect	 c = { .buf = "" };
	char		*cause = NULL;

	assert_int_equal(dn_store_open(&s, db, DN_STORE_RDONLY, &cause), 0);
	assert_int_equal(dn_store_query(s, content_sql, NULL, 0, collect_row,
	    &c, &cause), 0);
	dn_store_close(s);
	snprintf(want, cap, "%s", c.buf);
}

/* The first value SQL reads in DB, as text, into OUT. */
static void
one_value(const char *db, const char *sql, char *out, size_t cap)
{
	struct dn_store	*s;
	struct collect	 c = { .buf = "" };
	char		*cause = NULL;

	assert_int_equal(dn_store_open(&s, db, DN_STORE_RDONLY, &cause), 0);
	assert_int_equal(dn_store_query(s, sql, NULL, 0, collect_row, &c,
	    &cause), 0);
	dn_store_close(s);
	snprintf(out, cap, "%s", c.buf);
}

/* The same file twice: the second import adds nothing. */
static void
same_file_twice(void **state)
{
	struct tmp		*t = *state;
	struct spec		 sp = { .runs = 3, .grouped = 1, .end = 1,
				    .named = "foo", .better = "higher" };
	struct dn_import_stats	 st;
	char			*src = names(t->dir, "a.db"), *cause = NULL;
	char			 got[1024], again[1024], uuid[1024];
	struct dn_store		*s;

	make_db(src, &sp);
	/* an assertion's row (issue 21): a per-run table comes along */
	assert_int_equal(dn_store_open(&s, src, 0, &cause), 0);
	assert_int_equal(dn_store_query(s, "INSERT INTO assertions (run_id, "
	    "name, form, status, observed, metric) VALUES (3, 'rss', "
	    "'always', 'passed', 12.5, 'rss_bytes')", NULL, 0, NULL, NULL,
	    &cause), 0);
	dn_store_close(s);
	assert_int_equal(import(t->db, src, 0, &st, &cause), 0);
	assert_int_equal(st.runs_total, 3);
	assert_int_equal(st.runs_added, 3);
	assert_int_equal(st.groups, 1);
	assert_int_equal(st.samples, 3 * 4 * 2 * 4);
	fix_content(t->db, got, sizeof(got));
	assert_true(strncmp(got, "3,1,96,3,3,3,3,24,", 18) == 0);
	assert_int_equal(import(t->db, src, 0, &st, &cause), 0);
	assert_int_equal(st.runs_added, 0);
	assert_int_equal(st.runs_present, 3);
	assert_int_equal(st.samples, 0);
	/* the first run skipped is named, by its uuid */
	one_value(src, "SELECT uuid FROM runs WHERE id = 1", uuid,
	    sizeof(uuid));
	assert_int_equal(strlen(uuid), DN_STORE_UUID_LEN);
	assert_string_equal(st.present_uuid, uuid);
	fix_content(t->db, again, sizeof(again));
	assert_string_equal(got, again);
	/* every run in the target as in the file: uuid, digest, machine */
	expect_db(t->db, "SELECT count(*), count(DISTINCT ab_group), "
	    "count(samples_digest), count(DISTINCT machine) FROM runs",
	    "3,1,3,1");
	expect_db(t->db, "SELECT a.name, a.status, a.observed, r.trial FROM "
	    "assertions a JOIN runs r ON r.id = a.run_id", "rss,passed,12.5,2");
	free(src);
}

/* Fixtures of schema versions 1 and 2, read as they are: their runs get
 * the uuid a migration would give them, so a migrated copy of the same
 * file adds nothing more; the fixtures are not changed. */
static void
previous_schema(void **state)
{
	struct tmp		*t = *state;
	struct dn_import_stats	 st;
	struct dn_store		*s;
	const char		*srcdir = getenv("DN_SOURCE_DIR");
	char			*v1, *v2, *copy = names(t->dir, "v2.db");
	char			*cause = NULL;

	assert_non_null(srcdir);
	v1 = dn_xasprintf("%s/tests/store/fixtures/schema-v1.db", srcdir);
	v2 = dn_xasprintf("%s/tests/store/fixtures/schema-v2.db", srcdir);
	assert_int_equal(copy_file(v2, copy), 0);
	assert_int_equal(import(t->db, v1, 0, &st, &cause), 0);
	assert_int_equal(st.runs_added, 4);
	assert_int_equal(st.samples, 2064);
	assert_int_equal(import(t->db, v2, 0, &st, &cause), 0);
	assert_int_equal(st.runs_added, 4);
	assert_int_equal(st.samples, 2124);
	expect_db(t->db, "SELECT count(*), count(DISTINCT uuid), "
	    "count(DISTINCT ab_group), count(samples_digest) FROM runs",
	    "8,8,2,8");
	/* the v2 file migrated by a writer: the same uuids */
	assert_int_equal(dn_store_open(&s, copy, 0, &cause), 0);
	dn_store_close(s);
	assert_int_equal(import(t->db, copy, 0, &st, &cause), 0);
	assert_int_equal(st.runs_added, 0);
	assert_int_equal(st.runs_present, 4);
	expect_db(t->db, "SELECT count(*) FROM runs", "8");
	expect_db(t->db, "SELECT count(*) FROM node_summary", "852");
	free(v1);
	free(v2);
	free(copy);
}

/*
 * Two files whose runs, groups and named metrics have the same ids: A has
 * foo at 1000; B has bar at 1000 and foo at 1001.  In the target every
 * sample stays under its name.
 */
static void
colliding_ids(void **state)
{
	struct tmp		*t = *state;
	struct spec		 sa = { .runs = 2, .grouped = 1, .end = 1,
				    .named = "foo", .better = "lower",
				    .v0 = 0 };
	struct spec		 sb = { .runs = 2, .grouped = 1, .end = 1,
				    .named = "foo", .named2 = "bar",
				    .v0 = 50 };
	struct dn_import_stats	 st;
	char			*a = names(t->dir, "a.db");
	char			*b = names(t->dir, "b.db"), *cause = NULL;

	make_db(a, &sa);
	make_db(b, &sb);
	expect_db(a, "SELECT id FROM metrics WHERE name = 'foo'", "1000");
	expect_db(b, "SELECT group_concat(id || name, ' ') FROM (SELECT * "
	    "FROM metrics WHERE id >= 1000 ORDER BY id)", "1000bar 1001foo");
	expect_db(a, "SELECT group_concat(id), group_concat(ab_group) FROM "
	    "runs", "1,2,1,1");
	expect_db(b, "SELECT group_concat(id), group_concat(ab_group) FROM "
	    "runs", "1,2,1,1");
	assert_int_equal(import(t->db, a, 0, &st, &cause), 0);
	assert_int_equal(import(t->db, b, 0, &st, &cause), 0);
	assert_int_equal(st.runs_added, 2);
	expect_db(t->db, "SELECT group_concat(id || ':' || ab_group, ' ') "
	    "FROM runs", "1:1 2:1 3:2 4:2");
	/* foo: 100+k in A's runs, 150+k in B's; bar only in B's: 250+k */
	expect_db(t->db, "SELECT m.name, s.run_id, sum(s.value) FROM samples "
	    "s JOIN metrics m ON m.id = s.metric_id WHERE m.id >= 1000 GROUP "
	    "BY m.name, s.run_id ORDER BY m.name, s.run_id",
	    "bar,3,2012.0;bar,4,2012.0;foo,1,812.0;foo,2,812.0;foo,3,1212.0;"
	    "foo,4,1212.0");
	/* the direction A declared stays; B's undeclared one took it */
	expect_db(t->db, "SELECT name, better FROM metrics WHERE id >= 1000 "
	    "ORDER BY id", "foo,lower;bar,neutral");
	/* series follow the mapping too */
	expect_db(t->db, "SELECT count(*) FROM series x JOIN metrics m ON "
	    "m.id = x.metric_id WHERE m.name = 'bar'", "4");
	/* and the digests in the target are the files' */
	expect_db(t->db, "SELECT count(DISTINCT samples_digest) FROM runs",
	    "4");
	free(a);
	free(b);
}

/* A named metric declared the other way round: the whole file refused,
 * the target as it was. */
static void
direction_refused(void **state)
{
	struct tmp		*t = *state;
	struct spec		 sa = { .runs = 1, .end = 1, .named = "foo",
				    .better = "higher" };
	struct spec		 sb = { .runs = 3, .end = 1, .grouped = 1,
				    .named = "foo", .better = "lower",
				    .v0 = 7 };
	struct dn_import_stats	 st;
	char			*a = names(t->dir, "a.db");
	char			*b = names(t->dir, "b.db"), *cause = NULL;
	char			 before[1024], after[1024];

	make_db(a, &sa);
	make_db(b, &sb);
	assert_int_equal(import(t->db, a, 0, &st, &cause), 0);
	fix_content(t->db, before, sizeof(before));
	assert_int_equal(import(t->db, b, 0, &st, &cause), -1);
	assert_non_null(strstr(cause, "metric 'foo' is better: lower in"));
	assert_non_null(strstr(cause, "but better: higher in"));
	assert_non_null(strstr(cause, "nothing of"));
	free(cause);
	cause = NULL;
	fix_content(t->db, after, sizeof(after));
	assert_string_equal(before, after);
	free(a);
	free(b);
}

/* A run whose uuid is here with other samples: refused, as it was. */
static void
digest_refused(void **state)
{
	struct tmp		*t = *state;
	struct spec		 sp = { .runs = 2, .end = 1 };
	struct dn_import_stats	 st;
	struct dn_store		*s;
	char			*a = names(t->dir, "a.db"), *cause = NULL;
	char			 before[1024], after[1024];

	make_db(a, &sp);
	assert_int_equal(import(t->db, a, 0, &st, &cause), 0);
	/* a sample changed by hand in the file, its digest recomputed */
	assert_int_equal(dn_store_open(&s, a, 0, &cause), 0);
	assert_int_equal(dn_store_query(s, "UPDATE samples SET value = -1 "
	    "WHERE run_id = 2 AND t_ms = 0 AND node = 0 AND metric_id = 0",
	    NULL, 0, NULL, NULL, &cause), 0);
	assert_int_equal(dn_store_query(s, "UPDATE runs SET samples_digest = "
	    "NULL WHERE id = 2", NULL, 0, NULL, NULL, &cause), 0);
	dn_store_close(s);
	fix_content(t->db, before, sizeof(before));
	assert_int_equal(import(t->db, a, 0, &st, &cause), -1);
	assert_non_null(strstr(cause, "with other samples"));
	free(cause);
	fix_content(t->db, after, sizeof(after));
	assert_string_equal(before, after);
	free(a);
}

/* A truncated file and one that is not a database: refused before
 * anything is read, by the check and by the import itself. */
static void
damaged_refused(void **state)
{
	struct tmp		*t = *state;
	struct spec		 sp = { .runs = 40, .end = 1 };
	struct dn_import_stats	 st;
	struct dn_store		*s;
	char			*a = names(t->dir, "a.db");
	char			*cut = names(t->dir, "cut.db");
	char			*junk = names(t->dir, "junk.db"), *cause = NULL;
	char			 before[1024], after[1024];
	FILE			*f;
	long			 size;

	make_db(a, &sp);
	/* fold the WAL in, then keep the first half of the file */
	assert_int_equal(dn_store_open(&s, a, 0, &cause), 0);
	assert_int_equal(dn_store_query(s, "PRAGMA wal_checkpoint(TRUNCATE)",
	    NULL, 0, NULL, NULL, &cause), 0);
	dn_store_close(s);
	assert_int_equal(copy_file(a, cut), 0);
	assert_non_null(f = fopen(cut, "r+"));
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	assert_true(size > 8 * 4096);
	assert_int_equal(ftruncate(fileno(f), size / 2), 0);
	fclose(f);
	assert_non_null(f = fopen(junk, "w"));
	fputs("SQLite format 3? no: a text file\n", f);
	fclose(f);
	make_db(t->db, &(struct spec){ .runs = 1, .end = 1 });
	fix_content(t->db, before, sizeof(before));
	assert_int_equal(dn_store_import_check(cut, &cause), -1);
	assert_non_null(strstr(cause, "corrupt"));
	free(cause);
	cause = NULL;
	assert_int_equal(import(t->db, cut, 0, &st, &cause), -1);
	assert_non_null(strstr(cause, "corrupt"));
	free(cause);
	cause = NULL;
	assert_int_equal(dn_store_import_check(junk, &cause), -1);
	assert_non_null(strstr(cause, "not a devnet sqlite database"));
	free(cause);
	fix_content(t->db, after, sizeof(after));
	assert_string_equal(before, after);
	free(a);
	free(cut);
	free(junk);
}

/* Files whose damage sqlite does not see: each is refused by import's own
 * check of every value (dn_store_import_open, called here without any
 * check before it), saying what is wrong, the target as it was. */
static const struct bad_case {
	const char	*name;
	const char	*sql[2];	/* on the good file, in order */
	const char	*want;		/* in the refusal */
} bad_cases[] = {
	{ "a value that is text", { "UPDATE samples SET value = 'abc' WHERE "
	    "run_id = 1 AND node = 0 AND metric_id = 0 AND t_ms = 0" },
	    "table 'samples': column 'value' is not a number" },
	{ "an end at 1e999", { "UPDATE runs SET end_ms = 1e999 WHERE id = 2" },
	    "column 'end_ms' is inf, not a finite number" },
	{ "an event time that is text", { "UPDATE events SET t_ms = 'soon'" },
	    "table 'events': column 't_ms' is not an integer" },
	{ "a metric id the dictionary lacks", { "UPDATE samples SET "
	    "metric_id = 999 WHERE run_id = 1 AND metric_id = 0" },
	    "metric id 999, which the file's metrics dictionary does not "
	    "have" },
	{ "a node number out of range", { "UPDATE nodes SET node = "
	    "5000000000 WHERE run_id = 1" }, "5000000000, not a node number" },
	{ "a malformed uuid", { "UPDATE runs SET uuid = 'not-a-uuid' WHERE "
	    "id = 1" }, "run 1 has a malformed uuid" },
	{ "another run's digest", { "UPDATE runs SET samples_digest = (SELECT "
	    "samples_digest FROM runs WHERE id = 2) WHERE id = 1" },
	    "says its samples digest is" },
	{ "a name that is a blob", { "UPDATE metrics SET name = x'41' WHERE "
	    "id = 0" }, "metric id 0 has no name" },
	{ "a view for events", { "DROP TABLE events", "CREATE VIEW events AS "
	    "SELECT 1 AS id, 1 AS run_id, 0 AS t_ms, 0 AS node, 'k' AS kind, "
	    "NULL AS detail" }, "'events' is a view, not a table" },
	{ "a generated column", { "ALTER TABLE run_facts ADD COLUMN g TEXT "
	    "GENERATED ALWAYS AS (key) VIRTUAL" },
	    "'run_facts' has generated or hidden columns" },
};

static void
validation_refused(void **state)
{
	struct tmp		*t = *state;
	struct spec		 sp = { .runs = 2, .end = 1 };
	struct dn_import_stats	 st;
	struct dn_import_src	*src;
	struct dn_store		*s;
	char			*good = names(t->dir, "good.db");
	char			*bad = names(t->dir, "bad.db"), *cause = NULL;
	char			 before[1024], after[1024], ok[1024];
	size_t			 i, k;

	make_db(good, &sp);
	make_db(t->db, &(struct spec){ .runs = 1, .end = 1, .v0 = 3 });
	fix_content(t->db, before, sizeof(before));
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *b = &bad_cases[i];

		print_message("case: %s\n", b->name);
		unlink(bad);
		assert_int_equal(copy_file(good, bad), 0);
		assert_int_equal(dn_store_open(&s, bad, 0, &cause), 0);
		for (k = 0; k < 2 && b->sql[k] != NULL; k++)
			assert_int_equal(dn_store_query(s, b->sql[k], NULL, 0,
			    NULL, NULL, &cause), 0);
		dn_store_close(s);
		one_value(bad, "PRAGMA quick_check", ok, sizeof(ok));
		assert_string_equal(ok, "ok");
		assert_int_equal(dn_store_import_open(&src, bad, 0, &cause),
		    -1);
		print_message("  refused: %s\n", cause);
		assert_non_null(strstr(cause, b->want));
		assert_non_null(strstr(cause, "nothing of it was imported"));
		free(cause);
		cause = NULL;
		assert_int_equal(import(t->db, bad, 0, &st, &cause), -1);
		assert_non_null(strstr(cause, b->want));
		free(cause);
		cause = NULL;
		fix_content(t->db, after, sizeof(after));
		assert_string_equal(before, after);
	}
	/* and the good file itself comes in */
	assert_int_equal(import(t->db, good, 0, &st, &cause), 0);
	assert_int_equal(st.runs_added, 2);
	free(good);
	free(bad);
}

/* --dry-run: the same figures as the import, nothing written; runs still
 * running are skipped. */
static void
dry_run_and_running(void **state)
{
	struct tmp		*t = *state;
	struct spec		 sp = { .runs = 2, .end = 1, .named = "foo",
				    .grouped = 1 };
	struct spec		 sr = { .runs = 2, .end = 0 };
	struct dn_import_stats	 st;
	char			*a = names(t->dir, "a.db");
	char			*r = names(t->dir, "r.db"), *cause = NULL;
	char			 before[1024], after[1024];

	make_db(a, &sp);
	make_db(r, &sr);
	make_db(t->db, &(struct spec){ .runs = 1, .end = 1 });
	fix_content(t->db, before, sizeof(before));
	assert_int_equal(import(t->db, a, 1, &st, &cause), 0);
	assert_int_equal(st.runs_added, 2);
	assert_int_equal(st.groups, 1);
	assert_int_equal(st.samples, 2 * 4 * 2 * 4);
	fix_content(t->db, after, sizeof(after));
	assert_string_equal(before, after);
	assert_int_equal(import(t->db, r, 0, &st, &cause), 0);
	assert_int_equal(st.runs_added, 0);
	assert_int_equal(st.runs_running, 2);
	fix_content(t->db, after, sizeof(after));
	assert_string_equal(before, after);
	free(a);
	free(r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(same_file_twice, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(previous_schema, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(colliding_ids, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(direction_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(digest_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(damaged_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(dry_run_and_running, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(validation_refused, setup,
		    teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
