/*
 * trial.h: the data of one trial of a scenario in flight: its nodes, the
 * counters its collector keeps, the counters its load generator keeps,
 * and its outcome; plus the few helpers over that data every part of a
 * trial uses (trial.c: its clock, its events, facts and failure).
 *
 * Not here: what drives a trial (runner.h, runner-internal.h), the
 * collector thread (collector.h), the load generator (loadgen.h).  This
 * header is the bottom of the orchestrator's run: runner -> collector,
 * runner -> loadgen, and both -> trial; nothing here calls back up.
 *
 * Locking: T->mu guards the per-node statistics and the counters the main
 * thread reads for progress; the store all trials share has its own lock,
 * taken only inside its functions (trial-store.h).  Lock order: the
 * store's before mu, never the reverse.
 */
#ifndef DN_TRIAL_H
#define DN_TRIAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "metric-table.h"
#include "protocol.h"
#include "plan/plan.h"
#include "scenario/scenario.h"
#include "sys/cgroup.h"
#include "sys/interference.h"
#include "sys/spawn.h"
#include "trial/trial-node.h"

struct trial_store;
struct collector;
struct loadgen;
struct foreign_lag;
struct node_kind_ops;
struct snap_trial;
struct dn_net;
struct netcond;
struct faults;
struct assert_state;
struct provider_trial;
struct trial;

/* What trial_ref gives: the trial behind the node records (trial-node.h). */
struct trial_ref {
	struct trial	*t;
};

#define TRIAL_NCOLS	16	/* named metrics shown, at most */

/*
 * What the load generator has done so far, as plain counters: written by
 * the load generator's thread, read by the collector (the load generator
 * samples) without calling into loadgen.c.  It lives inside the load
 * generator; trial.load points to it while there is one.
 */
struct trial_load {
	atomic_llong	 submitted;
	atomic_llong	 send_errors;
	atomic_llong	 elapsed_ns;

	pthread_mutex_t	 mu;	/* lags and the load generator's histogram */
	double		*lags;	/* µs: actual minus intended send time */
	size_t		 nlags, caplags;
	/* Latencies the load generator measured itself (http: intended
	 * send time to the answer), ms; the collector takes them into
	 * tx_latency_* like the latencies of INCLUDED. */
	double		*lat;
	size_t		 nlat, caplat;
	/* A command load (loadgen-cmd.c) counts nothing itself: the
	 * DN-LOAD lines it prints do.  Until its first one (heard 0)
	 * nothing of the load is stored, and progress says "rate not
	 * reported", never 0.0. */
	int		 by_lines;
	atomic_int	 heard;
};

struct trial {
	const struct scenario		*scn;
	const struct scn_variant	*var;
	struct plan_trial		 pt;
	size_t				 ntrials;	/* of the whole plan */
	int64_t				 run_id;
	uint64_t			 token;
	char				*run_dir;
	char				*net_dir;	/* ipc sockets */
	int				 own_net_dir;	/* rmdir at the end */
	char				*metrics_url;
	int				 nnodes;
	struct trial_node		*nodes;
	/* The kind of its nodes (node-kind.h), set by the kind's prepare;
	 * only node-kind/ reads it: the parts below ask what they need of
	 * the kind through fields it sets, such as the one below. */
	const struct node_kind_ops	*kind;
	/* Its nodes know their height only: the collector makes their
	 * lag from all the nodes' heights (foreign-lag.c). */
	int				 lag_from_heights;
	struct foreign_lag		*flag;	/* their lag (under mu) */
	/* Named metrics the scenario declares (static strings), shown in
	 * the progress line and the summary: log extractors and
	 * Prometheus names outside the metric table. */
	const char			*ncols[TRIAL_NCOLS];
	size_t				 nncols;

	pthread_mutex_t			 mu;
	/* Shared by every trial of the run, read and written only through
	 * its functions (trial-store.h). */
	struct trial_store		*store;
	struct collector		*col;	/* the runner's handles */
	struct loadgen			*lg;
	struct trial_load		*load;	/* NULL: no load generator */
	/* The live copy for --serve (trial/snapshot.h), or NULL. */
	struct snap_trial		*snap;
	/* The emulated network (run/netcond.c), NULL without conditions:
	 * the local provider starts node K in its namespace; endpoint
	 * nnodes is the load generator's (trial_load_ns). */
	struct dn_net			*net;
	struct netcond			*nc;
	/* a node's clock and disk faults (run/faults.c), or NULL */
	struct faults			*faults;
	/* What the providers see of it (provider.h), filled by the runner
	 * once per trial (setup.c); the door back in (trial-node.h). */
	struct provider_trial		*prov;
	struct trial_ref		 ref;
	/* order: concurrent's duet (run/duet.c, issue 36): the CPUs every
	 * node of this trial is pinned to ("0", "2-3"), the local
	 * provider's cgroup cpuset; empty: not pinned by the duet. */
	char				 pin_cpus[64];
	int				 pin_ncpus;	/* how many */

	atomic_uint_fast64_t		 t0_ns;	/* 0 until all are ready */
	uint64_t			 spawn_ns;
	/* A node's own limit to be ready when it is shorter than the
	 * runner's (a foreign node's probe gives up first); 0: none. */
	int				 ready_limit_ms;
	/* Unix ms of t = 0 and of the window's end (the run loop left:
	 * duration, signal, failure, ended early); 0 until then.  Facts
	 * window_start_ms, window_end_ms: a trial's overhead is the time
	 * between one trial's end and the next one's start (issue 26). */
	int64_t				 t0_wall_ms, end_wall_ms;
	/* The end of a trial, phase by phase (run/endcheck.c, finish.c;
	 * fact end_phases_ms): the transactions' drain, the state check
	 * and its status rounds, the nodes' stop, the collector's. */
	int64_t				 end_drain_ms, end_state_ms;
	int				 end_state_rounds;
	double				 cpu0_s;	/* process CPU at spawn */
	/* What else used the machine (run/interference.c, main thread):
	 * the reads at t = 0 and a second apart since (ring of the last
	 * ITF_RING), the highest load average, the live event given. */
#define ITF_RING	6
	struct dn_itf_read		 itf0, itf_end;
	struct dn_itf_read		 itf_ring[ITF_RING];
	int				 itf_n;		/* reads in the ring */
	double				 itf_load_max;
	int				 itf_told;

	/* The load generator's last interval, as stored with node -1
	 * (under mu, collector): bit i of load_have says load_last[i] is
	 * set; load_samples counts the intervals. */
	double				 load_last[DN_METRIC_COUNT];
	uint64_t			 load_have;
	int64_t				 load_samples, load_tm;
	/* The scenario's assertions in this trial (orchestrator/assert/;
	 * main thread): NULL when it has none.  Results: */
	struct assert_state		*asserts;
	int				 asserts_failed;
	int				 asserts_inconclusive;

	/* Collector counters (under mu). */
	int64_t				 rejected;	/* messages */
	int64_t				 rejected_by[DN_REJ_COUNT];
	int64_t				 drain_unread;	/* messages */
	int64_t				 samples_stored;
	int64_t				 tx_included, tx_failed;
	int64_t				 tx_duplicates;
	int				 store_failed;	/* a write failed */
	char				*store_error;

	/* Declared metrics no node gave a sample of, and why, as far as
	 * devnet knows (node-kind/unmeasured.c, at the end; main thread):
	 * the summary says them, an assertion on one is inconclusive
	 * saying why.  Facts and events `unmeasured` (docs/schema.md). */
	struct trial_unmeasured {
		char		*name;
		char		*why;
	}				*unmeasured;
	size_t				 nunmeasured;

	/* Outcome (main thread). */
	int				 failed;
	char				*fail_reason;
	int				 unplanned;	/* faults not asked for */
};

/*
 * Lag of a foreign node (foreign-lag.c), which knows only its own height:
 * with NODE's new HEIGHT at T_MS, *LAG_BLOCKS = the highest height any
 * node of T has reported minus HEIGHT, *LAG_MS = T_MS minus when any node
 * first reported a height above HEIGHT (0 when not behind).  Call with
 * T->mu held; foreign_lag_free at the end.
 */
void	 foreign_lag(struct trial *t, int node, int64_t t_ms, double height,
	    double *lag_blocks, double *lag_ms);
void	 foreign_lag_free(struct foreign_lag *);

/* T as the parts that get its node records see it (trial-node.h). */
struct trial_ref *trial_ref(struct trial *t);

/* Milliseconds since the trial's t=0 (negative before it). */
int64_t	 trial_t_ms(struct trial *t, uint64_t ns);

/* How long the nodes of a trial may take to be ready: SET_MS (--ready-
 * timeout) when set, else 10 s + 200 ms per node.  The one rule. */
int	 trial_ready_timeout_ms(int set_ms, int nodes);

/* "node K (NAME) exited before it was ready (exit 1); last lines of its
 * output:" ... as a new string (caller frees; post-mortem.c).  NAME
 * names the node (NULL: its argv[0]).  The node kinds' post_mortem. */
char	*trial_post_mortem(struct trial *t, int k, const char *what,
	    const char *name);

/* Record an event (trial_store_event); logs store errors into T. */
void	 trial_event(struct trial *t, int node, const char *kind,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* From now on, the calling thread's first event row of kind KIND puts
 * its t_ms into *MS (left alone while *MS >= 0); NULL stops.  The runner
 * learns when a scenario event really fired: the t_ms of the row it
 * stored under its own kind (a heal first writes the closing window's
 * proofs, a millisecond or more earlier). */
void	 trial_event_capture(int64_t *ms, const char *kind);

/* The crash event of node K: its exit status ST and what the provider
 * said of it (node.exit_note: "exit 137: out of memory: ..."), then
 * that note freed. */
void	 trial_crash_event(struct trial *t, int k, const char *st);

/* Record a run fact (trial_store_fact); a store error marks T's store as
 * failed. */
void	 trial_fact(struct trial *t, int node, const char *key,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Fail T (main thread) with the first reason given; later ones are
 * dropped. */
void	 trial_fail(struct trial *t, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * Take the send-lag observations (µs, actual minus intended send time)
 * gathered in L since the last call: *LAGS is owned by the caller (free).
 */
void	 trial_load_take_lags(struct trial_load *l, double **lags,
	    size_t *n);
/* The same for the latencies (ms) the load generator measured. */
void	 trial_load_take_lat(struct trial_load *l, double **lat, size_t *n);
/* Add one latency (ms) the load measured (an http answer, a command's
 * DN-LOAD lat_us): the collector takes it into tx_latency_*. */
void	 trial_load_add_lat(struct trial_load *l, double ms);

/*
 * The network namespace devnet's own load enters the emulated network
 * from (issue 20): endpoint nnodes of T->net, joined to the hub like a
 * node, under the conditions network.links and link events set for its
 * links ("default" and those naming the node), never cut by a partition.
 * A load thread makes its sockets there (dn_net_in_ns: only the calling
 * thread moves) so its traffic crosses the hub.  -1 without conditions
 * (the load stays on ipc).  T->net keeps the fd.
 */
int	 trial_load_ns(const struct trial *t);

/*
 * Where the load reaches node K, as the loads' {addr} and {addrs} give
 * it: its namespace's address under network conditions (10.99.K.2, into
 * BUF), else its host's (T's, returned as is).
 */
const char *trial_node_addr(const struct trial *t, int k, char *buf,
	    size_t cap);

#endif
