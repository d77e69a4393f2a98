/*
 * plan.h: what a loaded scenario starts: the trials in run order and, per
 * trial and node, the exact argv and environment (devnet-node's: plan.c;
 * a foreign node's under devnet-probe: plan-foreign.c), its ports and
 * expanded templates.  Pure computation: no I/O, no processes, no shell.
 * Calls run one way: plan.c -> plan-foreign.c -> scenario/, sys/strv.
 *
 * Not here: loading and checking the scenario (scenario/scenario.h),
 * building revisions (rev-build.h), spawning (provider/, node-kind/).
 */
#ifndef DN_PLAN_H
#define DN_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario/scenario.h"

struct plan_trial {
	int			 index;		/* 0-based position */
	int			 repeat;	/* 0-based repeat of its variant */
	const struct scn_variant *variant;
	int			 slot;	/* concurrent order: which batch runs together */
};

/* Trials in run order: ABBA interleaving (A B B A A B B A ...) for two
 * variants, rotated likewise for more; concurrent: every variant's trial k
 * shares slot k.  *TRIALS is owned by the caller (free). */
int	 plan_trials(const struct scenario *, struct plan_trial **trials,
	    size_t *ntrials);

/* Where a trial's endpoints live. */
struct plan_endpoints {
	const char	*run_dir;	/* trial dir, absolute: node-K/, node-K.log */
	const char	*net_dir;	/* dir of the ipc sockets (--net); may
					   differ from run_dir when run_dir is
					   too long for a socket path */
	const char	*metrics_url;	/* collector PULL */
	uint64_t	 token;
	int		 tcp_base_port;	/* 0 = ipc */
	const char *const *hosts;	/* with tcp: node K's host address
					   (--peer-hosts); NULL or all
					   127.0.0.1 = none */
	const char	*probe;		/* devnet-probe; NULL = "devnet-probe" */
	int		 emulated;	/* each node in its own network
					   namespace (issue 20): --net for
					   control and load, and TCP at
					   tcp_base_port on HOSTS for peers */
	int64_t		 ready_timeout_ms; /* foreign nodes; 0 = the probe's */
	int		 token_argv;	/* devnet-node: the token as --token,
					   for a binary that does not read
					   DN_NODE_TOKEN (older than issue
					   38); else in the environment */
	const char	*clock_preload;	/* the node's clock under devnet's
					   control (a clock_skew event, issue
					   39): the LD_PRELOAD of the witness
					   and libfaketime; NULL = not */
};

/* The environment ("K=V") that puts node NODE's wall clock under
 * libfaketime, EP->clock_preload (run/faults.c writes its offset into
 * RUN_DIR/node-NODE.faketime and reads the node's own clock back from
 * RUN_DIR/node-NODE.clock), appended to V, each after FLAG when not NULL
 * (the probe's --clock-env); nothing when EP asks for none
 * (clock-env.c). */
struct strv;
void	 plan_clock_env(const struct plan_endpoints *ep, int node,
	    struct strv *v, const char *flag);
/* The same for a foreign node, as devnet-probe's flags: --clock-file and
 * --clock-witness (the probe moves a Go or static command's clock
 * itself) and libfaketime's environment as --clock-env. */
void	 plan_clock_probe(const struct plan_endpoints *ep, int node,
	    struct strv *v);

/*
 * The full argv (NULL-terminated, argv[0] = binary) and the environment
 * additions ("K=V", NULL-terminated) of node NODE in VARIANT's trial:
 * scenario base < variant < per-node override.  Owned by the caller:
 * plan_argv_free.
 */
int	 plan_node_argv(const struct scenario *, const struct scn_variant *,
	    int node, const struct plan_endpoints *, char ***argv,
	    char ***env, char **cause);
void	 plan_argv_free(char **);

/* --- foreign nodes (plan-foreign.c) ------------------------------------ */

/* 1 if VARIANT's nodes are programs run by devnet-probe. */
int	 plan_is_foreign(const struct scn_variant *);
/* Node NODE's network.overrides[] settings, or NULL (plan-foreign.c). */
const struct scn_settings *plan_node_override(const struct scenario *s,
	    int node);
/* The TCP port base of node NODE in VARIANT's trial (foreign nodes):
 * node.port_base + NODE * node.ports_per_node, shifted per variant in
 * concurrent order. */
int	 plan_node_port(const struct scenario *, const struct scn_variant *,
	    int node);
/* The foreign-node argv: devnet-probe's flags, "--", the command
 * (plan-foreign.c); plan_node_argv calls it for foreign variants. */
int	 plan_foreign_argv(const struct scenario *,
	    const struct scn_variant *, int node,
	    const struct plan_endpoints *, char ***argv, char ***env,
	    char **cause);

/* --- display, binary and ports (plan.c) -------------------------------- */

/* Print S shell-quoted to OUT (for display only: nothing is ever run by a
 * shell). */
void	 plan_put_quoted(FILE *out, const char *s);
/* ARGV shell-quoted and joined with spaces, for humans and the nodes
 * table.  Caller frees. */
char	*plan_quote_argv(char *const *argv);

/* Node NODE's peers as devnet-node's --peers takes them ("3,7,9"), or
 * NULL for the full mesh (network.peers all): the gossip graph of
 * peer-graph.c, D peers per node, connected, drawn from the seed, mostly
 * inside zones.  Caller frees. */
char	*plan_peer_list(const struct scenario *s, int node);
/* The same graph whole: the nodes x nodes adjacency (1: peers), or NULL
 * for the full mesh.  Caller frees. */
uint8_t	*plan_peer_graph(const struct scenario *s);

/*
 * The links of the emulated network the per-link probe measures (issue
 * 40; docs/network.md says why the proof stays sound).  ENDPOINTS is
 * nodes + 1 (the last one the load's).  Every directed link when
 * network.probe_links is all, or auto up to PLAN_PROBE_ALL_MAX links:
 * NULL returned, *N the count of all.  Otherwise a sample drawn from the
 * seed, the ENDPOINTS x ENDPOINTS matrix returned (1: probed; caller
 * frees), *N its count: the peer graph's links both ways and the load's
 * (the links in use), at least PLAN_PROBE_CLASS_MIN links of every
 * condition class (each ordered zone pair, the nodes in no zone, the
 * load's), of every link event's nodes each way, 8 of every
 * ordered pair of a partition's groups, every endpoint at least once each way,
 * then random links up to PLAN_PROBE_FILL.  *RATE_HZ: the probes per
 * link per second, about PLAN_PROBE_TOTAL_HZ in all, 2..20.
 */
#define PLAN_PROBE_ALL_MAX	3000
#define PLAN_PROBE_CLASS_MIN	4
#define PLAN_PROBE_FILL		400
#define PLAN_PROBE_TOTAL_HZ	2000
uint8_t	*plan_probe_links(const struct scenario *s, int endpoints,
	    size_t *n, int *rate_hz);

/* A link's proof in one window wants this many probes (fewer: "not
 * measured"), run/netproof.c. */
#define PLAN_PROOF_MIN_PROBES	20
/* A window's first and last part that no proof uses: the rules settle
 * after a change, the probes in flight at its end (at least). */
#define PLAN_PROOF_SETTLE_MS	300

/*
 * The longest window in VARIANT's trials (index into s->variants) in
 * which one state of the emulated network holds and its proof can count
 * probes, in ms: from the warmup or a network event (partition, heal,
 * link, a link event's end) to the next or the end, less the settling
 * at its start and (closed by a change) the probes in flight at its end.
 * An upper bound: the in-flight time also grows with the links' latency,
 * and a busy machine sends late (a 0.7 s window at 20/s: 9 probes).  0
 * when none is left.
 */
int64_t	 plan_probe_window_ms(const struct scenario *s, size_t variant);

/* The node binary VARIANT runs. */
const char *plan_binary(const struct scenario *, const struct scn_variant *);

/* The TCP base port of VARIANT's devnet, 0 with ipc: network.tcp_base_port,
 * shifted by 2 * nodes per variant in concurrent order so that the devnets
 * of a slot do not collide.  plan_node_argv uses it when the endpoints'
 * tcp_base_port is 0. */
int	 plan_tcp_base(const struct scenario *, const struct scn_variant *);

#endif
