/*
 * taskstats.c: context switches of processes through Linux taskstats
 * (generic netlink, TASKSTATS_CMD_GET with TASKSTATS_CMD_ATTR_TGID; see
 * probe.h).  Per process the kernel sums nvcsw and nivcsw over the
 * thread group, and since the taskstats "retain dead thread stats in
 * tgid queries" change (in 6.18 here) also over threads that already
 * exited, which /proc never shows.  The requests of all processes go in
 * one sendmsg and the answers come back in one recvmmsg: two syscalls
 * per walk replace the status file of every thread (tree.c).
 *
 * Only the switches are taken from here.  The TGID answer has no page
 * faults, I/O bytes or reaped children, and its CPU times leave out
 * exited threads on older kernels: /proc/PID/stat and /proc/PID/io stay
 * the source of those (tree.c says why the reaped children matter).  Its
 * peak RSS (hiwater_rss, of a PID request) was ~200 kB below VmHWM for
 * a small stopped process here (the mm's per-CPU RSS counters read
 * without folding, it seems), so VmHWM stays with /proc/PID/status.
 *
 * Not always available: the command needs CAP_NET_ADMIN in the initial
 * user namespace (GENL_ADMIN_PERM), which a probe in a container or under
 * a non-root uid does not have, and a kernel without CONFIG_TASKSTATS has
 * no family.  tstats_open says so once and tree.c reads /proc instead.
 * DN_PROBE_TASKSTATS=0 in the environment forces /proc (tests, and a
 * way out should a kernel answer wrongly).
 */
#include <sys/socket.h>
#include <sys/uio.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "xalloc.h"

#define TS_BUF		1024	/* an answer is ~450 bytes */
#define TS_BATCH	64	/* processes per sendmsg */

/* A request: netlink header, genetlink header, one u32 or string attr. */
struct ts_req {
	struct nlmsghdr		n;
	struct genlmsghdr	g;
	char			attr[64];
};

struct tstats {
	int		 fd;
	uint16_t	 family;
	uint32_t	 seq;
	struct ts_req	 req[TS_BATCH];
	struct iovec	 iov[TS_BATCH];
	struct mmsghdr	 msg[TS_BATCH];
	char		 ans[TS_BATCH][TS_BUF];
};

/* Fill R: a request of TYPE/CMD with one attribute ATTR (LEN bytes). */
static void
ts_req(struct ts_req *r, uint32_t seq, uint16_t type, uint8_t cmd,
    uint16_t attr, const void *data, size_t len)
{
	struct nlattr	*na;

	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = type;
	r->n.nlmsg_flags = NLM_F_REQUEST;
	r->n.nlmsg_seq = seq;
	r->g.cmd = cmd;
	r->g.version = 1;
	na = (struct nlattr *)((char *)r + r->n.nlmsg_len);
	na->nla_type = attr;
	na->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)na + NLA_HDRLEN, data, len);
	r->n.nlmsg_len += NLA_ALIGN(na->nla_len);
}

/* Send one request of TYPE/CMD with one attribute ATTR (LEN bytes). */
static int
ts_send(struct tstats *t, uint16_t type, uint8_t cmd, uint16_t attr,
    const void *data, size_t len)
{
	struct sockaddr_nl	 to;
	ssize_t			 n;

	memset(&to, 0, sizeof(to));
	to.nl_family = AF_NETLINK;
	ts_req(&t->req[0], ++t->seq, type, cmd, attr, data, len);
	n = sendto(t->fd, &t->req[0], t->req[0].n.nlmsg_len, 0,
	    (struct sockaddr *)&to, sizeof(to));
	return (n == (ssize_t)t->req[0].n.nlmsg_len ? 0 : -1);
}

/*
 * Receive the answer to the last request into BUF: its length, or -1
 * with errno (the kernel's error for an NLMSG_ERROR answer).  Answers
 * to earlier requests (one that timed out) are skipped.
 */
static ssize_t
ts_recv(struct tstats *t, char *buf, size_t cap)
{
	struct nlmsghdr	*h;
	ssize_t		 n;

	for (;;) {
		n = recv(t->fd, buf, cap, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < (ssize_t)NLMSG_HDRLEN)
			return (-1);
		h = (struct nlmsghdr *)buf;
		if (!NLMSG_OK(h, (size_t)n)) {
			errno = EBADMSG;
			return (-1);
		}
		if (h->nlmsg_seq != t->seq)
			continue;
		if (h->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr	*e = NLMSG_DATA(h);

			errno = h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) &&
			    e->error < 0 ? -e->error : EIO;
			return (-1);
		}
		return (n);
	}
}

/* The attribute of TYPE among the attributes in [P, END), or NULL. */
static const struct nlattr *
ts_attr(const char *p, const char *end, uint16_t type)
{
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr	*na = (const struct nlattr *)p;

		if (na->nla_len < NLA_HDRLEN || p + na->nla_len > end)
			return (NULL);
		if ((na->nla_type & NLA_TYPE_MASK) == type)
			return (na);
		p += NLA_ALIGN(na->nla_len);
	}
	return (NULL);
}

/* The genetlink family id of "TASKSTATS", or 0. */
static uint16_t
ts_family(struct tstats *t)
{
	const struct nlattr	*na;
	char			 buf[4096];
	ssize_t			 n;
	uint16_t		 id;

	if (ts_send(t, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
	    CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
	    sizeof(TASKSTATS_GENL_NAME)) != 0 ||
	    (n = ts_recv(t, buf, sizeof(buf))) < 0)
		return (0);
	na = ts_attr(buf + NLMSG_LENGTH(GENL_HDRLEN), buf + n,
	    CTRL_ATTR_FAMILY_ID);
	if (na == NULL || na->nla_len < NLA_HDRLEN + sizeof(id))
		return (0);
	memcpy(&id, (const char *)na + NLA_HDRLEN, sizeof(id));
	return (id);
}

int
tstats_open(struct tstats **tp, char **cause)
{
	struct tstats		*t;
	struct sockaddr_nl	 me;
	struct timeval		 tv = { 1, 0 };
	const char		*env = getenv("DN_PROBE_TASKSTATS");
	uint64_t		 vol, invol;

	*tp = NULL;
	if (env != NULL && strcmp(env, "0") == 0) {
		*cause = dn_xstrdup("DN_PROBE_TASKSTATS=0");
		return (-1);
	}
	t = dn_xcalloc(1, sizeof(*t));
	t->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (t->fd == -1) {
		*cause = dn_xasprintf("netlink socket: %s", strerror(errno));
		goto fail;
	}
	memset(&me, 0, sizeof(me));
	me.nl_family = AF_NETLINK;
	/* the kernel answers at once; the timeout only bounds a surprise */
	(void)setsockopt(t->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(t->fd, (struct sockaddr *)&me, sizeof(me)) == -1) {
		*cause = dn_xasprintf("netlink bind: %s", strerror(errno));
		goto fail;
	}
	if ((t->family = ts_family(t)) == 0) {
		*cause = dn_xstrdup("no TASKSTATS netlink family");
		goto fail;
	}
	/* Ask once about ourselves: EPERM without CAP_NET_ADMIN. */
	if (tstats_ctx(t, getpid(), &vol, &invol) != 0) {
		*cause = dn_xasprintf("TASKSTATS_CMD_GET: %s",
		    strerror(errno));
		goto fail;
	}
	*tp = t;
	return (0);
fail:
	tstats_close(t);
	return (-1);
}

void
tstats_close(struct tstats *t)
{
	if (t == NULL)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t);
}

/* The taskstats struct in the answer BUF (N bytes) under nest AGGR, or
 * -1; an older kernel's struct is a prefix of ours (zeros after). */
static int
ts_stats(const char *buf, size_t n, uint16_t aggr, struct taskstats *ts)
{
	const struct nlmsghdr	*h = (const struct nlmsghdr *)buf;
	const struct nlattr	*agg, *st;
	const char		*end;
	size_t			 len;

	if (n < NLMSG_LENGTH(GENL_HDRLEN) || h->nlmsg_len > n ||
	    h->nlmsg_type == NLMSG_ERROR)
		return (-1);
	end = buf + h->nlmsg_len;
	if ((agg = ts_attr(buf + NLMSG_LENGTH(GENL_HDRLEN), end,
	    aggr)) == NULL)
		return (-1);
	if ((st = ts_attr((const char *)agg + NLA_HDRLEN,
	    (const char *)agg + agg->nla_len, TASKSTATS_TYPE_STATS)) == NULL)
		return (-1);
	len = (size_t)st->nla_len - NLA_HDRLEN;
	if (len < offsetof(struct taskstats, nivcsw) + sizeof(ts->nivcsw))
		return (-1);
	memset(ts, 0, sizeof(*ts));
	memcpy(ts, (const char *)st + NLA_HDRLEN,
	    len < sizeof(*ts) ? len : sizeof(*ts));
	return (0);
}

/* One batch: P[0..N), N <= TS_BATCH.  0, or -1 with errno when the
 * socket failed (answers for gone processes are no failure). */
static int
ts_batch(struct tstats *t, struct tstats_proc *p, size_t n)
{
	struct sockaddr_nl	 to;
	struct msghdr		 mh;
	struct taskstats	 ts;
	uint32_t		 base = t->seq + 1, id;
	size_t			 i, want = n, got = 0;
	int			 r;

	memset(&to, 0, sizeof(to));
	to.nl_family = AF_NETLINK;
	for (i = 0; i < n; i++) {
		id = (uint32_t)p[i].pid;
		p[i].ok = 0;
		p[i].vol = p[i].invol = 0;
		ts_req(&t->req[i], base + (uint32_t)i, t->family,
		    TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_TGID, &id,
		    sizeof(id));
		t->iov[i].iov_base = &t->req[i];
		t->iov[i].iov_len = t->req[i].n.nlmsg_len;
	}
	t->seq = base + (uint32_t)want - 1;
	/* one datagram holding every request: the kernel runs them in
	 * order and queues one answer (or error) for each */
	memset(&mh, 0, sizeof(mh));
	mh.msg_name = &to;
	mh.msg_namelen = sizeof(to);
	mh.msg_iov = t->iov;
	mh.msg_iovlen = want;
	if (sendmsg(t->fd, &mh, 0) == -1)
		return (-1);
	while (got < want) {
		for (i = 0; i < want; i++) {
			t->iov[i].iov_base = t->ans[i];
			t->iov[i].iov_len = TS_BUF;
			memset(&t->msg[i], 0, sizeof(t->msg[i]));
			t->msg[i].msg_hdr.msg_iov = &t->iov[i];
			t->msg[i].msg_hdr.msg_iovlen = 1;
		}
		r = recvmmsg(t->fd, t->msg, (unsigned)(want - got),
		    MSG_WAITFORONE, NULL);
		if (r <= 0) {
			if (r == -1 && errno == EINTR)
				continue;
			return (-1);
		}
		for (i = 0; i < (size_t)r; i++) {
			const struct nlmsghdr	*h = (void *)t->ans[i];
			size_t			 len = t->msg[i].msg_len;
			uint32_t		 k;

			if (len < NLMSG_HDRLEN || h->nlmsg_seq < base ||
			    h->nlmsg_seq >= base + want)
				continue;	/* an old batch's */
			got++;
			k = h->nlmsg_seq - base;
			if (ts_stats(t->ans[i], len, TASKSTATS_TYPE_AGGR_TGID,
			    &ts) == 0) {
				p[k].vol = ts.nvcsw;
				p[k].invol = ts.nivcsw;
				p[k].ok = 1;
			}
		}
	}
	return (0);
}

int
tstats_read(struct tstats *t, struct tstats_proc *p, size_t n)
{
	size_t	i, m;

	for (i = 0; i < n; i += m) {
		m = n - i < TS_BATCH ? n - i : TS_BATCH;
		if (ts_batch(t, p + i, m) != 0)
			return (-1);
	}
	return (0);
}

int
tstats_ctx(struct tstats *t, pid_t tgid, uint64_t *vol, uint64_t *invol)
{
	struct tstats_proc	p = { .pid = tgid };

	if (tstats_read(t, &p, 1) != 0)
		return (-1);
	if (!p.ok) {
		errno = ESRCH;
		return (-1);
	}
	*vol = p.vol;
	*invol = p.invol;
	return (0);
}
