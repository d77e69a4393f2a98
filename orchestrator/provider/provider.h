/*
 * provider.h: where a trial's nodes run.  The runner (setup.c, watch.c,
 * endcheck.c, finish.c) starts, watches, signals and stops nodes only
 * through these calls; the scenario's `provider:` picks the
 * implementation (docs/providers.md):
 *
 *   local   provider.c: fork/exec on this machine (spawn.h), as always
 *   docker  provider-docker.c: one container per node on the local
 *           Docker engine, host network, the trial dir bind-mounted at
 *           the same path, limits from `resources:`
 *   swarm   provider-swarm.c: one Docker Swarm stack per trial, the
 *           collector on the swarm's advertise address, node K pinned
 *           to a host of the swarm and reached at that host's address
 *
 * Every call runs in the main thread.  Not here: the Docker CLI itself
 * (docker.h), images (image.h), what a node's argv is (plan.c).
 */
#ifndef DN_PROVIDER_H
#define DN_PROVIDER_H

#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario/scenario.h"
#include "trial/trial-node.h"

struct dn_net;

/*
 * A trial as a provider sees it (issue 34): what it may read of the
 * trial, and the nodes' own records, which it writes (proc, the local
 * provider's cg, cgc and have_cgc) and reads (argv, env, out_path, addr,
 * stopped).  Anything else goes through REF: events, facts, a node's
 * host, what the collector writes (trial-node.h).  The runner fills it
 * once per trial, before the first call below (run/setup.c), and sets
 * NET when it made the emulated network (run/netcond.c); the pointers
 * are the trial's, valid until its release.
 */
struct provider_trial {
	const struct scenario		*scn;
	const struct scn_variant	*var;
	int64_t				 run_id;
	uint64_t			 token;
	int				 index;		/* the trial's, in the
							   plan (plan_trial) */
	const char			*run_dir;	/* the trial dir */
	const char			*net_dir;	/* ipc sockets */
	/* net_dir is the trial's own, not inside run_dir: mount it too */
	int				 own_net_dir;
	const char			*metrics_url;	/* the collector */
	/* order: concurrent's duet: the CPUs the trial's nodes are pinned
	 * to ("0", "2-3"); "": not pinned (run/duet.c) */
	const char			*pin_cpus;
	/* the emulated network: node K in its namespace (dn_net_ns_fd);
	 * NULL without network conditions */
	struct dn_net			*net;
	int				 nnodes;
	struct trial_node		*nodes;
	struct trial_ref		*ref;
};

/* What prepare needs of the run (run/ fills it from its options). */
struct provider_opts {
	const char	*run_dir;	/* base dir of trial dirs */
	int		 quiet;		/* no progress at all */
};

struct provider_ops {
	const char	*name;
	/* What this provider cannot do of S, said before anything starts
	 * (run/check.c: the one check `validate` and `run` share); no side
	 * effect.  0, or -1 with *CAUSE.  May be NULL. */
	int	(*check)(const struct scenario *s, char **cause);
	/* Once per `devnet run`, before any trial: check the engine and
	 * images, remove what killed devnets left.  May be NULL. */
	int	(*prepare)(const struct scenario *,
		    const struct provider_opts *, char **cause);
	/* Start node K of T (n->proc describes what runs it here). */
	int	(*start)(struct provider_trial *t, int k, char **cause);
	/* 1 once node K has exited (status in n->proc), 0 while running. */
	int	(*poll)(struct provider_trial *t, int k);
	/* Deliver SIG to node K (SIGSTOP/SIGCONT pause and resume it). */
	int	(*signal)(struct provider_trial *t, int k, int sig);
	/* SIGTERM every running node, SIGKILL after GRACE_MS; how many
	 * needed SIGKILL. */
	int	(*stop_all)(struct provider_trial *t, int grace_ms);
	/* Remove everything the trial created (containers, stacks). */
	void	(*teardown)(struct provider_trial *t);
	/* Under network conditions, before any node of T starts: a network
	 * namespace of the provider's own per node (docker: a holder
	 * container's, which the node's containers join), its fd into
	 * (*FDS)[K] (allocated here; the caller owns array and fds).  0, or
	 * -1 with *CAUSE (teardown removes what was made).  NULL: devnet
	 * makes the namespaces itself and starts the nodes in them (local). */
	int	(*netns)(struct provider_trial *t, int **fds, char **cause);
	/* The address the collector listens on with tcp, as nodes reach
	 * it (after prepare); NULL: 127.0.0.1. */
	const char *(*listen_addr)(void);
	/* The address node K's host is reached at, for every trial of
	 * the run (after prepare); NULL: 127.0.0.1.  May be NULL. */
	const char *(*node_addr)(int k);
	/* What node K's exit that nobody asked for owes to the provider
	 * (local: "out of memory" when its cgroup's OOM killer ended a
	 * task), as a new string, or NULL.  May be NULL. */
	char	*(*exit_note)(struct provider_trial *t, int k);
	/* After teardown, inside finish.c's commit: what the provider
	 * measured of each node, as facts (local: its cgroup's counters).
	 * May be NULL. */
	void	(*facts)(struct provider_trial *t);
	/* What `devnet validate` prints of the provider after the plan
	 * (swarm: each variant's Compose file) to OUT; 0, or -1 with
	 * *CAUSE.  May be NULL. */
	int	(*describe)(FILE *out, const struct scenario *, char **cause);
};

extern const struct provider_ops provider_local;
extern const struct provider_ops provider_docker;
extern const struct provider_ops provider_swarm;

int	 provider_prepare(const struct scenario *, const struct provider_opts *,
	    char **cause);
/* provider swarm without network.tcp_base_port: choose TCP and free
 * ports in S, and say so unless QUIET.  0, or -1 with *CAUSE. */
int	 provider_choose_ports(struct scenario *s, int quiet, char **cause);
int	 provider_start(struct provider_trial *t, int k, char **cause);
int	 provider_poll(struct provider_trial *t, int k);
int	 provider_signal(struct provider_trial *t, int k, int sig);
int	 provider_stop_all(struct provider_trial *t, int grace_ms);
void	 provider_teardown(struct provider_trial *t);
/* S's provider's name ("local", "docker", "swarm"). */
const char *provider_name(const struct scenario *s);
/* What S's provider cannot do of S (its check op): 0, or -1 with *CAUSE
 * saying why not and what to do. */
int	 provider_check(const struct scenario *s, char **cause);
/* Can S's provider pin nodes to CPUs (resources.cpuset, the duet of
 * order: concurrent)?  provider local only. */
int	 provider_can_pin(const struct scenario *s);
/* provider_ops.exit_note and .facts of T's provider (NULL, nothing when
 * it has none). */
char	*provider_exit_note(struct provider_trial *t, int k);
void	 provider_facts(struct provider_trial *t);
/* provider_ops.netns of T's provider; 0 with *FDS NULL when it has
 * none. */
int	 provider_netns(struct provider_trial *t, int **fds, char **cause);
/* The address of tcp://ADDR:PORT the collector listens on: 127.0.0.1,
 * or the swarm's advertise address (provider swarm, after prepare). */
const char *provider_listen_addr(const struct scenario *);
/* The address node K is reached at (its host's): 127.0.0.1 but for
 * provider swarm on several hosts (after prepare). */
const char *provider_node_addr(const struct scenario *, int k);
/* provider_ops.describe of S's provider; 0 when it has none. */
int	 provider_describe(FILE *out, const struct scenario *s,
	    char **cause);

/* --- provider-common.c: shared by the container providers ------------- */

/* The image node K of T runs: override > variant > top level > the
 * image devnet builds from the node binary (image_default_tag).  Caller
 * frees. */
char	*provider_node_image(const struct scenario *,
	    const struct scn_variant *, int k);
/* Is that devnet's own image (no `image:` for node K of V)?  It holds
 * devnet-node and devnet-probe. */
int	 provider_node_own_image(const struct scenario *,
	    const struct scn_variant *, int k);
/* The image of the namespace holders (docker under network conditions):
 * devnet's own, which holds devnet-probe, for every variant and node
 * program.  Caller frees. */
char	*provider_holder_image(void);
/* resources.cpus and resources.memory of node K (0 = not set). */
void	 provider_node_limits(const struct scenario *,
	    const struct scn_variant *, int k, double *cpus, uint64_t *mem);
/* resources.cpuset of node K ("0-1", "auto"), or NULL: not set. */
const char *provider_node_cpuset(const struct scenario *,
	    const struct scn_variant *, int k);
/* Does some node of some variant of S have resources (cpus, memory,
 * cpuset)?  *CPUSET: does one have a cpuset. */
int	 provider_any_limits(const struct scenario *s, int *cpuset);
/* "auto": node K on the K-th CPU devnet may run on, modulo their
 * number. */
int	 provider_auto_cpu(int k);
/* Every CPU some node of S is pinned to (resources.cpuset) into SET. */
void	 provider_cpus_used(const struct scenario *s, cpu_set_t *set);
/* The labels of every object of T: "K=V", NULL-terminated; caller frees
 * with dk_argv_free. */
char	**provider_labels(const struct provider_trial *t);
/* The memory usage file of a container's own cgroup, seen from inside
 * ($DN_CGROUP_MEM_FILE): cgroup v2 or v1, as on this machine. */
const char *provider_cgroup_mem_file(void);
/* Check images (building devnet's own when missing) and, with tcp, that
 * the port range is free.  For prepare. */
int	 provider_check_images(const struct scenario *, int quiet,
	    char **cause);
int	 provider_check_ports(const struct scenario *, const char *addr,
	    char **cause);
/* Wait until every node of T has exited (P->poll) or MS passed,
 * calling LOOK (may be NULL) and sleeping STEP_MS between looks; how
 * many still run. */
int	 provider_wait_all(const struct provider_ops *p,
	    struct provider_trial *t, int ms, int step_ms,
	    void (*look)(struct provider_trial *));
/* The container of running node K and the engine it is on (*ENGINE;
 * NULL: this one), or NULL when K has none that can be signalled. */
typedef char *(*provider_ctr_fn)(struct provider_trial *t, int k,
	    const char **engine);
/* `docker kill --signal=SIG` every running node's container, one call
 * per engine; a stopped (paused) node is resumed first. */
void	 provider_kill_running(const struct provider_ops *p,
	    struct provider_trial *t, int sig, provider_ctr_fn ctr);

/* --- swarm-preflight.c ------------------------------------------------- */

/*
 * Once per run, before any trial, when some node is pinned to a host
 * other than this one (node K on HOSTS[PIN[K]]): one short task per
 * (image, host) there proves the image is on that host (the swarm
 * never pulls an image named by ID), and where it is devnet's own, that
 * the host's node ports are free on its address and that the collector
 * at ADVERTISE is reachable from it; and that RUN_ROOT (the real path
 * of --run-dir, or NULL: not checked) exists there.  0, or -1 with
 * *CAUSE saying which host and what to do.  Removes its services in any
 * case.  The real network between each such host and this one is timed
 * there (TCP handshakes with the collector's port) into RTT[H] for
 * HOSTS[H] (the caller's array, one per host, zeroed; n stays 0 where
 * nothing was timed) and, unless QUIET, stated on stderr (issue 39).
 */
struct dk_host;
struct swarm_rtt {
	double	min_ms, median_ms, max_ms;
	int	n;		/* handshakes timed; 0: not measured */
};
int	 swarm_preflight(const struct scenario *, const struct dk_host *hosts,
	    const int *pin, int npin, const char *advertise,
	    const char *run_root, int quiet, struct swarm_rtt *rtt,
	    char **cause);

#endif
