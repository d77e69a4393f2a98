/*
 * probe.c: the per-link probe (net/probe.h).  One thread, one UDP socket
 * per node namespace (opened there, bound to the node's address on a port
 * the kernel picks), a ring of the last probes per probed link.  Not
 * here: which links to probe, what the figures mean for a trial (the
 * caller).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/net-internal.h"
#include "net/probe.h"
#include "net/rt-budget.h"
#include "net/topo.h"
#include "clock.h"
#include "xalloc.h"

#define PROBE_MAGIC	0x444e5031u	/* "DNP1" */
#define KIND_REQ	1
#define KIND_ECHO	2
#define RING_SECONDS	300
/* at SCHED_FIFO for at most a quarter of a CPU (rt-budget.h) */
#define PROBE_CPU_PERMILLE	250

/* On the wire, little-endian as the host: both ends are this process. */
struct pkt {
	uint32_t	magic;
	uint16_t	kind;
	uint16_t	src, dst;
	uint16_t	pad;
	uint32_t	seq;
	uint64_t	token;
	uint64_t	send_ns;
};

struct slot {
	uint64_t	send_ns;	/* 0 = empty */
	uint32_t	seq;
	int32_t		owd_us;		/* -1 = not arrived */
	int32_t		rtt_us;		/* -1 = no echo */
};

struct dn_probe {
	int		 n;
	int		 rate_hz;
	uint64_t	 token;
	int		*socks;
	uint16_t	*ports;		/* network order */
	struct dn_probe_link *links;	/* the probed links, in send order */
	size_t		 nlinks;
	int32_t		*idx;		/* [s * n + d]: into links, or -1 */
	struct slot	*ring;		/* nlinks links of ringsz slots */
	uint32_t	 ringsz;	/* a power of 2 */
	uint32_t	 seq;
	int		 stopfd;
	pthread_mutex_t	 mu;
	pthread_t	 thr;
	int		 running;
};

/* Link SRC -> DST's index in P's ring, or -1 when it is not probed. */
static int32_t
link_of(const struct dn_probe *p, int src, int dst)
{
	if (src < 0 || dst < 0 || src >= p->n || dst >= p->n || src == dst)
		return (-1);
	return (p->idx[(size_t)src * (size_t)p->n + (size_t)dst]);
}

static struct slot *
slot_of(struct dn_probe *p, int32_t link, uint32_t seq)
{
	return (&p->ring[(size_t)link * p->ringsz + (seq & (p->ringsz - 1))]);
}

struct sockarg {
	int		 i;
	int		 fd;
	uint16_t	 port;
};

static int
sock_cb(void *arg)
{
	struct sockarg		*a = arg;
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	int			 one = 1;

	if ((a->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) < 0)
		return (-1);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = dn_net_addr(a->i);
	(void)setsockopt(a->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one,
	    sizeof(one));
	if (bind(a->fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    getsockname(a->fd, (struct sockaddr *)&sin, &len) != 0)
		return (-1);
	a->port = sin.sin_port;
	return (0);
}

static void
send_to(struct dn_probe *p, int from, int to, const struct pkt *k)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = dn_net_addr(to);
	sin.sin_port = p->ports[to];
	/* a full socket buffer loses the probe, as a link would */
	(void)sendto(p->socks[from], k, sizeof(*k), 0,
	    (struct sockaddr *)&sin, sizeof(sin));
}

static void
send_round(struct dn_probe *p)
{
	struct pkt	k;
	size_t		i;
	uint32_t	seq;

	pthread_mutex_lock(&p->mu);
	seq = p->seq++;
	pthread_mutex_unlock(&p->mu);
	memset(&k, 0, sizeof(k));
	k.magic = PROBE_MAGIC;
	k.kind = KIND_REQ;
	k.token = p->token;
	k.seq = seq;
	for (i = 0; i < p->nlinks; i++) {
		struct slot *sl;

		k.src = (uint16_t)p->links[i].src;
		k.dst = (uint16_t)p->links[i].dst;
		k.send_ns = dn_now_ns();
		pthread_mutex_lock(&p->mu);
		sl = slot_of(p, (int32_t)i, seq);
		sl->send_ns = k.send_ns;
		sl->seq = seq;
		sl->owd_us = sl->rtt_us = -1;
		pthread_mutex_unlock(&p->mu);
		send_to(p, k.src, k.dst, &k);
	}
}

/* CLOCK_MONOTONIC minus CLOCK_REALTIME, in ns, now. */
static int64_t
mono_off(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)dn_now_ns() - ((int64_t)ts.tv_sec * 1000000000 +
	    ts.tv_nsec));
}

/*
 * One packet from FD into K, and when it arrived (CLOCK_MONOTONIC): the
 * kernel's time (SO_TIMESTAMPNS, CLOCK_REALTIME moved by OFF), not this
 * thread's.  On a network of N endpoints a round is N * (N - 1) sends
 * and as many arrivals, handled one after another by this thread; read
 * after a round, a 51-endpoint network's first probes measured 20 ms
 * more than their link's 2 ms (issue 40).  Returns its size, or -1.
 */
static ssize_t
recv_stamped(int fd, struct pkt *k, int64_t off, uint64_t *at)
{
	char		 cbuf[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec	 iov = { k, sizeof(*k) };
	struct msghdr	 mh = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr	*c;
	struct timespec	 ts;
	ssize_t		 len;

	if ((len = recvmsg(fd, &mh, 0)) < 0)
		return (-1);
	*at = dn_now_ns();
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			*at = (uint64_t)((int64_t)ts.tv_sec * 1000000000 +
			    ts.tv_nsec + off);
		}
	return (len);
}

/* Everything waiting on node I's socket. */
static void
drain(struct dn_probe *p, int i)
{
	struct pkt	 k;
	struct slot	*sl;
	uint64_t	 now;
	int64_t		 us, off = mono_off();
	int32_t		 link;

	while (recv_stamped(p->socks[i], &k, off, &now) ==
	    (ssize_t)sizeof(k)) {
		if (k.magic != PROBE_MAGIC || k.token != p->token ||
		    (link = link_of(p, k.src, k.dst)) < 0 || now < k.send_ns)
			continue;
		if ((k.kind == KIND_REQ && k.dst != i) ||
		    (k.kind == KIND_ECHO && k.src != i))
			continue;
		us = (int64_t)((now - k.send_ns) / 1000);
		if (us > INT32_MAX)
			us = INT32_MAX;
		pthread_mutex_lock(&p->mu);
		sl = slot_of(p, link, k.seq);
		if (sl->seq == k.seq && sl->send_ns == k.send_ns) {
			if (k.kind == KIND_REQ && sl->owd_us < 0)
				sl->owd_us = (int32_t)us;
			else if (k.kind == KIND_ECHO && sl->rtt_us < 0)
				sl->rtt_us = (int32_t)us;
		}
		pthread_mutex_unlock(&p->mu);
		if (k.kind == KIND_REQ) {
			k.kind = KIND_ECHO;
			send_to(p, i, k.src, &k);
		}
	}
}

static void *
probe_main(void *arg)
{
	struct dn_probe	*p = arg;
	struct pollfd	*pf = dn_xcalloc((size_t)p->n + 1, sizeof(*pf));
	uint64_t	 period = 1000000000ull / (uint64_t)p->rate_hz;
	uint64_t	 next = dn_now_ns(), now;
	struct dn_rt_budget rb;
	int		 i, ms;

	/* Below the emulator's (net/delay.c), above the nodes: on a busy
	 * machine a probe waiting for a CPU between its packet's arrival
	 * and its clock read would count as the link's delay.  Without the
	 * privilege it runs at the default priority. */
	dn_rt_budget_start(&rb, 5, PROBE_CPU_PERMILLE);

	for (i = 0; i < p->n; i++) {
		pf[i].fd = p->socks[i];
		pf[i].events = POLLIN;
	}
	pf[p->n].fd = p->stopfd;
	pf[p->n].events = POLLIN;
	for (;;) {
		dn_rt_budget_tick(&rb);
		now = dn_now_ns();
		if (now >= next) {
			send_round(p);
			next += period;
			if (next < now)		/* fell behind: no burst */
				next = now + period;
		}
		now = dn_now_ns();
		ms = next > now ? (int)((next - now + 999999) / 1000000) : 0;
		if (poll(pf, (nfds_t)p->n + 1, ms) < 0 && errno != EINTR)
			break;
		if (pf[p->n].revents != 0)
			break;
		for (i = 0; i < p->n; i++)
			if (pf[i].revents & POLLIN)
				drain(p, i);
	}
	free(pf);
	return (NULL);
}

int
dn_probe_start(struct dn_probe **pp, const struct dn_net *net, int rate_hz,
    char *err, size_t errlen)
{
	return (dn_probe_start_links(pp, net, NULL, 0, rate_hz, err,
	    errlen));
}

/* P's links: LINKS, or every directed link when LINKS is NULL. */
static int
set_links(struct dn_probe *p, const struct dn_probe_link *links,
    size_t nlinks, char *err, size_t errlen)
{
	size_t	i, n = (size_t)p->n;
	int	s, d;

	p->idx = dn_xcalloc(n * n, sizeof(*p->idx));
	for (i = 0; i < n * n; i++)
		p->idx[i] = -1;
	if (links == NULL) {
		p->links = dn_xcalloc(n * n, sizeof(*p->links));
		for (s = 0; s < p->n; s++)
			for (d = 0; d < p->n; d++)
				if (s != d) {
					p->links[p->nlinks].src = s;
					p->links[p->nlinks].dst = d;
					p->idx[s * n + d] =
					    (int32_t)p->nlinks++;
				}
		return (0);
	}
	p->links = dn_xcalloc(nlinks + 1, sizeof(*p->links));
	for (i = 0; i < nlinks; i++) {
		s = links[i].src;
		d = links[i].dst;
		if (s < 0 || d < 0 || s >= p->n || d >= p->n || s == d) {
			dn_net_seterr(err, errlen, "probe link %d->%d is not "
			    "a link of %d endpoints", s, d, p->n);
			return (-1);
		}
		if (p->idx[s * n + d] >= 0)
			continue;
		p->links[p->nlinks] = links[i];
		p->idx[s * n + d] = (int32_t)p->nlinks++;
	}
	return (0);
}

int
dn_probe_start_links(struct dn_probe **pp, const struct dn_net *net,
    const struct dn_probe_link *links, size_t nlinks, int rate_hz,
    char *err, size_t errlen)
{
	struct dn_probe	*p;
	struct sockarg	 a;
	uint32_t	 want;
	int		 i;

	*pp = NULL;
	if (rate_hz < 1 || rate_hz > 1000) {
		dn_net_seterr(err, errlen, "probe rate %d/s is outside 1..1000",
		    rate_hz);
		return (-1);
	}
	p = dn_xcalloc(1, sizeof(*p));
	p->n = dn_net_nodes(net);
	p->rate_hz = rate_hz;
	p->token = dn_now_ns() ^ ((uint64_t)getpid() << 40);
	p->stopfd = -1;
	pthread_mutex_init(&p->mu, NULL);
	want = (uint32_t)rate_hz * RING_SECONDS;
	for (p->ringsz = 64; p->ringsz < want; p->ringsz <<= 1)
		;
	p->socks = dn_xcalloc((size_t)p->n, sizeof(*p->socks));
	p->ports = dn_xcalloc((size_t)p->n, sizeof(*p->ports));
	for (i = 0; i < p->n; i++)
		p->socks[i] = -1;
	if (set_links(p, links, nlinks, err, errlen) != 0)
		goto fail;
	p->ring = dn_xcalloc(p->nlinks ? p->nlinks : 1, (size_t)p->ringsz *
	    sizeof(*p->ring));
	for (i = 0; i < p->n; i++) {
		a.i = i;
		a.fd = -1;
		if (dn_net_in_ns(dn_net_ns_fd(net, i), sock_cb, &a) != 0) {
			dn_net_seterr(err, errlen, "probe socket in %s: %s",
			    dn_net_ns_name(net, i), strerror(errno));
			if (a.fd >= 0)
				close(a.fd);
			goto fail;
		}
		p->socks[i] = a.fd;
		p->ports[i] = a.port;
	}
	if ((p->stopfd = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    pthread_create(&p->thr, NULL, probe_main, p) != 0) {
		dn_net_seterr(err, errlen, "probe thread: %s", strerror(errno));
		goto fail;
	}
	p->running = 1;
	*pp = p;
	return (0);
fail:
	dn_probe_stop(p);
	return (-1);
}

void
dn_probe_window(struct dn_probe *p, int src, int dst, uint64_t from_ns,
    uint64_t to_ns, struct dn_probe_stats *out)
{
	uint32_t	 i;
	struct slot	*sl, *base;
	int32_t		 link = link_of(p, src, dst);

	memset(out, 0, sizeof(*out));
	if (link < 0)
		return;
	out->owd_ms = dn_xcalloc(p->ringsz, sizeof(double));
	out->rtt_ms = dn_xcalloc(p->ringsz, sizeof(double));
	base = &p->ring[(size_t)link * p->ringsz];
	pthread_mutex_lock(&p->mu);
	/* oldest first: the ring from the slot after the newest */
	for (i = 0; i < p->ringsz; i++) {
		sl = &base[(p->seq + i) & (p->ringsz - 1)];
		if (sl->send_ns == 0 || sl->send_ns < from_ns ||
		    sl->send_ns >= to_ns)
			continue;
		out->sent++;
		if (sl->owd_us >= 0) {
			out->crossed++;
			out->owd_ms[out->nowd++] = sl->owd_us / 1000.0;
		}
		if (sl->rtt_us >= 0) {
			out->echoed++;
			out->rtt_ms[out->nrtt++] = sl->rtt_us / 1000.0;
		}
	}
	pthread_mutex_unlock(&p->mu);
}

void
dn_probe_samples(struct dn_probe *p, int src, int dst, uint64_t from_ns,
    uint64_t to_ns, struct dn_probe_sample **out, size_t *n)
{
	struct slot	*sl, *base;
	int32_t		 link = link_of(p, src, dst);
	uint32_t	 i;

	*out = NULL;
	*n = 0;
	if (link < 0)
		return;
	*out = dn_xcalloc(p->ringsz, sizeof(**out));
	base = &p->ring[(size_t)link * p->ringsz];
	pthread_mutex_lock(&p->mu);
	for (i = 0; i < p->ringsz; i++) {
		sl = &base[(p->seq + i) & (p->ringsz - 1)];
		if (sl->send_ns == 0 || sl->send_ns < from_ns ||
		    sl->send_ns >= to_ns)
			continue;
		(*out)[*n].send_ns = sl->send_ns;
		(*out)[*n].owd_ms = sl->owd_us >= 0 ? sl->owd_us / 1000.0 :
		    NAN;
		(*out)[*n].rtt_ms = sl->rtt_us >= 0 ? sl->rtt_us / 1000.0 :
		    NAN;
		(*n)++;
	}
	pthread_mutex_unlock(&p->mu);
}

int
dn_probe_probes(const struct dn_probe *p, int src, int dst)
{
	return (p != NULL && link_of(p, src, dst) >= 0);
}

size_t
dn_probe_nlinks(const struct dn_probe *p)
{
	return (p != NULL ? p->nlinks : 0);
}

void
dn_probe_cost(struct dn_probe *p, uint64_t *cpu_ns, uint64_t *sent)
{
	struct timespec	ts;
	clockid_t	cid;

	*cpu_ns = *sent = 0;
	if (p == NULL || !p->running)
		return;
	if (pthread_getcpuclockid(p->thr, &cid) == 0 &&
	    clock_gettime(cid, &ts) == 0)
		*cpu_ns = (uint64_t)ts.tv_sec * 1000000000ull +
		    (uint64_t)ts.tv_nsec;
	pthread_mutex_lock(&p->mu);
	*sent = (uint64_t)p->seq * p->nlinks;
	pthread_mutex_unlock(&p->mu);
}

void
dn_probe_stats_release(struct dn_probe_stats *s)
{
	free(s->owd_ms);
	free(s->rtt_ms);
	s->owd_ms = s->rtt_ms = NULL;
	s->nowd = s->nrtt = 0;
}

void
dn_probe_stop(struct dn_probe *p)
{
	uint64_t	one = 1;
	int		i;

	if (p == NULL)
		return;
	if (p->running) {
		if (write(p->stopfd, &one, sizeof(one)) != sizeof(one))
			abort();
		pthread_join(p->thr, NULL);
	}
	if (p->stopfd >= 0)
		close(p->stopfd);
	for (i = 0; i < p->n; i++)
		if (p->socks[i] >= 0)
			close(p->socks[i]);
	pthread_mutex_destroy(&p->mu);
	free(p->socks);
	free(p->ports);
	free(p->links);
	free(p->idx);
	free(p->ring);
	free(p);
}
