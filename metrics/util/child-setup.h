/*
 * child-setup.h: the first steps of a forked child that devnet runs and
 * must not outlive its parent (orchestrator/spawn.c's nodes, devnet-probe's
 * COMMAND), and the fork that starts it.  Not exec, signal dispositions
 * or file descriptors: those differ between the callers and stay with
 * them.
 */
#ifndef DN_CHILD_SETUP_H
#define DN_CHILD_SETUP_H

#include <sys/types.h>

/*
 * For dn_child_spawn's FN and what it calls before its exec or _exit:
 * not instrumented by AddressSanitizer, which takes a noreturn call
 * (_exit) on a stack it did not make for a stack switch and writes a
 * warning into the child's output (the node's post-mortem).
 */
#define DN_CHILD_FN	__attribute__((no_sanitize_address))

/*
 * In the child, right after fork: make it the leader of its own process
 * group (so a signal to the group reaches whatever it starts), have the
 * kernel SIGKILL it when the parent dies, and _exit(126) if PARENT (the
 * parent's pid, taken before fork) died before that took hold.  Only
 * async-signal-safe calls; returns only in a child whose parent lives.
 */
DN_CHILD_FN void dn_child_setup(pid_t parent);

/*
 * fork(2) a child into its own process group: in the child (0 returned)
 * dn_child_setup has run; in the parent (the child's pid returned) the
 * group is set from this side too, so a signal sent right away reaches
 * the group even before the child ran setpgid.  -1 with errno when fork
 * fails.
 */
pid_t	 dn_child_fork(void);

/*
 * dn_child_fork without the fork's copy: clone(2) with CLONE_VM |
 * CLONE_VFORK, the child running FN(ARG) on a stack of its own in the
 * parent's memory after dn_child_setup, and the calling thread held
 * until the child execs or exits (the kernel's vfork wait).  No page
 * tables copied and no copy-on-write faults in the parent while the
 * child is on its way to exec: forking ten nodes from the orchestrator
 * took ~110 ms that way on this VM (issue 26).  FN must only make
 * async-signal-safe calls, write no memory the parent reads, and end in
 * execve or _exit.  The child's pid, or -1 with errno.
 */
pid_t	 dn_child_spawn(int (*fn)(void *), void *arg);

#endif
