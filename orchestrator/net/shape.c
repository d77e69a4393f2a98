/*
 * shape.c: shape.h's HTB classes, mark filters and their counters, through
 * rtnetlink with libmnl (what `tc qdisc/class/filter add` would send).
 * Everything runs inside the namespace (net/topo.h's dn_net_in_ns): the
 * interface's index and the socket both belong to it.  Not here: the
 * marks (net/nft.c) and the latency (net/delay.c).
 */
#include "net/shape.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/gen_stats.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/topo.h"

#define HTB_HANDLE	0x10000u	/* 1: */
#define FILTER_PRIO	1
#define DEFAULT_QUEUE	1000

struct job {
	const char	*ifname;
	const struct dn_shape_class *c;
	size_t		n;
	struct dn_shape_stats *out;	/* dn_shape_read */
	size_t		max, got;
	uint32_t	*minor_mark;	/* class minor -> mark, read from filters */
	size_t		nminor;
	char		*err;
	size_t		errlen;
	/* Inside the namespace. */
	struct mnl_socket *nl;
	unsigned	portid, seq;
	int		ifindex;
	char		buf[8192];
};

static struct nlmsghdr *
tc_msg(struct job *j, uint16_t type, uint16_t flags, uint32_t parent,
    uint32_t handle, uint32_t info)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(j->buf);
	struct tcmsg *tcm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++j->seq;
	tcm = mnl_nlmsg_put_extra_header(nlh, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = j->ifindex;
	tcm->tcm_parent = parent;
	tcm->tcm_handle = handle;
	tcm->tcm_info = info;
	return nlh;
}

/* Send NLH and wait for the kernel's answer, each message of a dump
 * through CB; 0, or -1 with errno. */
static int
talk(struct job *j, struct nlmsghdr *nlh, mnl_cb_t cb)
{
	unsigned seq = nlh->nlmsg_seq;
	int r;

	if (cb == NULL)
		nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(j->nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		r = (int)mnl_socket_recvfrom(j->nl, j->buf, sizeof(j->buf));
		if (r < 0)
			return -1;
		r = mnl_cb_run(j->buf, (size_t)r, seq, j->portid, cb, j);
	} while (r > 0);
	return r < 0 ? -1 : 0;
}

static int
fail(struct job *j, const char *what)
{
	snprintf(j->err, j->errlen, "shape %s: %s: %s", j->ifname, what,
	    strerror(errno));
	return -1;
}

/* Burst in psched ticks (PSCHED_TICKS2NS: 64 ns each) for RATE bytes/s:
 * 10 ms of traffic, at least two full frames. */
static uint32_t
burst_ticks(uint64_t rate)
{
	uint64_t bytes = rate / 100, ns;

	if (bytes < 2 * 1514)
		bytes = 2 * 1514;
	ns = bytes * 1000000000ULL / rate;
	return ns / 64 > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 64);
}

static int
add_root(struct job *j)
{
	struct tc_htb_glob g = { .version = 3, .rate2quantum = 10,
	    .defcls = 0 };	/* unclassified: the direct queue, unshaped */
	struct nlmsghdr *nlh;
	struct nlattr *opt;

	nlh = tc_msg(j, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, TC_H_ROOT,
	    HTB_HANDLE, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "htb");
	opt = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_HTB_INIT, sizeof(g), &g);
	mnl_attr_put_u32(nlh, TCA_HTB_DIRECT_QLEN, DEFAULT_QUEUE);
	mnl_attr_nest_end(nlh, opt);
	return talk(j, nlh, NULL) < 0 ? fail(j, "htb root") : 0;
}

/*
 * The filter sending mark MARK to class 1:MINOR.  This kernel has no
 * cls_fw (nor u32's mark match), so it is cls_bpf with a classic BPF
 * program: load the skb mark, equal -> -1 (the filter's class), else 0
 * (no match).  Its handle is the mark, which dn_shape_read reads back.
 */
static int
add_filter(struct job *j, uint32_t mark, uint32_t minor)
{
	struct sock_filter prog[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_MARK),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, mark, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct nlmsghdr *nlh;
	struct nlattr *opt;

	nlh = tc_msg(j, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_EXCL, HTB_HANDLE,
	    mark, TC_H_MAKE(FILTER_PRIO << 16, htons(ETH_P_ALL)));
	mnl_attr_put_strz(nlh, TCA_KIND, "bpf");
	opt = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put_u32(nlh, TCA_BPF_CLASSID, HTB_HANDLE | minor);
	mnl_attr_put_u16(nlh, TCA_BPF_OPS_LEN,
	    (uint16_t)(sizeof(prog) / sizeof(prog[0])));
	mnl_attr_put(nlh, TCA_BPF_OPS, sizeof(prog), prog);
	mnl_attr_nest_end(nlh, opt);
	return talk(j, nlh, NULL);
}

/* Class 1:MINOR at C's rate, a pfifo under it, the filter to it. */
static int
add_class(struct job *j, const struct dn_shape_class *c, uint32_t minor)
{
	struct tc_htb_opt o = { 0 };
	struct tc_fifo_qopt q = { .limit = c->queue ? c->queue :
	    DEFAULT_QUEUE };
	uint64_t rate = c->rate_bps / 8;
	struct nlmsghdr *nlh;
	struct nlattr *opt;
	char what[64];

	snprintf(what, sizeof(what), "class for mark %u", c->mark);
	o.rate.rate = o.ceil.rate = rate > UINT32_MAX ? UINT32_MAX :
	    (uint32_t)rate;
	/* Sizes from the rate, not the kernel's old rate tables. */
	o.rate.linklayer = o.ceil.linklayer = TC_LINKLAYER_ETHERNET;
	o.buffer = o.cbuffer = burst_ticks(rate);
	nlh = tc_msg(j, RTM_NEWTCLASS, NLM_F_CREATE | NLM_F_EXCL, HTB_HANDLE,
	    HTB_HANDLE | minor, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "htb");
	opt = mnl_attr_nest_start(nlh, TCA_OPTIONS);
	mnl_attr_put(nlh, TCA_HTB_PARMS, sizeof(o), &o);
	if (rate > UINT32_MAX) {
		mnl_attr_put_u64(nlh, TCA_HTB_RATE64, rate);
		mnl_attr_put_u64(nlh, TCA_HTB_CEIL64, rate);
	}
	mnl_attr_nest_end(nlh, opt);
	if (talk(j, nlh, NULL) < 0)
		return fail(j, what);
	nlh = tc_msg(j, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL,
	    HTB_HANDLE | minor, (minor + 1) << 16, 0);
	mnl_attr_put_strz(nlh, TCA_KIND, "pfifo");
	mnl_attr_put(nlh, TCA_OPTIONS, sizeof(q), &q);
	if (talk(j, nlh, NULL) < 0)
		return fail(j, what);
	return add_filter(j, c->mark, minor) < 0 ? fail(j, what) : 0;
}

static int
del_root(struct job *j)
{
	struct nlmsghdr *nlh = tc_msg(j, RTM_DELQDISC, 0, TC_H_ROOT, 0, 0);

	/* None there (ENOENT; EINVAL from the default qdisc) is fine. */
	if (talk(j, nlh, NULL) < 0 && errno != ENOENT && errno != EINVAL)
		return fail(j, "remove the root qdisc");
	return 0;
}

static int
on_filter(const struct nlmsghdr *nlh, void *data)
{
	struct job *j = data;
	struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct nlattr *a, *b;
	uint32_t minor;

	if (tcm->tcm_handle == 0)
		return MNL_CB_OK;	/* the filter's head, not an entry */
	mnl_attr_for_each(a, nlh, sizeof(*tcm)) {
		if (mnl_attr_get_type(a) != TCA_OPTIONS)
			continue;
		mnl_attr_for_each_nested(b, a) {
			if (mnl_attr_get_type(b) != TCA_BPF_CLASSID)
				continue;
			minor = TC_H_MIN(mnl_attr_get_u32(b));
			if (minor < j->nminor)
				j->minor_mark[minor] = tcm->tcm_handle;
		}
	}
	return MNL_CB_OK;
}

static void
class_stats(struct dn_shape_stats *s, const struct nlattr *st)
{
	const struct nlattr *a;
	struct gnet_stats_basic b;
	struct gnet_stats_queue q;

	mnl_attr_for_each_nested(a, st) {
		if (mnl_attr_get_type(a) == TCA_STATS_BASIC &&
		    mnl_attr_get_payload_len(a) >= sizeof(b)) {
			memcpy(&b, mnl_attr_get_payload(a), sizeof(b));
			s->bytes = b.bytes;
			s->packets = b.packets;
		} else if (mnl_attr_get_type(a) == TCA_STATS_QUEUE &&
		    mnl_attr_get_payload_len(a) >= sizeof(q)) {
			memcpy(&q, mnl_attr_get_payload(a), sizeof(q));
			s->drops = q.drops;
			s->overlimits = q.overlimits;
		}
	}
}

static int
on_class(const struct nlmsghdr *nlh, void *data)
{
	struct job *j = data;
	struct tcmsg *tcm = mnl_nlmsg_get_payload(nlh);
	struct dn_shape_stats *s;
	struct nlattr *a;
	uint32_t minor = TC_H_MIN(tcm->tcm_handle);

	if (TC_H_MAJ(tcm->tcm_handle) != HTB_HANDLE || minor >= j->nminor ||
	    j->minor_mark[minor] == 0 || j->got >= j->max)
		return MNL_CB_OK;
	s = &j->out[j->got++];
	memset(s, 0, sizeof(*s));
	s->mark = j->minor_mark[minor];
	mnl_attr_for_each(a, nlh, sizeof(*tcm))
		if (mnl_attr_get_type(a) == TCA_STATS2)
			class_stats(s, a);
	return MNL_CB_OK;
}

static int
read_all(struct job *j)
{
	struct nlmsghdr *nlh;

	j->nminor = DN_SHAPE_MAX + 1;
	j->minor_mark = calloc(j->nminor, sizeof(*j->minor_mark));
	if (j->minor_mark == NULL)
		return fail(j, "read");
	nlh = tc_msg(j, RTM_GETTFILTER, NLM_F_DUMP, HTB_HANDLE, 0, 0);
	if (talk(j, nlh, on_filter) < 0)
		return fail(j, "read the filters");
	nlh = tc_msg(j, RTM_GETTCLASS, NLM_F_DUMP, 0, 0, 0);
	if (talk(j, nlh, on_class) < 0)
		return fail(j, "read the classes");
	return (int)j->got;
}

/* The whole job, inside the namespace. */
static int
run_job(void *arg)
{
	struct job *j = arg;
	size_t i;
	int r = -1;

	j->ifindex = (int)if_nametoindex(j->ifname);
	if (j->ifindex == 0)
		return fail(j, "no such interface");
	j->nl = mnl_socket_open(NETLINK_ROUTE);
	if (j->nl == NULL || mnl_socket_bind(j->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		r = fail(j, "rtnetlink socket");
		goto out;
	}
	j->portid = mnl_socket_get_portid(j->nl);
	j->seq = (unsigned)time(NULL);
	if (j->out != NULL) {
		r = read_all(j);
		goto out;
	}
	if (del_root(j) < 0)
		goto out;
	if (j->n == 0) {
		r = 0;
		goto out;
	}
	if (add_root(j) < 0)
		goto out;
	for (i = 0; i < j->n; i++)
		if (add_class(j, &j->c[i], (uint32_t)i + 1) < 0) {
			/* Never half shaped: all the classes or none. */
			(void)talk(j, tc_msg(j, RTM_DELQDISC, 0, TC_H_ROOT, 0,
			    0), NULL);
			goto out;
		}
	r = 0;
out:
	if (j->nl != NULL)
		mnl_socket_close(j->nl);
	free(j->minor_mark);
	return r;
}

static int
in_ns(int netns_fd, struct job *j)
{
	int r;

	j->err[0] = '\0';
	if (netns_fd < 0)
		return run_job(j);
	r = dn_net_in_ns(netns_fd, run_job, j);
	if (r < 0 && j->err[0] == '\0')
		snprintf(j->err, j->errlen, "shape %s: cannot enter the "
		    "namespace: %s", j->ifname, strerror(errno));
	return r;
}

int
dn_shape_set(int netns_fd, const char *ifname,
    const struct dn_shape_class *c, size_t n, char *err, size_t errlen)
{
	struct job *j;
	size_t i, k;
	int r;

	if (n > DN_SHAPE_MAX) {
		snprintf(err, errlen, "shape %s: %zu classes (at most %d)",
		    ifname, n, DN_SHAPE_MAX);
		return -1;
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < i; k++)
			if (c[k].mark == c[i].mark)
				break;
		if (c[i].mark == 0 || c[i].rate_bps < 8 || k < i) {
			snprintf(err, errlen, "shape %s: class %zu needs a mark "
			    "of its own (not 0) and a rate", ifname, i);
			return -1;
		}
	}
	j = calloc(1, sizeof(*j));
	if (j == NULL) {
		snprintf(err, errlen, "shape %s: out of memory", ifname);
		return -1;
	}
	*j = (struct job){ .ifname = ifname, .c = c, .n = n, .err = err,
	    .errlen = errlen };
	r = in_ns(netns_fd, j);
	free(j);
	return r;
}

int
dn_shape_clear(int netns_fd, const char *ifname, char *err, size_t errlen)
{
	return dn_shape_set(netns_fd, ifname, NULL, 0, err, errlen);
}

int
dn_shape_read(int netns_fd, const char *ifname, struct dn_shape_stats *out,
    size_t max, char *err, size_t errlen)
{
	struct job *j = calloc(1, sizeof(*j));
	int r;

	if (j == NULL) {
		snprintf(err, errlen, "shape %s: out of memory", ifname);
		return -1;
	}
	*j = (struct job){ .ifname = ifname, .out = out, .max = max,
	    .err = err, .errlen = errlen };
	r = in_ns(netns_fd, j);
	free(j);
	return r;
}
