/*
 * rt-budget.h: a realtime thread of the emulated network (the link
 * emulator, the probe) with a bounded share of one CPU (issue 40).
 *
 * Both run at SCHED_FIFO so that a busy machine does not add its run
 * queue to the links' delay.  But a FIFO thread is never preempted by
 * the nodes: at 100 devnet-nodes the packets through the emulator and
 * the probes kept both threads busy, they took both cores, and the nodes
 * and devnet's own main thread (at SCHED_OTHER) got the kernel's 5 % of
 * RT throttling: heights stopped, the trial never ended, even SIGTERM
 * waited.  So each such thread measures its own CPU time over windows of
 * 100 ms and, past its budget, drops to SCHED_OTHER for the rest of the
 * window: it then shares the CPUs fairly, and a link whose delay grows
 * past its bound fails its proof (a result) instead of stalling the
 * devnet.
 */
#ifndef DN_NET_RT_BUDGET_H
#define DN_NET_RT_BUDGET_H

#include <stdint.h>

struct dn_rt_budget {
	int		 prio;		/* SCHED_FIFO priority */
	uint64_t	 budget_ns;	/* CPU per window */
	uint64_t	 win_start_ns;
	uint64_t	 cpu_start_ns;
	int		 fifo;		/* 1: at SCHED_FIFO now */
	int		 refused;	/* SCHED_FIFO refused at the start: not
					   root, or a cpu cgroup with no
					   realtime runtime (a container's) */
	uint64_t	 demotions;	/* windows it ran past the budget */
};

/* Put the calling thread at SCHED_FIFO PRIO (when allowed: root) with at
 * most PERMILLE thousandths of one CPU. */
void	 dn_rt_budget_start(struct dn_rt_budget *b, int prio, int permille);
/* Called by that thread once per loop: past the budget, SCHED_OTHER until
 * the window ends; at a new window, SCHED_FIFO again. */
void	 dn_rt_budget_tick(struct dn_rt_budget *b);

#endif
