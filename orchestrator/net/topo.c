/*
 * topo.c: the namespaces, veth pairs, addresses and routes of an emulated
 * network (net/topo.h), through rtnetlink with libmnl; and the sweep of
 * namespaces that a killed devnet left.  Not here: what crosses the hub
 * (net/nft.c), measuring it (net/probe.c).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#include "net/net-internal.h"
#include "net/topo.h"
#include "xalloc.h"

#define NETNS_DIR	"/run/netns"
#define NL_BUF		8192

struct dn_net {
	int	  n;
	char	  base[80];	/* "devnet-PID-START-PIDNS-SEQ" */
	char	**names;	/* [0] hub, [1 + i] node i */
	int	 *fds;		/* -1 = not made */
	char	 *given;	/* [1 + i]: node i's namespace is not ours */
};

static unsigned net_seq;

void
dn_net_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int
dn_net_enter(int nsfd)
{
	return (setns(nsfd, CLONE_NEWNET));
}

int
dn_net_in_ns(int nsfd, int (*fn)(void *), void *arg)
{
	int self, rv, e;

	if ((self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	if (setns(nsfd, CLONE_NEWNET) != 0) {
		e = errno;
		close(self);
		errno = e;
		return (-1);
	}
	rv = fn(arg);
	e = errno;
	if (setns(self, CLONE_NEWNET) != 0)
		abort();	/* a thread stranded in a node's network */
	close(self);
	errno = e;
	return (rv);
}

/*
 * What iproute2 does before it mounts a namespace (`ip netns add`): make
 * /run/netns a mount point of its own (a bind mount of itself) that
 * shares its mounts with the other mount namespaces.  A namespace mounted
 * on the plain directory is hidden for good once a later `ip netns add`
 * bind-mounts /run/netns over it: it can no longer be unmounted there nor
 * unlinked (EBUSY), and the namespace lives until the next boot (issue
 * 38).  Returns 0 or -1 with errno.
 */
static int
netns_dir_ready(void)
{
	int	made = 0;

	if (mkdir(NETNS_DIR, 0755) != 0 && errno != EEXIST)
		return (-1);
	while (mount("", NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) != 0) {
		/* EINVAL: not a mount point yet */
		if (errno != EINVAL || made)
			return (-1);
		if (mount(NETNS_DIR, NETNS_DIR, "none", MS_BIND | MS_REC,
		    NULL) != 0)
			return (-1);
		made = 1;
	}
	return (0);
}

/* Make the named namespace PATH: a new one, bound onto PATH.  Returns its
 * fd or -1. */
static int
ns_make(const char *path)
{
	int fd, self, e = 0;

	if ((fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0)) < 0)
		return (-1);
	close(fd);
	fd = -1;
	if ((self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
		goto fail;
	if (unshare(CLONE_NEWNET) != 0) {
		e = errno;
		close(self);
		goto fail;
	}
	if (mount("/proc/thread-self/ns/net", path, "none", MS_BIND,
	    NULL) != 0)
		e = errno;
	if (setns(self, CLONE_NEWNET) != 0)
		abort();
	close(self);
	if (e == 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0)
		return (fd);
	if (e == 0)
		e = errno;
fail:
	if (e == 0)
		e = errno;
	umount2(path, MNT_DETACH);
	unlink(path);
	errno = e;
	return (-1);
}

/*
 * Remove the named namespace NAME: unmount and unlink its file.  Returns
 * 0, or -1 with WHY (size WHYLEN) saying which step failed and the why.
 */
static int
ns_remove(const char *name, char *why, size_t whylen)
{
	char	path[300];
	int	ue = 0;

	snprintf(path, sizeof(path), "%s/%s", NETNS_DIR, name);
	if (umount2(path, MNT_DETACH) != 0)
		ue = errno;
	if (unlink(path) == 0 || errno == ENOENT)
		return (0);
	if (errno == EBUSY && ue == EINVAL)
		dn_net_seterr(why, whylen, "%s: still mounted beneath a later "
		    "mount on %s (umount: %s; unlink: %s), as a namespace "
		    "mounted before `ip netns add` first made %s a mount "
		    "point is; it goes at the next boot, or after `umount -l "
		    "%s`, which unnames every namespace there", path,
		    NETNS_DIR, strerror(ue), strerror(errno), NETNS_DIR,
		    NETNS_DIR);
	else
		dn_net_seterr(why, whylen, "%s: umount: %s; unlink: %s", path,
		    ue != 0 ? strerror(ue) : "done", strerror(errno));
	return (-1);
}

/* ---- rtnetlink ---- */

struct nlctx {
	struct mnl_socket	*s;
	unsigned		 seq;
};

static int
nl_open_cb(void *arg)
{
	struct nlctx	*c = arg;
	struct timeval	 tv = { 5, 0 };

	if ((c->s = mnl_socket_open(NETLINK_ROUTE)) == NULL)
		return (-1);
	setsockopt(mnl_socket_get_fd(c->s), SOL_SOCKET, SO_RCVTIMEO, &tv,
	    sizeof(tv));
	if (mnl_socket_bind(c->s, 0, MNL_SOCKET_AUTOPID) != 0) {
		mnl_socket_close(c->s);
		c->s = NULL;
		return (-1);
	}
	return (0);
}

static int
nl_open(struct nlctx *c, int nsfd)
{
	c->s = NULL;
	c->seq = (unsigned)time(NULL);
	return (dn_net_in_ns(nsfd, nl_open_cb, c));
}

static struct nlmsghdr *
nl_msg(struct nlctx *c, char *buf, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++c->seq;
	return (nlh);
}

/* Send NLH and wait for its answer; a reply of type RTM_NEWLINK gives its
 * ifindex to *IDX.  Returns 0 or -errno. */
static int
nl_talk(struct nlctx *c, struct nlmsghdr *nlh, int *idx)
{
	char		 buf[NL_BUF];
	ssize_t		 len;
	struct nlmsghdr	*r;

	if (mnl_socket_sendto(c->s, nlh, nlh->nlmsg_len) < 0)
		return (-errno);
	for (;;) {
		if ((len = mnl_socket_recvfrom(c->s, buf, sizeof(buf))) < 0)
			return (errno == EAGAIN ? -ETIMEDOUT : -errno);
		for (r = (struct nlmsghdr *)buf; mnl_nlmsg_ok(r, (int)len);
		    r = mnl_nlmsg_next(r, (int *)&len)) {
			if (r->nlmsg_seq != nlh->nlmsg_seq)
				continue;
			if (r->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e =
				    mnl_nlmsg_get_payload(r);
				return (e->error);
			}
			if (r->nlmsg_type == RTM_NEWLINK && idx != NULL) {
				const struct ifinfomsg *ifi =
				    mnl_nlmsg_get_payload(r);
				*idx = ifi->ifi_index;
			}
		}
	}
}

static int
link_index(struct nlctx *c, const char *name, int *idx)
{
	char		 buf[NL_BUF];
	struct nlmsghdr	*nlh = nl_msg(c, buf, RTM_GETLINK, 0);
	struct ifinfomsg *ifi;

	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	*idx = 0;
	return (nl_talk(c, nlh, idx));
}

static int
link_up(struct nlctx *c, const char *name)
{
	char		 buf[NL_BUF];
	struct nlmsghdr	*nlh = nl_msg(c, buf, RTM_NEWLINK, 0);
	struct ifinfomsg *ifi;

	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	return (nl_talk(c, nlh, NULL));
}

/* A veth pair: NAME here, PEER ("eth0") in namespace PEER_NS. */
static int
veth_add(struct nlctx *c, const char *name, const char *peer, int peer_ns)
{
	char		  buf[NL_BUF];
	struct nlmsghdr	 *nlh = nl_msg(c, buf, RTM_NEWLINK,
	    NLM_F_CREATE | NLM_F_EXCL);
	struct ifinfomsg *ifi, *pi;
	struct nlattr	 *info, *data, *pn;

	ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	pn = mnl_attr_nest_start(nlh, VETH_INFO_PEER);
	pi = (struct ifinfomsg *)((char *)nlh + nlh->nlmsg_len);
	memset(pi, 0, sizeof(*pi));
	nlh->nlmsg_len += MNL_ALIGN(sizeof(*pi));
	mnl_attr_put_strz(nlh, IFLA_IFNAME, peer);
	mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)peer_ns);
	mnl_attr_nest_end(nlh, pn);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
	return (nl_talk(c, nlh, NULL));
}

static int
addr_add(struct nlctx *c, int idx, uint32_t addr, int plen)
{
	char		 buf[NL_BUF];
	struct nlmsghdr	*nlh = nl_msg(c, buf, RTM_NEWADDR,
	    NLM_F_CREATE | NLM_F_EXCL);
	struct ifaddrmsg *ifa;

	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (unsigned char)plen;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (unsigned)idx;
	mnl_attr_put_u32(nlh, IFA_LOCAL, addr);
	mnl_attr_put_u32(nlh, IFA_ADDRESS, addr);
	return (nl_talk(c, nlh, NULL));
}

/* The /16 DST (network order) through GW on interface IDX. */
static int
route_add(struct nlctx *c, int idx, uint32_t dst, uint32_t gw)
{
	char		 buf[NL_BUF];
	struct nlmsghdr	*nlh = nl_msg(c, buf, RTM_NEWROUTE,
	    NLM_F_CREATE | NLM_F_EXCL);
	struct rtmsg	*rt;

	rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));
	rt->rtm_family = AF_INET;
	rt->rtm_dst_len = 16;
	rt->rtm_table = RT_TABLE_MAIN;
	rt->rtm_protocol = RTPROT_BOOT;
	rt->rtm_scope = RT_SCOPE_UNIVERSE;
	rt->rtm_type = RTN_UNICAST;
	mnl_attr_put_u32(nlh, RTA_DST, dst);
	mnl_attr_put_u32(nlh, RTA_GATEWAY, gw);
	mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)idx);
	return (nl_talk(c, nlh, NULL));
}

static int
forward_on_cb(void *arg)
{
	int fd, ok;

	(void)arg;
	if ((fd = open("/proc/sys/net/ipv4/ip_forward", O_WRONLY |
	    O_CLOEXEC)) < 0)
		return (-1);
	ok = write(fd, "1\n", 2) == 2;
	close(fd);
	return (ok ? 0 : -1);
}

/* ---- the topology ---- */

uint32_t
dn_net_block(int b)
{
	return (htonl(0x0a000000u | (uint32_t)(DN_NET_PLAN_OCTET + b) << 16));
}

int
dn_net_blocks(int endpoints)
{
	return ((endpoints + 255) / 256);
}

/* Endpoint I's /24 (host order): block I / 256, third octet I % 256. */
static uint32_t
subnet_of(int i)
{
	return (ntohl(dn_net_block(i / 256)) | (uint32_t)(i % 256) << 8);
}

uint32_t
dn_net_addr(int i)
{
	return (htonl(subnet_of(i) | 2));
}

uint32_t
dn_net_hub_addr(int i)
{
	return (htonl(subnet_of(i) | 1));
}

void
dn_net_addr_str(int i, char *buf, size_t cap)
{
	snprintf(buf, cap, "10.%d.%d.2", DN_NET_PLAN_OCTET + i / 256,
	    i % 256);
}

void
dn_net_hub_ifname(int i, char *buf, size_t cap)
{
	snprintf(buf, cap, "h%d", i);
}

int
dn_net_nodes(const struct dn_net *net)
{
	return (net->n);
}

int
dn_net_ns_fd(const struct dn_net *net, int i)
{
	return (net->fds[i + 1]);
}

const char *
dn_net_ns_name(const struct dn_net *net, int i)
{
	return (net->names[i + 1]);
}

/* Node I's pair, addresses and route; the hub's socket HUB, the node's
 * NODE. */
static int
wire_node(struct dn_net *net, struct nlctx *hub, int i, char *err,
    size_t errlen)
{
	struct nlctx	node;
	char		hif[16];
	int		idx, rv, b;
	const char     *step;

	dn_net_hub_ifname(i, hif, sizeof(hif));
	if (nl_open(&node, net->fds[i + 1]) != 0) {
		dn_net_seterr(err, errlen, "netlink socket in %s: %s",
		    net->names[i + 1], strerror(errno));
		return (-1);
	}
	step = "veth pair";
	if ((rv = veth_add(hub, hif, "eth0", net->fds[i + 1])) != 0)
		goto out;
	step = "hub address";
	if ((rv = link_index(hub, hif, &idx)) != 0 ||
	    (rv = addr_add(hub, idx, dn_net_hub_addr(i), 24)) != 0 ||
	    (rv = link_up(hub, hif)) != 0)
		goto out;
	step = "node address";
	if ((rv = link_up(&node, "lo")) != 0 ||
	    (rv = link_index(&node, "eth0", &idx)) != 0 ||
	    (rv = addr_add(&node, idx, dn_net_addr(i), 24)) != 0 ||
	    (rv = link_up(&node, "eth0")) != 0)
		goto out;
	step = "node route";
	for (b = 0; rv == 0 && b < dn_net_blocks(net->n); b++)
		rv = route_add(&node, idx, dn_net_block(b),
		    dn_net_hub_addr(i));
out:
	mnl_socket_close(node.s);
	if (rv != 0)
		dn_net_seterr(err, errlen, "%s of node %d in %s: %s", step, i,
		    net->names[i + 1], strerror(-rv));
	return (rv != 0 ? -1 : 0);
}

/* The start time of process PID (clock ticks after boot, field 22 of
 * /proc/PID/stat), or 0 when it is not there. */
static unsigned long long
proc_start(long pid)
{
	char			 path[64], buf[1024], *p;
	unsigned long long	 v = 0;
	ssize_t			 n;
	int			 fd, f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (0);
	buf[n] = '\0';
	/* after the command's ")", which may hold anything: field 3 on */
	if ((p = strrchr(buf, ')')) == NULL)
		return (0);
	for (f = 2; f < 22 && p != NULL; f++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		v = strtoull(p + 1, NULL, 10);
	return (v);
}

/* This process's pid namespace (the inode of /proc/self/ns/pid). */
static unsigned long long
pidns_id(void)
{
	struct stat	st;

	if (stat("/proc/self/ns/pid", &st) != 0)
		return (0);
	return ((unsigned long long)st.st_ino);
}

static int
make_all(struct dn_net *net, char *err, size_t errlen)
{
	char	path[300];
	int	i;

	if (netns_dir_ready() != 0) {
		dn_net_seterr(err, errlen, "cannot make %s a shared mount "
		    "point: %s (devnet needs root, or CAP_SYS_ADMIN)",
		    NETNS_DIR, strerror(errno));
		return (-1);
	}
	for (i = 0; i <= net->n; i++) {
		if (net->given[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", NETNS_DIR,
		    net->names[i]);
		if ((net->fds[i] = ns_make(path)) < 0) {
			dn_net_seterr(err, errlen, "network namespace '%s': %s "
			    "(devnet needs root, or CAP_SYS_ADMIN and "
			    "CAP_NET_ADMIN)", path, strerror(errno));
			return (-1);
		}
	}
	return (0);
}

int
dn_net_create(struct dn_net **np, int nodes, char *err, size_t errlen)
{
	return (dn_net_create_in(np, nodes, NULL, err, errlen));
}

int
dn_net_create_in(struct dn_net **np, int nodes, const int *node_fds,
    char *err, size_t errlen)
{
	struct dn_net	*net;
	struct nlctx	 hub = { NULL, 0 };
	int		 i, rv = -1;

	*np = NULL;
	if (nodes < 1 || nodes > DN_NET_MAX) {
		dn_net_seterr(err, errlen, "an emulated network holds 1..%d nodes, "
		    "not %d", DN_NET_MAX, nodes);
		for (i = 0; node_fds != NULL && i < nodes; i++)
			if (node_fds[i] >= 0)
				close(node_fds[i]);
		return (-1);
	}
	net = dn_xcalloc(1, sizeof(*net));
	net->n = nodes;
	snprintf(net->base, sizeof(net->base), DN_NET_PREFIX "%ld-%llu-%llu-%u",
	    (long)getpid(), proc_start(getpid()), pidns_id(),
	    __atomic_fetch_add(&net_seq, 1, __ATOMIC_RELAXED));
	net->names = dn_xcalloc((size_t)nodes + 1, sizeof(*net->names));
	net->fds = dn_xcalloc((size_t)nodes + 1, sizeof(*net->fds));
	net->given = dn_xcalloc((size_t)nodes + 1, 1);
	for (i = 0; i <= nodes; i++) {
		net->fds[i] = i > 0 && node_fds != NULL ? node_fds[i - 1] : -1;
		net->given[i] = net->fds[i] >= 0;
		net->names[i] = i == 0 ? dn_xasprintf("%s-hub", net->base) :
		    dn_xasprintf("%s-n%d%s", net->base, i - 1, net->given[i] ?
		    " (a container's)" : "");
	}
	if (make_all(net, err, errlen) != 0)
		goto out;
	if (nl_open(&hub, net->fds[0]) != 0) {
		dn_net_seterr(err, errlen, "netlink socket in %s: %s", net->names[0],
		    strerror(errno));
		goto out;
	}
	if ((rv = link_up(&hub, "lo")) != 0) {
		dn_net_seterr(err, errlen, "lo up in %s: %s", net->names[0],
		    strerror(-rv));
		rv = -1;
		goto out;
	}
	if (dn_net_in_ns(net->fds[0], forward_on_cb, NULL) != 0) {
		dn_net_seterr(err, errlen, "ip_forward in %s: %s", net->names[0],
		    strerror(errno));
		rv = -1;
		goto out;
	}
	for (i = 0; i < nodes; i++)
		if ((rv = wire_node(net, &hub, i, err, errlen)) != 0)
			goto out;
	rv = 0;
out:
	if (hub.s != NULL)
		mnl_socket_close(hub.s);
	if (rv != 0) {
		dn_net_destroy(net);
		return (-1);
	}
	*np = net;
	return (0);
}

void
dn_net_destroy(struct dn_net *net)
{
	char	why[512];
	int	i;

	if (net == NULL)
		return;
	/* nodes first, the hub last: a half-removed network never routes */
	for (i = net->n; i >= 0; i--) {
		if (net->fds[i] >= 0) {
			close(net->fds[i]);
			if (!net->given[i])
				(void)ns_remove(net->names[i], why,
				    sizeof(why));
		}
		free(net->names[i]);
	}
	free(net->names);
	free(net->fds);
	free(net->given);
	free(net);
}

/*
 * 1 if the devnet that made namespace NAME is gone, 0 if it runs or
 * nobody here can tell.  "devnet-PID-START-PIDNS-SEQ-...": gone when no
 * process PID started at START, asked only in its own pid namespace (a
 * pid of another one means nothing here); "devnet-PID-SEQ-..." (before
 * issue 38): gone when no PID runs, which a reused pid fools.
 */
static int
owner_gone(const char *name)
{
	unsigned long long	 f[4];
	const char		*p;
	char			*end;
	int			 n;

	if (strncmp(name, DN_NET_PREFIX, strlen(DN_NET_PREFIX)) != 0)
		return (0);
	p = name + strlen(DN_NET_PREFIX);
	for (n = 0; n < 4; n++) {
		if (*p < '0' || *p > '9')
			break;
		f[n] = strtoull(p, &end, 10);
		if (*end != '-')
			break;
		p = end + 1;
	}
	if (n < 2 || f[0] == 0 || f[0] > INT32_MAX)
		return (0);
	if (n < 4) {	/* PID-SEQ-role */
		if (f[0] == (unsigned long long)getpid())
			return (0);
		return (kill((pid_t)f[0], 0) != 0 && errno == ESRCH);
	}
	if (f[2] != pidns_id())
		return (0);
	return (proc_start((long)f[0]) != f[1]);
}

int
dn_net_sweep(int *failed, char *err, size_t errlen)
{
	DIR		*d;
	struct dirent	*e;
	char		 why[512];
	int		 n = 0;

	*failed = 0;
	if ((d = opendir(NETNS_DIR)) == NULL) {
		if (errno == ENOENT)
			return (0);
		dn_net_seterr(err, errlen, "%s: %s", NETNS_DIR, strerror(errno));
		return (-1);
	}
	while ((e = readdir(d)) != NULL) {
		if (!owner_gone(e->d_name))
			continue;	/* its devnet still runs */
		if (ns_remove(e->d_name, why, sizeof(why)) == 0)
			n++;
		else if ((*failed)++ == 0)	/* the first says why */
			dn_net_seterr(err, errlen, "%s", why);
	}
	closedir(d);
	return (n);
}
