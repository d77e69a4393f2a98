/*
 * topo.h: an emulated network of N nodes on this host, built through
 * rtnetlink (libmnl): a network namespace per node and one hub namespace
 * that routes between them.  Nothing is added to the host's namespace.
 *
 * Layout: namespaces are named "devnet-PID-START-PIDNS-SEQ-hub" and
 * "...-nI" (PID, its start time in clock ticks after boot and its pid
 * namespace's inode: who made them, which a reused pid cannot fake; files
 * in /run/netns, made a shared mount point first as `ip netns add` does,
 * so `ip netns list` shows them and the next run can sweep them after a
 * SIGKILL); nodes' namespaces given by the caller
 * (dn_net_create_in: containers') get no file.  Node I has its address
 * (the plan below) /24 on its "eth0", the hub the same /24's .1 on "hI"
 * (the other end of the pair); each node routes the plan's /16s in use
 * through the hub, and the hub forwards.  Up to DN_NET_MAX endpoints.
 *
 * The address plan (issue 40): endpoint I is 10.(99 + I / 256).(I %
 * 256).2, one /16 per 256 endpoints, DN_NET_PLAN_BLOCKS of them (10.99.
 * 0.0 to 10.162.255.255, 16,384 endpoints).  Up to 255 endpoints it is
 * the plan of before, 10.99.I.2 and one route of 10.99.0.0/16; the
 * 300th endpoint (I = 299) is 10.100.43.2, and every node then routes
 * 10.99.0.0/16 and 10.100.0.0/16 through the hub.  What else stops at
 * DN_NET_MAX: nft.c's source map sent in one message of 256 elements and
 * network.nodes' check (scenario.c); docs/scale.md.
 *
 * Knows no orchestrator types (like sys/).  Not here: conditions
 * (net/nft.h), the probe (net/probe.h).
 */
#ifndef DN_NET_TOPO_H
#define DN_NET_TOPO_H

#include <stddef.h>
#include <stdint.h>

#define DN_NET_PREFIX	"devnet-"	/* every namespace devnet makes */
#define DN_NET_MAX	255
#define DN_NET_PLAN_OCTET	99	/* the first /16: 10.99.0.0 */
#define DN_NET_PLAN_BLOCKS	64
#define DN_NET_PLAN_MAX		(DN_NET_PLAN_BLOCKS * 256)

struct dn_net;

/*
 * Build the namespaces, the veth pairs, the addresses and the routes for
 * NODES nodes.  All or nothing: on error what was made is removed, -1 is
 * returned and ERR says what failed.  *NP is the caller's: dn_net_destroy.
 */
int	 dn_net_create(struct dn_net **np, int nodes, char *err, size_t errlen);
/*
 * The same with some nodes' namespaces made by someone else (a
 * container's, /proc/PID/ns/net): NODE_FDS[I] >= 0 is node I's, which NET
 * takes over (closed at dn_net_destroy, or here on error); the hub and the
 * nodes whose NODE_FDS[I] is -1 (all when NODE_FDS is NULL) are made and
 * named here.  Node I gets its pair, address and route in it all the same.
 */
int	 dn_net_create_in(struct dn_net **np, int nodes, const int *node_fds,
	    char *err, size_t errlen);
/* Remove every namespace of NET (their veth pairs and nft tables go with
 * them) and free it.  Accepts NULL and half-built topologies. */
void	 dn_net_destroy(struct dn_net *net);
int	 dn_net_nodes(const struct dn_net *net);
/* The namespace fd of node I, or of the hub when I is -1 (NET keeps it). */
int	 dn_net_ns_fd(const struct dn_net *net, int i);
/* Its /run/netns name ("devnet-123-0-n2"), NET keeps it. */
const char *dn_net_ns_name(const struct dn_net *net, int i);
/* Endpoint I's address (0 <= I < DN_NET_PLAN_MAX), network byte order,
 * and as text into BUF; the hub's address on its pair (the gateway). */
uint32_t dn_net_addr(int i);
void	 dn_net_addr_str(int i, char *buf, size_t cap);
uint32_t dn_net_hub_addr(int i);
/* How many /16s ENDPOINTS take, and the B-th one (network order): each
 * node routes blocks 0 .. dn_net_blocks(N) - 1 through the hub. */
int	 dn_net_blocks(int endpoints);
uint32_t dn_net_block(int b);
/* The hub-side interface that leads to node I ("h2"), into BUF. */
void	 dn_net_hub_ifname(int i, char *buf, size_t cap);

/*
 * Run FN(ARG) with the calling thread inside namespace NSFD, then come
 * back.  Sockets FN opens stay in that namespace.  Returns FN's value, or
 * -1 with errno set when the namespace cannot be entered.
 */
int	 dn_net_in_ns(int nsfd, int (*fn)(void *), void *arg);

/*
 * Move the calling thread into namespace NSFD for good (setns of
 * CLONE_NEWNET moves only this thread): a load thread whose library opens
 * its sockets itself (libcurl, the http load) enters the load's
 * namespace once.  Returns 0, or -1 with errno.
 */
int	 dn_net_enter(int nsfd);

/*
 * Remove what runs of devnet that are gone left behind: every
 * "devnet-PID-START-PIDNS-*" namespace of this pid namespace whose PID is
 * not the process that started at START (a reused pid does not keep
 * them; another pid namespace's are left alone), and every older
 * "devnet-PID-*" one whose PID is not alive.  Returns how many were
 * removed and sets *FAILED to how many could not be, ERR then saying
 * what and why of the first; or -1 (ERR says why) when /run/netns cannot
 * be read.
 */
int	 dn_net_sweep(int *failed, char *err, size_t errlen);

#endif
