/*
 * trial.h: one trial of a scenario in flight: its nodes, its collector and
 * its load generator.  runner.c drives trials (one at a time, or a slot of
 * them side by side); collector.c and loadgen.c are the two threads each
 * trial owns.
 *
 * Locking: T->mu guards the per-node statistics and the counters the main
 * thread reads for progress; STORE_MU (shared by all trials) guards every
 * use of the sqlite store.  Lock order: store_mu before mu, never the
 * reverse.
 */
#ifndef DN_TRIAL_H
#define DN_TRIAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "metric-table.h"
#include "protocol.h"
#include "scenario.h"
#include "spawn.h"

struct dn_store;
struct dn_sock;
struct collector;
struct loadgen;

struct trial_node {
	struct proc	 proc;
	char		**argv;
	char		**env;
	char		*out_path;	/* node-K.out: stdout+stderr */
	char		*log_path;	/* node-K.log: the node's own log */
	char		*cmdline;	/* for humans and the nodes table */

	/* Written by the collector under trial.mu. */
	int		 hello;		/* HELLOs received */
	uint64_t	 last_msg_ns;	/* last SAMPLE received */
	uint64_t	 next_seq;	/* expected SAMPLE sequence */
	int		 have_seq;
	int64_t		 lost;		/* sequence gaps */
	int64_t		 samples;
	int		 final_seen;	/* DN_SAMPLE_FINAL received */
	double		 last[DN_METRIC_COUNT];
	double		 first[DN_METRIC_COUNT];	/* after warmup */
	int64_t		 first_t, last_t;	/* ms, after warmup */
	int		 have_first;
	double		 rss_sum, rss_max, lag_max;
	int64_t		 rss_n;

	/* Main thread only. */
	int		 down;		/* not expected to be running */
	int		 stopped;	/* SIGSTOPped by an event */
	int		 stalled;	/* reported stalled */
	int		 crashed;	/* exited without being asked */
	uint64_t	 restart_ns;	/* when restarted, until it rejoins */
	atomic_int	 up;		/* loadgen may send to it */
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

	pthread_mutex_t			 mu;
	pthread_mutex_t			*store_mu;
	struct dn_store			*store;
	struct collector		*col;
	struct loadgen			*lg;

	atomic_uint_fast64_t		 t0_ns;	/* 0 until all are ready */
	uint64_t			 spawn_ns;
	double				 cpu0_s;	/* process CPU at spawn */

	/* Collector counters (under mu). */
	int64_t				 rejected;	/* messages */
	int64_t				 rejected_by[DN_REJ_COUNT];
	int64_t				 samples_stored;
	int64_t				 tx_included, tx_failed;
	int64_t				 tx_duplicates;
	int				 store_failed;	/* a write failed */
	char				*store_error;

	/* Outcome (main thread). */
	int				 failed;
	char				*fail_reason;
	int				 unplanned;	/* faults not asked for */
};

/* Milliseconds since the trial's t=0 (negative before it). */
int64_t	 trial_t_ms(struct trial *t, uint64_t ns);

/* URL of node K's inbound (CTL 0) or control (CTL 1) endpoint, as the
 * node derives it from --net / --tcp-base (docs/node.md).  Caller frees. */
char	*trial_node_url(const struct trial *t, int k, int ctl);

/* Record an event (takes store_mu); logs store errors into T. */
void	 trial_event(struct trial *t, int node, const char *kind,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* --- collector.c ---------------------------------------------------- */
/* Listen on T->metrics_url and start the collector thread. */
int	 collector_start(struct trial *t, struct collector **cp, char **cause);
/* Ask the thread to finish (after draining for DRAIN_MS), join, commit,
 * free.  Accepts NULL. */
void	 collector_stop(struct collector *c, int drain_ms);

/* --- loadgen.c ------------------------------------------------------- */
/* Dial every node's inbound endpoint; the thread waits for loadgen_go. */
int	 loadgen_create(struct trial *t, struct loadgen **lp, char **cause);
/* Start sending from T->t0_ns, until T->t0_ns + duration. */
int	 loadgen_go(struct loadgen *l, char **cause);
/*
 * Halt and close the sockets to the nodes, keeping the counts: done
 * before the nodes stop, so that nng's dialers never chase dead nodes
 * (docs/architecture.md, "nng_close can hang").
 */
void	 loadgen_disconnect(struct loadgen *l);
/* Stop sending (join the thread); counters stay readable. */
void	 loadgen_halt(struct loadgen *l);
void	 loadgen_free(struct loadgen *l);

struct loadgen_stats {
	int64_t		submitted;
	int64_t		send_errors;
	double		elapsed_s;	/* of the schedule so far */
	double		target_tps;	/* mean target over elapsed */
};
void	 loadgen_stats(struct loadgen *l, struct loadgen_stats *st);
/*
 * Take the send-lag observations (µs, actual minus intended send time)
 * gathered since the last call: *LAGS is owned by the caller (free).
 */
void	 loadgen_take_lags(struct loadgen *l, double **lags, size_t *n);
/*
 * Quantile Q (0 < Q <= 1) of every send lag of the run so far, in µs, from
 * a histogram with 1 % wide buckets (the bucket's upper bound, so at most
 * 1 % high); Q = 1 gives the exact maximum.  0 when nothing was sent.
 */
double	 loadgen_lag_quantile(struct loadgen *l, double q);

#endif
