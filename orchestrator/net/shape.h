/*
 * shape.h: bandwidth per link, as HTB classes on an interface of a
 * namespace (the hub's veth toward a node), set through rtnetlink.
 *
 * One class per link mark: the root qdisc is HTB (handle 1:), each link
 * a class 1:I+1 with rate = ceil = the link's rate (no borrowing), a
 * pfifo of the link's queue length under it, and a filter sending the
 * packets whose skb mark is the link's mark to that class (cls_bpf with
 * a four-instruction classic BPF program: this kernel has no cls_fw).
 * Packets of no class pass unshaped (HTB's direct queue).  The mark is the one
 * the hub's rule sets for the link (net/nft.h), which the packet still
 * carries when it leaves the hub.  This file is devnet's only tc caller.
 */
#ifndef DN_NET_SHAPE_H
#define DN_NET_SHAPE_H

#include <stddef.h>
#include <stdint.h>

/* Classes on one interface, at most. */
#define DN_SHAPE_MAX	4096

/* One link's bandwidth: packets with skb mark MARK leave at RATE_BPS
 * bits per second at most (counted with their Ethernet header, as the
 * wire would), QUEUE packets waiting at most (0: 1000), the rest
 * dropped. */
struct dn_shape_class {
	uint32_t	mark;
	uint64_t	rate_bps;
	uint32_t	queue;
};

/* What one class has done (dn_shape_read). */
struct dn_shape_stats {
	uint32_t	mark;
	uint64_t	bytes;		/* sent */
	uint64_t	packets;
	uint64_t	drops;		/* queue full */
	uint64_t	overlimits;	/* times a packet had to wait */
};

/*
 * Shape interface IFNAME in namespace NETNS_FD (-1: the calling
 * thread's) with the N classes C (marks unique and not 0, rates > 0),
 * replacing whatever root qdisc it had; N = 0 leaves it unshaped.  The
 * calling thread enters the namespace and comes back.  Returns 0, or -1
 * with the reason in ERR ("shape h-b: class for mark 3: Invalid
 * argument").
 */
int	 dn_shape_set(int netns_fd, const char *ifname,
	    const struct dn_shape_class *c, size_t n, char *err,
	    size_t errlen);

/* Remove the shaping from IFNAME (its root qdisc back to the default);
 * 0, or -1 with ERR.  Nothing to remove is fine. */
int	 dn_shape_clear(int netns_fd, const char *ifname, char *err,
	    size_t errlen);

/*
 * The counters of every class on IFNAME into OUT (room for MAX), by
 * mark, in class order; returns how many, or -1 with ERR.  The proof
 * that shaping took effect: bytes went through the class, overlimits
 * counted when the link was busy.
 */
int	 dn_shape_read(int netns_fd, const char *ifname,
	    struct dn_shape_stats *out, size_t max, char *err, size_t errlen);

#endif
