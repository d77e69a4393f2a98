/*
 * fuzz-import.c: libFuzzer harness for `devnet import`'s reading of a file
 * nobody vouches for (metrics/store/store-import-src.c, store-import.c;
 * docs/security.md, "Files to import").  The input is not the file: it
 * drives a grammar of hostile devnet databases.  For each table of the
 * newest schema it picks a form (today's definition, columns without
 * types or constraints, a column short, absent, a view that never ends,
 * a generated column), then rows whose values are mostly what devnet
 * writes and sometimes not (NULL, 2^31-1, 250,000,000, 1e999, text where
 * a number goes, a blob, a long string, a uuid or digest of another run).
 * The file is written with sqlite directly (the only file here that does:
 * it makes what the store must survive), then checked and imported into
 * a copy of a small target that has a run and a named metric of its own.
 *
 * DN_FUZZ_SAY=1 in the environment prints what became of each file (to
 * see which parts of the grammar an input reaches).
 *
 * A crash, a leak, a sanitizer report, more than -rss_limit_mb or a hang
 * past -timeout is a finding; so is an import that succeeds and leaves a
 * non-finite number, a bad uuid or a damaged page in the target.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"
#include "xalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int	LLVMFuzzerInitialize(int *argc, char ***argv);

/* The newest schema's tables, in the order the file gets them. */
static const char *const tables[] = {
	"schema_version", "ab_groups", "runs", "machines", "nodes",
	"metrics", "samples", "series", "events", "assertions", "run_facts",
	"link_samples",
};
#define NTABLES	(sizeof(tables) / sizeof(tables[0]))
#define COLS_MAX	32

static const char *const uuids[] = {
	"0b4c1a52-8d0e-4f5e-9c11-2f7d3a9e0002",
	"0b4c1a52-8d0e-4f5e-9c11-2f7d3a9e0001",	/* the target has it */
	"0B4C1A52-8D0E-4F5E-9C11-2F7D3A9E0003",	/* upper case */
	"not-a-uuid",
};
static const char *const names[] = {
	"rss_bytes", "cpu_pct", "foo", "bar", "", "rss_bytes@3",
};
static const char *const words[] = {
	"ok", "running", "failed", "gauge", "counter", "lower", "higher",
	"neutral", "node", "loadgen", "x",
};
/* The words a column takes: the first of its range of words[] when the
 * input says 0. */
static const struct {
	const char	*col;
	int		 first, n;
} word_cols[] = {
	{ "status", 0, 3 }, { "kind", 3, 2 }, { "better", 5, 3 },
	{ "source", 8, 2 },
};

static struct {
	char		 dir[64];
	char		*src, *dst, *tmpl;
	struct dn_store	*tgt;		/* open on the template: dry runs */
	char	*def[NTABLES];			/* CREATE TABLE of today */
	char	*col[NTABLES][COLS_MAX];	/* its column names */
	int	 ncol[NTABLES];
	char	**extra;			/* indexes and views */
	size_t	 nextra;
} g;

/* The input, read a byte at a time (0 once it is used up). */
struct in {
	const uint8_t	*p;
	size_t		 n;
};

static unsigned
byte(struct in *in)
{
	if (in->n == 0)
		return (0);
	in->n--;
	return (*in->p++);
}

/* Every file of g.dir (the databases, their -wal and -shm), and it. */
static void
cleanup(void)
{
	DIR		*d;
	struct dirent	*e;
	char		*p;

	dn_store_close(g.tgt);
	if ((d = opendir(g.dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			p = dn_xasprintf("%s/%s", g.dir, e->d_name);
			unlink(p);
			free(p);
		}
		closedir(d);
	}
	rmdir(g.dir);
}

/* The newest schema's text, per table, from an in-memory database. */
static void
schema_load(void)
{
	struct dn_store	*s;
	sqlite3		*db;
	sqlite3_stmt	*st;
	char		*cause = NULL, *path;
	size_t		 t;

	path = dn_xasprintf("%s/shape.db", g.dir);
	if (dn_store_open(&s, path, 0, &cause) != 0)
		abort();
	dn_store_close(s);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK)
		abort();
	for (t = 0; t < NTABLES; t++) {
		if (sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master "
		    "WHERE name = ?1", -1, &st, NULL) != SQLITE_OK)
			abort();
		sqlite3_bind_text(st, 1, tables[t], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW)
			abort();
		g.def[t] = dn_xstrdup((const char *)sqlite3_column_text(st,
		    0));
		sqlite3_finalize(st);
		if (sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info"
		    "(?1)", -1, &st, NULL) != SQLITE_OK)
			abort();
		sqlite3_bind_text(st, 1, tables[t], -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW && g.ncol[t] < COLS_MAX)
			g.col[t][g.ncol[t]++] = dn_xstrdup((const char *)
			    sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	if (sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE type "
	    "IN ('index', 'view') AND sql IS NOT NULL", -1, &st,
	    NULL) != SQLITE_OK)
		abort();
	while (sqlite3_step(st) == SQLITE_ROW) {
		g.extra = dn_xreallocarray(g.extra, g.nextra + 1,
		    sizeof(*g.extra));
		g.extra[g.nextra++] = dn_xstrdup((const char *)
		    sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	unlink(path);
	free(path);
}

/* The target every input is imported into a copy of: a run whose uuid
 * the grammar uses, and a named metric declared higher. */
static void
template_make(void)
{
	struct dn_store	*s;
	char		*cause = NULL;
	int		 id;

	if (dn_store_open(&s, g.tmpl, 0, &cause) != 0 ||
	    dn_store_metric_named(s, "foo", 0, "higher", &id, &cause) != 0 ||
	    dn_store_query(s, "INSERT INTO runs (scenario, start_ms, status, "
	    "uuid, samples_digest) VALUES ('s', 0, 'ok', '0b4c1a52-8d0e-4f5e-"
	    "9c11-2f7d3a9e0001', '0000000000000000000000000000000000000000"
	    "000000000000000000000000')", NULL, 0, NULL, NULL, &cause) != 0)
		abort();
	dn_store_close(s);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* memory, not a disk: every input writes and syncs files */
	snprintf(g.dir, sizeof(g.dir), "%s/dn-fuzz-import.XXXXXX",
	    access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (mkdtemp(g.dir) == NULL)
		abort();
	g.src = dn_xasprintf("%s/src.db", g.dir);
	g.dst = dn_xasprintf("%s/dst.db", g.dir);
	g.tmpl = dn_xasprintf("%s/tmpl.db", g.dir);
	atexit(cleanup);
	schema_load();
	template_make();
	return (0);
}

/* The template, open for the dry runs (rolled back: it never changes,
 * and an input does what it does alone). */
static struct dn_store *
target(void)
{
	char	*cause = NULL;

	if (g.tgt == NULL && (dn_store_open(&g.tgt, g.tmpl, 0, &cause) != 0 ||
	    dn_store_query(g.tgt, "PRAGMA synchronous = OFF", NULL, 0, NULL,
	    NULL, &cause) != 0))
		abort();
	return (g.tgt);
}

/* A value for column COL: what devnet writes there when the input says
 * less than 14 (0: the first such value), else a hostile one. */
static void
bind_value(struct in *in, sqlite3_stmt *st, int i, const char *col)
{
	static const char	hex[] = "0123456789abcdef";
	unsigned		k = byte(in), w;
	char			buf[1100];
	size_t			j, n;

	switch (k % 24) {
	case 14:
		sqlite3_bind_null(st, i);
		return;
	case 15:
		sqlite3_bind_int64(st, i, INT32_MAX);
		return;
	case 16:
		sqlite3_bind_int64(st, i, 250000000);
		return;
	case 17:
		sqlite3_bind_int64(st, i, k & 1 ? INT64_MAX : INT64_MIN);
		return;
	case 18:
		sqlite3_bind_double(st, i, k & 1 ? 1e308 * 10 : -1e308 * 10);
		return;
	case 19:
		sqlite3_bind_double(st, i, 0.5);
		return;
	case 20:
		sqlite3_bind_text(st, i, words[byte(in) % 11], -1,
		    SQLITE_STATIC);
		return;
	case 21:
		sqlite3_bind_blob(st, i, "\0\xff\x41", 3, SQLITE_STATIC);
		return;
	case 22:
		n = byte(in) * 4;
		memset(buf, 'a' + k % 26, n);
		buf[n] = '\0';
		sqlite3_bind_text(st, i, buf, -1, SQLITE_TRANSIENT);
		return;
	case 23:
		sqlite3_bind_int64(st, i, -1);
		return;
	}
	for (j = 0; j < sizeof(word_cols) / sizeof(word_cols[0]); j++)
		if (strcmp(col, word_cols[j].col) == 0) {
			w = (unsigned)word_cols[j].first +
			    byte(in) % (unsigned)word_cols[j].n;
			sqlite3_bind_text(st, i, words[w], -1, SQLITE_STATIC);
			return;
		}
	if (strcmp(col, "uuid") == 0)
		sqlite3_bind_text(st, i, uuids[byte(in) % 4], -1,
		    SQLITE_STATIC);
	else if (strcmp(col, "samples_digest") == 0) {
		if (!(k & 1)) {		/* none: recomputed */
			sqlite3_bind_null(st, i);
			return;
		}
		for (j = 0; j < 64; j++)
			buf[j] = hex[byte(in) % 16];
		buf[64] = '\0';
		sqlite3_bind_text(st, i, buf, -1, SQLITE_TRANSIENT);
	} else if (strcmp(col, "name") == 0)
		sqlite3_bind_text(st, i, names[byte(in) % 6], -1,
		    SQLITE_STATIC);
	else if (strcmp(col, "metric_id") == 0 || strcmp(col, "id") == 0)
		sqlite3_bind_int64(st, i, k & 1 ? 1000 + byte(in) % 3 :
		    byte(in) % 4);
	else if (strcmp(col, "version") == 0)
		sqlite3_bind_int64(st, i, k & 1 ? byte(in) % 9 : 6);
	else if (strcmp(col, "value") == 0 || strcmp(col, "tps") == 0 ||
	    strcmp(col, "observed") == 0 || strcmp(col, "load1") == 0)
		sqlite3_bind_double(st, i, (double)byte(in) / 7.0);
	else if (strcmp(col, "scenario") == 0 || strcmp(col, "key") == 0 ||
	    strcmp(col, "label") == 0 || strcmp(col, "fingerprint") == 0 ||
	    strcmp(col, "unit") == 0 || strcmp(col, "form") == 0)
		sqlite3_bind_text(st, i, words[byte(in) % 11], -1,
		    SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, i, byte(in) % 5);
}

/* Table T in the form the input picks; 1 when it can take rows. */
static int
table_make(struct in *in, sqlite3 *db, size_t t)
{
	char	*sql = NULL, *n;
	int	 i, form = (int)(byte(in) % 12), rows = 1;

	if (form <= 5)		/* today's definition */
		sql = dn_xstrdup(g.def[t]);
	else if (form == 6 || form == 7) {	/* no types, or one short */
		sql = dn_xasprintf("CREATE TABLE \"%s\" (", tables[t]);
		for (i = 0; i < g.ncol[t] - (form == 7); i++) {
			n = dn_xasprintf("%s%s\"%s\"", sql, i ? ", " : "",
			    g.col[t][i]);
			free(sql);
			sql = n;
		}
		n = dn_xasprintf("%s%s)", sql, i ? "" : "x");
		free(sql);
		sql = n;
	} else if (form == 8)	/* absent */
		return (0);
	else if (form == 9) {	/* a view that never ends */
		sql = dn_xasprintf("CREATE VIEW \"%s\" AS WITH RECURSIVE "
		    "c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT ",
		    tables[t]);
		for (i = 0; i < g.ncol[t]; i++) {
			n = dn_xasprintf("%s%sx AS \"%s\"", sql, i ? ", " : "",
			    g.col[t][i]);
			free(sql);
			sql = n;
		}
		n = dn_xasprintf("%s FROM c", sql);
		free(sql);
		sql = n;
		rows = 0;
	} else {		/* today's, and a generated column */
		sqlite3_exec(db, g.def[t], NULL, NULL, NULL);
		sql = dn_xasprintf("ALTER TABLE \"%s\" ADD COLUMN zz "
		    "GENERATED ALWAYS AS (%s) %s", tables[t], form == 10 ?
		    "1e999" : "zeroblob(100000)", form == 10 ? "VIRTUAL" :
		    "STORED");
	}
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		rows = 0;
	free(sql);
	return (rows);
}

/* Rows of table T (its today's columns, by position). */
static void
rows_make(struct in *in, sqlite3 *db, size_t t)
{
	sqlite3_stmt	*st;
	char		*sql, *n;
	int		 i, r, nrows = 1 + (int)(byte(in) % 8);
	int		 ncols = g.ncol[t];

	if (strcmp(tables[t], "samples") == 0)
		nrows *= 5;
	sql = dn_xasprintf("INSERT INTO \"%s\" (", tables[t]);
	for (i = 0; i < ncols; i++) {
		n = dn_xasprintf("%s%s\"%s\"", sql, i ? ", " : "",
		    g.col[t][i]);
		free(sql);
		sql = n;
	}
	n = dn_xasprintf("%s) VALUES (", sql);
	free(sql);
	sql = n;
	for (i = 0; i < ncols; i++) {
		n = dn_xasprintf("%s%s?", sql, i ? ", " : "");
		free(sql);
		sql = n;
	}
	n = dn_xasprintf("%s)", sql);
	free(sql);
	sql = n;
	r = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	free(sql);
	if (r != SQLITE_OK)	/* a column short: no rows */
		return;
	for (r = 0; r < nrows; r++) {
		for (i = 0; i < ncols; i++)
			bind_value(in, st, i + 1, g.col[t][i]);
		sqlite3_step(st);	/* a constraint may refuse it */
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
}

/* The hostile file at g.src. */
static void
file_make(struct in *in)
{
	sqlite3	*db;
	size_t	 t, i;

	unlink(g.src);
	if (sqlite3_open(g.src, &db) != SQLITE_OK)
		abort();
	sqlite3_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = "
	    "OFF; BEGIN", NULL, NULL, NULL);
	for (t = 0; t < NTABLES; t++)
		if (table_make(in, db, t))
			rows_make(in, db, t);
	for (i = 0; i < g.nextra; i++)		/* some fail: fine */
		if (byte(in) % 4 != 0)
			sqlite3_exec(db, g.extra[i], NULL, NULL, NULL);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
}

static int
first_count(void *arg, int ncols, const char *const *cols,
    const char *const *values, const int *types)
{
	(void)cols;
	(void)types;
	if (ncols > 0 && values[0] != NULL)
		*(int64_t *)arg = strtoll(values[0], NULL, 10);
	return (1);
}

/* What an import that succeeded must leave: finite numbers, uuids. */
static void
target_sound(struct dn_store *s)
{
	static const char *const checks[] = {
		"SELECT count(*) FROM samples WHERE abs(value) > 1.8e308",
		"SELECT count(*) FROM runs WHERE abs(end_ms) > 1.8e308 OR "
		"abs(tps) > 1.8e308 OR length(uuid) <> 36",
		"SELECT count(*) FROM metrics WHERE name IS NULL",
		"SELECT count(*) FROM pragma_quick_check WHERE quick_check "
		"<> 'ok'",
	};
	char	*cause = NULL;
	size_t	 i;

	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		int64_t	n = -1;

		if (dn_store_query(s, checks[i], NULL, 0, first_count, &n,
		    &cause) != 0 || n != 0) {
			fprintf(stderr, "fuzz-import: after an import: %s: "
			    "%lld (%s)\n", checks[i], (long long)n,
			    cause ? cause : "");
			abort();
		}
	}
}

static void
say(const char *what, const char *cause)
{
	static int	on = -1;

	if (on < 0)
		on = getenv("DN_FUZZ_SAY") != NULL;
	if (on)
		fprintf(stderr, "fuzz-import: %s %s\n", what, cause);
}

/* A fresh target: the template's bytes at g.dst. */
static void
copy_template(void)
{
	FILE	*a, *b;
	char	 buf[8192];
	size_t	 n;

	unlink(g.dst);
	if ((a = fopen(g.tmpl, "rb")) == NULL ||
	    (b = fopen(g.dst, "wb")) == NULL)
		abort();
	while ((n = fread(buf, 1, sizeof(buf), a)) > 0)
		if (fwrite(buf, 1, n, b) != n)
			abort();
	fclose(a);
	if (fclose(b) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in		 in = { data, size };
	struct dn_store		*s;
	struct dn_import_stats	 st;
	char			*cause = NULL;
	int			 real = (byte(&in) & 3) == 0;

	file_make(&in);
	if (dn_store_import_check(g.src, &cause) != 0) {
		say("refused", cause);
		free(cause);
		return (0);
	}
	/* the whole copy, rolled back */
	if (dn_store_import(target(), g.src, 1, &st, NULL, NULL,
	    &cause) != 0) {
		say("refused by the target", cause);
		free(cause);
		return (0);
	}
	say(real ? "imported; again for good" : "imported (dry run)", "");
	if (!real)
		return (0);
	/* a quarter of the files that pass: imported for good into a fresh
	 * copy of the template (opening one costs the most), and looked at */
	copy_template();
	if (dn_store_open(&s, g.dst, 0, &cause) != 0 ||
	    dn_store_query(s, "PRAGMA synchronous = OFF", NULL, 0, NULL, NULL,
	    &cause) != 0)
		abort();
	if (dn_store_import(s, g.src, 0, &st, NULL, NULL, &cause) != 0) {
		fprintf(stderr, "fuzz-import: a dry run passed, the import "
		    "failed: %s\n", cause);
		abort();
	}
	target_sound(s);
	dn_store_close(s);
	return (0);
}
