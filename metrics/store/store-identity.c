/*
 * store-identity.c: what makes a run the same run in any copy of a
 * database (docs/schema.md, "Run identity"): its uuid (random at
 * creation; derived from what the run row holds for runs stored before
 * schema version 3), the digest of its samples, and the machine row it
 * ran on.  Used by store-write.c (a new run, its end), by schema.c (the
 * migration that gives old runs a uuid) and by store-import.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <sqlite3.h>

#include "sha256.h"
#include "store-internal.h"
#include "xalloc.h"

/* 16 bytes as 8-4-4-4-12 lowercase hex, with VERSION in the version
 * nibble and the RFC 4122 variant. */
static void
uuid_format(uint8_t b[16], int version, char out[DN_STORE_UUID_LEN + 1])
{
	static const char	hx[] = "0123456789abcdef";
	size_t			i, o = 0;

	b[6] = (uint8_t)((b[6] & 0x0f) | (version << 4));
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[o++] = '-';
		out[o++] = hx[b[i] >> 4];
		out[o++] = hx[b[i] & 0xf];
	}
	out[o] = '\0';
}

int
store_uuid_random(char out[DN_STORE_UUID_LEN + 1])
{
	uint8_t	b[16];
	size_t	got = 0;
	ssize_t	n;

	while (got < sizeof(b)) {
		n = getrandom(b + got, sizeof(b) - got, 0);
		if (n <= 0)
			return (-1);
		got += (size_t)n;
	}
	uuid_format(b, 4, out);
	return (0);
}

/* A name-based uuid (version 5's layout, SHA-256 instead of SHA-1) of
 * the run row read by SEL from column COL on (token, start_ms, host, pid,
 * scenario, variant, trial): the same row gives the same uuid in every
 * copy of the file. */
void
store_uuid_derive(sqlite3_stmt *sel, int col, char out[DN_STORE_UUID_LEN + 1])
{
	struct dn_sha256	c;
	uint8_t			h[32];
	char			*seed;

#define TXT(i)	(sqlite3_column_text(sel, col + (i)) != NULL ?		\
	    (const char *)sqlite3_column_text(sel, col + (i)) : "")
	seed = dn_xasprintf("%s|%lld|%s|%d|%s|%s|%d", TXT(0),
	    (long long)sqlite3_column_int64(sel, col + 1), TXT(2),
	    sqlite3_column_int(sel, col + 3), TXT(4), TXT(5),
	    sqlite3_column_int(sel, col + 6));
#undef TXT
	dn_sha256_init(&c);
	dn_sha256_update(&c, "devnet-run:", 11);
	dn_sha256_update(&c, seed, strlen(seed));
	dn_sha256_final(&c, h);
	free(seed);
	uuid_format(h, 5, out);
}

/*
 * The schema step to version 3: every run without a uuid gets one
 * derived from its own row (token, start, host, pid, scenario, variant,
 * trial): a file migrated twice, or two copies of it migrated apart,
 * give each run the same uuid, so that importing them is recognised.
 */
int
store_uuids_assign(struct dn_store *s, char **cause)
{
	sqlite3_stmt	*sel = NULL, *upd = NULL;
	char		 uuid[DN_STORE_UUID_LEN + 1];
	int		 rc = -1, r;

	if (sql_prepare(s, "SELECT id, " STORE_UUID_COLS " FROM runs WHERE "
	    "uuid IS NULL ORDER BY id", &sel, cause) != 0 ||
	    sql_prepare(s, "UPDATE runs SET uuid = ?2 WHERE id = ?1", &upd,
	    cause) != 0)
		goto out;
	while ((r = sqlite3_step(sel)) == SQLITE_ROW) {
		store_uuid_derive(sel, 1, uuid);
		sqlite3_bind_int64(upd, 1, sqlite3_column_int64(sel, 0));
		sql_bind_text(upd, 2, uuid);
		if (sql_step_done(s, upd, "give a run its uuid", cause) != 0)
			goto out;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(s, "read runs");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	return (rc);
}

static void
put_le(struct dn_sha256 *c, uint64_t v, int bytes)
{
	uint8_t	b[8];
	int	i;

	for (i = 0; i < bytes; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	dn_sha256_update(c, b, (size_t)bytes);
}

/*
 * The digest of run RUN_ID's samples in schema DB ("main" or an attached
 * one): SHA-256 over each metric in name order (names, not ids: a named
 * metric's id differs between files), its name, then its rows in (node,
 * t_ms) order as node (4 bytes), t_ms (8) and the value's IEEE bits (8,
 * little-endian; a NULL value as one 0xff byte).  Into OUT, 64 hex.
 */
int
store_samples_digest(struct dn_store *s, const char *db, int64_t run_id,
    char out[65], char **cause)
{
	sqlite3_stmt		*met = NULL, *row = NULL;
	struct dn_sha256	 c;
	uint8_t			 h[32];
	char			*sql;
	int64_t			 prev_node, prev_t;
	int			 rc = -1, r, q;

	sql = dn_xasprintf("SELECT m.id, m.name FROM %s.metrics m WHERE "
	    "EXISTS (SELECT 1 FROM %s.samples x WHERE x.run_id = ?1 AND "
	    "x.metric_id = m.id) ORDER BY m.name", db, db);
	r = sql_prepare(s, sql, &met, cause);
	free(sql);
	if (r != 0)
		return (-1);
	sql = dn_xasprintf("SELECT node, t_ms, value FROM %s.samples WHERE "
	    "run_id = ?1 AND metric_id = ?2 ORDER BY node, t_ms", db);
	r = sql_prepare(s, sql, &row, cause);
	free(sql);
	if (r != 0)
		goto out;
	dn_sha256_init(&c);
	sqlite3_bind_int64(met, 1, run_id);
	while ((r = sqlite3_step(met)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(met, 1);

		dn_sha256_update(&c, name, strlen(name) + 1);
		sqlite3_bind_int64(row, 1, run_id);
		sqlite3_bind_int(row, 2, sqlite3_column_int(met, 0));
		prev_node = -1;
		prev_t = INT64_MIN;
		while ((q = sqlite3_step(row)) == SQLITE_ROW) {
			double		v = sqlite3_column_double(row, 2);
			uint64_t	bits;
			int64_t		node = sqlite3_column_int64(row, 0);
			int64_t		t = sqlite3_column_int64(row, 1);

			/* A key twice (a file whose samples lost their
			 * primary key): its copy would keep one of them,
			 * and differ from what was digested. */
			if (node == prev_node && t == prev_t) {
				*cause = dn_xasprintf("database '%s': run "
				    "%lld has two samples of metric '%s' at "
				    "node %lld, t_ms %lld (a damaged or "
				    "hand-made file?)", s->path,
				    (long long)run_id, name, (long long)node,
				    (long long)t);
				goto out;
			}
			prev_node = node;
			prev_t = t;
			put_le(&c, (uint64_t)(uint32_t)sqlite3_column_int(row,
			    0), 4);
			put_le(&c, (uint64_t)t, 8);
			if (sqlite3_column_type(row, 2) == SQLITE_NULL) {
				dn_sha256_update(&c, "\xff", 1);
				continue;
			}
			memcpy(&bits, &v, sizeof(bits));
			put_le(&c, bits, 8);
		}
		sqlite3_reset(row);
		if (q != SQLITE_DONE) {
			*cause = sql_cause(s, "read samples for the digest");
			goto out;
		}
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(s, "read metrics for the digest");
		goto out;
	}
	dn_sha256_final(&c, h);
	dn_hex(h, sizeof(h), out);
	rc = 0;
out:
	sqlite3_finalize(met);
	sqlite3_finalize(row);
	return (rc);
}

/* Store run RUN_ID's digest (in the caller's transaction). */
int
store_digest_store(struct dn_store *s, int64_t run_id, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		 dg[65];
	int		 rc;

	if (store_samples_digest(s, "main", run_id, dg, cause) != 0 ||
	    sql_prepare(s, "UPDATE runs SET samples_digest = ?2 WHERE "
	    "id = ?1", &st, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sql_bind_text(st, 2, dg);
	rc = sql_step_done(s, st, "store the samples digest", cause);
	sqlite3_finalize(st);
	return (rc);
}

static void
bind_count(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

/* The machines row of run RUN_ID and its runs.machine. */
int
store_machine_add(struct dn_store *s, int64_t run_id,
    const struct dn_machine_info *m, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	if (m->fingerprint == NULL)
		return (0);
	if (sql_prepare(s, "INSERT OR REPLACE INTO machines (run_id, "
	    "fingerprint, cpu_model, cores, threads, mem_bytes, kernel, arch, "
	    "provider, limits, devnet_version, hostname, load1, governor) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
	    "?14)", &st, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sql_bind_text(st, 2, m->fingerprint);
	sql_bind_text(st, 3, m->cpu_model);
	bind_count(st, 4, m->cores);
	bind_count(st, 5, m->threads);
	bind_count(st, 6, m->mem_bytes);
	sql_bind_text(st, 7, m->kernel);
	sql_bind_text(st, 8, m->arch);
	sql_bind_text(st, 9, m->provider);
	sql_bind_text(st, 10, m->limits);
	sql_bind_text(st, 11, m->devnet_version);
	sql_bind_text(st, 12, m->hostname);
	if (isfinite(m->load1))
		sqlite3_bind_double(st, 13, m->load1);
	sql_bind_text(st, 14, m->governor);
	if (sql_step_done(s, st, "insert machine", cause) != 0)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (sql_prepare(s, "UPDATE runs SET machine = ?2 WHERE id = ?1", &st,
	    cause) != 0)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	sql_bind_text(st, 2, m->fingerprint);
	rc = sql_step_done(s, st, "set run machine", cause);
out:
	sqlite3_finalize(st);
	return (rc);
}
