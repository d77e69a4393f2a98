/*
 * taskstats.c: a process's context switches through Linux taskstats
 * (generic netlink, TASKSTATS_CMD_GET with TASKSTATS_CMD_ATTR_TGID; see
 * probe.h).  One request and one answer per process replace reading
 * /proc/PID/task/TID/status of every thread (tree.c): the kernel sums
 * nvcsw and nivcsw over the thread group, and since the taskstats
 * "retain dead thread stats in tgid queries" change (in 6.18 here) also
 * over threads that already exited, which /proc never shows.
 *
 * Only the context switches are taken from here.  The TGID answer has no
 * page faults, I/O bytes or reaped children, and its CPU times leave out
 * exited threads on older kernels: /proc/PID/stat and /proc/PID/io stay
 * the source of those (tree.c says why the reaped children matter).
 *
 * Not always available: the command needs CAP_NET_ADMIN in the initial
 * user namespace (GENL_ADMIN_PERM), which a probe in a container or under
 * a non-root uid does not have, and a kernel without CONFIG_TASKSTATS has
 * no family.  tstats_open says so once and tree.c reads /proc instead.
 * DN_PROBE_TASKSTATS=0 in the environment forces /proc (tests, and a
 * way out should a kernel answer wrongly).
 */
#include <sys/socket.h>

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

#define TS_BUF	1024	/* an answer is ~430 bytes; family info ~1 kB */

struct tstats {
	int		fd;
	uint16_t	family;
	uint32_t	seq;
};

/* A request: netlink header, genetlink header, one u32 or string attr. */
struct ts_req {
	struct nlmsghdr		n;
	struct genlmsghdr	g;
	char			attr[64];
};

/* Send a request of TYPE/CMD with one attribute ATTR (LEN bytes). */
static int
ts_send(struct tstats *t, uint16_t type, uint8_t cmd, uint16_t attr,
    const void *data, size_t len)
{
	struct ts_req		 r;
	struct nlattr		*na;
	struct sockaddr_nl	 to;
	ssize_t			 n;

	memset(&r, 0, sizeof(r));
	memset(&to, 0, sizeof(to));
	to.nl_family = AF_NETLINK;
	r.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r.n.nlmsg_type = type;
	r.n.nlmsg_flags = NLM_F_REQUEST;
	r.n.nlmsg_seq = ++t->seq;
	r.g.cmd = cmd;
	r.g.version = 1;
	na = (struct nlattr *)((char *)&r + r.n.nlmsg_len);
	na->nla_type = attr;
	na->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)na + NLA_HDRLEN, data, len);
	r.n.nlmsg_len += NLA_ALIGN(na->nla_len);
	n = sendto(t->fd, &r, r.n.nlmsg_len, 0, (struct sockaddr *)&to,
	    sizeof(to));
	return (n == (ssize_t)r.n.nlmsg_len ? 0 : -1);
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

int
tstats_ctx(struct tstats *t, pid_t tgid, uint64_t *vol, uint64_t *invol)
{
	const struct nlattr	*agg, *st;
	struct taskstats	 ts;
	char			 buf[TS_BUF];
	const char		*p, *end;
	uint32_t		 id = (uint32_t)tgid;
	size_t			 len;
	ssize_t			 n;

	if (ts_send(t, t->family, TASKSTATS_CMD_GET,
	    TASKSTATS_CMD_ATTR_TGID, &id, sizeof(id)) != 0 ||
	    (n = ts_recv(t, buf, sizeof(buf))) < 0)
		return (-1);
	p = buf + NLMSG_LENGTH(GENL_HDRLEN);
	end = buf + ((struct nlmsghdr *)buf)->nlmsg_len;
	if (end > buf + n ||
	    (agg = ts_attr(p, end, TASKSTATS_TYPE_AGGR_TGID)) == NULL)
		goto bad;
	p = (const char *)agg + NLA_HDRLEN;
	if ((st = ts_attr(p, (const char *)agg + agg->nla_len,
	    TASKSTATS_TYPE_STATS)) == NULL)
		goto bad;
	/* an older kernel's struct is a prefix of ours: take what fits */
	len = (size_t)st->nla_len - NLA_HDRLEN;
	if (len < offsetof(struct taskstats, nivcsw) + sizeof(ts.nivcsw))
		goto bad;
	memset(&ts, 0, sizeof(ts));
	memcpy(&ts, (const char *)st + NLA_HDRLEN,
	    len < sizeof(ts) ? len : sizeof(ts));
	*vol = ts.nvcsw;
	*invol = ts.nivcsw;
	return (0);
bad:
	errno = EBADMSG;
	return (-1);
}
