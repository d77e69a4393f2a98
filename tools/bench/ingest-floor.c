/*
 * ingest-floor.c: the plain-sqlite floor devnet's collector ingest is
 * judged against (issue 26: "at least 0.8x the plain-sqlite floor with the
 * same durability").  tools/bench/collector-ingest.sh runs it beside
 * dn-collector-ingest-bench in every round, in the same window.
 *
 *   dn-ingest-floor [-s SENDERS] [-m MSGS_PER_SENDER] [-b ROWS] [-d DIR]
 *	 [-a] [-D] [-r] [-p PRAGMA]...
 *
 * It inserts exactly the rows the collector bench stores (SENDERS x MSGS
 * messages x the 34 node metrics: run_id 1, node = the sender, metric_id
 * = each node metric's id, t_ms = 1..MSGS, the bench's values) into a
 * fresh sqlite file, with nothing of devnet in the timed part: one
 * prepared single-row INSERT, ROWS rows per transaction (default 65,536,
 * the collector's own commit size DN_STORE_BATCH_ROWS), each
 * transaction's rows in key order (the plain way to fill a clustered
 * table: -a keeps the order they arrive in at the collector, time then
 * node then metric).
 *
 * The fair floor (docs/benchmarks.md, "Ingest against its plain-sqlite
 * floor"): the table is devnet's own, read from a scratch store that
 * dn_store_open made (sqlite_master's `samples`: WITHOUT ROWID, clustered
 * on its key); the file gets the journal_mode and synchronous that
 * devnet's writer runs with, read from that store (the same durability),
 * and its other settings (cache_size, wal_autocheckpoint, temp_store:
 * speed only), so that what the ratio shows is devnet's own path, not a
 * setting.  -D leaves those three at sqlite's defaults; -r is the issue's
 * original floor: an ordinary rowid table with no index (less work than
 * devnet's table, so not the same job); -p NAME=VALUE runs one more
 * PRAGMA on the fresh file (up to 8).
 *
 * Prints one line of key=value pairs:
 *
 *   floor rows journal_mode synchronous batch wall_s rows_per_s cpu_s
 *
 * wall_s runs from the first BEGIN to the return of the last COMMIT.
 * DIR (default a mkdtemp dir under /tmp) is emptied of what this made.
 * Not a test; not installed.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "clock.h"
#include "metric-table.h"
#include "store.h"
#include "xalloc.h"

#define MAX_PRAGMAS	8

struct frow {
	int64_t	run_id;
	int	node;
	int	metric_id;
	int64_t	t_ms;
	double	value;
};

/* Devnet's writer settings, by what they decide: the durability, then
 * the rest (speed only). */
static const char *const durability[] = { "journal_mode", "synchronous" };
static const char *const tuning[] = { "cache_size", "wal_autocheckpoint",
    "temp_store" };
#define NDUR	(sizeof(durability) / sizeof(durability[0]))
#define NTUNE	(sizeof(tuning) / sizeof(tuning[0]))

struct devnet_setup {
	char	*ddl;		/* CREATE TABLE samples ... */
	char	*dur[NDUR];	/* the answers of PRAGMA durability[i] */
	char	*tune[NTUNE];	/* and of PRAGMA tuning[i] */
};

/* Remove the sqlite file PATH and its WAL and shared-memory files. */
static void
db_unlink(const char *path)
{
	static const char *const tails[] = { "", "-wal", "-shm" };
	char	*p;
	size_t	 i;

	for (i = 0; i < 3; i++) {
		p = dn_xasprintf("%s%s", path, tails[i]);
		unlink(p);
		free(p);
	}
}

static int
take_first(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	char	**out = arg;

	(void)names;
	(void)types;
	if (ncols > 0 && values[0] != NULL && *out == NULL)
		*out = dn_xstrdup(values[0]);
	return (0);
}

/* Devnet's table and settings, from a store dn_store_open made at PATH
 * (removed after). */
static int
devnet_read(const char *path, struct devnet_setup *ds, char **cause)
{
	struct dn_store	*s = NULL;
	char		*p;
	size_t		 i;
	int		 rc = -1;

	if (dn_store_open(&s, path, 0, cause) != 0)
		goto out;
	if (dn_store_query(s, "SELECT sql FROM sqlite_master WHERE type = "
	    "'table' AND name = 'samples'", NULL, 0, take_first, &ds->ddl,
	    cause) != 0 || ds->ddl == NULL)
		goto missing;
	for (i = 0; i < NDUR + NTUNE; i++) {
		char	**v = i < NDUR ? &ds->dur[i] : &ds->tune[i - NDUR];

		p = dn_xasprintf("PRAGMA %s", i < NDUR ? durability[i] :
		    tuning[i - NDUR]);
		rc = dn_store_query(s, p, NULL, 0, take_first, v, cause);
		free(p);
		if (rc != 0 || *v == NULL)
			goto missing;
	}
	rc = 0;
	goto out;
missing:
	rc = -1;
	if (*cause == NULL)
		*cause = dn_xasprintf("'%s': no samples table or pragmas",
		    path);
out:
	dn_store_close(s);
	db_unlink(path);
	return (rc);
}

static int
row_cmp(const void *a, const void *b)
{
	const struct frow	*x = a, *y = b;

	if (x->metric_id != y->metric_id)
		return (x->metric_id < y->metric_id ? -1 : 1);
	if (x->node != y->node)
		return (x->node < y->node ? -1 : 1);
	return (x->t_ms < y->t_ms ? -1 : x->t_ms > y->t_ms);
}

static int
exec(sqlite3 *db, const char *sql, char **cause)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		*cause = dn_xasprintf("%s: %s", sql, sqlite3_errmsg(db));
		return (-1);
	}
	return (0);
}

/* Insert N rows in one transaction through the prepared ST. */
static int
txn_insert(sqlite3 *db, sqlite3_stmt *st, const struct frow *r, size_t n,
    char **cause)
{
	size_t	i;

	if (exec(db, "BEGIN", cause) != 0)
		return (-1);
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(st, 1, r[i].run_id);
		sqlite3_bind_int(st, 2, r[i].node);
		sqlite3_bind_int(st, 3, r[i].metric_id);
		sqlite3_bind_int64(st, 4, r[i].t_ms);
		sqlite3_bind_double(st, 5, r[i].value);
		if (sqlite3_step(st) != SQLITE_DONE) {
			*cause = dn_xasprintf("insert: %s",
			    sqlite3_errmsg(db));
			sqlite3_reset(st);
			return (-1);
		}
		sqlite3_reset(st);
	}
	return (exec(db, "COMMIT", cause));
}

/*
 * A fresh sqlite file at PATH with devnet's durability settings, the
 * first NTUNE_USED of its other settings, then PRAGMAS, and devnet's
 * samples table (ROWID: the original rowid table instead).
 */
static int
floor_open(sqlite3 **dbp, const char *path, const struct devnet_setup *ds,
    size_t ntune_used, int rowid, const char *const *pragmas, int npragma,
    char **cause)
{
	char	*sql;
	size_t	 i;
	int	 rc = 0;

	unlink(path);
	if (sqlite3_open(path, dbp) != SQLITE_OK) {
		*cause = dn_xasprintf("'%s': %s", path, sqlite3_errmsg(*dbp));
		return (-1);
	}
	for (i = 0; rc == 0 && i < NDUR + ntune_used + (size_t)npragma; i++) {
		if (i < NDUR)
			sql = dn_xasprintf("PRAGMA %s = %s", durability[i],
			    ds->dur[i]);
		else if (i < NDUR + ntune_used)
			sql = dn_xasprintf("PRAGMA %s = %s", tuning[i - NDUR],
			    ds->tune[i - NDUR]);
		else
			sql = dn_xasprintf("PRAGMA %s",
			    pragmas[i - NDUR - ntune_used]);
		rc = exec(*dbp, sql, cause);
		free(sql);
	}
	if (rc != 0)
		return (-1);
	return (exec(*dbp, rowid ? "CREATE TABLE samples (run_id INTEGER NOT "
	    "NULL, node INTEGER NOT NULL, metric_id INTEGER NOT NULL, t_ms "
	    "INTEGER NOT NULL, value REAL)" : ds->ddl, cause));
}

static int
usage(FILE *f)
{
	fprintf(f, "usage: dn-ingest-floor [-s SENDERS] "
	    "[-m MSGS_PER_SENDER] [-b ROWS_PER_TRANSACTION] [-d DIR] [-a] "
	    "[-D] [-r] [-p PRAGMA]...\n");
	return (2);
}

int
main(int argc, char **argv)
{
	struct devnet_setup	 ds;
	struct frow		*rows = NULL, *batch = NULL;
	sqlite3			*db = NULL;
	sqlite3_stmt		*st = NULL;
	char			 tmpl[] = "/tmp/dn-if-XXXXXX", *dir = NULL;
	char			*path = NULL, *scratch = NULL, *cause = NULL;
	char			*sql = NULL;
	const char		*sync_name;
	size_t			 nrows = 0, i, n;
	uint64_t		 t0, t1;
	double			 c0, c1;
	long			 senders = 10, msgs = 3000, batch_rows = 65536;
	int			 c, k, node, m, sorted = 1, rowid = 0;
	int			 own_dir = 0, rv = 1, npragma = 0, plain = 0;
	const char		*pragmas[MAX_PRAGMAS];

	memset(&ds, 0, sizeof(ds));
	if (argc > 1 && strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return (0);
	}
	while ((c = getopt(argc, argv, "s:m:b:d:p:aDrh")) != -1) {
		switch (c) {
		case 's':
			senders = strtol(optarg, NULL, 10);
			break;
		case 'm':
			msgs = strtol(optarg, NULL, 10);
			break;
		case 'b':
			batch_rows = strtol(optarg, NULL, 10);
			break;
		case 'd':
			dir = optarg;
			break;
		case 'p':
			if (npragma < MAX_PRAGMAS)
				pragmas[npragma++] = optarg;
			break;
		case 'a':
			sorted = 0;
			break;
		case 'D':
			plain = 1;
			break;
		case 'r':
			rowid = 1;
			break;
		case 'h':
			usage(stdout);
			return (0);
		default:
			return (usage(stderr));
		}
	}
	if (optind != argc || senders < 1 || senders > 256 || msgs < 1 ||
	    batch_rows < 1) {
		fprintf(stderr, "dn-ingest-floor: -s must be 1..256, -m and -b "
		    "at least 1\n");
		return (usage(stderr));
	}
	if (dir == NULL) {
		if ((dir = mkdtemp(tmpl)) == NULL) {
			fprintf(stderr, "dn-ingest-floor: mkdtemp: %s\n",
			    strerror(errno));
			return (1);
		}
		own_dir = 1;
	}
	scratch = dn_xasprintf("%s/devnet-schema.db", dir);
	path = dn_xasprintf("%s/floor.db", dir);
	if (devnet_read(scratch, &ds, &cause) != 0)
		goto fail;

	/* The collector bench's rows, in its arrival order. */
	rows = dn_xreallocarray(NULL, (size_t)senders * (size_t)msgs *
	    DN_METRIC_COUNT, sizeof(*rows));
	for (k = 0; k < msgs; k++)
		for (node = 0; node < senders; node++)
			for (m = 0; m < DN_METRIC_COUNT; m++) {
				if (dn_metric_defs[m].source != DN_SOURCE_N)
					continue;
				rows[nrows++] = (struct frow){ 1, node, m,
				    k + 1, (double)(k * 7 + m + node) };
			}

	if (floor_open(&db, path, &ds, plain ? 0 : NTUNE, rowid, pragmas,
	    npragma, &cause) != 0)
		goto fail;
	if (sqlite3_prepare_v2(db, "INSERT INTO samples (run_id, node, "
	    "metric_id, t_ms, value) VALUES (?1, ?2, ?3, ?4, ?5)", -1, &st,
	    NULL) != SQLITE_OK) {
		cause = dn_xasprintf("prepare: %s", sqlite3_errmsg(db));
		goto fail;
	}
	if (sorted)
		batch = dn_xreallocarray(NULL, (size_t)batch_rows,
		    sizeof(*batch));

	c0 = dn_cpu_s();
	t0 = dn_now_ns();
	for (i = 0; i < nrows; i += n) {
		const struct frow	*r = rows + i;

		n = nrows - i < (size_t)batch_rows ? nrows - i :
		    (size_t)batch_rows;
		if (sorted) {
			memcpy(batch, r, n * sizeof(*batch));
			qsort(batch, n, sizeof(*batch), row_cmp);
			r = batch;
		}
		if (txn_insert(db, st, r, n, &cause) != 0)
			goto fail;
	}
	t1 = dn_now_ns();
	c1 = dn_cpu_s();

	sync_name = strcmp(ds.dur[1], "0") == 0 ? "OFF" :
	    strcmp(ds.dur[1], "1") == 0 ? "NORMAL" :
	    strcmp(ds.dur[1], "2") == 0 ? "FULL" : "EXTRA";
	printf("floor rows=%zu journal_mode=%s synchronous=%s table=%s "
	    "order=%s batch=%ld settings=%s wall_s=%.3f rows_per_s=%.0f "
	    "cpu_s=%.3f\n", nrows, ds.dur[0], sync_name, rowid ? "rowid" :
	    "devnet", sorted ? "key" : "arrival", batch_rows, plain ?
	    "sqlite" : "devnet", (double)(t1 - t0) / 1e9,
	    (double)nrows * 1e9 / (double)(t1 - t0), c1 - c0);
	rv = 0;
	goto out;
fail:
	fprintf(stderr, "dn-ingest-floor: %s\n", cause);
	free(cause);
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	if (path != NULL)
		db_unlink(path);
	if (own_dir)
		rmdir(dir);
	free(sql);
	free(ds.ddl);
	for (i = 0; i < NDUR; i++)
		free(ds.dur[i]);
	for (i = 0; i < NTUNE; i++)
		free(ds.tune[i]);
	free(rows);
	free(batch);
	free(path);
	free(scratch);
	return (rv);
}
