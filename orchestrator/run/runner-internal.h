/*
 * runner-internal.h: internal to the runner, shared only by its files.
 *
 * What they share: runner.c runs the plan, slot by
 * slot; setup.c lays out and starts a trial; watch.c waits for readiness
 * and watches the nodes while a trial runs (events, crashes, stalls,
 * rejoins); endcheck.c drains the transactions and checks the state hash;
 * finish.c stops a trial and records its outcome (what differs per
 * kind of node is node-kind/); progress.c prints the status line;
 * signals.c takes the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT)
 * synchronously and is the main thread's clock.
 *
 * Not for anyone outside the runner: `devnet run` and `devnet ab` use
 * runner.h.  The runner uses collector.h and loadgen.h; neither of them,
 * nor trial.h, knows about anything here.
 */
#ifndef DN_RUNNER_INTERNAL_H
#define DN_RUNNER_INTERNAL_H

#include <sched.h>
#include <stdint.h>

#include "run/runner.h"
#include "node-kind/node-kind.h"
#include "trial/trial.h"
#include "plan/plan.h"

#define TICK_MS			20
/* endcheck's look at the last inclusions: each tick is at most this much
 * of a trial's overhead (issue 26) */
#define READY_TICK_MS		2
/* watch_ready's look at the nodes while they start: a HELLO ends the
 * wait at once (the collector wakes the main thread, sys/wake.h), so
 * this only paces the check for a node that exited before it was ready.
 * It was a 2 ms poll: 200 wakes of the main thread and 2,000 waitpid
 * calls during a 10-node start, on the 2 cores the nodes start on. */
#define READY_WAIT_MS		50

/* --- signals.c ---------------------------------------------------------- */

/* Signals seen so far: the first stops gracefully, the second skips the
 * grace period.  Main thread only. */
extern int	 signals_count;
extern int	 signals_first;

/* Sleep up to MS, returning early on a stop signal (counted) or on news
 * from another thread (sys/wake.h: a node's first HELLO). */
void	 signals_tick(int ms);

/* "SIGINT", "SIGHUP", ... for a stop signal (static string). */
const char *signals_name(int sig);

/* --- progress.c --------------------------------------------------------- */

/* Whether stderr is a terminal (progress rewritten in place). */
extern int	 progress_tty;

/* One status line: on a terminal rewritten in place, else every 10 s. */
void	 progress_line(struct trial **ts, int nt,
	    const struct runner_opts *o, int force);

/* --- setup.c ------------------------------------------------------------ */

/* URL of node K's inbound (CTL 0) or control (CTL 1) endpoint, as the
 * node derives it from --net / --tcp-base (docs/node.md).  Caller frees. */
char	*setup_node_url(const struct trial *t, int k, int ctl);

/* Lay out the trial: dirs, token, run row, node command lines.  Nothing
 * is started. */
int	 setup_prepare(struct trial *t, const struct runner_opts *o,
	    int64_t group_id, char **cause);

/* What the providers see of T (provider.h), made by setup_prepare once
 * T's dirs, collector URL, token, run id and node records are there;
 * netcond.c sets its network.  Caller frees (setup_release does). */
struct provider_trial *setup_provider_view(struct trial *t);

/* Start the collector, the nodes and (transfer) the load generator's
 * sockets. */
int	 setup_start(struct trial *t, char **cause);

/* Free what setup_prepare and setup_start left (the load generator
 * too); removes a socket dir of its own. */
void	 setup_release(struct trial *t);

/* --- watch.c ------------------------------------------------------------ */

/* Wait for a HELLO from every node of every trial.  0 when all are
 * ready; -1 when a trial failed (reason in the trial) or on a signal. */
/* netcond.c: the trial's emulated network (issue 20).  Before any trial:
 * refuse what it cannot carry out (0 when S asks for no conditions) and
 * sweep what a killed devnet left (said on stderr unless QUIET); each
 * node's address as --peer-hosts wants it (HOSTS[k] malloc'd); make the
 * network, its rules and probe before the nodes start; fire a partition,
 * heal or link event; expire link events (each tick); prove, record and
 * remove it all (finish_trial; accepts a trial without one). */
int	 netcond_prepare(const struct scenario *s, int quiet, char **cause);
void	 netcond_hosts(const struct trial *t, char **hosts);
int	 netcond_start(struct trial *t, char **cause);
void	 netcond_event(struct trial *t, const struct scn_event *ev);
void	 netcond_tick(struct trial *t);
void	 netcond_finish(struct trial *t);

/* netcond.c's state of one trial (t->nc), read by netproof.c; after a
 * change, the time given the network to settle before it is measured. */
#define NC_SETTLE_NS	((uint64_t)PLAN_PROOF_SETTLE_MS * 1000000u)
struct nc_link {
	const struct scn_event	*ev;
	uint64_t		 until_ns;	/* 0: until heal */
};

struct netcond {
	struct dn_net		*net;
	struct dn_delay		*delay;
	struct dn_probe		*probe;
	int			 n;		/* endpoints: nodes + 1 */
	int			 nodes;		/* endpoint NODES: the load */
	const struct scn_event	*part;		/* in force, or NULL */
	struct nc_link		*links;
	size_t			 nlinks;
	const struct scn_event	*open;		/* the window being measured */
	uint64_t		 open_ns;
	uint64_t		 base_end_ns;	/* network.links alone until */
	int			 nev;		/* windows closed */
	int			 shaped;	/* some link had a bandwidth */
	int			 sampled;	/* the probe on a sample only */
	uint64_t		*rates;		/* [d * n + s]: as shaped now */
	uint64_t		 stored_ns;	/* probes stored up to here */
	/* links with a condition measured and not (under 20 probes in
	 * their window), over every proof of the trial */
	size_t			 measured, unmeasured;
};

/* netproof.c: the conditions on each link now and their proof (called by
 * netcond.c).  Whether partition P cuts S -> D (never the load's links); the conditions on S -> D
 * now (network.links, then link events) into *L; a partition's groups as
 * text (malloc'd); the proof of a partition over [FROM, TO) (ALL_FROM,
 * ALL_TO: its whole time in force; CV: the rules' counters) and of the
 * links touching EV's nodes (NULL: every link of network.links), named
 * WHAT; each bandwidth class's counters as events; how long a probe may
 * still be in flight. */
int	 netproof_blocked(const struct netcond *nc,
	    const struct scn_event *p, int s, int d);
void	 netproof_link_now(const struct trial *t, const struct netcond *nc,
	    int s, int d, struct scn_link *l);
char	*netproof_groups(const struct scn_event *ev, int n);
struct dn_nft_counter;
void	 netproof_partition(struct trial *t, struct netcond *nc,
	    const struct scn_event *ev, uint64_t from, uint64_t to,
	    uint64_t all_from, uint64_t all_to,
	    const struct dn_nft_counter *cv, size_t ncv);
void	 netproof_links(struct trial *t, struct netcond *nc, const char *what,
	    const struct scn_event *ev, uint64_t from, uint64_t to);
void	 netproof_shape(struct trial *t, struct netcond *nc);
uint64_t netproof_in_flight(const struct trial *t, const struct netcond *nc);

/* faults.c: a node's clock skewed and its disk full or slow (issue 39).
 * The check run_check makes (a program libfaketime cannot move, at
 * FILE:LINE:COL); before any trial, what the machine lacks for them and
 * the sweep of a killed devnet's disks; node K's LD_PRELOAD in T when an
 * event skews its clock (NULL: none); the disks and clock files before
 * the nodes start; an event; the clock proofs each tick; the last proofs
 * and the removal of it all (after the nodes stopped). */
int	 faults_check(const struct scenario *s, char **cause);
/* Tests only: whether DN_TEST_BREAK names KIND, a condition or fault to
 * put in force wrongly so that its proof fails (faults.c says each). */
int	 run_test_break(const char *kind);
int	 faults_prepare(const struct scenario *s, int quiet, char **cause);
const char *faults_clock_preload(const struct trial *t, int k);
/* The seconds a clock_skew with a drift of PPM needs before the node's
 * next clock_skew or the trial's end for its proof to measure it. */
double	 faults_drift_span_s(double ppm);
int	 faults_start(struct trial *t, char **cause);
void	 faults_event(struct trial *t, const struct scn_event *ev);
void	 faults_tick(struct trial *t);
/* What node K's exit owes to a fault (its disk full), for its crash
 * event: malloc'd, or NULL. */
char	*faults_exit_note(struct trial *t, int k);
void	 faults_finish(struct trial *t);

/* Facts build_B_{t_ms,variant,binary,sha256,rev} of node K of T: the
 * build it runs from T_MS on, B its t->nodes[K].builds (0: the one it
 * started with); written when the node has upgrade events (setup.c). */
void	 setup_build_facts(struct trial *t, int k, int64_t t_ms);

int	 watch_ready(struct trial **ts, int nt, int timeout_ms);

/* Look at every node once: exits, stalls, rejoins; fire due events.
 * FIRED has one flag per event of the scenario. */
void	 watch_trial(struct trial *t, char *fired);
/* The exits alone, as watch_trial sees them (a crash with its
 * post-mortem): for the end of a trial, after the watch stopped and
 * before devnet stops the nodes (endcheck.c). */
void	 watch_exits(struct trial *t);

/* --- endcheck.c --------------------------------------------------------- */

/* After the load: wait until every submitted transaction has an outcome
 * (or the drain time is over). */
void	 endcheck_drain_txs(struct trial **ts, int nt);

/* Halt the nodes and check that they agree on the state (endcheck.c). */
void	 endcheck_state(struct trial *t);

/* --- duet.c ------------------------------------------------------------ */

/* order: concurrent's duet (issue 36): what the run pins, decided once
 * before any trial. */
#define DUET_MAX_CPUS	1024
struct duet {
	int		 on;		/* the variants are pinned */
	char		*why;		/* not on: why (for duet_pin) */
	int		 nsets;		/* one per variant */
	int		 per;		/* CPUs per set */
	int		 cpus[DUET_MAX_CPUS];	/* devnet's CPUs, ascending */
	int		 ncpus;
	cpu_set_t	 all;		/* every CPU of a set: their locks */
};

/* What `pin: duet` cannot do of S alone (run_check): 0, or -1 with
 * *CAUSE. */
int	 duet_check(const struct scenario *s, char **cause);
/* Before any trial: pin S's concurrent variants here, or say why not
 * (stderr unless O->quiet; `pin: duet` refuses then: -1 with *CAUSE).
 * D is released with duet_release. */
int	 duet_prepare(const struct scenario *s, const struct runner_opts *o,
	    struct duet *d, char **cause);
/* T's CPU set (t->pin_cpus): variant I of slot K on set (I + K) mod V. */
void	 duet_assign(const struct duet *d, struct trial *t);
/* T's facts duet_pin ("on", or "off: why"), duet_cpus, duet_slot
 * (concurrent order only). */
void	 duet_facts(const struct duet *d, struct trial *t);
void	 duet_release(struct duet *d);

/* --- machine-lock.c ----------------------------------------------------- */

/* Before any trial: take the machine's locks for S's network conditions
 * and pinned CPUs (resources.cpuset, and the duet's CPUS, may be NULL),
 * waiting for (and naming) a devnet that holds one, up to
 * O->machine_wait_ms.  0 (nothing needed, or taken), or -1 with *CAUSE
 * naming the holder (pid, db). */
int	 machine_take(const struct scenario *s, const cpu_set_t *cpus,
	    const struct runner_opts *o, char **cause);

/* --- interference.c ----------------------------------------------------- */

/* Cores other programs may use beside a trial, on average over its
 * window, before the trial is named (docs/scenarios.md, "Interference");
 * steal counts from a twentieth of a core. */
#define INTERFERENCE_MAX	0.25
#define INTERFERENCE_STEAL_MAX	0.05

/* At t = 0: the first read.  Each tick: a read a second, and an event
 * `interference_now` once the last 5 s pass the threshold (the live page
 * shows it then).  At the end, inside finish.c's commit: the facts
 * interference_*, and the event `interference` (compare and report name
 * the trial) when the window passed it; with O->strict the trial
 * fails. */
void	 interference_begin(struct trial *t);
void	 interference_tick(struct trial *t, const struct runner_opts *o);
void	 interference_finish(struct trial *t, const struct runner_opts *o);

/* --- finish.c ----------------------------------------------------------- */

/* Stop the load, check, stop the nodes, record the outcome. */
void	 finish_trial(struct trial *t, const struct runner_opts *o);

#endif
