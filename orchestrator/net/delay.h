/*
 * delay.h: devnet's link emulator for latency and jitter, a thread that
 * holds the packets an NFQUEUE rule hands it and lets each go at its
 * link's due time (this kernel has no sch_netem).
 *
 * The rules live elsewhere: a rule in the hub namespace sets the skb mark
 * to the link's id and queues the packet to queue QUEUE (an xt NFQUEUE
 * target through nft_compat: this kernel has no native nft `queue`).  The
 * emulator receives only the packet's metadata (NFQNL_COPY_META: id and
 * mark, never the payload), keeps one FIFO per link, and gives the
 * verdict NF_ACCEPT when the packet is due, many verdicts per send.
 *
 * Latency is one way: a link is one direction (src -> dst), and the
 * other direction is another mark with its own delay.  Jitter is uniform
 * in [delay - jitter, delay + jitter] (never below 0) and keeps the
 * link's order: a packet is never let go before the one queued ahead of
 * it on the same link, so on a busy link jitter shifts the spread up.
 *
 * Fail-closed: the queue is bound without NFQA_CFG_F_FAIL_OPEN and the
 * rule must not carry `bypass`, so if the emulator stops or dies, queued
 * traffic is dropped by the kernel rather than passing undelayed; so is
 * traffic beyond the queue's length (DN_DELAY_QUEUE_MAX packets held).
 * This file is the only libnetfilter_queue caller.
 */
#ifndef DN_NET_DELAY_H
#define DN_NET_DELAY_H

#include <stddef.h>
#include <stdint.h>

/* Packets held at once, at most (the kernel queue's length). */
#define DN_DELAY_QUEUE_MAX	65536

/* One direction of one link: packets with skb mark MARK wait DELAY_US
 * (+- JITTER_US).  Mark 0 is never a link (unmarked packets pass at
 * once). */
struct dn_delay_link {
	uint32_t	mark;
	uint32_t	delay_us;
	uint32_t	jitter_us;
};

/* What the emulator has done so far (dn_delay_stats). */
struct dn_delay_stats {
	uint64_t	packets;	/* verdicts given (held, then let go) */
	uint64_t	held;		/* packets held right now */
	uint64_t	max_hold_err_us; /* latest any packet left past its due time */
	uint64_t	drops;		/* dropped by the kernel: queue full, socket
					   full (-1 when it cannot be read) */
	uint64_t	unknown;	/* packets whose mark no link has: let go
					   at once */
	uint64_t	cpu_ns;		/* the emulator thread's CPU time */
	int		realtime;	/* 1: at SCHED_FIFO (rt-budget.h); 0:
					   refused, at the default priority,
					   where a busy machine delays it */
	uint64_t	demotions;	/* 100 ms windows it ran past its CPU
					   budget, at the default priority */
};

struct dn_delay;

/*
 * Bind NFQUEUE QUEUE in the network namespace NETNS_FD (-1: the calling
 * thread's), with the N LINKS (marks unique, N at most 65536), and start
 * the emulator thread.  The netlink socket is opened inside that
 * namespace (the calling thread enters it and comes back).  On success
 * *OUT is the emulator (the caller stops it with dn_delay_stop) and 0 is
 * returned; else -1 with the reason in ERR ("nfqueue 3: bound by another
 * process").
 */
int	 dn_delay_start(struct dn_delay **out, int netns_fd, uint16_t queue,
	    const struct dn_delay_link *links, size_t n, char *err,
	    size_t errlen);

/*
 * Replace the links with these N (marks not named any more pass at once).
 * A new delay applies to packets queued from now on; packets held keep
 * their due time, and a link's order is kept, so a shorter delay takes
 * effect once the packets held under the longer one have gone.  Returns
 * 0, or -1 with errno (EINVAL: a duplicate mark or mark 0; ENOMEM).
 */
int	 dn_delay_update(struct dn_delay *d, const struct dn_delay_link *links,
	    size_t n);

/* What D has done so far, into *OUT (safe while D runs). */
void	 dn_delay_stats(const struct dn_delay *d, struct dn_delay_stats *out);

/*
 * Stop the thread, unbind the queue, free D (NULL is fine).  Packets held
 * are dropped with the queue (fail-closed, as if it had died).
 */
void	 dn_delay_stop(struct dn_delay *d);

#endif
