/*
 * store-names.c: the metrics dictionary beyond the metric table: names a
 * foreign node sends in NAMED messages or that a scenario's log extractor
 * or Prometheus `keep:` produces (docs/probe.md, docs/foreign-nodes.md).
 * Such a name gets a row of `metrics` with an id from DN_STORE_NAMED_BASE
 * up (unit '', kind from the message, better from the scenario or
 * neutral, source node) the first time it is seen; its samples are stored
 * under that id like any other.  A declared direction is fixed: a later
 * declaration of the other one is refused (dn_store_metric_named).  No
 * schema change: the table already takes these rows.
 *
 * Not here: the table's own rows (schema.c fills them on open).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "metric-table.h"
#include "store-internal.h"
#include "xalloc.h"

/* The direction stored for named metric NAME into BUF ("" if no row). */
static int
stored_better(struct dn_store *s, const char *name, char *buf, size_t len,
    char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 rv;

	buf[0] = '\0';
	if (sql_prepare(s, "SELECT better FROM metrics WHERE name = ?1 AND "
	    "id >= ?2", &st, cause) != 0)
		return (-1);
	sql_bind_text(st, 1, name);
	sqlite3_bind_int(st, 2, DN_STORE_NAMED_BASE);
	rv = sqlite3_step(st);
	if (rv == SQLITE_ROW) {
		const char *b = (const char *)sqlite3_column_text(st, 0);

		snprintf(buf, len, "%s", b != NULL ? b : "neutral");
	} else if (rv != SQLITE_DONE) {
		*cause = sql_cause(s, "read a metric's direction");
		sqlite3_finalize(st);
		return (-1);
	}
	sqlite3_finalize(st);
	return (0);
}

int
dn_store_metric_named(struct dn_store *s, const char *name, int counter,
    const char *better, int *id, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		 old[16];
	int		 rc = -1;

	*id = dn_metric_lookup(name);
	if (*id >= 0)
		return (0);
	if (s->rdonly) {
		*cause = dn_xasprintf("database '%s' was opened read-only",
		    s->path);
		return (-1);
	}
	if (better != NULL && strcmp(better, "neutral") == 0)
		better = NULL;	/* no direction declared */
	/*
	 * A direction, once declared, is the name's for good in this
	 * database: every comparison of its runs, past and future, reads
	 * it from here, so a scenario that says otherwise would silently
	 * turn old verdicts around.  Undeclared (neutral) takes the first
	 * declaration.
	 */
	if (better != NULL) {
		if (stored_better(s, name, old, sizeof(old), cause) != 0)
			return (-1);
		if (old[0] != '\0' && strcmp(old, "neutral") != 0 &&
		    strcmp(old, better) != 0) {
			*cause = dn_xasprintf("metric '%s': this scenario "
			    "declares better: %s, but database '%s' already "
			    "has it as better: %s (declared by an earlier "
			    "run); a named metric's direction is fixed per "
			    "database, so that every comparison of its runs "
			    "means the same: declare %s, rename the metric, "
			    "or use another --db", name, better, s->path,
			    old, old);
			return (-1);
		}
	}
	if (sql_prepare(s, "INSERT OR IGNORE INTO metrics (id, name, unit, "
	    "kind, better, source, description) VALUES ((SELECT max(?4, "
	    "coalesce(max(id) + 1, ?4)) FROM metrics), ?1, '', ?2, "
	    "coalesce(?3, 'neutral'), 'node', 'from the node (NAMED)')",
	    &st, cause) != 0)
		return (-1);
	sql_bind_text(st, 1, name);
	sql_bind_text(st, 2, counter ? "counter" : "gauge");
	sql_bind_text(st, 3, better);
	sqlite3_bind_int(st, 4, DN_STORE_NAMED_BASE);
	if (sql_step_done(s, st, "add a metric name", cause) != 0)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if (better != NULL) {
		/* neutral (seen before any declaration) -> declared */
		if (sql_prepare(s, "UPDATE metrics SET better = ?2 WHERE name "
		    "= ?1 AND id >= ?3 AND better = 'neutral'", &st,
		    cause) != 0)
			goto out;
		sql_bind_text(st, 1, name);
		sql_bind_text(st, 2, better);
		sqlite3_bind_int(st, 3, DN_STORE_NAMED_BASE);
		if (sql_step_done(s, st, "set a metric's direction",
		    cause) != 0)
			goto out;
		sqlite3_finalize(st);
		st = NULL;
	}
	rc = dn_store_metric_find(s, name, id, NULL, cause);
out:
	sqlite3_finalize(st);
	return (rc);
}

int
dn_store_metric_find(struct dn_store *s, const char *name, int *id,
    struct dn_metric_info *info, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 rv, rc = -1;

	*id = -1;
	if (sql_prepare(s, "SELECT id, kind, better, unit FROM metrics WHERE "
	    "name = ?1", &st, cause) != 0)
		return (-1);
	sql_bind_text(st, 1, name);
	rv = sqlite3_step(st);
	if (rv == SQLITE_ROW) {
		*id = sqlite3_column_int(st, 0);
		if (info != NULL) {
			const char *b = (const char *)sqlite3_column_text(st,
			    2);

			memset(info, 0, sizeof(*info));
			info->counter = strcmp((const char *)
			    sqlite3_column_text(st, 1), "counter") == 0;
			snprintf(info->better, sizeof(info->better), "%s",
			    b != NULL ? b : "neutral");
		}
		rc = 0;
	} else if (rv == SQLITE_DONE) {
		rc = 0;
	} else
		*cause = sql_cause(s, "find a metric");
	sqlite3_finalize(st);
	return (rc);
}

int
dn_store_run_has_metric(struct dn_store *s, int64_t run_id, const char *name,
    int *has, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 id, rv;

	*has = 0;
	if (dn_store_metric_find(s, name, &id, NULL, cause) != 0)
		return (-1);
	if (id < 0)
		return (0);
	/* (run_id, metric_id) leads the samples' key: one index probe */
	if (sql_prepare(s, "SELECT 1 FROM samples WHERE run_id = ?1 AND "
	    "metric_id = ?2 LIMIT 1", &st, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, id);
	rv = sqlite3_step(st);
	if (rv != SQLITE_ROW && rv != SQLITE_DONE) {
		*cause = sql_cause(s, "look for a metric's samples");
		sqlite3_finalize(st);
		return (-1);
	}
	sqlite3_finalize(st);
	*has = rv == SQLITE_ROW;
	return (0);
}

int
dn_store_run_named(struct dn_store *s, int64_t run_id, int **ids, size_t *n,
    char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 rv;

	*ids = NULL;
	*n = 0;
	if (sql_prepare(s, "SELECT DISTINCT metric_id FROM samples WHERE "
	    "run_id = ?1 AND metric_id >= ?2 ORDER BY metric_id", &st,
	    cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, DN_STORE_NAMED_BASE);
	while ((rv = sqlite3_step(st)) == SQLITE_ROW) {
		*ids = dn_xreallocarray(*ids, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	if (rv != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		*cause = sql_cause(s, "list a run's named metrics");
		return (-1);
	}
	return (0);
}

int
dn_store_metric_name(struct dn_store *s, int id, char **name,
    struct dn_metric_info *info, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 rc = -1;

	*name = NULL;
	if (sql_prepare(s, "SELECT name, kind, better FROM metrics WHERE id "
	    "= ?1", &st, cause) != 0)
		return (-1);
	sqlite3_bind_int(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *b = (const char *)sqlite3_column_text(st, 2);

		*name = dn_xstrdup((const char *)sqlite3_column_text(st, 0));
		memset(info, 0, sizeof(*info));
		info->counter = strcmp((const char *)sqlite3_column_text(st,
		    1), "counter") == 0;
		snprintf(info->better, sizeof(info->better), "%s",
		    b != NULL ? b : "neutral");
		rc = 0;
	} else
		*cause = dn_xasprintf("database '%s': no metric with id %d",
		    s->path, id);
	sqlite3_finalize(st);
	return (rc);
}
