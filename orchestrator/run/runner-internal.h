/*
 * runner-internal.h: internal to the runner, shared only by its files.
 *
 * What they share: runner.c runs the plan, slot by
 * slot; setup.c lays out and starts a trial; watch.c waits for readiness
 * and watches the nodes while a trial runs (events, crashes, stalls,
 * rejoins); endcheck.c drains the transactions and checks the state hash;
 * finish.c stops a trial and records its outcome; foreign.c is what
 * differs for foreign nodes; progress.c prints the status line;
 * signals.c takes the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
 * synchronously and is the main thread's clock.
 *
 * Not for anyone outside the runner: `devnet run` and `devnet ab` use
 * runner.h.  The runner uses collector.h and loadgen.h; neither of them,
 * nor trial.h, knows about anything here.
 */
#ifndef DN_RUNNER_INTERNAL_H
#define DN_RUNNER_INTERNAL_H

#include <stdint.h>

#include "run/runner.h"
#include "trial/trial.h"

#define TICK_MS			20

/* --- signals.c ---------------------------------------------------------- */

/* Signals seen so far: the first stops gracefully, the second skips the
 * grace period.  Main thread only. */
extern int	 runner_sig_count;
extern int	 runner_sig_first;

/* Sleep up to MS, returning early on a stop signal (counted). */
void	 runner_tick(int ms);

/* "SIGINT", "SIGHUP", ... for a stop signal (static string). */
const char *runner_sig_name(int sig);

/* --- progress.c --------------------------------------------------------- */

/* Whether stderr is a terminal (progress rewritten in place). */
extern int	 runner_progress_tty;

/* One status line: on a terminal rewritten in place, else every 10 s. */
void	 runner_progress(struct trial **ts, int nt,
	    const struct runner_opts *o, int force);

/* --- setup.c ------------------------------------------------------------ */

/* URL of node K's inbound (CTL 0) or control (CTL 1) endpoint, as the
 * node derives it from --net / --tcp-base (docs/node.md).  Caller frees. */
char	*trial_node_url(const struct trial *t, int k, int ctl);

/* User + system CPU seconds of this process, nodes (children) excluded. */
double	 runner_self_cpu_s(void);

/* Lay out the trial: dirs, token, run row, node command lines.  Nothing
 * is started. */
int	 trial_prepare(struct trial *t, const struct runner_opts *o,
	    int64_t group_id, char **cause);

/* Start the collector, the nodes and (transfer) the load generator's
 * sockets. */
int	 trial_start(struct trial *t, char **cause);

/* Free what trial_prepare and trial_start left (the load generator
 * too); removes a socket dir of its own. */
void	 trial_release(struct trial *t);

/* --- watch.c ------------------------------------------------------------ */

/* "node K exited (exit 1) before it was ready; last lines of its log:"
 * as a new string (caller frees). */
char	*trial_post_mortem(struct trial *t, int k, const char *what);

/* Wait for a HELLO from every node of every trial.  0 when all are
 * ready; -1 when a trial failed (reason in the trial) or on a signal. */
int	 runner_wait_ready(struct trial **ts, int nt, int timeout_ms);

/* Look at every node once: exits, stalls, rejoins; fire due events.
 * FIRED has one flag per event of the scenario. */
void	 trial_watch(struct trial *t, char *fired);

/* --- endcheck.c --------------------------------------------------------- */

/* After the load: wait until every submitted transaction has an outcome
 * (or the drain time is over). */
void	 runner_drain_txs(struct trial **ts, int nt);

/* Halt the nodes and check that they agree on the state (endcheck.c). */
void	 trial_check_state(struct trial *t);

/* --- foreign.c: foreign nodes (node.command) -------------------------- */

/* Declare the named metrics' directions (metrics.log.NAME.better) of
 * every variant of S in ST, before any trial: 0, or -1 with *CAUSE when
 * the database has the other direction for one. */
int	 foreign_declare(const struct scenario *s, struct dn_store *st,
	    char **cause);
/*
 * The `stop` (STOP) or `cont` event for foreign node K: the probe is told
 * (SIGTSTP, SIGCONT) to pause or resume its command's process group and
 * keeps sampling; the event is recorded.  1 when done so, 0 for nodes
 * that get SIGSTOP/SIGCONT themselves (devnet-node, containers).
 */
int	 foreign_pause(struct trial *t, int k, int stop);
/*
 * Stalled and recovered for a foreign node while its probe samples: a
 * node paused by an event whose height has not moved for STALL_NS is
 * `stalled`; once its height moves again, `recovered`.  NOW, LAST (its
 * last sample), HAVE_H and H (its height) as the watch read them.  1 when
 * this decided for node K this tick, 0 to apply the no-sample rule.
 */
int	 foreign_pause_watch(struct trial *t, int k, uint64_t now,
	    uint64_t last, uint64_t stall_ns, int have_h, double h);
/* T's ncols (the named metrics its scenario declares) and each node's
 * room for their last values (trial_prepare, after the nodes). */
void	 foreign_columns(struct trial *t);
/* T->foreign, and EP's probe and its ready timeout (trial_prepare). */
void	 foreign_prepare(struct trial *t, const struct runner_opts *o,
	    struct plan_endpoints *ep);
/* Node dirs and the scenario's named metrics (trial_start). */
int	 foreign_start(struct trial *t, char **cause);
/* Node K exited before all were ready: 1 = it finished (exit: expected,
 * status 0), counts as ready; -1 = T failed with the reason; 0 = not a
 * foreign node. */
int	 foreign_ready_exit(struct trial *t, int k);
/* Node K exited during the trial: 1 if handled here (a completed node or
 * a failed trial), 0 for the usual handling. */
int	 foreign_exited(struct trial *t, int k);
/* Once per tick: output over node.log_limit fails the trial. */
void	 foreign_watch(struct trial *t);
/* 1 when every trial of TS runs to completion and all its nodes did. */
int	 foreign_all_done(struct trial **ts, int nt);
/* After the run loop: an exit-expected node still running fails. */
void	 foreign_after_run(struct trial **ts, int nt);
/* 1 (and an event and fact saying so) when T has no state to check. */
int	 foreign_skip_state_check(struct trial *t);
/* Each node's allocation source, from its probe's DN-PROBE-ALLOC line,
 * as the fact alloc_source of that node (finish.c). */
void	 foreign_facts(struct trial *t);
/* The grace period for T's nodes: at least the probe's own + 1 s. */
int	 foreign_grace(struct trial *t, int grace);
/* SIGKILL what is left of each node's command group. */
void	 foreign_reap(struct trial *t);

/* --- finish.c ----------------------------------------------------------- */

/* Stop the load, check, stop the nodes, record the outcome. */
void	 trial_finish(struct trial *t, const struct runner_opts *o);

#endif
