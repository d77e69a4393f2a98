/*
 * runner.c: drives the trials of a scenario (see runner.h).
 *
 * One main thread does everything that touches processes and time: it
 * forks the nodes (so PR_SET_PDEATHSIG is tied to a thread that lives as
 * long as the run), waits for readiness, fires events, watches for crashes
 * and stalls, takes signals synchronously (sigtimedwait is its clock), and
 * stops everything.  Each trial has a collector thread (collector.c) and,
 * for transfer workloads, a load generator thread (loadgen.c).  Trials of
 * one slot (order: concurrent) run side by side; otherwise one at a time.
 *
 * This file is the run loop over the plan's slots and trials; its parts
 * are listed in runner-internal.h.  It also keeps the database's reserve:
 * a file beside the database for as long as the run lasts, deleted when
 * a write fails (disk full) so that the failed runs can still be recorded
 * as failed (status, reason, facts, events).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assert/assert.h"
#include "trial/loadgen.h"
#include "trial/snapshot.h"
#include "provider/provider.h"
#include "run/runner-internal.h"
#include "store.h"
#include "trial/trial-store.h"
#include "sys/machlock.h"
#include "clock.h"
#include "xalloc.h"

/*
 * What recording the end of the runs of one slot may write once the disk
 * is full: per run two commits (facts and events; status and per-series
 * aggregates), a few WAL pages each plus a page per few nodes
 * (docs/architecture.md, "A full disk"), with room to spare.
 */
#define RESERVE_BASE		((off_t)1 << 20)
#define RESERVE_PER_TRIAL	((off_t)128 << 10)
#define RESERVE_PER_NODE	((off_t)4 << 10)

static char	*reserve_path;

/* The reserve for SCN's plan PLAN (N trials): by its largest slot. */
static off_t
reserve_bytes(const struct scenario *scn, const struct plan_trial *plan,
    size_t n)
{
	size_t	i, j, most = 1;

	for (i = 0; i < n; i = j) {
		for (j = i; j < n && plan[j].slot == plan[i].slot; j++)
			;
		if (j - i > most)
			most = j - i;
	}
	return (RESERVE_BASE + (off_t)most * (RESERVE_PER_TRIAL +
	    (off_t)scn->network.nodes * RESERVE_PER_NODE));
}

/* Take SIZE bytes beside the database at PATH.  -1 with *CAUSE when the
 * disk has not even that much free; 0 (and no reserve) when the file
 * system cannot preallocate. */
static int
reserve_take(const char *path, off_t size, char **cause)
{
	char	*rp = dn_xasprintf("%s-reserve", path);
	int	 fd, rv;

	fd = open(rp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1) {
		free(rp);
		return (0);
	}
	rv = posix_fallocate(fd, 0, size);
	close(fd);
	if (rv == ENOSPC) {
		unlink(rp);
		*cause = dn_xasprintf("database '%s': disk full: less than "
		    "%.1f MiB free beside it; free space or use --db "
		    "elsewhere", path, (double)size / 1048576.0);
		free(rp);
		return (-1);
	}
	if (rv != 0) {
		unlink(rp);
		free(rp);
		return (0);
	}
	reserve_path = rp;
	return (0);
}

/* Give the reserve back to the disk (it may be taken again next run). */
static void
reserve_release(void)
{
	if (reserve_path == NULL)
		return;
	unlink(reserve_path);
	free(reserve_path);
	reserve_path = NULL;
}

/*
 * The store is down (a write failed): the trials of the slot lost
 * samples, so each one fails with the store's first error, and the
 * reserve is released so that their ends can be recorded.
 */
static void
slot_store_down(struct trial **ts, int nt)
{
	const char	*why = NULL;
	int		 i;

	for (i = 0; i < nt && why == NULL; i++) {
		pthread_mutex_lock(&ts[i]->mu);
		why = ts[i]->store_error;
		pthread_mutex_unlock(&ts[i]->mu);
	}
	for (i = 0; i < nt; i++)
		trial_fail(ts[i], "cannot write to the database: %s",
		    why != NULL ? why : "?");
	reserve_release();
}

/*
 * Trial T of a slot is over before the others: its nodes ran to
 * completion (node.exit: expected).  Stop its load and record it now, so
 * that its run ends when it did and the slot goes on with the others (a
 * mixed `order: concurrent` slot of a program that runs to completion and
 * one that runs for the duration).
 */
static void
finish_early(struct trial *t, const struct runner_opts *o)
{
	t->end_wall_ms = dn_wall_ms();
	loadgen_halt(t->lg);
	if (!signals_count && !trial_store_down(t))
		endcheck_drain_txs(&t, 1);
	if (progress_tty && !o->quiet)
		fputc('\n', stderr);
	finish_trial(t, o);
}

/* Run the trials TS side by side from spawn to stop. */
static void
run_slot(struct trial **ts, int nt, const struct runner_opts *o)
{
	const struct scenario	*scn = ts[0]->scn;
	struct trial		**left;	/* not finished early */
	char			**fired;
	char			*cause = NULL;
	int			 i, nleft = 0, timeout;
	uint64_t		 t0, end;

	left = dn_xcalloc((size_t)nt, sizeof(*left));
	fired = dn_xcalloc((size_t)nt, sizeof(*fired));
	for (i = 0; i < nt; i++) {
		fired[i] = dn_xcalloc(scn->nevents + 1, 1);
		if (setup_start(ts[i], &cause) != 0) {
			trial_fail(ts[i], "%s", cause);
			free(cause);
			cause = NULL;
			goto stop;
		}
	}
	timeout = trial_ready_timeout_ms(o->ready_timeout_ms,
	    scn->network.nodes);
	if (watch_ready(ts, nt, timeout) != 0)
		goto stop;

	t0 = dn_now_ns();
	for (i = 0; i < nt; i++) {
		int	k;

		ts[i]->t0_wall_ms = dn_wall_ms();
		atomic_store(&ts[i]->t0_ns, t0);
		for (k = 0; k < ts[i]->nnodes; k++)
			atomic_store(&ts[i]->nodes[k].up, 1);
		snapshot_trial_start(ts[i]);
		interference_begin(ts[i]);
		trial_event(ts[i], -1, "start", "%d node(s) ready in %.0f ms",
		    ts[i]->nnodes, (double)(t0 - ts[i]->spawn_ns) / 1e6);
		assert_begin(ts[i]);
		if (ts[i]->lg != NULL && loadgen_go(ts[i]->lg, &cause) != 0) {
			trial_fail(ts[i], "%s", cause);
			free(cause);
			cause = NULL;
			goto stop;
		}
	}
	end = t0 + (uint64_t)scn->duration_ms * 1000000u;
	for (i = 0; i < nt; i++)
		left[nleft++] = ts[i];
	while (dn_now_ns() < end && signals_count == 0 && nleft > 0) {
		int	failed = 0, j;

		for (i = 0; i < nt; i++) {
			for (j = 0; j < nleft && left[j] != ts[i]; j++)
				;
			if (j == nleft)
				continue;	/* finished early */
			watch_trial(ts[i], fired[i]);
			interference_tick(ts[i], o);
			snapshot_trial_watch(ts[i]);
			failed |= ts[i]->failed;
		}
		if (failed)
			break;
		/* Trials whose nodes all ran to completion end now, and
		 * those an assertion with abort_on_fail ends; the others
		 * run on (foreign.c, node.exit: expected). */
		for (j = 0; j < nleft;) {
			if (!node_kind(left[j])->done(left[j]) &&
			    !assert_should_end(left[j])) {
				j++;
				continue;
			}
			finish_early(left[j], o);
			left[j] = left[--nleft];
		}
		progress_line(ts, nt, o, 0);
		signals_tick(TICK_MS);
	}
	for (i = 0; i < nleft; i++) {
		left[i]->end_wall_ms = dn_wall_ms();
		node_kind(left[i])->after_run(left[i], signals_count);
	}
	for (i = 0; i < nleft; i++)
		loadgen_halt(left[i]->lg);
	if (nleft > 0 && !signals_count && !trial_store_down(ts[0]))
		endcheck_drain_txs(left, nleft);
	progress_line(ts, nt, o, 1);
	if (progress_tty && !o->quiet)
		fputc('\n', stderr);
	if (trial_store_down(ts[0]))
		slot_store_down(left, nleft);
	for (i = 0; i < nleft; i++)
		finish_trial(left[i], o);
	goto out;
stop:
	if (trial_store_down(ts[0]))
		slot_store_down(ts, nt);
	for (i = 0; i < nt; i++)
		finish_trial(ts[i], o);
out:
	for (i = 0; i < nt; i++)
		free(fired[i]);
	free(fired);
	free(left);
}

/* What the trials of a slot add to the run's result. */
static void
slot_results(struct runner_result *res, struct trial **slot, int nt)
{
	int	j;

	for (j = 0; j < nt; j++) {
		res->nfailed += slot[j]->failed;
		res->asserts_failed += slot[j]->asserts_failed;
		res->asserts_inconclusive += slot[j]->asserts_inconclusive;
	}
}

/*
 * Before any trial, once: ports, the network's sweep, stale runs, the
 * provider, the duet's CPU sets (D), the machine's locks, the node
 * kinds' metrics.  0, or -1 with *CAUSE.
 */
static int
run_prepare(struct scenario *scn, struct dn_store *store,
    const struct runner_opts *o, struct duet *d, char **cause)
{
	int	reaped = 0;

	/* SCN passed run_check (check.c) before it came here */
	if (provider_choose_ports(scn, o->quiet, cause) != 0 ||
	    netcond_prepare(scn, o->quiet, cause) != 0 ||
	    faults_prepare(scn, o->quiet, cause) != 0)
		return (-1);
	if (dn_store_reap_stale(store, &reaped, cause) != 0)
		return (-1);
	if (reaped > 0 && !o->quiet)
		fprintf(stderr, "devnet: marked %d run(s) of a dead "
		    "orchestrator as interrupted\n", reaped);
	if (provider_prepare(scn, &(struct provider_opts){
	    .run_dir = o->run_dir, .quiet = o->quiet }, cause) != 0 ||
	    duet_prepare(scn, o, d, cause) != 0 ||
	    machine_take(scn, d->on ? &d->all : NULL, o, cause) != 0)
		return (-1);
	if (node_kind_declare(scn, store, cause) != 0 ||
	    dn_store_commit(store, cause) != 0)
		return (-1);
	return (0);
}

int
runner_run(struct scenario *scn, struct dn_store *store,
    const struct runner_opts *o, struct runner_result *res, char **cause)
{
	struct trial_store	*tstore = trial_store_new(store);
	struct plan_trial	*plan = NULL;
	struct duet		*duet;
	struct trial		*trials = NULL, **slot = NULL;
	size_t			 n = 0, i, j;
	int			 rv = -1;

	memset(res, 0, sizeof(*res));
	progress_tty = isatty(STDERR_FILENO);
	signals_count = 0;
	duet = dn_xcalloc(1, sizeof(*duet));
	if (run_prepare(scn, store, o, duet, cause) != 0)
		goto out;
	if (plan_trials(scn, &plan, &n) != 0 || n == 0) {
		*cause = dn_xstrdup("the scenario plans no trial");
		goto out;
	}
	if (reserve_take(dn_store_path(store), reserve_bytes(scn, plan, n),
	    cause) != 0)
		goto out;
	if (dn_store_group_create(store, scn->name, o->label, &res->group_id,
	    cause) != 0 || dn_store_commit(store, cause) != 0)
		goto out;
	if (o->snap != NULL)
		snapshot_plan(o->snap, scn->name, res->group_id, plan, n,
		    scn->duration_ms, scn->warmup_ms, scn->sample_interval_ms);
	trials = dn_xcalloc(n, sizeof(*trials));
	slot = dn_xcalloc(n, sizeof(*slot));
	res->run_ids = dn_xcalloc(n, sizeof(*res->run_ids));
	for (i = 0; i < n && signals_count == 0;) {
		int	nt = 0;

		/* A slot: one trial, or (concurrent) all with its number. */
		for (j = i; j < n && plan[j].slot == plan[i].slot; j++) {
			struct trial	*t = &trials[j];

			t->scn = scn;
			t->var = plan[j].variant;
			t->pt = plan[j];
			t->ntrials = n;
			t->store = tstore;
			duet_assign(duet, t);
			if (setup_prepare(t, o, res->group_id, cause) != 0) {
				if (t->run_id > 0) {
					char *c2 = NULL;

					dn_store_run_end(store, t->run_id,
					    "failed", *cause, &c2);
					dn_store_commit(store, &c2);
					free(c2);
					res->run_ids[res->nruns++] = t->run_id;
				}
				for (; nt > 0; nt--) {
					slot[nt - 1]->failed = 1;
					finish_trial(slot[nt - 1], o);
				}
				goto out;
			}
			duet_facts(duet, t);
			snapshot_trial_begin(o->snap, t);
			slot[nt++] = t;
			res->run_ids[res->nruns++] = t->run_id;
			if (!o->quiet)
				fprintf(stderr, "devnet: run %lld: trial %d/%zu,"
				    " variant %s, %d node(s), %s\n",
				    (long long)t->run_id, t->pt.index + 1, n,
				    t->var->name, t->nnodes, t->run_dir);
		}
		run_slot(slot, nt, o);
		slot_results(res, slot, nt);
		i += (size_t)nt;
		/* A database that cannot be written fails every trial after
		 * this one too (and the reserve is spent). */
		if (trial_store_down(slot[0])) {
			res->store_failed = 1;
			rv = 0;
			goto out;
		}
		/* A devnet that could not even start will not start next
		 * time either: stop instead of failing every trial. */
		for (j = 0; j < (size_t)nt; j++) {
			if (slot[j]->failed && atomic_load(&slot[j]->t0_ns) ==
			    0 && !signals_count) {
				fprintf(stderr, "devnet: stopping after run "
				    "%lld: its devnet never started\n",
				    (long long)slot[j]->run_id);
				rv = 0;
				goto out;
			}
		}
		if (o->after_slot != NULL && signals_count == 0 &&
		    o->after_slot(o->after_arg, scn, store, res) != 0)
			break;
	}
	rv = 0;
out:
	reserve_release();
	dn_machlock_release();
	duet_release(duet);
	free(duet);
	res->signal = signals_count ? signals_first : 0;
	for (i = 0; trials != NULL && i < n; i++) {
		if (trials[i].scn != NULL)
			setup_release(&trials[i]);
	}
	trial_store_free(tstore);
	free(trials);
	free(slot);
	free(plan);
	return (rv);
}

int
runner_exit_status(const struct runner_result *res)
{
	if (res->signal > 0)
		return (128 + res->signal);
	if (res->nfailed > 0)
		return (1);
	if (res->asserts_failed > 0)
		return (RUNNER_EXIT_ASSERT_FAILED);
	return (res->asserts_inconclusive > 0 ?
	    RUNNER_EXIT_ASSERT_INCONCLUSIVE : 0);
}
