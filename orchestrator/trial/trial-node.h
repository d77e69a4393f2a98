/*
 * trial-node.h: the record of one node of a trial (struct trial_node),
 * and the door into a trial for the parts that get the node records but
 * not the whole trial (provider/, issue 34): say an event or a fact of
 * it, store a node's host, read what the collector writes under the
 * trial's lock.  Through a struct trial_ref, which the runner takes
 * from its trial (trial_ref, trial.h); what the ref points at is
 * trial/'s own.
 *
 * Locking: the fields under "written by the collector" are read only
 * with the trial's lock held (trial.h), here by trial_ref_final_seen;
 * the rest belong to the main thread, where every provider call runs.
 */
#ifndef DN_TRIAL_NODE_H
#define DN_TRIAL_NODE_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "metric-table.h"
#include "sys/cgroup.h"
#include "sys/spawn.h"

struct trial_node {
	struct proc	 proc;
	char		**argv;
	char		**env;
	char		*out_path;	/* node-K.out: stdout+stderr */
	char		*log_path;	/* node-K.log: the node's own log */
	char		*cmdline;	/* for humans and the nodes table */
	/* Upgrade events (issue 39): the build it runs now (an index into
	 * the scenario's variants), and the argv and env of each variant
	 * an upgrade of it names (NULL: none; vargv NULL: no upgrade). */
	int		 var;
	int		 builds;	/* upgrades carried out */
	char		***vargv, ***venv;
	char		*alloc_source;	/* "malloc (jemalloc)", "Go runtime",
					   "not measured: ...", or NULL
					   (foreign_facts) */
	char		*in_url;	/* inbound endpoint, for the loadgen */
	char		*addr;		/* its host's address, with tcp:
					   127.0.0.1 but for swarm on several
					   hosts (provider_node_addr) */
	int		 remote_clock;	/* on another host: its clock is
					   not ours (set before the start) */
	int		 port;		/* {port} of the http and command
					   workloads; 0 = the node has none */
	/* The local provider's control group of the node (resources:
	 * sys/cgroup.h), NULL without one; made at the first start, kept
	 * over restarts; its counters as teardown last read them. */
	struct dn_cgroup *cg;
	struct dn_cg_counters cgc;
	int		 have_cgc;
	uint64_t	 oom_told;	/* OOM kills a crash event named */
	/* What the provider says of the exit being handled ("out of
	 * memory: ..."), for its crash event; NULL (watch.c, main thread) */
	char		*exit_note;
	uint64_t	 ready_ns;	/* its first HELLO, as the runner saw
					   it (watch.c); 0: not yet */

	/* Written by the collector under trial.mu. */
	int		 hello;		/* HELLOs received */
	uint64_t	 last_msg_ns;	/* last SAMPLE received */
	uint64_t	 next_seq;	/* expected SAMPLE sequence */
	int		 have_seq;
	int64_t		 lost;		/* sequence gaps */
	int64_t		 samples;
	int		 final_seen;	/* DN_SAMPLE_FINAL received */
	double		 last[DN_METRIC_COUNT];
	int64_t		 last_tm;	/* trial time of last[]'s sample */
	double		 first[DN_METRIC_COUNT];	/* after warmup */
	int64_t		 first_t, last_t;	/* ms, after warmup */
	int		 have_first;
	/* Bit i: metric i was present (protocol 3: a foreign node's probe
	 * marks what it cannot see absent) in last[] / first[]. */
	uint64_t	 have_last, have_firsts;
	double		 rss_sum, rss_max, lag_max;
	int64_t		 rss_n, lag_n;
	pid_t		 cmd_pid;	/* HELLO's pid: a probe's COMMAND */
	/* Main thread (foreign.c): the command's pid and start time once
	 * /proc showed it a child of the probe devnet forked, leading its
	 * own process group; only that group is ever killed at the end. */
	pid_t		 reap_pid;
	unsigned long long reap_start;
	pid_t		 reap_refused;	/* a HELLO pid already reported */
	/* A node on another host stamps messages with its own monotonic
	 * clock: receive - send over every message, its least value; a
	 * node time plus it is ours (collector-clock.c); the messages
	 * seen and when the first came, until the offset settles. */
	int64_t		 clock_d;
	int		 have_clock;
	int		 clock_msgs;
	uint64_t	 clock_first_ns;

	/* Main thread only. */
	int		 down;		/* not expected to be running */
	int		 stopped;	/* SIGSTOPped by an event */
	int		 stalled;	/* reported stalled */
	int		 crashed;	/* exited without being asked */
	int		 done;		/* node.exit expected: exited 0 */
	uint64_t	 restart_ns;	/* when restarted, until it rejoins */
	/* A foreign node's height as the watch last saw it and since when
	 * (its probe samples on while it is paused: foreign.c). */
	double		 watch_h;
	uint64_t	 watch_h_ns;
	uint64_t	 hstall_ns;	/* stalled by height since, or 0 */
	/* The last value of each of trial.ncols (under mu, collector). */
	double		*nlast;
	uint64_t	 nhave;		/* bit i: nlast[i] was received */
	atomic_int	 up;		/* loadgen may send to it */
};

/* A trial, as seen through its node records (opaque). */
struct trial_ref;

/* Record an event of the trial (trial_event): NODE (-1: the trial), its
 * KIND and its detail. */
void	 trial_ref_event(struct trial_ref *r, int node, const char *kind,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Record a run fact of the trial (trial_fact). */
void	 trial_ref_fact(struct trial_ref *r, int node, const char *key,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Node K runs on HOST (trial_store_node_host).  0 or -1 with *CAUSE. */
int	 trial_ref_node_host(struct trial_ref *r, int k, const char *host,
	    char **cause);
/* Has node K's final sample (DN_SAMPLE_FINAL) come?  Under the trial's
 * lock: the collector thread writes it. */
int	 trial_ref_final_seen(struct trial_ref *r, int k);

#endif
