/*
 * store-write.c: the writes of the sqlite store (see store.h): runs and
 * groups, nodes, buffered samples, events and facts, the batch
 * transaction, run end with its per-series aggregates, and reaping runs
 * whose orchestrator is gone.  Not opening the store (schema.c) or reading
 * it (store-read.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "clock.h"
#include "store-internal.h"
#include "xalloc.h"

static int
need_writable(struct dn_store *s, char **cause)
{
	if (s->rdonly) {
		*cause = dn_xasprintf("database '%s' was opened read-only",
		    s->path);
		return (-1);
	}
	return (0);
}

/*
 * Open the batch transaction, waiting WAIT_MS at most for another
 * process's write lock: DN_STORE_EBUSY when it is still held (issue 19
 * #4: a fixed 2 s wait failed the run and every later trial).
 */
static int
txn_begin_wait(struct dn_store *s, int wait_ms, char **cause)
{
	int	rc = 0;

	if (s->in_txn)
		return (0);
	if (wait_ms != DN_STORE_BUSY_MS)
		sqlite3_busy_timeout(s->db, wait_ms);
	if (sql_exec(s, "BEGIN IMMEDIATE", "begin", cause) != 0) {
		int	prim = sqlite3_extended_errcode(s->db) & 0xff;

		rc = prim == SQLITE_BUSY || prim == SQLITE_LOCKED ?
		    DN_STORE_EBUSY : -1;
		s->busy = rc == DN_STORE_EBUSY;
	} else {
		s->in_txn = 1;
		s->busy = 0;
	}
	if (wait_ms != DN_STORE_BUSY_MS)
		sqlite3_busy_timeout(s->db, DN_STORE_BUSY_MS);
	return (rc);
}

static int
txn_begin(struct dn_store *s, char **cause)
{
	return (txn_begin_wait(s, DN_STORE_BUSY_MS, cause));
}

/* Undo the open transaction, if any (the error path of every write). */
static void
txn_rollback(struct dn_store *s)
{
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	s->in_txn = 0;
}

static int	pending_flush(struct dn_store *, int, char **);

/* Flush and commit, waiting WAIT_MS for the write lock; DN_STORE_EBUSY
 * (nothing was open, nothing is lost) when another process has it. */
static int
commit_wait(struct dn_store *s, int wait_ms, char **cause)
{
	int	rc;

	if ((rc = pending_flush(s, wait_ms, cause)) != 0) {
		if (rc == DN_STORE_EBUSY)
			return (rc);
		txn_rollback(s);
		return (-1);
	}
	if (!s->in_txn)
		return (0);
	if (sql_exec(s, "COMMIT", "commit", cause) != 0) {
		txn_rollback(s);
		return (-1);
	}
	s->in_txn = 0;
	return (0);
}

int
dn_store_commit(struct dn_store *s, char **cause)
{
	return (commit_wait(s, DN_STORE_BUSY_MS, cause) != 0 ? -1 : 0);
}

int
dn_store_try_commit(struct dn_store *s, char **cause)
{
	return (commit_wait(s, DN_STORE_TRY_MS, cause));
}

int
dn_store_begin(struct dn_store *s, char **cause)
{
	if (need_writable(s, cause) != 0)
		return (-1);
	return (txn_begin(s, cause));
}

/* Run a one-shot write now and make it (and any open batch) durable, so
 * that other readers see runs and groups as soon as they exist. */
static int
write_now(struct dn_store *s, sqlite3_stmt *st, const char *what,
    char **cause)
{
	int	rc = sql_step_done(s, st, what, cause);

	sqlite3_finalize(st);
	if (rc != 0)
		return (-1);
	return (dn_store_commit(s, cause));
}

static void
host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0)
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
}

/*
 * Store run RUN_ID's per-series aggregates, in the open transaction, after
 * its last sample: node_summary then reads a few hundred rows instead of
 * aggregating every sample of the run (docs/benchmarks.md, "Compare").
 */
static int
series_store(struct dn_store *s, int64_t run_id, char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 rc;

	if (sql_prepare(s, "INSERT OR REPLACE INTO series (run_id, node, "
	    "metric_id, n, min, avg, max, t_first, t_last) " SERIES_AGGREGATE
	    " AND r.id = ?1 GROUP BY s.metric_id, s.node", &st, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	rc = sql_step_done(s, st, "store run aggregates", cause);
	sqlite3_finalize(st);
	return (rc);
}

/*
 * When process PID started, in wall ms (from /proc/PID/stat's start time
 * after boot and /proc/stat's btime, whole seconds: up to 1 s early), or
 * -1 when it cannot be read.
 */
static int64_t
proc_start_ms(pid_t pid)
{
	char			 path[64], buf[1024], *p;
	unsigned long long	 ticks = 0, btime = 0;
	long			 hz = sysconf(_SC_CLK_TCK);
	FILE			*f;
	int			 i, ok = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return (-1);
	if (fgets(buf, sizeof(buf), f) != NULL &&
	    (p = strrchr(buf, ')')) != NULL) {
		/* after "(comm)": state is field 3, starttime field 22 */
		for (i = 3, p++; i < 22 && p != NULL; i++)
			p = strchr(p + 1, ' ');
		ok = p != NULL && sscanf(p, " %llu", &ticks) == 1;
	}
	fclose(f);
	if (!ok || hz <= 0 || (f = fopen("/proc/stat", "r")) == NULL)
		return (-1);
	ok = 0;
	while (fgets(buf, sizeof(buf), f) != NULL && !ok)
		ok = sscanf(buf, "btime %llu", &btime) == 1;
	fclose(f);
	if (!ok)
		return (-1);
	return ((int64_t)btime * 1000 +
	    (int64_t)(ticks * 1000 / (unsigned long long)hz));
}

/*
 * 1 if the run that process PID began at START_MS still has its
 * orchestrator: PID is alive and started before the run (a process that
 * started after it only has the number, e.g. devnet's own pid in a new
 * container, where every devnet is pid 1: issue 19 #13).
 */
static int
run_owner_alive(pid_t pid, int64_t start_ms)
{
	int64_t	started;

	if (pid <= 0)
		return (1);	/* not known: left alone */
	if (pid != getpid() && kill(pid, 0) != 0 && errno != EPERM)
		return (0);
	started = proc_start_ms(pid);
	/* 2 s: btime's whole seconds, and the run row written just after
	 * devnet started */
	return (started < 0 || start_ms <= 0 || started <= start_ms + 2000);
}

int
dn_store_reap_stale(struct dn_store *s, int *n, char **cause)
{
	sqlite3_stmt	*sel = NULL, *upd = NULL;
	char		 host[256];
	int		 rc = -1, r;

	*n = 0;
	if (need_writable(s, cause) != 0)
		return (-1);
	host_name(host, sizeof(host));
	if (sql_prepare(s, "SELECT id, pid, start_ms FROM runs WHERE status = "
	    "'running' AND host = ?1", &sel, cause) != 0 ||
	    sql_prepare(s, "UPDATE runs SET status = 'interrupted', end_ms = "
	    "coalesce(start_ms + (SELECT max(t_ms) FROM samples WHERE run_id = "
	    "?1 AND metric_id = 0), ?2), reason = ?3 WHERE id = ?1 AND "
	    "status = 'running'", &upd, cause) != 0)
		goto out;
	sql_bind_text(sel, 1, host);
	while ((r = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t	 id = sqlite3_column_int64(sel, 0);
		int	 pid = sqlite3_column_int(sel, 1);
		char	*why;

		if (run_owner_alive(pid, sqlite3_column_int64(sel, 2)))
			continue;
		why = dn_xasprintf("orchestrator (pid %d on %s) is gone", pid,
		    host);
		sqlite3_bind_int64(upd, 1, id);
		sqlite3_bind_int64(upd, 2, dn_wall_ms());
		sqlite3_bind_text(upd, 3, why, -1, SQLITE_TRANSIENT);
		free(why);
		if (sql_step_done(s, upd, "reap stale run", cause) != 0 ||
		    series_store(s, id, cause) != 0 ||
		    store_digest_store(s, id, cause) != 0)
			goto out;
		(*n)++;
	}
	if (r != SQLITE_DONE) {
		*cause = sql_cause(s, "list running runs");
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	return (rc);
}

int
dn_store_group_create(struct dn_store *s, const char *scenario_name,
    const char *label, int64_t *group_id, char **cause)
{
	sqlite3_stmt	*st = NULL;

	if (need_writable(s, cause) != 0)
		return (-1);
	if (sql_prepare(s, "INSERT INTO ab_groups (scenario, label, "
	    "created_ms) VALUES (?1, ?2, ?3)", &st, cause) != 0)
		return (-1);
	sql_bind_text(st, 1, scenario_name ? scenario_name : "");
	sql_bind_text(st, 2, label);
	sqlite3_bind_int64(st, 3, dn_wall_ms());
	if (write_now(s, st, "create group", cause) != 0)
		return (-1);
	*group_id = sqlite3_last_insert_rowid(s->db);
	return (0);
}

int
dn_store_run_begin(struct dn_store *s, const struct dn_run_info *ri,
    int64_t *run_id, char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		 host[256], token[17], uuid[DN_STORE_UUID_LEN + 1];
	int		 rc;

	if (need_writable(s, cause) != 0)
		return (-1);
	if (sql_prepare(s,
	    "INSERT INTO runs (ab_group, scenario, scenario_path, "
	    "scenario_yaml, variant, trial, repeat, label, binary, "
	    "binary_sha256, git_describe, host, pid, run_dir, nodes, tps, "
	    "duration_ms, warmup_ms, sample_interval_ms, token, start_ms, "
	    "git_commit, uuid, status) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, "
	    "?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
	    "?22, ?23, 'running')",
	    &st, cause) != 0)
		return (-1);
	host_name(host, sizeof(host));
	snprintf(token, sizeof(token), "%016llx",
	    (unsigned long long)ri->token);
	if (ri->group_id > 0)
		sqlite3_bind_int64(st, 1, ri->group_id);
	sql_bind_text(st, 2, ri->scenario_name ? ri->scenario_name : "");
	sql_bind_text(st, 3, ri->scenario_path);
	sql_bind_text(st, 4, ri->scenario_yaml);
	sql_bind_text(st, 5, ri->variant);
	sqlite3_bind_int(st, 6, ri->trial);
	sqlite3_bind_int(st, 7, ri->repeat);
	sql_bind_text(st, 8, ri->label);
	sql_bind_text(st, 9, ri->binary);
	sql_bind_text(st, 10, ri->binary_sha256);
	sql_bind_text(st, 11, ri->git_describe);
	sql_bind_text(st, 12, host);
	sqlite3_bind_int(st, 13, getpid());
	sql_bind_text(st, 14, ri->run_dir);
	sqlite3_bind_int(st, 15, ri->nodes);
	sqlite3_bind_double(st, 16, ri->tps);
	sqlite3_bind_int64(st, 17, ri->duration_ms);
	sqlite3_bind_int64(st, 18, ri->warmup_ms);
	sqlite3_bind_int64(st, 19, ri->sample_interval_ms);
	sql_bind_text(st, 20, token);
	sqlite3_bind_int64(st, 21, dn_wall_ms());
	sql_bind_text(st, 22, ri->git_commit);
	if (store_uuid_random(uuid) != 0) {
		sqlite3_finalize(st);
		*cause = dn_xasprintf("database '%s': no random bytes for the "
		    "run's uuid: %s", s->path, strerror(errno));
		return (-1);
	}
	sql_bind_text(st, 23, uuid);
	/* The run and its machine land in one commit. */
	if (txn_begin(s, cause) != 0) {
		sqlite3_finalize(st);
		return (-1);
	}
	rc = sql_step_done(s, st, "insert run", cause);
	sqlite3_finalize(st);
	if (rc != 0)
		return (-1);
	*run_id = sqlite3_last_insert_rowid(s->db);
	if (ri->machine != NULL &&
	    store_machine_add(s, *run_id, ri->machine, cause) != 0)
		return (-1);
	return (dn_store_commit(s, cause));
}

int
dn_store_run_end(struct dn_store *s, int64_t run_id, const char *status,
    const char *reason, char **cause)
{
	sqlite3_stmt	*st = NULL;

	if (need_writable(s, cause) != 0)
		return (-1);
	if (status == NULL || (strcmp(status, "ok") != 0 &&
	    strcmp(status, "failed") != 0 &&
	    strcmp(status, "interrupted") != 0)) {
		*cause = dn_xasprintf("run status '%s' is not ok, failed or "
		    "interrupted", status ? status : "(null)");
		return (-1);
	}
	/* The buffered samples are made durable first; the status and the
	 * aggregates over them then land together or not at all. */
	if (dn_store_commit(s, cause) != 0)
		return (-1);
	if (txn_begin(s, cause) != 0 || sql_prepare(s, "UPDATE runs SET "
	    "status = ?2, reason = ?3, end_ms = ?4 WHERE id = ?1", &st,
	    cause) != 0)
		goto fail;
	sqlite3_bind_int64(st, 1, run_id);
	sql_bind_text(st, 2, status);
	sql_bind_text(st, 3, reason);
	sqlite3_bind_int64(st, 4, dn_wall_ms());
	if (sql_step_done(s, st, "end run", cause) != 0)
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_changes(s->db) != 1) {
		*cause = dn_xasprintf("database '%s': no run %lld", s->path,
		    (long long)run_id);
		goto fail;
	}
	if (series_store(s, run_id, cause) != 0 ||
	    store_digest_store(s, run_id, cause) != 0)
		goto fail;
	return (dn_store_commit(s, cause));
fail:
	sqlite3_finalize(st);
	txn_rollback(s);
	return (-1);
}

int
dn_store_node_add(struct dn_store *s, int64_t run_id, int node, int pid,
    const char *binary, const char *sha256, const char *cmdline,
    char **cause)
{
	sqlite3_stmt	*st = NULL;
	char		 host[256];

	if (need_writable(s, cause) != 0)
		return (-1);
	if (sql_prepare(s, "INSERT INTO nodes (run_id, node, pid, binary, "
	    "sha256, cmdline, host) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", &st, cause) != 0)
		return (-1);
	/* Beside the orchestrator, unless dn_store_node_set_host says. */
	host_name(host, sizeof(host));
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, node);
	sqlite3_bind_int(st, 3, pid);
	sql_bind_text(st, 4, binary);
	sql_bind_text(st, 5, sha256);
	sql_bind_text(st, 6, cmdline);
	sql_bind_text(st, 7, host);
	return (write_now(s, st, "insert node", cause));
}

int
dn_store_node_set_host(struct dn_store *s, int64_t run_id, int node,
    const char *host, char **cause)
{
	sqlite3_stmt	*st = NULL;

	if (need_writable(s, cause) != 0)
		return (-1);
	if (sql_prepare(s, "UPDATE nodes SET host = ?3 WHERE run_id = ?1 "
	    "AND node = ?2", &st, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, node);
	sql_bind_text(st, 3, host);
	return (write_now(s, st, "set node host", cause));
}

/* A series: the rows of one (run, metric, node), their place in the
 * sorted batch. */
struct series_key {
	int64_t		run_id;
	int32_t		metric_id;
	int32_t		node;
};

/* The order of the samples table's key without t_ms: qsort's. */
static int
series_order(const struct series_key *x, const struct series_key *y)
{
	if (x->run_id != y->run_id)
		return (x->run_id < y->run_id ? -1 : 1);
	if (x->metric_id != y->metric_id)
		return (x->metric_id < y->metric_id ? -1 : 1);
	if (x->node != y->node)
		return (x->node < y->node ? -1 : 1);
	return (0);
}

static int
pending_cmp(const void *a, const void *b)
{
	const struct pending	*x = a, *y = b;
	struct series_key	 kx = { x->run_id, x->metric_id, x->node };
	struct series_key	 ky = { y->run_id, y->metric_id, y->node };
	int			 c = series_order(&kx, &ky);

	if (c != 0)
		return (c);
	return (x->t_ms < y->t_ms ? -1 : x->t_ms > y->t_ms);
}

static int
series_cmp(const void *a, const void *b, void *arg)
{
	const struct series_key	*k = arg;

	return (series_order(&k[*(const uint32_t *)a],
	    &k[*(const uint32_t *)b]));
}

static uint32_t
series_hash(const struct pending *p)
{
	uint64_t	h = (uint64_t)p->run_id * 0x9e3779b97f4a7c15ull;

	h ^= ((uint64_t)(uint32_t)p->metric_id << 32 | (uint32_t)p->node) *
	    0xc2b2ae3d27d4eb4full;
	return ((uint32_t)(h >> 32 ^ h));
}

void
store_sort_release(struct store_sort *ss)
{
	free(ss->slot);
	free(ss->keys);
	free(ss->count);
	free(ss->order);
	free(ss->id);
	free(ss->out);
}

/*
 * The buffered rows in primary-key order.  Rows come in time order per
 * series (each node sends its samples in sequence), so a counting sort by
 * series, stable, leaves each series in time order already: one pass to
 * count, one to place, instead of qsort's 16 passes of comparisons over a
 * 65,536-row batch (docs/benchmarks.md, "Ingest against its plain-sqlite
 * floor").  A series whose rows are not in time order is sorted on its
 * own; a batch of more than SORT_SERIES_MAX series goes to qsort whole.
 * Equal keys keep their arrival order (INSERT OR IGNORE keeps the first).
 */
static void
pending_sort(struct dn_store *s)
{
	struct store_sort	*ss = &s->sort;
	struct pending		*out;
	uint32_t		 nk = 0, id, h, j, sum = 0;
	size_t			 i, n = s->npend;

	if (ss->slot == NULL) {
		ss->slot = dn_xreallocarray(NULL, SORT_SLOTS,
		    sizeof(*ss->slot));
		ss->keys = dn_xreallocarray(NULL, SORT_SERIES_MAX,
		    sizeof(*ss->keys));
		ss->count = dn_xreallocarray(NULL, SORT_SERIES_MAX,
		    sizeof(*ss->count));
		ss->order = dn_xreallocarray(NULL, SORT_SERIES_MAX,
		    sizeof(*ss->order));
		ss->id = dn_xreallocarray(NULL, PENDING_MAX, sizeof(*ss->id));
		ss->out = dn_xreallocarray(NULL, PENDING_MAX,
		    sizeof(*ss->out));
	}
	memset(ss->slot, 0xff, SORT_SLOTS * sizeof(*ss->slot));
	for (i = 0; i < n; i++) {
		const struct pending	*p = &s->pend[i];

		for (h = series_hash(p) & (SORT_SLOTS - 1);; h = (h + 1) &
		    (SORT_SLOTS - 1)) {
			id = ss->slot[h];
			if (id == UINT32_MAX) {
				if (nk == SORT_SERIES_MAX) {
					qsort(s->pend, n, sizeof(*s->pend),
					    pending_cmp);
					return;
				}
				id = ss->slot[h] = nk++;
				ss->keys[id] = (struct series_key){ p->run_id,
				    p->metric_id, p->node };
				ss->count[id] = 0;
				break;
			}
			if (ss->keys[id].run_id == p->run_id &&
			    ss->keys[id].metric_id == p->metric_id &&
			    ss->keys[id].node == p->node)
				break;
		}
		ss->id[i] = id;
		ss->count[id]++;
	}
	for (j = 0; j < nk; j++)
		ss->order[j] = j;
	qsort_r(ss->order, nk, sizeof(*ss->order), series_cmp, ss->keys);
	/* count becomes each series' first place in the sorted batch */
	for (j = 0; j < nk; j++) {
		uint32_t	c = ss->count[ss->order[j]];

		ss->count[ss->order[j]] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		ss->out[ss->count[ss->id[i]]++] = s->pend[i];
	out = ss->out;
	ss->out = s->pend;
	s->pend = out;
	/* each series now ends where count points: check its time order */
	for (j = 0, sum = 0; j < nk; j++) {
		uint32_t	end = ss->count[ss->order[j]], k;

		for (k = sum + 1; k < end; k++) {
			if (s->pend[k].t_ms < s->pend[k - 1].t_ms) {
				qsort(s->pend + sum, end - sum,
				    sizeof(*s->pend), pending_cmp);
				break;
			}
		}
		sum = end;
	}
}

/*
 * Insert the buffered samples in primary-key order: consecutive inserts
 * then land on the same leaf page, which is what makes the clustered
 * WITHOUT ROWID table fast to fill (docs/schema.md).
 */
static int
pending_flush(struct dn_store *s, int wait_ms, char **cause)
{
	sqlite3_stmt	*st = s->ins_sample;
	size_t		 i;
	int		 rc;

	if (s->npend == 0)
		return (0);
	if ((rc = txn_begin_wait(s, wait_ms, cause)) != 0)
		return (rc);	/* EBUSY: the rows stay buffered */
	pending_sort(s);
	for (i = 0; i + INS_ROWS <= s->npend; i += INS_ROWS) {
		sqlite3_stmt	*m = s->ins_samples;
		int		 k;

		for (k = 0; k < INS_ROWS; k++) {
			const struct pending *p = &s->pend[i + (size_t)k];

			sqlite3_bind_int64(m, k * 5 + 1, p->run_id);
			sqlite3_bind_int(m, k * 5 + 2, p->node);
			sqlite3_bind_int(m, k * 5 + 3, p->metric_id);
			sqlite3_bind_int64(m, k * 5 + 4, p->t_ms);
			sqlite3_bind_double(m, k * 5 + 5, p->value);
		}
		if (sql_step_done(s, m, "insert sample", cause) != 0) {
			s->npend = 0;
			return (-1);
		}
	}
	for (; i < s->npend; i++) {
		const struct pending *p = &s->pend[i];

		sqlite3_bind_int64(st, 1, p->run_id);
		sqlite3_bind_int(st, 2, p->node);
		sqlite3_bind_int(st, 3, p->metric_id);
		sqlite3_bind_int64(st, 4, p->t_ms);
		sqlite3_bind_double(st, 5, p->value);
		if (sql_step_done(s, st, "insert sample", cause) != 0) {
			s->npend = 0;
			return (-1);
		}
	}
	s->npend = 0;
	return (0);
}

int
store_pending_flush(struct dn_store *s, char **cause)
{
	return (pending_flush(s, DN_STORE_BUSY_MS, cause));
}

int
dn_store_sample(struct dn_store *s, int64_t run_id, int node, int metric_id,
    int64_t t_ms, double value, char **cause)
{
	struct pending	*p;
	int		 rc;

	/* The transaction opens with the first sample, as store.h says: the
	 * write lock is held from here to dn_store_commit.  Another
	 * process's lock only delays that: the row is buffered, the lock
	 * taken at the flush. */
	if (need_writable(s, cause) != 0)
		return (-1);
	if (!s->busy &&
	    (rc = txn_begin_wait(s, DN_STORE_TRY_MS, cause)) != 0) {
		if (rc != DN_STORE_EBUSY)
			return (-1);
		free(*cause);
		*cause = NULL;
	}
	if (s->npend == PENDING_MAX &&
	    (rc = commit_wait(s, DN_STORE_TRY_MS, cause)) != 0)
		return (rc);
	if (s->pend == NULL)
		s->pend = dn_xreallocarray(NULL, PENDING_MAX, sizeof(*p));
	p = &s->pend[s->npend++];
	p->run_id = run_id;
	p->node = node;
	p->metric_id = metric_id;
	p->t_ms = t_ms;
	p->value = value;
	return (0);
}

int
dn_store_event(struct dn_store *s, int64_t run_id, int node, int64_t t_ms,
    const char *kind, const char *detail, char **cause)
{
	sqlite3_stmt	*st = s->ins_event;

	if (need_writable(s, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, t_ms);
	sqlite3_bind_int(st, 3, node);
	sql_bind_text(st, 4, kind ? kind : "");
	sql_bind_text(st, 5, detail);
	return (sql_step_done(s, st, "insert event", cause));
}

int
dn_store_fact(struct dn_store *s, int64_t run_id, int node, const char *key,
    const char *value, char **cause)
{
	sqlite3_stmt	*st = s->ins_fact;

	if (need_writable(s, cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, node);
	sql_bind_text(st, 3, key ? key : "");
	sql_bind_text(st, 4, value);
	return (sql_step_done(s, st, "insert fact", cause));
}

int
dn_store_assertion(struct dn_store *s, const struct dn_assert_row *r,
    char **cause)
{
	sqlite3_stmt	*st = NULL;
	int		 rc;

	if (need_writable(s, cause) != 0)
		return (-1);
	if (sql_prepare(s, "INSERT OR REPLACE INTO assertions (run_id, name, "
	    "form, status, observed, threshold, t_ms, node, message, metric, "
	    "op, unit, scope, window_from_ms, window_to_ms) VALUES (?1, ?2, "
	    "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)", &st,
	    cause) != 0)
		return (-1);
	sqlite3_bind_int64(st, 1, r->run_id);
	sql_bind_text(st, 2, r->name);
	sql_bind_text(st, 3, r->form);
	sql_bind_text(st, 4, r->status);
	if (!isnan(r->observed))
		sqlite3_bind_double(st, 5, r->observed);
	if (!isnan(r->threshold))
		sqlite3_bind_double(st, 6, r->threshold);
	if (r->t_ms >= 0)
		sqlite3_bind_int64(st, 7, r->t_ms);
	if (r->node != INT_MIN)
		sqlite3_bind_int(st, 8, r->node);
	sql_bind_text(st, 9, r->message);
	sql_bind_text(st, 10, r->metric);
	sql_bind_text(st, 11, r->op);
	sql_bind_text(st, 12, r->unit);
	sql_bind_text(st, 13, r->scope);
	if (r->from_ms >= 0 && r->to_ms >= 0) {
		sqlite3_bind_int64(st, 14, r->from_ms);
		sqlite3_bind_int64(st, 15, r->to_ms);
	}
	rc = sql_step_done(s, st, "insert assertion", cause);
	sqlite3_finalize(st);
	return (rc);
}
