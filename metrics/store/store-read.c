/*
 * store-read.c: the reads of the sqlite store (see store.h): the generic
 * one-statement query behind query/export/report/runs/show and the typed
 * series reads behind compare.  Writes nothing; no statistics here.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "clock.h"
#include "store-internal.h"
#include "buf.h"
#include "xalloc.h"

/* sqlite's progress handler: nonzero stops the running statement with
 * SQLITE_INTERRUPT.  A dn_store_query sets a deadline, and the reads of
 * an untrusted file (store_deadline).  PROGRESS_OPS instructions between
 * looks: well under a millisecond of work, one clock read per look. */
int
store_progress_check(void *arg)
{
	struct dn_store	*s = arg;

	if (s->deadline_ns == 0 || dn_now_ns() < s->deadline_ns)
		return (0);
	s->timed_out = 1;
	return (1);
}

void
dn_store_set_timeout(struct dn_store *s, int64_t ms)
{
	s->timeout_ms = ms > 0 ? ms : 0;
	sqlite3_progress_handler(s->db, s->timeout_ms ? PROGRESS_OPS : 0,
	    s->timeout_ms ? store_progress_check : NULL, s);
}

int
dn_store_timed_out(const struct dn_store *s)
{
	return (s->timed_out);
}

static int
only_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
	    *p == ';')
		p++;
	return (*p == '\0');
}

int
dn_store_query(struct dn_store *s, const char *sql,
    const char *const *params, int nparams, dn_store_row_fn row, void *arg,
    char **cause)
{
	sqlite3_stmt	 *st = NULL;
	const char	 *tail = NULL;
	const char	**names = NULL, **vals = NULL;
	int		 *types = NULL;
	int		  i, n, r, rc = -1;

	s->timed_out = 0;
	if (sqlite3_prepare_v2(s->db, sql, -1, &st, &tail) != SQLITE_OK) {
		*cause = dn_xasprintf("sql error: %s", sqlite3_errmsg(s->db));
		return (-1);
	}
	if (st == NULL) {
		*cause = dn_xasprintf("sql error: empty statement");
		return (-1);
	}
	if (tail != NULL && !only_blanks(tail)) {
		*cause = dn_xasprintf("sql error: one statement at a time "
		    "(found more after ';')");
		goto out;
	}
	if (s->rdonly && !sqlite3_stmt_readonly(st)) {
		*cause = dn_xasprintf("database '%s' is open read-only: "
		    "statements that write are refused", s->path);
		goto out;
	}
	for (i = 0; i < nparams; i++)
		sql_bind_text(st, i + 1, params[i]);
	n = sqlite3_column_count(st);
	if (s->timeout_ms > 0)
		s->deadline_ns = dn_now_ns() +
		    (uint64_t)s->timeout_ms * 1000000u;
	names = dn_xcalloc(n + 1, sizeof(*names));
	vals = dn_xcalloc(n + 1, sizeof(*vals));
	types = dn_xcalloc(n + 1, sizeof(*types));
	for (i = 0; i < n; i++)
		names[i] = sqlite3_column_name(st, i);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < n; i++) {
			types[i] = sqlite3_column_type(st, i);
			vals[i] = (const char *)sqlite3_column_text(st, i);
		}
		if (row != NULL && row(arg, n, names, vals, types) != 0)
			break;
	}
	if (r != SQLITE_ROW && r != SQLITE_DONE) {
		if (s->timed_out)
			*cause = dn_xasprintf("query stopped after its time "
			    "limit of %lld ms", (long long)s->timeout_ms);
		else if ((r & 0xff) == SQLITE_READONLY)
			*cause = dn_xasprintf("database '%s' is open "
			    "read-only: statements that write are refused",
			    s->path);
		else
			*cause = dn_xasprintf("sql error: %s",
			    sqlite3_errmsg(s->db));
		goto out;
	}
	rc = 0;
out:
	s->deadline_ns = 0;
	free(names);
	free(vals);
	free(types);
	sqlite3_finalize(st);
	return (rc);
}

const char *
dn_store_path(struct dn_store *s)
{
	return (s->path);
}

void
dn_series_free(struct dn_series *v, size_t n)
{
	size_t	i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].t_ms);
		free(v[i].v);
	}
	free(v);
}

int
dn_store_series(struct dn_store *s, int64_t run_id, int metric_id,
    int64_t t_min, struct dn_series **out, size_t *nout, char **cause)
{
	struct dn_series	*v = NULL, *cur = NULL;
	size_t			 n = 0, cap = 0;
	int			 r;

	*out = NULL;
	*nout = 0;
	if (s->sel_series == NULL && sql_prepare(s, "SELECT node, t_ms, value "
	    "FROM samples WHERE run_id = ?1 AND metric_id = ?2 AND "
	    "t_ms >= ?3 ORDER BY node, t_ms", &s->sel_series, cause) != 0)
		return (-1);
	sqlite3_bind_int64(s->sel_series, 1, run_id);
	sqlite3_bind_int(s->sel_series, 2, metric_id);
	sqlite3_bind_int64(s->sel_series, 3, t_min);
	while ((r = sqlite3_step(s->sel_series)) == SQLITE_ROW) {
		int	node = sqlite3_column_int(s->sel_series, 0);

		if (sqlite3_column_type(s->sel_series, 2) == SQLITE_NULL)
			continue;
		if (cur == NULL || cur->node != node) {
			v = dn_xgrow(v, &cap, n + 1, sizeof(*v));
			cur = &v[n++];
			memset(cur, 0, sizeof(*cur));
			cur->node = node;
		}
		if (cur->n == cur->cap) {	/* two arrays, one capacity */
			size_t	c = cur->cap;

			cur->t_ms = dn_xgrow(cur->t_ms, &c, cur->n + 1,
			    sizeof(*cur->t_ms));
			cur->v = dn_xgrow(cur->v, &cur->cap, cur->n + 1,
			    sizeof(*cur->v));
		}
		cur->t_ms[cur->n] = sqlite3_column_int64(s->sel_series, 1);
		cur->v[cur->n] = sqlite3_column_double(s->sel_series, 2);
		cur->n++;
	}
	sqlite3_reset(s->sel_series);
	if (r != SQLITE_DONE) {
		*cause = sql_cause(s, "read samples");
		dn_series_free(v, n);
		return (-1);
	}
	*out = v;
	*nout = n;
	return (0);
}

int
dn_store_fact_values(struct dn_store *s, int64_t run_id, const char *key,
    char ***vals, size_t *n, char **cause)
{
	sqlite3_stmt	*st = NULL;
	size_t		 i;
	int		 rv;

	*vals = NULL;
	*n = 0;
	if (sql_prepare(s, "SELECT DISTINCT value FROM run_facts WHERE "
	    "run_id = ?1 AND key = ?2 AND node >= 0 AND value IS NOT NULL "
	    "ORDER BY value", &st, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	while ((rv = sqlite3_step(st)) == SQLITE_ROW) {
		*vals = dn_xreallocarray(*vals, *n + 1, sizeof(**vals));
		(*vals)[(*n)++] = dn_xstrdup((const char *)
		    sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	if (rv != SQLITE_DONE) {
		for (i = 0; i < *n; i++)
			free((*vals)[i]);
		free(*vals);
		*vals = NULL;
		*n = 0;
		*cause = sql_cause(s, "read a run's facts");
		return (-1);
	}
	return (0);
}
