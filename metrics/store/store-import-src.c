/*
 * store-import-src.c: the file `devnet import` reads, opened and checked
 * before the target is touched (store.h dn_store_import_open;
 * docs/security.md, "Files to import").  Not the copy into the target
 * (store-import.c).
 *
 * The file is nobody's word: it is opened DN_STORE_UNTRUSTED (a regular
 * file, read-only, trusted_schema off, none of its views or triggers, a
 * bounded value size and cache, a deadline on every statement), and in
 * one read transaction, so that what is checked here is what is copied
 * later.  Every table the copy reads must be a real table; every value of
 * it must have the type, range and NULL-ness the newest schema gives its
 * column, every number be finite, every metric id be in the file's own
 * dictionary, every uuid be one and unique, and every stored samples
 * digest be the one its samples give (recomputed here, never trusted).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "clock.h"
#include "store-internal.h"
#include "xalloc.h"

/* More than devnet ever writes in one file: a file past them is refused
 * before its rows cost memory. */
#define SRC_METRICS_MAX	100000
#define SRC_RUNS_MAX	1000000
#define SRC_NAME_MAX	200

/* The time a file may take to be read: a base, and 1 s for every
 * SRC_BYTES_PER_S of it (the reads run at well over 50 MB/s). */
#define SRC_BASE_MS	60000
#define SRC_BYTES_PER_S	(2 * 1024 * 1024)

static int
by_id(const void *a, const void *b)
{
	const struct src_metric	*x = a, *y = b;

	return (x->id < y->id ? -1 : x->id > y->id);
}

const struct src_metric *
import_src_metric(const struct dn_import_src *src, int64_t id)
{
	struct src_metric	key = { .id = id };

	if (src->nmetrics == 0)
		return (NULL);
	return (bsearch(&key, src->metrics, src->nmetrics,
	    sizeof(*src->metrics), by_id));
}

/* A message about file SRC, ending with the refusal. */
static char *
refuse(const struct dn_import_src *src, const char *what)
{
	return (dn_xasprintf("database '%s': %s; nothing of it was imported "
	    "(a damaged or hand-made file?)", src->path, what));
}

/* Whether S is a uuid as devnet writes them: 8-4-4-4-12 lowercase hex. */
static int
uuid_ok(const char *s)
{
	int	i;

	if (strlen(s) != DN_STORE_UUID_LEN)
		return (0);
	for (i = 0; i < DN_STORE_UUID_LEN; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (s[i] != '-')
				return (0);
		} else if (strchr("0123456789abcdef", s[i]) == NULL)
			return (0);
	}
	return (1);
}

static int
hex64_ok(const char *s)
{
	return (strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64);
}

/* The metrics dictionary, checked, sorted by id. */
static int
metrics_load(struct dn_import_src *src, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		*why = NULL;
	int		 r, rc = -1;

	if (sql_prepare(src->db, "SELECT id, name, kind, better FROM metrics "
	    "ORDER BY id", &st, cause) != 0)
		return (-1);
	while (why == NULL && (r = sqlite3_step(st)) == SQLITE_ROW) {
		struct src_metric	*m;
		const char		*name, *kind, *better;
		/* the types before the values: asking for text converts */
		int			 idt = sqlite3_column_type(st, 0);
		int			 namet = sqlite3_column_type(st, 1);
		int64_t			 id = sqlite3_column_int64(st, 0);

		name = (const char *)sqlite3_column_text(st, 1);
		kind = (const char *)sqlite3_column_text(st, 2);
		better = (const char *)sqlite3_column_text(st, 3);
		if (idt != SQLITE_INTEGER || id < 0 || id > INT32_MAX)
			why = dn_xasprintf("a metric id that is not an "
			    "integer from 0 to %d", INT32_MAX);
		else if (src->nmetrics >= SRC_METRICS_MAX)
			why = dn_xasprintf("more than %d metrics",
			    SRC_METRICS_MAX);
		else if (namet != SQLITE_TEXT || name[0] == '\0' ||
		    strlen(name) > SRC_NAME_MAX)
			why = dn_xasprintf("metric id %lld has no name (or "
			    "not text, or over %d bytes)", (long long)id,
			    SRC_NAME_MAX);
		else if (kind != NULL && strcmp(kind, "gauge") != 0 &&
		    strcmp(kind, "counter") != 0)
			why = dn_xasprintf("metric '%s' has kind '%.20s' (not "
			    "gauge or counter)", name, kind);
		else if (better != NULL && strcmp(better, "lower") != 0 &&
		    strcmp(better, "higher") != 0 &&
		    strcmp(better, "neutral") != 0)
			why = dn_xasprintf("metric '%s' has better '%.20s' "
			    "(not lower, higher or neutral)", name, better);
		else if (src->nmetrics > 0 &&
		    src->metrics[src->nmetrics - 1].id == id)
			why = dn_xasprintf("two metrics of id %lld",
			    (long long)id);
		if (why != NULL)
			break;
		src->metrics = dn_xreallocarray(src->metrics,
		    src->nmetrics + 1, sizeof(*src->metrics));
		m = &src->metrics[src->nmetrics++];
		m->id = id;
		m->name = dn_xstrdup(name);
		m->counter = kind != NULL && strcmp(kind, "counter") == 0;
		snprintf(m->better, sizeof(m->better), "%s",
		    better != NULL ? better : "neutral");
	}
	if (why != NULL) {
		*cause = refuse(src, why);
		goto out;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(src->db, "read the metrics dictionary");
		goto out;
	}
	rc = 0;
out:
	free(why);
	sqlite3_finalize(st);
	return (rc);
}

/* Whether the file's TABLE is a table the copy may read: a real one (or
 * none: an older file's, shown by the store as an empty view), never a
 * view, a virtual table or one with generated columns. */
static int
table_real(struct dn_import_src *src, const char *table, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		*why = NULL;
	int		 r, rc = -1;

	/* (a view's columns are not asked for: its SQL stays unread) */
	if (sql_prepare(src->db, "SELECT type, sql LIKE 'create virtual%', "
	    "CASE WHEN type = 'table' AND sql NOT LIKE 'create virtual%' "
	    "THEN (SELECT count(*) FROM pragma_table_xinfo(?1, 'main') WHERE "
	    "hidden <> 0) END FROM main.sqlite_master WHERE name = ?1 "
	    "COLLATE NOCASE AND type IN ('table', 'view')", &st, cause) != 0)
		return (-1);
	sql_bind_text(st, 1, table);
	while (why == NULL && (r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);

		if (type == NULL || strcmp(type, "table") != 0)
			why = dn_xasprintf("'%s' is a view, not a table: "
			    "devnet writes tables only", table);
		else if (sqlite3_column_int(st, 1))
			why = dn_xasprintf("'%s' is a virtual table: devnet "
			    "writes plain tables only", table);
		else if (sqlite3_column_int(st, 2) > 0)
			why = dn_xasprintf("'%s' has generated or hidden "
			    "columns: devnet writes plain columns only",
			    table);
	}
	if (why != NULL) {
		*cause = refuse(src, why);
		goto out;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(src->db, "read the schema");
		goto out;
	}
	rc = 0;
out:
	free(why);
	sqlite3_finalize(st);
	return (rc);
}

/* What the newest schema says of one column. */
struct col {
	char	*name;
	char	 type;		/* 'i' integer, 'r' real, 't' text, 0 any */
	int	 notnull;
	int	 pk;
	int	 int32;		/* node, src, dst: a node's number */
	int	 metric;	/* metric_id: in the dictionary */
};

/* Why value I of row ST is not one column C may hold, or NULL. */
static char *
value_bad(const struct dn_import_src *src, sqlite3_stmt *st, int i,
    const struct col *c)
{
	int	t = sqlite3_column_type(st, i);
	int64_t	v;

	if (t == SQLITE_NULL)
		return (c->notnull ? dn_xasprintf("NULL, which it may not "
		    "be") : NULL);
	if (t == SQLITE_FLOAT && !isfinite(sqlite3_column_double(st, i)))
		return (dn_xasprintf("%g, not a finite number",
		    sqlite3_column_double(st, i)));
	if (c->type == 'i' && t != SQLITE_INTEGER)
		return (dn_xasprintf("not an integer"));
	if (c->type == 'r' && t != SQLITE_INTEGER && t != SQLITE_FLOAT)
		return (dn_xasprintf("not a number"));
	if (c->type == 't' && t != SQLITE_TEXT)
		return (dn_xasprintf("not text"));
	v = sqlite3_column_int64(st, i);
	if (c->int32 && (v < INT32_MIN || v > INT32_MAX))
		return (dn_xasprintf("%lld, not a node number",
		    (long long)v));
	if (c->metric && import_src_metric(src, v) == NULL)
		return (dn_xasprintf("metric id %lld, which the file's "
		    "metrics dictionary does not have", (long long)v));
	return (NULL);
}

/* The columns the newest schema gives TABLE, from SHAPE (a database with
 * store_schema_sql). */
static int
cols_load(sqlite3 *shape, const char *table, struct col **colsp,
    int *ncolsp, char **cause)
{
	sqlite3_stmt	*st = NULL;
	struct col	*cols = NULL, *c;
	int		 n = 0, r;

	if (sqlite3_prepare_v2(shape, "SELECT name, upper(type), \"notnull\", "
	    "pk FROM pragma_table_info(?1) ORDER BY cid", -1, &st,
	    NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *type = (const char *)sqlite3_column_text(st, 1);

		cols = dn_xreallocarray(cols, (size_t)n + 1, sizeof(*cols));
		c = &cols[n++];
		memset(c, 0, sizeof(*c));
		c->name = dn_xstrdup(name);
		c->type = strcmp(type, "INTEGER") == 0 ? 'i' :
		    strcmp(type, "REAL") == 0 ? 'r' :
		    strcmp(type, "TEXT") == 0 ? 't' : 0;
		c->notnull = sqlite3_column_int(st, 2);
		c->pk = sqlite3_column_int(st, 3);
		c->int32 = strcmp(name, "node") == 0 ||
		    strcmp(name, "src") == 0 || strcmp(name, "dst") == 0;
		c->metric = strcmp(name, "metric_id") == 0;
	}
	if (r != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	*colsp = cols;
	*ncolsp = n;
	return (0);
fail:
	*cause = dn_xasprintf("newest schema: table '%s': %s", table,
	    sqlite3_errmsg(shape));
	sqlite3_finalize(st);
	while (n > 0)
		free(cols[--n].name);
	free(cols);
	return (-1);
}

/* Scan every row of the file's TABLE: each value as COLS wants it. */
static int
rows_check(struct dn_import_src *src, const char *table,
    const struct col *cols, int ncols, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		*sql = dn_xstrdup(""), *n, *why = NULL, *what;
	int		 i, r, rc = -1;
	int64_t		 row = 0;

	for (i = 0; i < ncols; i++) {
		n = dn_xasprintf("%s%s\"%s\"", sql, i ? ", " : "",
		    cols[i].name);
		free(sql);
		sql = n;
	}
	n = dn_xasprintf("SELECT %s FROM \"%s\"", sql, table);
	free(sql);
	r = sql_prepare(src->db, n, &st, cause);
	free(n);
	if (r != 0)
		return (-1);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		row++;
		for (i = 0; i < ncols; i++)
			if ((why = value_bad(src, st, i, &cols[i])) != NULL)
				break;
		if (why != NULL)
			break;
	}
	if (why != NULL) {
		what = dn_xasprintf("row %lld of table '%s': column '%s' is "
		    "%s", (long long)row, table, cols[i].name, why);
		*cause = refuse(src, what);
		free(what);
		free(why);
		goto out;
	}
	if (r != SQLITE_DONE) {
		what = dn_xasprintf("read table '%s'", table);
		*cause = sql_cause(src->db, what);
		free(what);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return (rc);
}

/* No two rows of the file's TABLE with one primary key (a rowid alias of
 * runs or events aside: the target numbers those). */
static int
keys_unique(struct dn_import_src *src, const char *table,
    const struct col *cols, int ncols, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		*keys = dn_xstrdup(""), *n, *what;
	int		 i, r, rc = -1, nkeys = 0;

	for (i = 0; i < ncols; i++) {
		if (!cols[i].pk || (cols[i].type == 'i' &&
		    strcmp(cols[i].name, "id") == 0))
			continue;
		n = dn_xasprintf("%s%s\"%s\"", keys, nkeys++ ? ", " : "",
		    cols[i].name);
		free(keys);
		keys = n;
	}
	/* samples: the digest's ordered walk finds a repeated key */
	if (nkeys == 0 || strcmp(table, "samples") == 0) {
		free(keys);
		return (0);
	}
	n = dn_xasprintf("SELECT 1 FROM \"%s\" GROUP BY %s HAVING count(*) > "
	    "1 LIMIT 1", table, keys);
	r = sql_prepare(src->db, n, &st, cause);
	free(n);
	if (r != 0)
		goto out;
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		what = dn_xasprintf("table '%s' has two rows of one key (%s)",
		    table, keys);
		*cause = refuse(src, what);
		free(what);
		goto out;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(src->db, "look for repeated keys");
		goto out;
	}
	rc = 0;
out:
	free(keys);
	sqlite3_finalize(st);
	return (rc);
}

/* Every table the copy reads: ab_groups, runs and every per-run table of
 * the newest schema (a table with a run_id column). */
static int
tables_check(struct dn_import_src *src, char **cause)
{
	sqlite3		*shape = NULL;
	sqlite3_stmt	*st = NULL;
	struct col	*cols = NULL;
	int		 ncols = 0, r, rc = -1;

	if (sqlite3_open_v2(":memory:", &shape, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(shape, store_schema_sql, NULL, NULL,
	    NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(shape, "SELECT m.name FROM sqlite_master m "
	    "WHERE m.type = 'table' AND (m.name IN ('runs', 'ab_groups') OR "
	    "EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name "
	    "= 'run_id')) ORDER BY m.name", -1, &st,
	    NULL) != SQLITE_OK) {
		*cause = dn_xasprintf("newest schema: %s", shape != NULL ?
		    sqlite3_errmsg(shape) : "out of memory");
		goto out;
	}
	if (table_real(src, "metrics", cause) != 0 ||
	    metrics_load(src, cause) != 0)
		goto out;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		if (table_real(src, t, cause) != 0 ||
		    cols_load(shape, t, &cols, &ncols, cause) != 0)
			goto out;
		r = rows_check(src, t, cols, ncols, cause) != 0 ||
		    keys_unique(src, t, cols, ncols, cause) != 0;
		while (ncols > 0)
			free(cols[--ncols].name);
		free(cols);
		cols = NULL;
		if (r)
			goto out;
	}
	if (r != SQLITE_DONE) {
		*cause = dn_xasprintf("newest schema: %s",
		    sqlite3_errmsg(shape));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(shape);
	return (rc);
}

/* The file's runs, with the uuid each has or would get. */
static int
runs_load(struct dn_import_src *src, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		*why = NULL;
	int		 r, rc = -1;

	if (sql_prepare(src->db, "SELECT id, ab_group, uuid, samples_digest, "
	    "status = 'running', " STORE_UUID_COLS " FROM runs ORDER BY id",
	    &st, cause) != 0)
		return (-1);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct src_run	*sr;
		const char	*u = (const char *)sqlite3_column_text(st, 2);
		const char	*d = (const char *)sqlite3_column_text(st, 3);

		if (src->nruns >= SRC_RUNS_MAX) {
			why = dn_xasprintf("more than %d runs", SRC_RUNS_MAX);
			break;
		}
		if ((u != NULL && !uuid_ok(u)) ||
		    (d != NULL && !hex64_ok(d))) {
			why = dn_xasprintf("run %lld has a malformed %s",
			    (long long)sqlite3_column_int64(st, 0),
			    u != NULL && !uuid_ok(u) ? "uuid" :
			    "samples_digest");
			break;
		}
		src->runs = dn_xreallocarray(src->runs, src->nruns + 1,
		    sizeof(*src->runs));
		sr = &src->runs[src->nruns++];
		memset(sr, 0, sizeof(*sr));
		sr->id = sqlite3_column_int64(st, 0);
		sr->group = sqlite3_column_int64(st, 1);
		if (u != NULL)
			memcpy(sr->uuid, u, DN_STORE_UUID_LEN + 1);
		else
			store_uuid_derive(st, 5, sr->uuid);
		if (d != NULL)
			memcpy(sr->stored, d, 65);
		sr->running = sqlite3_column_int(st, 4);
	}
	if (why != NULL) {
		*cause = refuse(src, why);
		goto out;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(src->db, "read runs");
		goto out;
	}
	rc = 0;
out:
	free(why);
	sqlite3_finalize(st);
	return (rc);
}

static int
by_uuid(const void *a, const void *b)
{
	const struct src_run *const	*x = a, *const *y = b;

	return (strcmp((*x)->uuid, (*y)->uuid));
}

/* No uuid twice; every finished run's digest recomputed from its samples
 * and, where the file stores one, the same. */
static int
runs_check(struct dn_import_src *src, char **cause)
{
	struct src_run	**v;
	size_t		  i;
	char		 *why = NULL;
	int		  rc = -1;

	v = dn_xreallocarray(NULL, src->nruns + 1, sizeof(*v));
	for (i = 0; i < src->nruns; i++)
		v[i] = &src->runs[i];
	qsort(v, src->nruns, sizeof(*v), by_uuid);
	for (i = 1; i < src->nruns && why == NULL; i++)
		if (strcmp(v[i - 1]->uuid, v[i]->uuid) == 0)
			why = dn_xasprintf("runs %lld and %lld have one uuid, "
			    "%s", (long long)v[i - 1]->id,
			    (long long)v[i]->id, v[i]->uuid);
	free(v);
	for (i = 0; i < src->nruns && why == NULL; i++) {
		struct src_run	*sr = &src->runs[i];

		if (sr->running)
			continue;
		if (store_samples_digest(src->db, "main", sr->id, sr->digest,
		    cause) != 0)
			goto out;
		if (sr->stored[0] != '\0' && strcmp(sr->stored,
		    sr->digest) != 0)
			why = dn_xasprintf("run %lld (uuid %s) says its "
			    "samples digest is %.12s but its samples give "
			    "%.12s",
			    (long long)sr->id, sr->uuid, sr->stored,
			    sr->digest);
	}
	if (why != NULL) {
		*cause = refuse(src, why);
		goto out;
	}
	rc = 0;
out:
	free(why);
	return (rc);
}

int
dn_store_import_open(struct dn_import_src **srcp, const char *path,
    int64_t limit_ms, char **cause)
{
	struct dn_import_src	*src;
	struct stat		 sb;

	*srcp = NULL;
	src = dn_xcalloc(1, sizeof(*src));
	src->path = dn_xstrdup(path);
	if (dn_store_open(&src->db, path, DN_STORE_RDONLY |
	    DN_STORE_UNTRUSTED, cause) != 0)
		goto fail;
	if (limit_ms <= 0) {
		limit_ms = SRC_BASE_MS;
		if (stat(path, &sb) == 0)
			limit_ms += (int64_t)sb.st_size / SRC_BYTES_PER_S *
			    1000;
	}
	src->limit_ms = limit_ms;
	store_deadline(src->db, limit_ms);
	/* One snapshot: what is checked here is what the copy reads. */
	if (sql_quick_check(src->db, "nothing of it was imported",
	    cause) != 0 ||
	    sql_exec(src->db, "BEGIN", "begin reading", cause) != 0 ||
	    tables_check(src, cause) != 0 ||
	    runs_load(src, cause) != 0 ||
	    runs_check(src, cause) != 0)
		goto fail;
	*srcp = src;
	return (0);
fail:
	dn_store_import_close(src);
	return (-1);
}

void
dn_store_import_close(struct dn_import_src *src)
{
	size_t	i;

	if (src == NULL)
		return;
	if (src->db != NULL)
		sqlite3_exec(src->db->db, "ROLLBACK", NULL, NULL, NULL);
	dn_store_close(src->db);
	for (i = 0; i < src->nmetrics; i++)
		free(src->metrics[i].name);
	free(src->metrics);
	free(src->runs);
	free(src->path);
	free(src);
}
