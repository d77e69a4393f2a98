/*
 * store-sql.c: the sqlite call helpers the files of the store share: error
 * messages that name the file and say what to do, exec, prepare, step and
 * bind, and the integrity check opening a database and importing one
 * both make (see store-internal.h).  No other SQL of its own: the
 * statements are in schema.c, store-write.c and store-read.c.
 */
#include <string.h>

#include <sqlite3.h>

#include "store-internal.h"
#include "xalloc.h"

char *
sql_cause(struct dn_store *s, const char *what)
{
	int	 code = sqlite3_extended_errcode(s->db);
	int	 prim = code & 0xff;

	if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
		return (dn_xasprintf("database '%s' is locked by another "
		    "process; wait for it or use --db", s->path));
	if (prim == SQLITE_NOTADB || prim == SQLITE_CORRUPT)
		return (dn_xasprintf("database '%s' is not a devnet sqlite "
		    "database or is corrupt (%s); move it away or use --db",
		    s->path, sqlite3_errmsg(s->db)));
	if (prim == SQLITE_READONLY)
		return (dn_xasprintf("database '%s' is read-only (%s); use a "
		    "writable file or --db", s->path, sqlite3_errmsg(s->db)));
	if (prim == SQLITE_FULL)
		return (dn_xasprintf("database '%s': disk full; free space "
		    "or use --db elsewhere", s->path));
	if (prim == SQLITE_INTERRUPT && s->timed_out)
		return (dn_xasprintf("database '%s': %s: stopped at the time "
		    "limit for reading it, %lld s (a hostile or damaged "
		    "file? if it is sound, allow it longer: --time-limit)",
		    s->path, what, (long long)(s->limit_ms / 1000)));
	if (prim == SQLITE_TOOBIG)
		return (dn_xasprintf("database '%s': %s: a value over %d "
		    "bytes (a hostile or damaged file?)", s->path, what,
		    sqlite3_limit(s->db, SQLITE_LIMIT_LENGTH, -1)));
	return (dn_xasprintf("database '%s': %s: %s", s->path, what,
	    sqlite3_errmsg(s->db)));
}

int
sql_exec(struct dn_store *s, const char *sql, const char *what, char **cause)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		*cause = sql_cause(s, what);
		return (-1);
	}
	return (0);
}

int
sql_prepare(struct dn_store *s, const char *sql, sqlite3_stmt **stp,
    char **cause)
{
	if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, stp,
	    NULL) != SQLITE_OK) {
		*cause = sql_cause(s, "prepare");
		return (-1);
	}
	return (0);
}

/* Step a write statement that returns no row, and reset it. */
int
sql_step_done(struct dn_store *s, sqlite3_stmt *st, const char *what,
    char **cause)
{
	int	rc = sqlite3_step(st);

	if (rc != SQLITE_DONE) {
		*cause = sql_cause(s, what);
		sqlite3_reset(st);
		return (-1);
	}
	sqlite3_reset(st);
	return (0);
}

void
sql_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v == NULL)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
}

int
sql_quick_check(struct dn_store *s, const char *advice, char **cause)
{
	sqlite3_stmt	*st = NULL;
	const char	*res;
	int		 rc = -1;

	if (sql_prepare(s, "PRAGMA quick_check(1)", &st, cause) != 0)
		return (-1);
	if (sqlite3_step(st) != SQLITE_ROW) {
		*cause = sql_cause(s, "quick_check");
		goto out;
	}
	res = (const char *)sqlite3_column_text(st, 0);
	if (res == NULL || strcmp(res, "ok") != 0) {
		*cause = dn_xasprintf("database '%s' is corrupt (%s); %s",
		    s->path, res ? res : "?", advice);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return (rc);
}
