/*
 * cgroup.h: the control groups of the local provider's nodes (issue 36):
 * the one writer of /sys/fs/cgroup.  Version 1 (a hierarchy per
 * controller: cpu, cpuacct, cpuset, memory) and version 2 (one unified
 * hierarchy) behind one interface; which one is used is what this
 * machine has (dn_cgroup_mode).
 *
 * Layout: under the devnet process's own cgroup of each controller (v1:
 * /sys/fs/cgroup/memory/<ours>/devnet-<PID>/<NAME>, so a node stays
 * within the limits devnet itself runs under) or, on v2, under the
 * unified root (/sys/fs/cgroup/devnet-<PID>/<NAME>: v2 gives no
 * controller to the children of a group that holds processes).  PID is
 * the devnet that made it: dn_cgroup_sweep removes the groups of devnets
 * no longer alive (a SIGKILLed one).
 *
 * Not here: which node gets which limits (provider.c), the facts made of
 * the counters (the runner).
 */
#ifndef DN_SYS_CGROUP_H
#define DN_SYS_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

/* The limits of one group; zero or NULL: that one is not applied. */
struct dn_cg_limits {
	double		 cpus;		/* CPU quota in cores (cfs quota) */
	uint64_t	 memory;	/* bytes, swap included */
	const char	*cpuset;	/* "0-1,3": the CPUs its tasks run on */
};

/* What a group's kernel counters say (the whole group, every task that
 * ever ran in it). */
struct dn_cg_counters {
	double		 cpu_s;		/* CPU time used */
	double		 throttled_s;	/* time held back by the quota */
	uint64_t	 nr_throttled;	/* periods held back */
	uint64_t	 mem_peak;	/* memory high-water, bytes (0: not
					   kept by this kernel) */
	uint64_t	 oom_kills;	/* tasks the OOM killer ended */
};

struct dn_cgroup;

/* The cgroup version devnet can use here: 2, 1, or 0 with *WHY (static
 * string) saying what is missing. */
int	 dn_cgroup_mode(const char **why);

/* Can a group be given a cpuset here (v1: the cpuset hierarchy; v2:
 * the cpuset controller offered at the root)?  1, or 0 with *WHY
 * (static string). */
int	 dn_cgroup_can_cpuset(const char **why);

/*
 * Make group NAME ("<run>-<node>") with limits L, for tasks to join
 * (dn_cgroup_join_fds).  0 and *CGP (free with dn_cgroup_destroy), or -1
 * with *CAUSE naming the file that refused and what to do; nothing is
 * left then.
 */
int	 dn_cgroup_create(const char *name, const struct dn_cg_limits *l,
	    struct dn_cgroup **cgp, char **cause);

/* The group's cgroup.procs files, open for writing, into FDS (at most
 * CAP, returned how many): a child writes "0" into each before its exec
 * (spawn.h) and so starts inside the group with all its descendants.
 * The fds belong to the group. */
int	 dn_cgroup_join_fds(struct dn_cgroup *cg, int *fds, int cap);

/* The group's memory usage file ($DN_CGROUP_MEM_FILE of the node's
 * sampler: cgroup_mem_bytes), or NULL without a memory controller. */
const char *dn_cgroup_mem_file(const struct dn_cgroup *cg);

/* What was applied, as the machine fingerprint records it ("cpus=0.5
 * memory=67108864 cpuset=0"; only the parts applied). */
const char *dn_cgroup_applied(const struct dn_cgroup *cg);

/* Read the group's counters into C (a counter the kernel does not keep
 * stays 0).  0, or -1 when the group cannot be read. */
int	 dn_cgroup_read(const struct dn_cgroup *cg, struct dn_cg_counters *c);

/* SIGKILL every task left in the group, wait for them to leave, remove
 * the group (and devnet-<PID> when it is empty), free CG.  Accepts NULL
 * and a half-made group. */
void	 dn_cgroup_destroy(struct dn_cgroup *cg);

/* Remove the groups of devnets that are no longer running (their tasks
 * SIGKILLed first); *N counts the groups removed.  0, or -1 with
 * *CAUSE. */
int	 dn_cgroup_sweep(int *n, char **cause);

#endif
