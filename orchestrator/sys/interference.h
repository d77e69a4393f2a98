/*
 * interference.h: what else used this machine (issue 36): the CPU time
 * of every process outside this devnet's own process trees, from
 * /proc/stat minus the trees of this process (itself, every descendant,
 * what they reaped); steal time; the load average; CPU and memory
 * pressure where the kernel has PSI (/proc/pressure).  Reads /proc only;
 * knows no orchestrator types.
 *
 * Not here: which window a trial takes, the threshold, the facts and
 * events (run/interference.c).
 */
#ifndef DN_SYS_INTERFERENCE_H
#define DN_SYS_INTERFERENCE_H

#include <stdint.h>

/* Counters at one moment; the figures of a window are the differences
 * of two reads. */
struct dn_itf_read {
	uint64_t	 ns;		/* dn_now_ns() of the read */
	double		 busy_s;	/* every CPU's non-idle time, steal
					   not included */
	double		 steal_s;	/* taken by the hypervisor */
	double		 own_s;		/* this devnet's trees */
	double		 load1;		/* NAN when not readable */
	double		 psi_cpu_s;	/* some task waited for a CPU */
	double		 psi_mem_s;	/* some task waited for memory */
	int		 have_psi;
};

/* Read the counters now into R.  0, or -1 when /proc/stat cannot be
 * read (R's CPU figures 0 then).  Reads within 100 ms of the last one
 * return it again: trials side by side share one walk of /proc. */
int	 dn_itf_read(struct dn_itf_read *r);

#endif
