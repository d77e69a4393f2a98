/*
 * nft.c: the hub's nf_tables rules (net/nft.h), built with libnftnl and
 * sent as one batch over a netfilter netlink socket opened in the hub
 * namespace; and their counters, read back by a rule dump per source
 * chain.  Not here: which links get which conditions (the caller), the
 * delay itself (net/delay.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/common.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <libnftnl/set.h>
#include <libnftnl/table.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/xt_NFQUEUE.h>

#include "net/net-internal.h"
#include "net/nft.h"
#include "net/topo.h"
#include "buf.h"
#include "xalloc.h"

#define CHAIN		"forward"
#define SRC_MAP		"src"	/* saddr : jump s<K> */
#define SRC_MAP_ID	1
#define MSG_ROOM	4096	/* the most one message of ours takes */
#define RECV_BUF	8192
#define DUMP_BUF	32768	/* a dump's answers: the kernel's most */
#define ELEMS_ROOM	(MSG_ROOM * 8)	/* the map's elements: 256 */

/* ---- the socket, in the hub ---- */

static int
open_cb(void *arg)
{
	struct mnl_socket **sp = arg;
	struct timeval	    tv = { 5, 0 };
	int		    on = 1;

	if ((*sp = mnl_socket_open(NETLINK_NETFILTER)) == NULL)
		return (-1);
	setsockopt(mnl_socket_get_fd(*sp), SOL_SOCKET, SO_RCVTIMEO, &tv,
	    sizeof(tv));
	/* an error's answer without the message it refuses (batch_send) */
	setsockopt(mnl_socket_get_fd(*sp), SOL_NETLINK, NETLINK_CAP_ACK, &on,
	    sizeof(on));
	if (mnl_socket_bind(*sp, 0, MNL_SOCKET_AUTOPID) != 0) {
		mnl_socket_close(*sp);
		*sp = NULL;
		return (-1);
	}
	return (0);
}

static struct mnl_socket *
sock_open(int hubfd)
{
	struct mnl_socket *s = NULL;

	if (dn_net_in_ns(hubfd, open_cb, &s) != 0)
		return (NULL);
	return (s);
}

/* ---- a batch of messages in one growing buffer ---- */

/*
 * The kernel runs a whole batch inside our one send and queues every
 * answer on the socket before we read any: one ack per message asked
 * for one (NLM_F_ACK), one error per message refused.  An ack per rule
 * overflowed the socket's receive buffer (212992 bytes take about 200
 * of them; a 15-endpoint network has 210 links) and the send failed
 * with ENOBUFS (issue 40).  So only the batch's last message asks for
 * an ack: with nothing refused that is the one answer, with something
 * refused the errors come first, in order (and errors come without the
 * message they refuse: NETLINK_CAP_ACK).
 */
struct batch {
	char	*buf;
	size_t	 len, cap, last;	/* last: offset of the last message */
	unsigned seq, first;
};

/* Room for a message of up to ROOM bytes at the batch's end. */
static char *
batch_room_for(struct batch *b, size_t room)
{
	b->buf = dn_xgrow(b->buf, &b->cap, b->len + room, 1);
	memset(b->buf + b->len, 0, room);
	return (b->buf + b->len);
}

static char *
batch_room(struct batch *b)
{
	return (batch_room_for(b, MSG_ROOM));
}

static void
batch_done(struct batch *b)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(b->buf + b->len);

	b->last = b->len;
	b->len += NLMSG_ALIGN(nlh->nlmsg_len);
	b->seq++;
}

/* Ask for an ack of the last message put, the one the batch waits for. */
static unsigned
batch_ack_last(struct batch *b)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(b->buf + b->last);

	nlh->nlmsg_flags |= NLM_F_ACK;
	return (nlh->nlmsg_seq);
}

/* Send B and wait for the ack of message WANT_SEQ; an error ends it. */
static int
batch_send(struct mnl_socket *s, struct batch *b, unsigned want_seq,
    char *err, size_t errlen)
{
	char		 buf[RECV_BUF];
	ssize_t		 len;
	int		 want = (int)b->len + MSG_ROOM, overrun = 0;
	struct nlmsghdr	*r;

	if (setsockopt(mnl_socket_get_fd(s), SOL_SOCKET, SO_SNDBUFFORCE,
	    &want, sizeof(want)) != 0)
		setsockopt(mnl_socket_get_fd(s), SOL_SOCKET, SO_SNDBUF,
		    &want, sizeof(want));
	if (mnl_socket_sendto(s, b->buf, b->len) < 0) {
		dn_net_seterr(err, errlen, "nf_tables: send: %s", strerror(errno));
		return (-1);
	}
	for (;;) {
		if ((len = mnl_socket_recvfrom(s, buf, sizeof(buf))) < 0) {
			/* only errors can overflow it: read on to the
			 * first, which is still queued */
			if (errno == ENOBUFS && !overrun) {
				overrun = 1;
				continue;
			}
			dn_net_seterr(err, errlen, "nf_tables: no answer: %s",
			    strerror(errno));
			return (-1);
		}
		for (r = (struct nlmsghdr *)buf; mnl_nlmsg_ok(r, (int)len);
		    r = mnl_nlmsg_next(r, (int *)&len)) {
			const struct nlmsgerr *e = mnl_nlmsg_get_payload(r);

			if (r->nlmsg_type != NLMSG_ERROR)
				continue;
			if (e->error != 0) {
				dn_net_seterr(err, errlen, "nf_tables refused "
				    "message %u of the batch%s: %s",
				    r->nlmsg_seq - b->first, overrun ?
				    " (and more)" : "",
				    strerror(-e->error));
				return (-1);
			}
			if (r->nlmsg_seq == want_seq)
				return (0);
		}
	}
}

/* ---- expressions ---- */

static void
add(struct nftnl_rule *r, struct nftnl_expr *e)
{
	nftnl_rule_add_expr(r, e);
}

/* Register 1 compared with the 4 bytes at DATA by OP. */
static void
match_reg1(struct nftnl_rule *r, uint32_t op, const uint32_t *data)
{
	struct nftnl_expr *e = nftnl_expr_alloc("cmp");

	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_CMP_OP, op);
	nftnl_expr_set(e, NFTNL_EXPR_CMP_DATA, data, sizeof(*data));
	add(r, e);
}

/* ip saddr/daddr (OFF 12/16) == VAL */
static void
match_addr(struct nftnl_rule *r, uint32_t off, uint32_t val)
{
	struct nftnl_expr *e = nftnl_expr_alloc("payload");

	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_BASE,
	    NFT_PAYLOAD_NETWORK_HEADER);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_OFFSET, off);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_LEN, 4);
	nftnl_expr_set_u32(e, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
	add(r, e);
	match_reg1(r, NFT_CMP_EQ, &val);
}

/* numgen random mod 1000000 < PPM (big-endian compare, as nft does) */
static void
match_share(struct nftnl_rule *r, uint32_t ppm)
{
	struct nftnl_expr *e = nftnl_expr_alloc("numgen");
	uint32_t	   be = htonl(ppm);

	nftnl_expr_set_u32(e, NFTNL_EXPR_NG_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_NG_MODULUS, 1000000);
	nftnl_expr_set_u32(e, NFTNL_EXPR_NG_TYPE, NFT_NG_RANDOM);
	add(r, e);
	e = nftnl_expr_alloc("byteorder");
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_DREG, NFT_REG_1);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_OP, NFT_BYTEORDER_HTON);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_LEN, 4);
	nftnl_expr_set_u32(e, NFTNL_EXPR_BYTEORDER_SIZE, 4);
	add(r, e);
	match_reg1(r, NFT_CMP_LT, &be);
}

static void
drop(struct nftnl_rule *r)
{
	struct nftnl_expr *e = nftnl_expr_alloc("immediate");

	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_VERDICT, NF_DROP);
	add(r, e);
}

/* meta mark set MARK; NFQUEUE num QUEUE when QUEUE >= 0 */
static void
mark_queue(struct nftnl_rule *r, uint32_t mark, int queue)
{
	struct nftnl_expr	*e = nftnl_expr_alloc("immediate");
	struct xt_NFQ_info_v3	*q = dn_xcalloc(1, sizeof(*q));

	nftnl_expr_set(e, NFTNL_EXPR_IMM_DATA, &mark, sizeof(mark));
	nftnl_expr_set_u32(e, NFTNL_EXPR_IMM_DREG, NFT_REG_1);
	add(r, e);
	e = nftnl_expr_alloc("meta");
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_KEY, NFT_META_MARK);
	nftnl_expr_set_u32(e, NFTNL_EXPR_META_SREG, NFT_REG_1);
	add(r, e);
	e = nftnl_expr_alloc("counter");
	add(r, e);
	if (queue < 0) {
		free(q);
		return;
	}
	q->queuenum = (uint16_t)queue;
	q->queues_total = 1;
	e = nftnl_expr_alloc("target");
	nftnl_expr_set_str(e, NFTNL_EXPR_TG_NAME, "NFQUEUE");
	nftnl_expr_set_u32(e, NFTNL_EXPR_TG_REV, 3);
	/* the expression takes Q: libnftnl frees its info */
	nftnl_expr_set(e, NFTNL_EXPR_TG_INFO, q, sizeof(*q));
	add(r, e);
}

/* ---- the transaction ---- */

static void
put_table(struct batch *b, uint16_t type)
{
	struct nftnl_table *t = nftnl_table_alloc();
	struct nlmsghdr	   *nlh;

	nftnl_table_set_str(t, NFTNL_TABLE_NAME, DN_NFT_TABLE);
	nlh = nftnl_table_nlmsg_build_hdr(batch_room(b), type, NFPROTO_IPV4,
	    NLM_F_CREATE, b->seq);
	nftnl_table_nlmsg_build_payload(nlh, t);
	nftnl_table_free(t);
	batch_done(b);
}

/* The forward hook's chain (NAME CHAIN), or source K's (no hook). */
static void
put_chain(struct batch *b, const char *name)
{
	struct nftnl_chain *c = nftnl_chain_alloc();
	struct nlmsghdr	   *nlh;

	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, DN_NFT_TABLE);
	nftnl_chain_set_str(c, NFTNL_CHAIN_NAME, name);
	if (strcmp(name, CHAIN) == 0) {
		nftnl_chain_set_str(c, NFTNL_CHAIN_TYPE, "filter");
		nftnl_chain_set_u32(c, NFTNL_CHAIN_HOOKNUM, NF_INET_FORWARD);
		nftnl_chain_set_s32(c, NFTNL_CHAIN_PRIO, 0);
		nftnl_chain_set_u32(c, NFTNL_CHAIN_POLICY, NF_ACCEPT);
	}
	nlh = nftnl_chain_nlmsg_build_hdr(batch_room(b), NFT_MSG_NEWCHAIN,
	    NFPROTO_IPV4, NLM_F_CREATE, b->seq);
	nftnl_chain_nlmsg_build_payload(nlh, c);
	nftnl_chain_free(c);
	batch_done(b);
}

static void
src_chain(int src, char *buf, size_t cap)
{
	snprintf(buf, cap, "s%d", src);
}

static struct nftnl_set *
src_map(void)
{
	struct nftnl_set *m = nftnl_set_alloc();

	nftnl_set_set_str(m, NFTNL_SET_TABLE, DN_NFT_TABLE);
	nftnl_set_set_str(m, NFTNL_SET_NAME, SRC_MAP);
	nftnl_set_set_u32(m, NFTNL_SET_ID, SRC_MAP_ID);
	nftnl_set_set_u32(m, NFTNL_SET_FAMILY, NFPROTO_IPV4);
	return (m);
}

/*
 * The dispatch: a verdict map from a source address to its chain, filled
 * with the NSRC sources SRCS (their chains exist already), and the one
 * rule of the hook's chain that looks it up.  A packet from an address
 * not in the map passes.
 */
static void
put_dispatch(struct batch *b, const int *srcs, size_t nsrc)
{
	struct nftnl_set	*m = src_map();
	struct nftnl_set_elem	*e;
	struct nftnl_rule	*r;
	struct nftnl_expr	*x;
	struct nlmsghdr		*nlh;
	char			 name[16];
	uint32_t		 addr;
	size_t			 i;

	nftnl_set_set_u32(m, NFTNL_SET_FLAGS, NFT_SET_MAP);
	nftnl_set_set_u32(m, NFTNL_SET_KEY_TYPE, 7);	/* nft's ipv4_addr */
	nftnl_set_set_u32(m, NFTNL_SET_KEY_LEN, sizeof(uint32_t));
	nftnl_set_set_u32(m, NFTNL_SET_DATA_TYPE, NFT_DATA_VERDICT);
	nlh = nftnl_set_nlmsg_build_hdr(batch_room(b), NFT_MSG_NEWSET,
	    NFPROTO_IPV4, NLM_F_CREATE, b->seq);
	nftnl_set_nlmsg_build_payload(nlh, m);
	nftnl_set_free(m);
	batch_done(b);
	/* 256 sources at about 60 bytes each: one message holds them */
	if (nsrc > 0) {
		m = src_map();
		for (i = 0; i < nsrc; i++) {
			e = nftnl_set_elem_alloc();
			addr = dn_net_addr(srcs[i]);
			src_chain(srcs[i], name, sizeof(name));
			nftnl_set_elem_set(e, NFTNL_SET_ELEM_KEY, &addr,
			    sizeof(addr));
			nftnl_set_elem_set_u32(e, NFTNL_SET_ELEM_VERDICT,
			    NFT_JUMP);
			nftnl_set_elem_set_str(e, NFTNL_SET_ELEM_CHAIN, name);
			nftnl_set_elem_add(m, e);
		}
		nlh = nftnl_set_elem_nlmsg_build_hdr(batch_room_for(b,
		    ELEMS_ROOM), NFT_MSG_NEWSETELEM, NFPROTO_IPV4,
		    NLM_F_CREATE, b->seq);
		nftnl_set_elems_nlmsg_build_payload(nlh, m);
		nftnl_set_free(m);
		batch_done(b);
	}
	/* ip saddr vmap @src */
	r = nftnl_rule_alloc();
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, DN_NFT_TABLE);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, CHAIN);
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_IPV4);
	x = nftnl_expr_alloc("payload");
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_BASE,
	    NFT_PAYLOAD_NETWORK_HEADER);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_OFFSET, 12);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_LEN, 4);
	nftnl_expr_set_u32(x, NFTNL_EXPR_PAYLOAD_DREG, NFT_REG_1);
	add(r, x);
	x = nftnl_expr_alloc("lookup");
	nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_SREG, NFT_REG_1);
	nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_DREG, NFT_REG_VERDICT);
	nftnl_expr_set_str(x, NFTNL_EXPR_LOOKUP_SET, SRC_MAP);
	nftnl_expr_set_u32(x, NFTNL_EXPR_LOOKUP_SET_ID, SRC_MAP_ID);
	add(r, x);
	nlh = nftnl_rule_nlmsg_build_hdr(batch_room(b), NFT_MSG_NEWRULE,
	    NFPROTO_IPV4, NLM_F_CREATE | NLM_F_APPEND, b->seq);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	batch_done(b);
}

static uint32_t
tag(enum dn_nft_kind k, int src, int dst)
{
	return ((uint32_t)k << 24 | (uint32_t)src << 12 | (uint32_t)dst);
}

static void
put_rule(struct batch *b, const struct dn_nft_link *l, enum dn_nft_kind k,
    unsigned queue)
{
	struct nftnl_rule *r = nftnl_rule_alloc();
	struct nlmsghdr	  *nlh;
	uint32_t	   ud = tag(k, l->src, l->dst);

	char		   chain[16];

	src_chain(l->src, chain, sizeof(chain));
	nftnl_rule_set_str(r, NFTNL_RULE_TABLE, DN_NFT_TABLE);
	nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, chain);
	nftnl_rule_set_u32(r, NFTNL_RULE_FAMILY, NFPROTO_IPV4);
	nftnl_rule_set_data(r, NFTNL_RULE_USERDATA, &ud, sizeof(ud));
	match_addr(r, 12, dn_net_addr(l->src));
	match_addr(r, 16, dn_net_addr(l->dst));
	if (k == DN_NFT_DELAY)
		mark_queue(r, l->mark, l->queue ? (int)queue : -1);
	else {
		if (k == DN_NFT_LOSS)
			match_share(r, l->loss_ppm);
		add(r, nftnl_expr_alloc("counter"));
		drop(r);
	}
	nlh = nftnl_rule_nlmsg_build_hdr(batch_room(b), NFT_MSG_NEWRULE,
	    NFPROTO_IPV4, NLM_F_CREATE | NLM_F_APPEND, b->seq);
	nftnl_rule_nlmsg_build_payload(nlh, r);
	nftnl_rule_free(r);
	batch_done(b);
}

/* Whether link L gets a rule of kind K. */
static int
has_rule(const struct dn_nft_link *l, int k)
{
	return ((k == DN_NFT_BLOCK && l->blocked) ||
	    (k == DN_NFT_LOSS && !l->blocked && l->loss_ppm > 0) ||
	    (k == DN_NFT_DELAY && !l->blocked && l->mark));
}

/*
 * Every source's chain and rules, then the dispatch to them.  A packet
 * meets the map and its source's rules only, not every link's: a chain
 * of all N * (N - 1) links' rules cost each packet about 4.5 ns a rule,
 * 180 us at 201 endpoints (issue 40).  In a source's chain its links'
 * drops come first, so a dropped packet is never queued.
 */
static void
put_links(struct batch *b, const struct dn_nft_link *links, size_t n,
    unsigned queue)
{
	size_t	*first, *next, i, nsrc = 0;
	int	*srcs, k, s;
	char	 name[16];

	/* the links of each source, in their order: a list per source */
	first = dn_xcalloc(DN_NET_MAX + 1, sizeof(*first));
	next = dn_xcalloc(n + 1, sizeof(*next));
	srcs = dn_xcalloc(DN_NET_MAX + 1, sizeof(*srcs));
	for (i = n; i-- > 0;) {
		next[i] = first[links[i].src];
		first[links[i].src] = i + 1;
	}
	for (s = 0; s <= DN_NET_MAX; s++) {
		if (first[s] == 0)
			continue;
		src_chain(s, name, sizeof(name));
		put_chain(b, name);
		srcs[nsrc++] = s;
		for (k = DN_NFT_BLOCK; k <= DN_NFT_DELAY; k++)
			for (i = first[s]; i != 0; i = next[i - 1])
				if (has_rule(&links[i - 1], k))
					put_rule(b, &links[i - 1],
					    (enum dn_nft_kind)k, queue);
	}
	put_dispatch(b, srcs, nsrc);
	free(first);
	free(next);
	free(srcs);
}

int
dn_nft_apply(int hubfd, const struct dn_nft_link *links, size_t n,
    unsigned queue, char *err, size_t errlen)
{
	struct mnl_socket *s;
	struct batch	   b = { NULL, 0, 0, 0, 0, 0 };
	unsigned	   want;
	size_t		   i;
	int		   rv;

	for (i = 0; i < n; i++)
		if (links[i].src < 0 || links[i].src > DN_NET_MAX ||
		    links[i].dst < 0 || links[i].dst > DN_NET_MAX) {
			dn_net_seterr(err, errlen, "nf_tables: link %d -> %d "
			    "is outside 0..%d", links[i].src, links[i].dst,
			    DN_NET_MAX);
			return (-1);
		}
	if ((s = sock_open(hubfd)) == NULL) {
		dn_net_seterr(err, errlen, "nf_tables socket in the hub: %s",
		    strerror(errno));
		return (-1);
	}
	b.seq = b.first = (unsigned)time(NULL);
	nftnl_batch_begin(batch_room(&b), b.seq);
	batch_done(&b);
	/* create-if-missing, delete, create: a fresh table either way */
	put_table(&b, NFT_MSG_NEWTABLE);
	put_table(&b, NFT_MSG_DELTABLE);
	put_table(&b, NFT_MSG_NEWTABLE);
	put_chain(&b, CHAIN);
	put_links(&b, links, n, queue);
	want = batch_ack_last(&b);
	nftnl_batch_end(batch_room(&b), b.seq);
	batch_done(&b);
	rv = batch_send(s, &b, want, err, errlen);
	free(b.buf);
	mnl_socket_close(s);
	return (rv);
}

/* ---- counters ---- */

struct chains {
	char	**v;
	size_t	  n;
	int	  hook;		/* the hook's chain is there */
};

struct dump {
	struct dn_nft_counter	*v;
	size_t			 n, cap;
	struct dn_nft_counter	 cur;
	int			 found;
};

static int
expr_cb(struct nftnl_expr *e, void *arg)
{
	struct dump *d = arg;

	if (strcmp(nftnl_expr_get_str(e, NFTNL_EXPR_NAME), "counter") != 0)
		return (MNL_CB_OK);
	d->cur.packets = nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_PACKETS);
	d->cur.bytes = nftnl_expr_get_u64(e, NFTNL_EXPR_CTR_BYTES);
	d->found = 1;
	return (MNL_CB_OK);
}

static int
rule_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct dump	  *d = arg;
	struct nftnl_rule *r = nftnl_rule_alloc();
	const uint32_t	  *ud;
	uint32_t	   len = 0;

	if (nftnl_rule_nlmsg_parse(nlh, r) < 0)
		goto out;
	ud = nftnl_rule_get_data(r, NFTNL_RULE_USERDATA, &len);
	if (ud == NULL || len != sizeof(*ud))
		goto out;
	d->found = 0;
	nftnl_expr_foreach(r, expr_cb, d);
	if (!d->found)
		goto out;
	d->cur.kind = (enum dn_nft_kind)(*ud >> 24);
	d->cur.src = (int)(*ud >> 12 & 0xfff);
	d->cur.dst = (int)(*ud & 0xfff);
	d->v = dn_xgrow(d->v, &d->cap, d->n + 1, sizeof(*d->v));
	d->v[d->n++] = d->cur;
out:
	nftnl_rule_free(r);
	return (MNL_CB_OK);
}

/* Send the dump request NLH (freed here) and run CB on every answer. */
static int
dump_run(struct mnl_socket *s, struct nlmsghdr *nlh, mnl_cb_t cb,
    void *arg, char *err, size_t errlen)
{
	char		*buf = dn_xmalloc(DUMP_BUF);
	unsigned	 seq = nlh->nlmsg_seq;
	ssize_t		 len;
	int		 rv = -1, st;

	if (mnl_socket_sendto(s, nlh, nlh->nlmsg_len) < 0) {
		dn_net_seterr(err, errlen, "nf_tables: send: %s", strerror(errno));
		goto out;
	}
	do {
		if ((len = mnl_socket_recvfrom(s, buf, DUMP_BUF)) < 0) {
			dn_net_seterr(err, errlen, "nf_tables: dump: %s",
			    strerror(errno));
			goto out;
		}
		st = mnl_cb_run(buf, (size_t)len, seq, mnl_socket_get_portid(s),
		    cb, arg);
		if (st < 0) {
			dn_net_seterr(err, errlen, "nf_tables: dump: %s",
			    strerror(errno));
			goto out;
		}
	} while (st > MNL_CB_STOP);
	rv = 0;
out:
	free(buf);
	return (rv);
}

/* The source chains' names ("s3") into the list at ARG. */
static int
chain_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct chains	   *l = arg;
	struct nftnl_chain *c = nftnl_chain_alloc();
	const char	   *name;

	if (nftnl_chain_nlmsg_parse(nlh, c) < 0)
		goto out;
	name = nftnl_chain_get_str(c, NFTNL_CHAIN_NAME);
	if (name != NULL && strcmp(name, CHAIN) == 0)
		l->hook = 1;
	if (name == NULL || name[0] != 's' || name[1] < '0' || name[1] > '9')
		goto out;
	l->v = dn_xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = dn_xstrdup(name);
out:
	nftnl_chain_free(c);
	return (MNL_CB_OK);
}

/*
 * The rules are read a source chain at a time: the kernel resumes a dump
 * by walking past what it sent already, so one dump of every rule costs
 * the square of their number (9 s for 64,770 links; issue 40).
 */
int
dn_nft_counters(int hubfd, struct dn_nft_counter **out, size_t *n,
    char *err, size_t errlen)
{
	struct mnl_socket  *s;
	struct nftnl_chain *c;
	struct nftnl_rule  *r;
	struct dump	    d = { NULL, 0, 0, { 0, 0, 0, 0, 0 }, 0 };
	struct chains	    l = { NULL, 0, 0 };
	char		    msg[MSG_ROOM];
	unsigned	    seq = (unsigned)time(NULL);
	size_t		    i;
	int		    rv = -1;

	*out = NULL;
	*n = 0;
	if ((s = sock_open(hubfd)) == NULL) {
		dn_net_seterr(err, errlen, "nf_tables socket in the hub: %s",
		    strerror(errno));
		return (-1);
	}
	c = nftnl_chain_alloc();
	nftnl_chain_set_str(c, NFTNL_CHAIN_TABLE, DN_NFT_TABLE);
	nftnl_chain_nlmsg_build_payload(nftnl_chain_nlmsg_build_hdr(msg,
	    NFT_MSG_GETCHAIN, NFPROTO_IPV4, NLM_F_DUMP, seq++), c);
	nftnl_chain_free(c);
	if (dump_run(s, (struct nlmsghdr *)msg, chain_cb, &l, err,
	    errlen) != 0)
		goto out;
	if (!l.hook) {
		dn_net_seterr(err, errlen, "nf_tables: no table '%s' with "
		    "chain '%s' in the hub", DN_NFT_TABLE, CHAIN);
		goto out;
	}
	for (i = 0; i < l.n; i++) {
		r = nftnl_rule_alloc();
		nftnl_rule_set_str(r, NFTNL_RULE_TABLE, DN_NFT_TABLE);
		nftnl_rule_set_str(r, NFTNL_RULE_CHAIN, l.v[i]);
		nftnl_rule_nlmsg_build_payload(nftnl_rule_nlmsg_build_hdr(msg,
		    NFT_MSG_GETRULE, NFPROTO_IPV4, NLM_F_DUMP, seq++), r);
		nftnl_rule_free(r);
		if (dump_run(s, (struct nlmsghdr *)msg, rule_cb, &d, err,
		    errlen) != 0)
			goto out;
	}
	*out = d.v;
	*n = d.n;
	d.v = NULL;
	rv = 0;
out:
	for (i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
	free(d.v);
	mnl_socket_close(s);
	return (rv);
}
