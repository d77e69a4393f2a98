/*
 * node-kind.h: what the runner does differently for each kind of node,
 * behind one table of operations (as provider.h is for where nodes run).
 *
 * Two kinds: devnet-node (devnet-node.c), the runner's usual node, for
 * which every operation is the usual handling (nothing to do, "not
 * handled here"); and foreign (foreign.c), a devnet-probe running a
 * variant's node.command (docs/foreign-nodes.md).  The runner (run/) asks
 * node_kind(T) and calls the operation; nothing here knows the runner.
 */
#ifndef DN_NODE_KIND_H
#define DN_NODE_KIND_H

#include <stdint.h>

#include "scenario/scenario.h"
#include "trial/trial.h"

struct dn_store;

/* devnet-node's port on its own address in the emulated network (each
 * node has a namespace of its own, so one port serves them all): its
 * gossip and sync, and the transfer load's inbound port above it. */
#define NODE_KIND_NET_PORT	20000

struct node_kind_ops {
	const char	*name;
	/* What its nodes run, as a message names it ("devnet-node", "a
	 * command"). */
	const char	*runs;
	/* How its nodes talk under network conditions, as the trial's
	 * `network` event says it (run/netcond.c). */
	const char	*net_traffic;
	/* 1: the status line shows its nodes' RSS and the summary their
	 * cores used (a program's own figures, its height maybe unmapped);
	 * 0: neither. */
	int		 show_usage;
	/* 1: its nodes gossip over network.peers' graph (each node's fact
	 * peers, the trial's gossip_peers). */
	int		 peer_graph;
	/* What this kind cannot do in variant V of S, said before anything
	 * starts (run/check.c); no side effect.  0, or -1 with *CAUSE.  May
	 * be NULL. */
	int	(*check)(const struct scenario *s, const struct scn_variant *v,
		    char **cause);
	/* Declare the named metrics' directions of S's variants of this
	 * kind in ST, before any trial: 0, or -1 with *CAUSE. */
	int	(*declare)(const struct scenario *s, struct dn_store *st,
		    char **cause);
	/* Set T->kind and what the trial's lower parts read of the kind
	 * (T->lag_from_heights); EP's probe and its ready timeout from
	 * READY_TIMEOUT_MS (--ready-timeout, 0 = the default), and EP's
	 * TCP port base when EP->emulated. */
	void	(*prepare)(struct trial *t, int ready_timeout_ms,
		    struct plan_endpoints *ep);
	/* The program V's nodes run (devnet-node's binary, the command's
	 * argv[0], maybe a template): what a clock_skew must be able to
	 * move (run/faults.c). */
	const char *(*program)(const struct scenario *s,
		    const struct scn_variant *v);
	/* 1 when a node whose argv starts with ARGV0 reads the run token
	 * from its environment; 0: it needs --token (an older build). */
	int	(*token_in_env)(const char *argv0);
	/* Node K's base port for the workloads' {port} (0: none). */
	int	(*port)(const struct trial *t, int k);
	/* T's named-metric columns and each node's room for their values. */
	void	(*columns)(struct trial *t);
	/* What the nodes need before they start (node dirs): 0 or -1. */
	int	(*start)(struct trial *t, char **cause);
	/* Node K exited before all were ready: 1 = counts as ready, -1 = T
	 * failed, 0 = the usual handling. */
	int	(*ready_exit)(struct trial *t, int k);
	/* What node K left behind, WHAT it did ("exited"), as the trial's
	 * failure says it: a new string, the caller frees. */
	char	*(*post_mortem)(struct trial *t, int k, const char *what);
	/* Node K, come back (restarted or resumed) at height H with lag
	 * LAG_MS, the highest other at BEST (-1: none): 1 once it is in step
	 * with the others (rejoined). */
	int	(*in_step)(const struct trial *t, int k, double h, double best,
		    double lag_ms);
	/* Node K exited during the trial: 1 if handled, 0 = the usual. */
	int	(*exited)(struct trial *t, int k);
	/* The `stop` (STOP) or `cont` event for node K: 1 when done here,
	 * 0 = SIGSTOP/SIGCONT as usual. */
	int	(*pause)(struct trial *t, int k, int stop);
	/* Stalled/recovered of node K while paused, from its height: 1 when
	 * decided here this tick, 0 = the usual no-sample rule. */
	int	(*pause_watch)(struct trial *t, int k, uint64_t now,
		    uint64_t last, uint64_t stall_ns, int have_h, double h);
	/* Once per tick, after the usual watch. */
	void	(*watch)(struct trial *t);
	/* 1 when T runs to completion and all its nodes did. */
	int	(*done)(struct trial *t);
	/* After the run loop (SIGNALLED: a stop signal was seen). */
	void	(*after_run)(struct trial *t, int signalled);
	/* 1 (and an event and fact saying so) when T has no state to check. */
	int	(*skip_state_check)(struct trial *t);
	/* The grace period for T's nodes, given the usual GRACE (ms). */
	int	(*grace)(struct trial *t, int grace);
	/* After the nodes stopped: kill what is left of them. */
	void	(*reap)(struct trial *t);
	/* At the trial's end: the kind's own per-node facts (foreign: each
	 * node's allocation source, fact alloc_source). */
	void	(*facts)(struct trial *t);
};

extern const struct node_kind_ops node_kind_devnet;	/* devnet-node.c */
extern const struct node_kind_ops node_kind_foreign;	/* foreign.c */

/* The kind of VAR's nodes (before T->kind is set; setup). */
const struct node_kind_ops *node_kind_of(const struct scn_variant *var);

/* The kind of T's nodes, once prepared (devnet-node before). */
const struct node_kind_ops *node_kind(const struct trial *t);

/* Every kind's declare for S: 0, or -1 with *CAUSE. */
int	 node_kind_declare(const struct scenario *s, struct dn_store *st,
	    char **cause);

/* Path of devnet-probe, beside this executable (foreign.c). */
const char *foreign_probe_path(void);

/* At the end of foreign trial T (its facts): the declared metrics no node
 * gave a sample of, and why, as the fact and events `unmeasured` and in
 * T->unmeasured (unmeasured.c). */
void	 foreign_unmeasured(struct trial *t);

/* Before foreign trial T's nodes start, for node.user USER: each node's
 * directory given to USER, the trial's opened to USER's group to pass
 * through; -1 with *CAUSE when USER cannot reach it (foreign-user.c). */
int	 foreign_user_dirs(struct trial *t, const char *user, char **cause);

#endif
