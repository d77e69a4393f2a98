/*
 * netlab.h: the network the emulator tests and the benchmark stand on.
 * Two namespaces, A (10.77.1.2) and B (10.77.2.2), each joined by a veth
 * pair to a routed hub namespace (10.77.1.1, 10.77.2.1).  In the hub,
 * iptables marks what it forwards, A -> B with mark 1 and B -> A with
 * mark 2, and (when asked) queues all of it to one NFQUEUE without
 * bypass.  Built with the ip and iptables commands: the lab is the
 * test's scaffolding, not the code under test.  Names carry the pid;
 * a lab whose process is gone is swept by the next netlab_up.
 */
#ifndef DN_TEST_NETLAB_H
#define DN_TEST_NETLAB_H

#include <stddef.h>
#include <stdint.h>

enum { LAB_A, LAB_B, LAB_HUB };

struct netlab {
	char	ns[3][32];
	int	fd[3];		/* the namespaces, open */
	double	last_send_s;	/* how long netlab_oneway took to send */
	/* The machine's own lateness during the last netlab_oneway or
	 * netlab_pingpong: on each CPU a SCHED_OTHER thread pinned there
	 * (as the kernel's ksoftirqd, which forwards a packet the emulator
	 * let go when the CPUs are busy) asks to wake every millisecond;
	 * how late one woke at worst, in ms. */
	double	last_stall_ms;
};

/* Build the lab; QUEUE >= 0 adds the NFQUEUE rule.  0, or -1 with a
 * reason printed. */
int	 netlab_up(struct netlab *l, int queue);
/* Remove everything netlab_up made (safe on a half-made lab). */
void	 netlab_down(struct netlab *l);
/* Run a shell command; its exit status. */
int	 netlab_sh(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));
/* A socket of TYPE made inside namespace NSFD (the calling thread goes
 * in and comes back); -1 on error. */
int	 netlab_socket(int nsfd, int type);
/* The address of side SIDE (LAB_A or LAB_B), network order. */
uint32_t netlab_addr(int side);

/* COUNT UDP packets from side FROM to the other side, GAP_US apart, each
 * carrying its send time: one-way delays in OUT_MS[seq] (-1: lost),
 * *ORDERED 1 if they arrived in send order, the machine's lateness
 * meanwhile in L->last_stall_ms.  Returns how many arrived. */
size_t	 netlab_oneway(struct netlab *l, int from, size_t count,
	    unsigned gap_us, double *out_ms, int *ordered);
/* COUNT UDP pings from A, echoed by B, GAP_US apart: round trips in
 * OUT_MS, the machine's lateness meanwhile in L->last_stall_ms.  Returns
 * how many came back. */
size_t	 netlab_pingpong(struct netlab *l, size_t count, unsigned gap_us,
	    double *out_ms);
/* TCP bulk from A to B for SECS seconds: the goodput over the last
 * SECS - 1 of them, in bit/s (0 if the transfer failed). */
double	 netlab_tcp_rate(struct netlab *l, double secs);

/* The P-th percentile (0..100) of the N values >= 0 in V (sorts a copy). */
double	 netlab_pct(const double *v, size_t n, double p);
double	 netlab_now_ms(void);

#endif
