/*
 * schema.c: opening and closing the sqlite store (see store.h; schema:
 * docs/schema.md): access and integrity checks, pragmas, creating the
 * schema and migrating older databases to it (writers) or showing them in
 * its shape (readers), filling the metrics dictionary and preparing the
 * write statements.  Not the schema's text and the migration steps
 * (schema-sql.c), nor the writes or reads themselves (store-write.c,
 * store-read.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "clock.h"
#include "metric-table.h"
#include "store-internal.h"
#include "xalloc.h"

#define BUSY_TIMEOUT_MS	2000
/* quick_check reads every page: only on databases small enough for it to
 * be quick (docs/schema.md). */
#define QUICK_CHECK_MAX	(256ll * 1024 * 1024)

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

/* The version of S's database: 0 when it has no schema_version table (a
 * new, empty file). */
static int
read_version(struct dn_store *s, int *version, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1, r;

	*version = 0;
	if (sql_prepare(s, "SELECT count(*) FROM sqlite_master WHERE "
	    "type = 'table' AND name = 'schema_version'", &st, cause) != 0)
		return (-1);
	r = sqlite3_step(st);
	if (r != SQLITE_ROW) {
		*cause = sql_cause(s, "read schema version");
		goto out;
	}
	if (sqlite3_column_int(st, 0) == 0) {
		rc = 0;
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sql_prepare(s, "SELECT max(version) FROM schema_version", &st,
	    cause) != 0)
		goto out;
	if (sqlite3_step(st) != SQLITE_ROW) {
		*cause = sql_cause(s, "read schema version");
		goto out;
	}
	*version = sqlite3_column_int(st, 0);
	rc = 0;
out:
	sqlite3_finalize(st);
	return (rc);
}

static int
check_not_newer(struct dn_store *s, int version, char **cause)
{
	if (version <= SCHEMA_VERSION)
		return (0);
	*cause = dn_xasprintf("database '%s' has schema version %d, newer "
	    "than this devnet understands (%d); upgrade devnet or use --db",
	    s->path, version, SCHEMA_VERSION);
	return (-1);
}

/* Apply the steps from VERSION to SCHEMA_VERSION (in the caller's
 * transaction). */
static int
apply_steps(struct dn_store *s, int version, char **cause)
{
	const struct store_migration	*m;
	char			*what;
	int			 v, rc;

	for (v = version; v < SCHEMA_VERSION; v++) {
		m = &store_migrations[v - 1];
		what = dn_xasprintf("migrate schema %d -> %d", v, v + 1);
		rc = 0;
		if (m->from != v) {
			*cause = dn_xasprintf("database '%s': %s: step %d is "
			    "out of order (a devnet bug)", s->path, what,
			    m->from);
			rc = -1;
		} else if (m->sql != NULL)
			rc = sql_exec(s, m->sql, what, cause);
		if (rc == 0 && m->fn != NULL)
			rc = m->fn(s, cause);
		free(what);
		if (rc != 0)
			return (-1);
	}
	return (0);
}

/* Set the version and record how it was reached: one row per step, or
 * one for a new file. */
static int
record_version(struct dn_store *s, int version, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		*sql;
	int		 v, rc = -1;

	sql = dn_xasprintf("DELETE FROM schema_version; "
	    "INSERT INTO schema_version VALUES (%d)", SCHEMA_VERSION);
	rc = sql_exec(s, sql, "schema version", cause);
	free(sql);
	if (rc != 0)
		return (-1);
	rc = -1;
	if (sql_prepare(s, "INSERT INTO schema_migrations (from_version, "
	    "to_version, applied_ms, what) VALUES (?1, ?2, ?3, ?4)", &st,
	    cause) != 0)
		return (-1);
	for (v = version; v < SCHEMA_VERSION; v++) {
		sqlite3_bind_int(st, 1, v);
		sqlite3_bind_int(st, 2, version == 0 ? SCHEMA_VERSION : v + 1);
		sqlite3_bind_int64(st, 3, dn_wall_ms());
		sql_bind_text(st, 4, version == 0 ? "created" :
		    store_migrations[v - 1].what);
		if (sql_step_done(s, st, "record migration", cause) != 0)
			goto out;
		if (version == 0)
			break;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return (rc);
}

/* Create or migrate the schema and refresh the metrics dictionary, in one
 * IMMEDIATE transaction (which is also where a competing writer shows). */
static int
migrate(struct dn_store *s, char **cause)
{
	sqlite3_stmt	*st = NULL, *ren = NULL;
	int		 i, version, rc = -1;

	if (sql_exec(s, "BEGIN IMMEDIATE", "begin", cause) != 0)
		return (-1);
	if (read_version(s, &version, cause) != 0 ||
	    check_not_newer(s, version, cause) != 0)
		goto out;
	/* Views hold no data: recreate them so that every database has the
	 * current definitions. */
	if (sql_exec(s, "DROP VIEW IF EXISTS run_summary; "
	    "DROP VIEW IF EXISTS node_summary; "
	    "DROP VIEW IF EXISTS sample_rates", "drop views", cause) != 0)
		goto out;
	if (version > 0 && apply_steps(s, version, cause) != 0)
		goto out;
	if (sql_exec(s, store_schema_sql, "create schema", cause) != 0)
		goto out;
	if (version < SCHEMA_VERSION && record_version(s, version, cause) != 0)
		goto out;
	/*
	 * A named metric (id >= DN_STORE_NAMED_BASE) may carry a name that
	 * this devnet's metric table has since taken.  It keeps its id and
	 * samples under NAME@ID (never a valid metric name, so no later
	 * collision); the table's row then takes NAME.  An upsert on id
	 * only: INSERT OR REPLACE deleted the named row on the name's
	 * UNIQUE conflict, orphaning its samples (issue 19 #12), and any
	 * conflict left now fails the open instead of deleting.
	 */
	if (sql_prepare(s, "UPDATE metrics SET name = name || '@' || id "
	    "WHERE name = ?2 AND id <> ?1", &ren, cause) != 0)
		goto out;
	if (sql_prepare(s, "INSERT INTO metrics (id, name, unit,"
	    " kind, better, source, description)"
	    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(id) DO UPDATE"
	    " SET name = ?2, unit = ?3, kind = ?4, better = ?5, source = ?6,"
	    " description = ?7", &st, cause) != 0)
		goto out;
	for (i = 0; i < DN_METRIC_COUNT; i++) {
		const struct dn_metric_def *d = &dn_metric_defs[i];

		sqlite3_bind_int(ren, 1, i);
		sql_bind_text(ren, 2, d->name);
		if (sql_step_done(s, ren, "keep a named metric", cause) != 0)
			goto out;
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
	sqlite3_finalize(ren);
	if (rc != 0)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return (rc);
}

/*
 * Whether table NAME of the newest schema (on connection CUR) lacks
 * columns in S's database; if so, *VIEW is the temporary view that shows
 * it in the newest shape: the columns it has, NULL for the others, no
 * rows when the table is missing altogether.
 */
static int
compat_table(struct dn_store *s, sqlite3 *cur, const char *name,
    char **view, char **cause)
{
	sqlite3_stmt	*st = NULL, *has = NULL;
	char		*cols = dn_xstrdup(""), *next;
	int		 missing = 0, ntable = 0, rc = -1, r;

	*view = NULL;
	if (sqlite3_prepare_v2(cur, "SELECT name FROM pragma_table_info(?1) "
	    "ORDER BY cid", -1, &st, NULL) != SQLITE_OK) {
		*cause = dn_xasprintf("database '%s': newest schema: %s",
		    s->path, sqlite3_errmsg(cur));
		goto out;
	}
	if (sql_prepare(s, "SELECT count(*) FROM pragma_table_info(?1, "
	    "'main') WHERE name = ?2", &has, cause) != 0)
		goto out;
	sql_bind_text(st, 1, name);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char	*col = (const char *)sqlite3_column_text(st, 0);

		sql_bind_text(has, 1, name);
		sql_bind_text(has, 2, col);
		if (sqlite3_step(has) != SQLITE_ROW) {
			*cause = sql_cause(s, "read table columns");
			goto out;
		}
		if (sqlite3_column_int(has, 0) > 0) {
			next = dn_xasprintf("%s%s\"%s\"", cols,
			    *cols ? ", " : "", col);
			ntable++;
		} else {
			next = dn_xasprintf("%s%sNULL AS \"%s\"", cols,
			    *cols ? ", " : "", col);
			missing++;
		}
		sqlite3_reset(has);
		free(cols);
		cols = next;
	}
	if (r != SQLITE_DONE) {
		*cause = dn_xasprintf("database '%s': newest schema: %s",
		    s->path, sqlite3_errmsg(cur));
		goto out;
	}
	if (missing > 0 && ntable > 0)
		*view = dn_xasprintf("CREATE TEMP VIEW \"%s\" AS SELECT %s "
		    "FROM main.\"%s\"", name, cols, name);
	else if (missing > 0)
		*view = dn_xasprintf("CREATE TEMP VIEW \"%s\" AS SELECT %s "
		    "WHERE 0", name, cols);
	rc = 0;
out:
	free(cols);
	sqlite3_finalize(st);
	sqlite3_finalize(has);
	return (rc);
}

/*
 * A reader of an older database (VERSION < SCHEMA_VERSION) migrates
 * nothing: temporary views (connection-local, shadowing the file's tables
 * and views by name) show it in the newest shape, so that every read
 * works and columns added since read as NULL.  The newest shape comes
 * from store_schema_sql run on a private in-memory database.
 */
static int
reader_compat(struct dn_store *s, int version, char **cause)
{
	sqlite3		*cur = NULL;
	sqlite3_stmt	*st = NULL;
	char		*view;
	int		 v, rc = -1, r;

	for (v = version; v < SCHEMA_VERSION; v++) {
		if (store_migrations[v - 1].readers_refuse) {
			*cause = dn_xasprintf("database '%s' has schema "
			    "version %d, which this devnet reads only once "
			    "a writer has migrated it to %d: run 'devnet "
			    "run' with '--db %s' once, or use --db",
			    s->path, version, SCHEMA_VERSION, s->path);
			return (-1);
		}
	}
	if (sqlite3_open_v2(":memory:", &cur, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(cur, store_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(cur, "SELECT type, name, sql FROM "
	    "sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE "
	    "'sqlite_%' ORDER BY type = 'view', rowid", -1, &st,
	    NULL) != SQLITE_OK) {
		*cause = dn_xasprintf("database '%s': newest schema: %s",
		    s->path, cur ? sqlite3_errmsg(cur) : "out of memory");
		goto out;
	}
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char	*type = (const char *)sqlite3_column_text(st, 0);
		const char	*name = (const char *)sqlite3_column_text(st, 1);
		const char	*sql = (const char *)sqlite3_column_text(st, 2);
		static const char create[] = "CREATE VIEW ";

		if (strcmp(type, "view") == 0) {
			/* Today's definition, over the views above. */
			if (strncmp(sql, create, sizeof(create) - 1) != 0) {
				*cause = dn_xasprintf("database '%s': view "
				    "%s: unexpected definition", s->path,
				    name);
				goto out;
			}
			view = dn_xasprintf("CREATE TEMP VIEW %s",
			    sql + sizeof(create) - 1);
		} else if (compat_table(s, cur, name, &view, cause) != 0)
			goto out;
		if (view == NULL)
			continue;
		r = sql_exec(s, view, "show the newest schema", cause);
		free(view);
		if (r != 0)
			goto out;
	}
	if (r != SQLITE_DONE) {
		*cause = dn_xasprintf("database '%s': newest schema: %s",
		    s->path, sqlite3_errmsg(cur));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(cur);
	return (rc);
}

static int
check_integrity(struct dn_store *s, char **cause)
{
	struct stat	sb;

	if (stat(s->path, &sb) != 0 || sb.st_size > QUICK_CHECK_MAX)
		return (0);
	return (sql_quick_check(s, "move it away or use --db", cause));
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

/* An untrusted file is read only if it and its -wal and -shm (when
 * there) are regular files: sqlite's open of a FIFO waits for a writer
 * forever, and a device is no database. */
static int
untrusted_file(const char *path, char **cause)
{
	static const char *const	 tail[] = { "", "-wal", "-shm" };
	struct stat			 sb;
	char				*p;
	size_t				 i;
	int				 rc = 0;

	for (i = 0; i < sizeof(tail) / sizeof(tail[0]) && rc == 0; i++) {
		p = dn_xasprintf("%s%s", path, tail[i]);
		if (stat(p, &sb) != 0) {
			if (i == 0 || errno != ENOENT) {
				*cause = dn_xasprintf("cannot read '%s': %s; "
				    "check the path", p, strerror(errno));
				rc = -1;
			}
		} else if (!S_ISREG(sb.st_mode)) {
			*cause = dn_xasprintf("'%s' is not a regular file "
			    "(a %s): only devnet database files can be "
			    "read; copy it to a file first", p,
			    S_ISFIFO(sb.st_mode) ? "FIFO" :
			    S_ISDIR(sb.st_mode) ? "directory" :
			    S_ISSOCK(sb.st_mode) ? "socket" : "device");
			rc = -1;
		}
		free(p);
	}
	return (rc);
}

/* What DN_STORE_UNTRUSTED asks (store.h), before the file's schema is
 * read: its views, triggers and the functions in them stay unused. */
static int
untrusted_harden(struct dn_store *s, char **cause)
{
	static const int	 off[] = { SQLITE_DBCONFIG_TRUSTED_SCHEMA,
				    SQLITE_DBCONFIG_ENABLE_VIEW,
				    SQLITE_DBCONFIG_ENABLE_TRIGGER,
				    SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION };
	size_t			 i;

	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (sqlite3_db_config(s->db, off[i], 0, NULL) != SQLITE_OK)
			goto fail;
	if (sqlite3_db_config(s->db, SQLITE_DBCONFIG_DEFENSIVE, 1,
	    NULL) != SQLITE_OK)
		goto fail;
	sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, DN_STORE_UNTRUSTED_LEN);
	sqlite3_progress_handler(s->db, PROGRESS_OPS, store_progress_check, s);
	store_deadline(s, DN_STORE_UNTRUSTED_MS);
	return (0);
fail:
	*cause = sql_cause(s, "turn off trusted_schema");
	return (-1);
}

void
store_deadline(struct dn_store *s, int64_t limit_ms)
{
	s->limit_ms = limit_ms;
	s->timed_out = 0;
	s->deadline_ns = dn_now_ns() + (uint64_t)limit_ms * 1000000u;
}

int
dn_store_open(struct dn_store **sp, const char *path, int flags,
    char **cause)
{
	struct dn_store	*s;
	int		 oflags, rc;

	*sp = NULL;
	if ((flags & DN_STORE_UNTRUSTED) && (!(flags & DN_STORE_RDONLY) ||
	    untrusted_file(path, cause) != 0)) {
		if (!(flags & DN_STORE_RDONLY))
			*cause = dn_xasprintf("database '%s': an untrusted "
			    "file is opened read-only (a devnet bug)", path);
		return (-1);
	}
	if (check_access(path, flags & DN_STORE_RDONLY, cause) != 0)
		return (-1);
	s = dn_xcalloc(1, sizeof(*s));
	s->path = dn_xstrdup(path);
	s->rdonly = (flags & DN_STORE_RDONLY) != 0;
	oflags = s->rdonly ? SQLITE_OPEN_READONLY :
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	/*
	 * A new file is made 0600 here, not by sqlite (0644 less the
	 * umask): it holds run tokens, command lines and env values.
	 * sqlite gives -wal and -shm the main file's mode.  An empty file
	 * is a new database to sqlite.
	 */
	if (!s->rdonly && access(path, F_OK) != 0) {
		int	fd = open(path, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);

		if (fd == -1 && errno != EEXIST) {
			*cause = dn_xasprintf("cannot create database '%s': "
			    "%s; use --db elsewhere", path, strerror(errno));
			goto fail;
		}
		if (fd != -1)
			close(fd);
	}
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
	if ((flags & DN_STORE_UNTRUSTED) && untrusted_harden(s, cause) != 0)
		goto fail;
	/* Touch the schema first: a file that is not a database says so
	 * here, not in the middle of a write. */
	if (sql_exec(s, "SELECT count(*) FROM sqlite_master", "read schema",
	    cause) != 0)
		goto fail;
	if (s->rdonly) {
		int	version;

		/* An older file is shown in the newest shape; a newer one
		 * is refused, as for writers. */
		if (read_version(s, &version, cause) != 0 ||
		    check_not_newer(s, version, cause) != 0 ||
		    (version > 0 && version < SCHEMA_VERSION &&
		    reader_compat(s, version, cause) != 0))
			goto fail;
		/* mmap: readers scan millions of rows (compare); it halves
		 * their system time against pread of every page.  Not for
		 * an untrusted file: one cut short while mapped is SIGBUS;
		 * its small cache keeps many open sources small. */
		if (sql_exec(s, (flags & DN_STORE_UNTRUSTED) ?
		    "PRAGMA query_only = 1; PRAGMA cache_size = -8192; "
		    "PRAGMA mmap_size = 0" : "PRAGMA query_only = 1; "
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
		/* open done: later writes wait out another writer's long
		 * commit (a large run ending) instead of failing a run */
		sqlite3_busy_timeout(s->db, DN_STORE_BUSY_MS);
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
	store_sort_release(&s->sort);
	free(s->path);
	free(s);
}

