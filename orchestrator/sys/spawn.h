/*
 * spawn.h: starting and stopping node processes.
 *
 * Every child is started with clone(CLONE_VM | CLONE_VFORK) and exec'd
 * (dn_child_spawn: no copy of the orchestrator's page tables, no
 * copy-on-write faults after it; argv arrays, never a shell) into its
 * own process group, with PR_SET_PDEATHSIG(SIGKILL) so that no node
 * outlives the orchestrator even when the orchestrator is SIGKILLed, and
 * with its stdout and stderr appended to a file of the trial dir.  Call
 * spawn_start only from the main thread: the death signal is tied to the
 * thread that starts the child.
 */
#ifndef DN_SPAWN_H
#define DN_SPAWN_H

#include <sys/types.h>

struct proc {
	pid_t		 pid;		/* 0 when not running */
	int		 status;	/* wait status once exited */
	int		 exited;	/* 1 once reaped */
};

/*
 * Start ARGV[0] with ARGV, the current environment plus ENV_ADD ("K=V",
 * NULL-terminated, may be NULL), stdout/stderr appended to OUT_PATH.
 * Returns 0 and fills P, or -1 with *CAUSE (exec failures of the child
 * show up as exit status 127 with the reason in OUT_PATH).
 */
int	 spawn_start(struct proc *p, char *const *argv, char *const *env_add,
	    const char *out_path, char **cause);

/* The same, the child entering network namespace NETNS_FD first (-1:
 * this one), before exec: the emulated network's nodes (net/topo.h). */
int	 spawn_start_in(struct proc *p, char *const *argv,
	    char *const *env_add, const char *out_path, int netns_fd,
	    char **cause);

/* The same, the child writing "0" into each of the NCG cgroup.procs
 * files CG_FDS first (sys/cgroup.h): it and all it starts run in those
 * groups from before its exec.  A write refused: exit 127, the reason
 * in OUT_PATH. */
int	 spawn_start_cg(struct proc *p, char *const *argv,
	    char *const *env_add, const char *out_path, int netns_fd,
	    const int *cg_fds, int ncg, char **cause);

/* Reap P if it has exited (non-blocking).  Returns 1 if it has exited
 * (now or before), 0 if still running. */
int	 spawn_poll(struct proc *p);

/* Send SIG to P's process group (P must be running). */
int	 spawn_signal(struct proc *p, int sig);

/*
 * SIGTERM every running process of PS, wait up to GRACE_MS for them to
 * exit, then SIGKILL the rest and reap them.  Returns how many needed
 * SIGKILL.
 */
int	 spawn_stop_all(struct proc *const *ps, int n, int grace_ms);

/* Describe a wait status ("exit 1", "killed by SIGSEGV") into BUF. */
const char *spawn_status_str(int status, char *buf, size_t len);

/*
 * The program NAME installed beside this executable: "<dir of
 * /proc/self/exe>/NAME" written into BUF of CAP bytes and returned, or
 * NAME itself (left to PATH) when /proc/self/exe cannot be read.
 */
const char *spawn_beside_self(const char *name, char *buf, size_t cap);
/* The devnet-node installed beside this devnet executable (static
 * storage): the default node binary, and what docker's namespace
 * holders' image is built around. */
const char *spawn_default_node_binary(void);

/* The last NLINES lines of PATH as a new string (caller frees), or NULL;
 * control bytes shown escaped (dn_escape_ctl). */
char	*spawn_tail(const char *path, int nlines);

#endif
