/*
 * store-import.c: runs of another devnet database merged into this one
 * (`devnet import`, store.h dn_store_import; docs/schema.md, "Import").
 *
 * The source comes opened and checked whole by store-import-src.c
 * (hostile files are refused there, before the target is touched); a
 * file of an older schema version is seen in today's shape (columns added
 * since read NULL, a run without a uuid gets the one a migration would
 * give it), so it is never copied nor changed.  Everything of one file
 * lands in one IMMEDIATE transaction of the target, taken only now: a
 * failure anywhere rolls all of it back.
 *
 * A run is the same run when its uuid is; it is then skipped if its
 * samples digest (recomputed from the file's samples, never the file's
 * word) matches the target's and refused if not.  Ids are the
 * target's: runs and groups get new ones (a group whose runs are already
 * partly here is the one they are in), metrics are mapped by name
 * (dn_store_metric_named, refusing a direction that contradicts the
 * target's).  Every table of the target with a `run_id` column is copied
 * by column name, so that a per-run table added later comes along.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "clock.h"
#include "store-internal.h"
#include "xalloc.h"

/* A copy of one per-run table. */
struct copy {
	char		*table;
	sqlite3_stmt	*sel;		/* on the source: ?1 = run id */
	sqlite3_stmt	*ins;		/* on the target */
	int		 ncols;
	int		 run_col;	/* index of run_id */
	int		 metric_col;	/* index of metric_id, -1 */
	int		 group_col;	/* runs.ab_group, -1 */
	int		 uuid_col;	/* runs.uuid, -1 */
	int		 digest_col;	/* runs.samples_digest, -1 */
	int		 fast;		/* samples in samples' own order:
					   through the sorted batch insert */
};

struct import {
	struct dn_store		*dst;
	struct dn_import_src	*src;
	struct dn_import_stats	*st;
	struct copy		 run_copy;
	struct copy		*copies;
	size_t			 ncopies;
	int			*mmap;		/* per src->metrics: ours,
						   or -1 */
	int64_t			*gmap;		/* pairs: source, ours */
	size_t			 ngmap;
	dn_import_progress_fn	 progress;
	void			*arg;
	uint64_t		 next_ns;
};

static void
copy_release(struct copy *c)
{
	free(c->table);
	sqlite3_finalize(c->sel);
	sqlite3_finalize(c->ins);
}

/*
 * Prepare the copy of TABLE: its columns as the target has them (a
 * rowid alias `id` left out: the target numbers its rows), read from the
 * source by the same names.
 */
static int
copy_prepare(struct import *im, const char *table, const char *key,
    struct copy *c, char **cause)
{
	sqlite3_stmt	*ti = NULL;
	char		*cols = dn_xstrdup(""), *qs = dn_xstrdup(""), *sql, *n;
	int		 r, rc = -1;

	memset(c, 0, sizeof(*c));
	c->table = dn_xstrdup(table);
	c->run_col = c->metric_col = c->group_col = -1;
	c->uuid_col = c->digest_col = -1;
	if (sql_prepare(im->dst, "SELECT name, pk, upper(type) FROM "
	    "pragma_table_info(?1, 'main') ORDER BY cid", &ti, cause) != 0)
		goto out;
	sql_bind_text(ti, 1, table);
	while ((r = sqlite3_step(ti)) == SQLITE_ROW) {
		const char *col = (const char *)sqlite3_column_text(ti, 0);
		const char *type = (const char *)sqlite3_column_text(ti, 2);

		/* The rowid alias (runs.id, events.id) is ours to number;
		 * machines.run_id is one too, and takes the new run id. */
		if (sqlite3_column_int(ti, 1) == 1 && strcmp(type,
		    "INTEGER") == 0 && (strcmp(col, key) != 0 ||
		    strcmp(table, "runs") == 0))
			continue;
		if (strcmp(col, key) == 0)
			c->run_col = c->ncols;
		else if (strcmp(col, "metric_id") == 0)
			c->metric_col = c->ncols;
		else if (strcmp(table, "runs") == 0 && strcmp(col,
		    "ab_group") == 0)
			c->group_col = c->ncols;
		else if (strcmp(table, "runs") == 0 && strcmp(col, "uuid") == 0)
			c->uuid_col = c->ncols;
		else if (strcmp(table, "runs") == 0 && strcmp(col,
		    "samples_digest") == 0)
			c->digest_col = c->ncols;
		n = dn_xasprintf("%s%s\"%s\"", cols, c->ncols ? ", " : "",
		    col);
		free(cols);
		cols = n;
		n = dn_xasprintf("%s%s?", qs, c->ncols ? ", " : "");
		free(qs);
		qs = n;
		c->ncols++;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(im->dst, "read table columns");
		goto out;
	}
	c->fast = strcmp(table, "samples") == 0 && strcmp(cols, "\"run_id\", "
	    "\"node\", \"metric_id\", \"t_ms\", \"value\"") == 0;
	sql = dn_xasprintf("SELECT %s FROM \"%s\" WHERE \"%s\" = ?1", cols,
	    table, key);
	r = sql_prepare(im->src->db, sql, &c->sel, cause);
	free(sql);
	if (r != 0)
		goto out;
	sql = dn_xasprintf("INSERT INTO main.\"%s\" (%s) VALUES (%s)", table,
	    cols, qs);
	r = sql_prepare(im->dst, sql, &c->ins, cause);
	free(sql);
	if (r == 0)
		rc = 0;
out:
	free(cols);
	free(qs);
	sqlite3_finalize(ti);
	return (rc);
}

/* The copies of every per-run table of the target but runs. */
static int
copies_prepare(struct import *im, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 r, rc = -1;

	if (copy_prepare(im, "runs", "id", &im->run_copy, cause) != 0)
		return (-1);
	if (sql_prepare(im->dst, "SELECT m.name FROM main.sqlite_master m "
	    "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND "
	    "m.name <> 'runs' AND EXISTS (SELECT 1 FROM pragma_table_info("
	    "m.name, 'main') c WHERE c.name = 'run_id') ORDER BY m.name", &st,
	    cause) != 0)
		return (-1);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		im->copies = dn_xreallocarray(im->copies, im->ncopies + 1,
		    sizeof(*im->copies));
		if (copy_prepare(im, (const char *)sqlite3_column_text(st, 0),
		    "run_id", &im->copies[im->ncopies++], cause) != 0)
			goto out;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(im->dst, "list tables");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return (rc);
}

/* Whether the source's metric M may join the target: a named metric
 * there whose declared direction contradicts M's may not.  *ID: the
 * target's id of M's name, or -1. */
static int
metric_fits(struct import *im, const struct src_metric *m, int *id,
    char **cause)
{
	struct dn_metric_info	 have;

	if (dn_store_metric_find(im->dst, m->name, id, &have, cause) != 0)
		return (-1);
	if (*id >= DN_STORE_NAMED_BASE && strcmp(m->better, "neutral") != 0 &&
	    strcmp(have.better, "neutral") != 0 &&
	    strcmp(have.better, m->better) != 0) {
		*cause = dn_xasprintf("metric '%s' is better: %s in '%s' but "
		    "better: %s in '%s': a named metric's direction is fixed "
		    "per database, so that every comparison of its runs means "
		    "the same; nothing of '%s' was imported (rename the "
		    "metric in one of them, or import into another --db)",
		    m->name, m->better, im->src->path, have.better,
		    im->dst->path, im->src->path);
		return (-1);
	}
	return (0);
}

/* Our id of the source's metric SID: by name, the direction checked. */
static int
metric_map(struct import *im, int64_t sid, int *out, char **cause)
{
	const struct src_metric	*m = import_src_metric(im->src, sid);
	size_t			 k;
	int			 id;

	if (m == NULL) {	/* dn_store_import_open refuses it */
		*cause = dn_xasprintf("database '%s': samples of metric id "
		    "%lld, which its dictionary does not have (a damaged "
		    "file?)", im->src->path, (long long)sid);
		return (-1);
	}
	k = (size_t)(m - im->src->metrics);
	if (im->mmap[k] >= 0) {
		*out = im->mmap[k];
		return (0);
	}
	if (metric_fits(im, m, &id, cause) != 0)
		return (-1);
	if (dn_store_metric_named(im->dst, m->name, m->counter, m->better,
	    &id, cause) != 0)
		return (-1);
	im->mmap[k] = id;
	*out = id;
	return (0);
}

/* Our group for the source's group SG: the one a run of it already
 * imported is in, else a new copy of the source's row. */
static int
group_map(struct import *im, int64_t sg, int64_t *out, char **cause)
{
	sqlite3_stmt	*st = NULL;
	size_t		 i;
	int		 r, rc = -1;

	for (i = 0; i < im->ngmap; i++)
		if (im->gmap[2 * i] == sg) {
			*out = im->gmap[2 * i + 1];
			return (0);
		}
	*out = 0;
	if (sql_prepare(im->dst, "SELECT ab_group FROM main.runs WHERE uuid "
	    "= ?1 AND ab_group IS NOT NULL", &st, cause) != 0)
		return (-1);
	for (i = 0; i < im->src->nruns && *out == 0; i++) {
		if (im->src->runs[i].group != sg)
			continue;
		sql_bind_text(st, 1, im->src->runs[i].uuid);
		if ((r = sqlite3_step(st)) == SQLITE_ROW)
			*out = sqlite3_column_int64(st, 0);
		else if (r != SQLITE_DONE) {
			*cause = sql_cause(im->dst, "find a group");
			goto out;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (*out == 0) {
		sqlite3_stmt	*ins = NULL;

		if (sql_prepare(im->src->db, "SELECT scenario, label, "
		    "created_ms FROM ab_groups WHERE id = ?1", &st,
		    cause) != 0 ||
		    sql_prepare(im->dst, "INSERT INTO main.ab_groups "
		    "(scenario, label, created_ms) VALUES (?1, ?2, ?3)", &ins,
		    cause) != 0)
			goto out;
		sqlite3_bind_int64(st, 1, sg);
		if ((r = sqlite3_step(st)) == SQLITE_ROW) {
			sqlite3_bind_value(ins, 1, sqlite3_column_value(st, 0));
			sqlite3_bind_value(ins, 2, sqlite3_column_value(st, 1));
			sqlite3_bind_value(ins, 3, sqlite3_column_value(st, 2));
		} else {	/* a run naming a group the file lacks */
			sql_bind_text(ins, 1, "");
			sqlite3_bind_int64(ins, 3, dn_wall_ms());
		}
		r = sql_step_done(im->dst, ins, "insert group", cause);
		sqlite3_finalize(ins);
		if (r != 0)
			goto out;
		*out = sqlite3_last_insert_rowid(im->dst->db);
		im->st->groups++;
	}
	im->gmap = dn_xreallocarray(im->gmap, 2 * (im->ngmap + 1),
	    sizeof(*im->gmap));
	im->gmap[2 * im->ngmap] = sg;
	im->gmap[2 * im->ngmap + 1] = *out;
	im->ngmap++;
	rc = 0;
out:
	sqlite3_finalize(st);
	return (rc);
}

/*
 * The samples of source run SR as run NEW_ID through the store's sample
 * buffer (sorted, INS_ROWS rows per statement: the ingest path, twice as
 * fast as a row at a time).  A NULL value, which devnet never writes,
 * goes through the row-at-a-time copy.
 */
static int
copy_samples(struct import *im, struct copy *c, const struct src_run *sr,
    int64_t new_id, int64_t *n, char **cause)
{
	struct dn_store	*d = im->dst;
	struct pending	*p;
	int		 r, mid;

	if (d->pend == NULL)
		d->pend = dn_xreallocarray(NULL, PENDING_MAX, sizeof(*p));
	sqlite3_bind_int64(c->sel, 1, sr->id);
	while ((r = sqlite3_step(c->sel)) == SQLITE_ROW) {
		if (metric_map(im, sqlite3_column_int64(c->sel, 2), &mid,
		    cause) != 0)
			goto fail;
		if (sqlite3_column_type(c->sel, 4) == SQLITE_NULL) {
			sqlite3_bind_int64(c->ins, 1, new_id);
			sqlite3_bind_value(c->ins, 2,
			    sqlite3_column_value(c->sel, 1));
			sqlite3_bind_int(c->ins, 3, mid);
			sqlite3_bind_value(c->ins, 4,
			    sqlite3_column_value(c->sel, 3));
			sqlite3_bind_null(c->ins, 5);
			if (sql_step_done(d, c->ins, c->table, cause) != 0)
				goto fail;
			(*n)++;
			continue;
		}
		if (d->npend == PENDING_MAX &&
		    store_pending_flush(d, cause) != 0)
			goto fail;
		p = &d->pend[d->npend++];
		p->run_id = new_id;
		p->node = sqlite3_column_int(c->sel, 1);
		p->metric_id = mid;
		p->t_ms = sqlite3_column_int64(c->sel, 3);
		p->value = sqlite3_column_double(c->sel, 4);
		(*n)++;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(im->src->db, c->table);
		goto fail;
	}
	sqlite3_reset(c->sel);
	return (store_pending_flush(d, cause));
fail:
	d->npend = 0;
	sqlite3_reset(c->sel);
	return (-1);
}

/* Copy the rows of C for source run OLD as run NEW; *N counts them. */
static int
copy_rows(struct import *im, struct copy *c, const struct src_run *sr,
    int64_t new_id, int64_t group, const char *digest, int64_t *n,
    char **cause)
{
	int	r, i, mid;

	if (c->fast)
		return (copy_samples(im, c, sr, new_id, n, cause));
	sqlite3_bind_int64(c->sel, 1, sr->id);
	while ((r = sqlite3_step(c->sel)) == SQLITE_ROW) {
		for (i = 0; i < c->ncols; i++) {
			if (i == c->run_col)
				sqlite3_bind_int64(c->ins, i + 1, new_id);
			else if (i == c->metric_col) {
				if (metric_map(im, sqlite3_column_int64(
				    c->sel, i), &mid, cause) != 0)
					goto fail;
				sqlite3_bind_int(c->ins, i + 1, mid);
			} else if (i == c->group_col) {
				if (group > 0)
					sqlite3_bind_int64(c->ins, i + 1,
					    group);
				else
					sqlite3_bind_null(c->ins, i + 1);
			} else if (i == c->uuid_col)
				sql_bind_text(c->ins, i + 1, sr->uuid);
			else if (i == c->digest_col)
				sql_bind_text(c->ins, i + 1, digest);
			else
				sqlite3_bind_value(c->ins, i + 1,
				    sqlite3_column_value(c->sel, i));
		}
		if (sql_step_done(im->dst, c->ins, c->table, cause) != 0)
			goto fail;
		(*n)++;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(im->src->db, c->table);
		goto fail;
	}
	sqlite3_reset(c->sel);
	return (0);
fail:
	sqlite3_reset(c->sel);
	return (-1);
}

/* Whether run SR is here already: *HERE 1 if so (same samples), an error
 * if its uuid is here with other samples. */
static int
run_present(struct import *im, struct src_run *sr, int *here, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		 ours[65];
	int64_t		 id = 0;
	int		 r, rc = -1;

	*here = 0;
	if (sql_prepare(im->dst, "SELECT id, samples_digest FROM main.runs "
	    "WHERE uuid = ?1", &st, cause) != 0)
		return (-1);
	sql_bind_text(st, 1, sr->uuid);
	if ((r = sqlite3_step(st)) == SQLITE_DONE) {
		rc = 0;
		goto out;
	}
	if (r != SQLITE_ROW) {
		*cause = sql_cause(im->dst, "find a run");
		goto out;
	}
	id = sqlite3_column_int64(st, 0);
	if (sqlite3_column_text(st, 1) != NULL)
		snprintf(ours, sizeof(ours), "%s",
		    (const char *)sqlite3_column_text(st, 1));
	else if (store_samples_digest(im->dst, "main", id, ours, cause) != 0)
		goto out;
	if (strcmp(sr->digest, ours) != 0) {
		*cause = dn_xasprintf("run %lld of '%s' (uuid %s) is run %lld "
		    "of '%s' with other samples (digest %.12s, here %.12s); "
		    "nothing of '%s' was imported (was one of them changed "
		    "by hand?)", (long long)sr->id, im->src->path, sr->uuid,
		    (long long)id, im->dst->path, sr->digest, ours,
		    im->src->path);
		goto out;
	}
	*here = 1;
	rc = 0;
out:
	sqlite3_finalize(st);
	return (rc);
}

/* Import run SR: skipped if running or here, else copied whole. */
static int
run_import(struct import *im, struct src_run *sr, char **cause)
{
	int64_t	 group = 0, new_id, n = 0, samples = 0;
	size_t	 i;
	int	 here;

	if (sr->running) {
		im->st->runs_running++;
		return (0);
	}
	if (run_present(im, sr, &here, cause) != 0)
		return (-1);
	if (here) {
		if (im->st->runs_present++ == 0)
			memcpy(im->st->present_uuid, sr->uuid,
			    sizeof(sr->uuid));
		return (0);
	}
	if (sr->group > 0 && group_map(im, sr->group, &group, cause) != 0)
		return (-1);
	if (copy_rows(im, &im->run_copy, sr, 0, group, sr->digest, &n,
	    cause) != 0)
		return (-1);
	/* run_col is -1 for runs (its id is the rowid): ours is new */
	new_id = sqlite3_last_insert_rowid(im->dst->db);
	for (i = 0; i < im->ncopies; i++) {
		struct copy	*c = &im->copies[i];
		int64_t		*cnt = strcmp(c->table, "samples") == 0 ?
				    &samples : &n;

		if (copy_rows(im, c, sr, new_id, 0, NULL, cnt, cause) != 0)
			return (-1);
	}
	im->st->runs_added++;
	im->st->samples += samples;
	im->st->rows += n + samples;
	return (0);
}

static void
import_release(struct import *im)
{
	size_t	i;

	copy_release(&im->run_copy);
	for (i = 0; i < im->ncopies; i++)
		copy_release(&im->copies[i]);
	free(im->copies);
	free(im->mmap);
	free(im->gmap);
}

/* Whether the metrics of source run SR (its samples' and series') fit
 * the target (metric_fits); FITS marks those seen, per src->metrics. */
static int
run_metrics_fit(struct import *im, sqlite3_stmt *st,
    const struct src_run *sr, char *fits, char **cause)
{
	const struct src_metric	*m;
	int			 r, id;

	sqlite3_bind_int64(st, 1, sr->id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		m = import_src_metric(im->src, sqlite3_column_int64(st, 0));
		if (m == NULL || fits[m - im->src->metrics])
			continue;
		if (metric_fits(im, m, &id, cause) != 0)
			goto fail;
		fits[m - im->src->metrics] = 1;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(im->src->db, "read a run's metrics");
		goto fail;
	}
	sqlite3_reset(st);
	return (0);
fail:
	sqlite3_reset(st);
	return (-1);
}

int
dn_store_import_conflicts(struct dn_store *dst, struct dn_import_src *src,
    char **cause)
{
	struct import		 im;
	struct dn_import_stats	 st;
	sqlite3_stmt		*ids = NULL;
	char			*fits;
	size_t			 i;
	int			 here, rc = -1;

	memset(&im, 0, sizeof(im));
	memset(&st, 0, sizeof(st));
	im.dst = dst;
	im.src = src;
	im.st = &st;
	fits = dn_xcalloc(src->nmetrics + 1, 1);
	store_deadline(src->db, src->limit_ms);
	if (sql_prepare(src->db, "SELECT metric_id FROM samples WHERE run_id "
	    "= ?1 UNION SELECT metric_id FROM series WHERE run_id = ?1", &ids,
	    cause) != 0)
		goto out;
	for (i = 0; i < src->nruns; i++) {
		struct src_run	*sr = &src->runs[i];

		if (sr->running)
			continue;
		if (run_present(&im, sr, &here, cause) != 0)
			goto out;
		if (!here && run_metrics_fit(&im, ids, sr, fits, cause) != 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(ids);
	free(fits);
	return (rc);
}

int
dn_store_import_check(const char *path, char **cause)
{
	struct dn_import_src	*src;

	if (dn_store_import_open(&src, path, 0, cause) != 0)
		return (-1);
	dn_store_import_close(src);
	return (0);
}

int
dn_store_import(struct dn_store *dst, const char *path, int dry_run,
    struct dn_import_stats *st, dn_import_progress_fn progress, void *arg,
    char **cause)
{
	struct dn_import_src	*src;
	int			 rc;

	memset(st, 0, sizeof(*st));
	if (dn_store_import_open(&src, path, 0, cause) != 0)
		return (-1);
	rc = dn_store_import_from(dst, src, dry_run, st, progress, arg,
	    cause);
	dn_store_import_close(src);
	return (rc);
}

int
dn_store_import_from(struct dn_store *dst, struct dn_import_src *src,
    int dry_run, struct dn_import_stats *st, dn_import_progress_fn progress,
    void *arg, char **cause)
{
	struct import	 im;
	size_t		 i;
	int		 rc = -1;

	memset(st, 0, sizeof(*st));
	memset(&im, 0, sizeof(im));
	im.dst = dst;
	im.src = src;
	im.st = st;
	im.progress = progress;
	im.arg = arg;
	if (dst->rdonly || dst->in_txn || dst->npend != 0) {
		*cause = dn_xasprintf("database '%s': import needs a writer "
		    "with nothing pending (a devnet bug)", dst->path);
		return (-1);
	}
	st->runs_total = (int64_t)src->nruns;
	im.mmap = dn_xreallocarray(NULL, src->nmetrics + 1,
	    sizeof(*im.mmap));
	for (i = 0; i < src->nmetrics; i++)
		im.mmap[i] = -1;
	/* the copy reads what was checked: the same time bound again */
	store_deadline(src->db, src->limit_ms);
	if (sql_exec(dst, "BEGIN IMMEDIATE", "begin import", cause) != 0)
		goto out;
	dst->in_txn = 1;
	if (copies_prepare(&im, cause) != 0)
		goto out;
	im.next_ns = dn_now_ns() + 1000000000ull;
	for (i = 0; i < src->nruns; i++) {
		if (run_import(&im, &src->runs[i], cause) != 0)
			goto out;
		st->runs_done = (int64_t)i + 1;
		if (progress != NULL && dn_now_ns() >= im.next_ns) {
			progress(arg, st);
			im.next_ns = dn_now_ns() + 1000000000ull;
		}
	}
	if (!dry_run && sql_exec(dst, "COMMIT", "commit import", cause) != 0)
		goto out;
	if (dry_run)
		sqlite3_exec(dst->db, "ROLLBACK", NULL, NULL, NULL);
	dst->in_txn = 0;
	rc = 0;
out:
	import_release(&im);
	if (dst->in_txn) {
		sqlite3_exec(dst->db, "ROLLBACK", NULL, NULL, NULL);
		dst->in_txn = 0;
	}
	return (rc);
}
