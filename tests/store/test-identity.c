/*
 * test-identity.c: what makes a run the same run in every copy of a
 * database (docs/schema.md, "Run identity"): a random uuid per new run,
 * the digest of its samples, its machine; and the version-2 fixture,
 * migrated to 3 with each old run given the same uuid in every copy.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "metric-table.h"
#include "store.h"
#include "xalloc.h"

#include "store-testlib.h"

static const struct dn_machine_info machine = {
	.fingerprint = "00112233aabbccdd", .cpu_model = "Test CPU 9000",
	.cores = 4, .threads = 8, .mem_bytes = 16ll << 30,
	.kernel = "6.1.0-test", .arch = "x86_64", .provider = "local",
	.limits = "none", .devnet_version = "0.1.0", .hostname = "box",
	.load1 = NAN, .governor = NULL,
};

/* A finished run of 3 metrics (from M0) x 2 nodes x 5 points; value V0
 * + i at the i-th point, written in reverse time order when REVERSE. */
static int64_t
put_run_m(struct dn_store *s, double v0, int reverse, int m0)
{
	struct dn_run_info	 ri = {
		.scenario_name = "smoke", .variant = "A", .binary = "/bin/true",
		.nodes = 2, .duration_ms = 5000, .sample_interval_ms = 1000,
		.token = 42, .machine = &machine };
	char			*cause = NULL;
	int64_t			 id;
	int			 i, k, node, m;

	assert_int_equal(dn_store_run_begin(s, &ri, &id, &cause), 0);
	for (k = 0; k < 5; k++) {
		i = reverse ? 4 - k : k;
		for (node = 0; node < 2; node++)
			for (m = 0; m < 3; m++)
				assert_int_equal(dn_store_sample(s, id, node,
				    m0 + m, i * 1000, v0 + i, &cause), 0);
	}
	assert_int_equal(dn_store_run_end(s, id, "ok", NULL, &cause), 0);
	return (id);
}

static int64_t
put_run(struct dn_store *s, double v0, int reverse)
{
	return (put_run_m(s, v0, reverse, 0));
}

static void
text_of(struct dn_store *s, const char *sql, char *buf, size_t cap)
{
	struct collect	 c = { .buf = "" };
	char		*cause = NULL;

	if (dn_store_query(s, sql, NULL, 0, collect_row, &c, &cause) != 0)
		fail_msg("%s: %s", sql, cause);
	snprintf(buf, cap, "%s", c.buf);
}

/* New runs: a version-4 uuid each, all distinct; a digest of their
 * samples that order of writing does not change and one value does; the
 * machine row and runs.machine. */
static void
new_run_identity(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*s;
	char		*cause = NULL, u[1024], d[1024];

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	put_run(s, 10, 0);
	put_run(s, 10, 1);
	put_run(s, 11, 0);
	put_run_m(s, 10, 0, 1);		/* the values of run 1, other metrics */
	expect(s, "SELECT count(DISTINCT uuid), count(*) FROM runs", "4,4");
	expect(s, "SELECT count(DISTINCT samples_digest) FROM runs", "3");
	expect(s, "SELECT count(*) FROM runs WHERE length(uuid) = 36 AND "
	    "substr(uuid, 15, 1) = '4' AND substr(uuid, 20, 1) IN ('8', '9', "
	    "'a', 'b') AND uuid GLOB '[0-9a-f]*-*-*-*-*'", "4");
	text_of(s, "SELECT uuid FROM runs WHERE id = 1", u, sizeof(u));
	assert_int_equal(strlen(u), DN_STORE_UUID_LEN);
	text_of(s, "SELECT samples_digest FROM runs ORDER BY id", d,
	    sizeof(d));
	/* runs 1 and 2: the same samples written in another order */
	expect(s, "SELECT (SELECT samples_digest FROM runs WHERE id = 1) = "
	    "(SELECT samples_digest FROM runs WHERE id = 2), (SELECT "
	    "samples_digest FROM runs WHERE id = 1) <> (SELECT samples_digest "
	    "FROM runs WHERE id = 3), length(samples_digest) FROM runs "
	    "WHERE id = 1", "1,1,64");
	expect(s, "SELECT count(*) FROM runs WHERE machine = "
	    "'00112233aabbccdd'", "4");
	expect(s, "SELECT fingerprint, cpu_model, cores, threads, mem_bytes, "
	    "kernel, provider, limits, devnet_version, hostname, load1, "
	    "governor FROM machines WHERE run_id = 2", "00112233aabbccdd,"
	    "Test CPU 9000,4,8,17179869184,6.1.0-test,local,none,0.1.0,box,"
	    "NULL,NULL");
	expect(s, "SELECT count(uuid), count(machine) FROM run_summary", "4,4");
	dn_store_close(s);
	/* A reader sees the same. */
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause), 0);
	text_of(s, "SELECT samples_digest FROM runs ORDER BY id", u,
	    sizeof(u));
	assert_string_equal(u, d);
	dn_store_close(s);
}

/* What the version-2 fixture holds, the same before and after. */
static const char v2_data[] =
    "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM samples), "
    "(SELECT count(*) FROM series), (SELECT count(*) FROM nodes), "
    "(SELECT count(*) FROM events), (SELECT count(*) FROM run_facts), "
    "(SELECT count(*) FROM ab_groups), (SELECT printf('%.1f', "
    "total(value)) FROM samples), (SELECT count(*) FROM node_summary)";

/*
 * The version-2 database of the release before (fixtures/README.md): a
 * reader sees it in today's shape, uuid NULL, without changing a byte; a
 * writer migrates it to 3 with every row intact and every run given a
 * uuid derived from its row, the same in two copies migrated apart; the
 * result has the shape of a new file.
 */
static void
migrate_v2_fixture(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*s;
	struct collect	 before = { .buf = "" }, after = { .buf = "" };
	struct shape	 fresh, migrated;
	const char	*src = getenv("DN_SOURCE_DIR");
	char		*fixture, *other, *fresh_db, *cause = NULL;
	char		 u1[1024], u2[1024];

	assert_non_null(src);
	fixture = dn_xasprintf("%s/tests/store/fixtures/schema-v2.db", src);
	other = dn_xasprintf("%s/other.db", t->dir);
	fresh_db = dn_xasprintf("%s/fresh.db", t->dir);
	assert_int_equal(copy_file(fixture, t->db), 0);
	assert_int_equal(copy_file(fixture, other), 0);

	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause), 0);
	expect(s, "SELECT version FROM schema_version", "2");
	expect(s, "SELECT count(*), count(uuid), count(samples_digest), "
	    "count(machine) FROM runs", "4,0,0,0");
	expect(s, "SELECT count(*) FROM machines", "0");
	assert_int_equal(dn_store_query(s, v2_data, NULL, 0, collect_row,
	    &before, &cause), 0);
	assert_string_equal(before.buf, "4,2124,432,12,4,104,1,2295408828.4,"
	    "432");
	dn_store_close(s);
	assert_true(same_bytes(fixture, t->db));

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	dn_store_close(s);
	assert_int_equal(dn_store_open(&s, other, 0, &cause), 0);
	dn_store_close(s);
	assert_int_equal(dn_store_open(&s, t->db, DN_STORE_RDONLY, &cause), 0);
	expect(s, "SELECT version FROM schema_version", "6");
	expect(s, "SELECT from_version, to_version, what FROM "
	    "schema_migrations ORDER BY id", "0,2,created;2,3,runs.uuid, "
	    "runs.samples_digest, runs.machine, machines;3,4,table "
	    "assertions;4,5,link_samples, link_stats;5,6,assertions.scope, "
	    "window_from_ms, window_to_ms");
	expect(s, "SELECT count(DISTINCT uuid), count(*) FROM runs WHERE "
	    "length(uuid) = 36 AND substr(uuid, 15, 1) = '5'", "4,4");
	assert_int_equal(dn_store_query(s, v2_data, NULL, 0, collect_row,
	    &after, &cause), 0);
	assert_string_equal(before.buf, after.buf);
	text_of(s, "SELECT uuid FROM runs ORDER BY id", u1, sizeof(u1));
	dn_store_close(s);
	assert_int_equal(dn_store_open(&s, other, DN_STORE_RDONLY, &cause), 0);
	text_of(s, "SELECT uuid FROM runs ORDER BY id", u2, sizeof(u2));
	dn_store_close(s);
	assert_string_equal(u1, u2);

	/* Twice: nothing more, the uuids kept. */
	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	expect(s, "SELECT count(*) FROM schema_migrations", "5");
	text_of(s, "SELECT uuid FROM runs ORDER BY id", u2, sizeof(u2));
	assert_string_equal(u1, u2);
	/* a new run beside the old ones: random, unique */
	put_run(s, 1, 0);
	expect(s, "SELECT count(DISTINCT uuid), count(machine) FROM runs",
	    "5,1");
	dn_store_close(s);

	shape_of(fresh_db, &fresh);
	shape_of(t->db, &migrated);
	assert_string_equal(fresh.buf, migrated.buf);
	assert_non_null(strstr(fresh.buf, "uuid TEXT"));
	assert_non_null(strstr(fresh.buf, "machines"));
	free(fixture);
	free(other);
	free(fresh_db);
}

/* Two runs may not share a uuid: the index is unique. */
static void
uuid_unique(void **state)
{
	struct tmp	*t = *state;
	struct dn_store	*s;
	char		*cause = NULL;

	assert_int_equal(dn_store_open(&s, t->db, 0, &cause), 0);
	put_run(s, 1, 0);
	put_run(s, 2, 0);
	assert_int_equal(dn_store_query(s, "UPDATE runs SET uuid = (SELECT "
	    "uuid FROM runs WHERE id = 1) WHERE id = 2", NULL, 0, NULL, NULL,
	    &cause), -1);
	assert_non_null(strstr(cause, "UNIQUE"));
	free(cause);
	dn_store_close(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(new_run_identity, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(migrate_v2_fixture, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(uuid_unique, setup, teardown),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
