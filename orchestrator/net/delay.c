/*
 * delay.c: the link emulator behind delay.h.  One thread per emulator:
 * it polls the NFQUEUE netlink socket, a timerfd armed at the next due
 * time, and an eventfd that says stop.  Each link is a FIFO of (packet
 * id, due time); due packets leave as NF_ACCEPT verdicts, many netlink
 * messages in one send.  The links that hold packets are in a min-heap
 * on their first packet's due time (a link's due times never fall), so
 * a wake-up costs what it lets go, not the number of links: at 200
 * nodes a scan of 40,200 links each wake-up was a quarter of devnet's
 * CPU (issue 40, docs/benchmarks.md).  Not here: the rules that mark
 * and queue packets, and shaping (shape.c).
 */
#include "net/delay.h"
#include "net/rt-budget.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink_queue.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "net/topo.h"

#define RECV_BATCH	64		/* messages per recvmmsg */
#define RECV_ROUNDS	16		/* recvmmsg calls before letting go */
#define RECV_MSG	512		/* one packet's metadata fits */
#define SEND_BUF	8192		/* verdicts per send: 8192 / 32 */
#define RCVBUF_BYTES	(8 << 20)
/* at SCHED_FIFO for at most half a CPU (rt-budget.h) */
#define DELAY_CPU_PERMILLE	500

struct held {
	uint32_t	id;
	int64_t		due;		/* CLOCK_MONOTONIC ns */
};

struct link_q {
	struct dn_delay_link	l;
	int64_t		last_due;	/* order: nothing leaves before this */
	struct held	*ring;
	uint32_t	head, len, cap;	/* cap a power of two; in the heap
					   exactly while len > 0 */
};

struct dn_delay {
	pthread_t	thread;
	int		running;
	pthread_mutex_t	mu;		/* links, between update and the thread */
	struct mnl_socket *nl;
	unsigned	portid;
	uint16_t	queue;
	int		evfd, tfd, procfd;
	struct link_q	*links;		/* sorted by mark */
	size_t		nlinks;
	uint32_t	*heap;		/* indices into links: those that hold
					   packets, by their head's due time */
	size_t		hlen;
	uint64_t	rng;
	int64_t		now;		/* arrival time of the batch received */
	/* Written by the thread only, read by dn_delay_stats. */
	uint64_t	packets, held, max_err_ns, unknown;
	uint64_t	rt_refused, demotions;	/* its dn_rt_budget's */
	char		sbuf[SEND_BUF];
	size_t		slen;
	char		rbuf[RECV_BATCH][RECV_MSG];
};

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t
rng_next(struct dn_delay *d)
{
	/* xorshift64*: enough for jitter, and reproducible per seed. */
	d->rng ^= d->rng >> 12;
	d->rng ^= d->rng << 25;
	d->rng ^= d->rng >> 27;
	return d->rng * 2685821657736338717ULL;
}

static void
stat_set(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static uint64_t
stat_get(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static int
mark_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct dn_delay_link *)a)->mark;
	uint32_t y = ((const struct dn_delay_link *)b)->mark;

	return x < y ? -1 : x > y;
}

static struct link_q *
link_find(struct dn_delay *d, uint32_t mark)
{
	size_t lo = 0, hi = d->nlinks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->links[mid].l.mark == mark)
			return &d->links[mid];
		if (d->links[mid].l.mark < mark)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int64_t
head_due(const struct dn_delay *d, uint32_t k)
{
	const struct link_q *q = &d->links[k];

	return q->ring[q->head].due;
}

static void
heap_up(struct dn_delay *d, size_t i)
{
	uint32_t k = d->heap[i];
	int64_t due = head_due(d, k);

	while (i > 0 && head_due(d, d->heap[(i - 1) / 2]) > due) {
		d->heap[i] = d->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	d->heap[i] = k;
}

static void
heap_down(struct dn_delay *d, size_t i)
{
	uint32_t k = d->heap[i];
	int64_t due = head_due(d, k);
	size_t c;

	while ((c = 2 * i + 1) < d->hlen) {
		if (c + 1 < d->hlen &&
		    head_due(d, d->heap[c + 1]) < head_due(d, d->heap[c]))
			c++;
		if (head_due(d, d->heap[c]) >= due)
			break;
		d->heap[i] = d->heap[c];
		i = c;
	}
	d->heap[i] = k;
}

/* Link K now holds a packet and was empty: into the heap. */
static void
heap_add(struct dn_delay *d, uint32_t k)
{
	d->heap[d->hlen] = k;
	heap_up(d, d->hlen++);
}

/* The heap's top let its due packets go: out when it holds no more,
 * else down to its next due time. */
static void
heap_top_done(struct dn_delay *d)
{
	uint32_t k = d->heap[0];

	if (d->links[k].len > 0) {
		heap_down(d, 0);
		return;
	}
	if (--d->hlen > 0) {
		d->heap[0] = d->heap[d->hlen];
		heap_down(d, 0);
	}
}

/* After the links moved (links_merge): the heap made again. */
static void
heap_rebuild(struct dn_delay *d)
{
	size_t k;

	d->hlen = 0;
	for (k = 0; k < d->nlinks; k++)
		if (d->links[k].len > 0)
			heap_add(d, (uint32_t)k);
}

/* Merge LINKS into D's table (caller holds d->mu or owns D alone):
 * named marks get their new figures, new marks a new FIFO, marks not
 * named delay 0 (their FIFO drains in order).  O(n log n) in links. */
static int
links_merge(struct dn_delay *d, const struct dn_delay_link *links, size_t n)
{
	struct dn_delay_link *s = NULL;
	struct link_q *t;
	size_t i, k, m = 0;

	if (n > 0 && (s = malloc(n * sizeof(*s))) == NULL)
		return errno = ENOMEM, -1;
	if (n > 0) {
		memcpy(s, links, n * sizeof(*s));
		qsort(s, n, sizeof(*s), mark_cmp);
	}
	for (i = 0; i < n; i++) {
		if (s[i].mark == 0 || (i > 0 && s[i].mark == s[i - 1].mark)) {
			free(s);
			return errno = EINVAL, -1;
		}
		if (link_find(d, s[i].mark) == NULL)
			m++;
	}
	/* Grow first: on ENOMEM nothing has changed. */
	if (m > 0) {
		uint32_t *h = realloc(d->heap, (d->nlinks + m) * sizeof(*h));

		if (h == NULL) {
			free(s);
			return errno = ENOMEM, -1;
		}
		d->heap = h;
		t = realloc(d->links, (d->nlinks + m) * sizeof(*t));
		if (t == NULL) {
			free(s);
			return errno = ENOMEM, -1;
		}
		d->links = t;
		for (i = 0, k = d->nlinks; i < n; i++)
			if (link_find(d, s[i].mark) == NULL) {
				memset(&t[k], 0, sizeof(*t));
				t[k++].l.mark = s[i].mark;
			}
		d->nlinks = k;
		/* A link_q starts with its dn_delay_link: mark_cmp fits. */
		qsort(t, d->nlinks, sizeof(*t), mark_cmp);
		heap_rebuild(d);
	}
	for (k = 0; k < d->nlinks; k++) {
		d->links[k].l.delay_us = 0;
		d->links[k].l.jitter_us = 0;
	}
	for (i = 0; i < n; i++)
		link_find(d, s[i].mark)->l = s[i];
	free(s);
	return 0;
}

static int
ring_push(struct link_q *q, uint32_t id, int64_t due)
{
	if (q->len == q->cap) {
		uint32_t cap = q->cap ? q->cap * 2 : 64, i;
		struct held *r = malloc(cap * sizeof(*r));

		if (r == NULL)
			return -1;
		for (i = 0; i < q->len; i++)
			r[i] = q->ring[(q->head + i) & (q->cap - 1)];
		free(q->ring);
		q->ring = r;
		q->head = 0;
		q->cap = cap;
	}
	q->ring[(q->head + q->len) & (q->cap - 1)] = (struct held){ id, due };
	q->len++;
	return 0;
}

static void
verdict_flush(struct dn_delay *d)
{
	if (d->slen == 0)
		return;
	/* No ACKs asked: a verdict for a packet the kernel has already
	 * dropped (queue flushed) fails alone, silently. */
	(void)mnl_socket_sendto(d->nl, d->sbuf, d->slen);
	d->slen = 0;
}

static void
verdict_add(struct dn_delay *d, uint32_t id, int verdict)
{
	struct nlmsghdr *nlh;

	if (d->slen + 64 > sizeof(d->sbuf))
		verdict_flush(d);
	nlh = nfq_nlmsg_put(d->sbuf + d->slen, NFQNL_MSG_VERDICT, d->queue);
	nfq_nlmsg_verdict_put(nlh, (int)id, verdict);
	d->slen += NLMSG_ALIGN(nlh->nlmsg_len);
}

/* One queued packet: its link's FIFO, or at once when no link has its
 * mark (or the FIFO cannot grow). */
static int
on_packet(const struct nlmsghdr *nlh, void *data)
{
	struct dn_delay *d = data;
	struct nlattr *attr[NFQA_MAX + 1] = { 0 };
	struct nfqnl_msg_packet_hdr *ph;
	struct link_q *q;
	uint32_t id, mark = 0;
	int64_t due, j;

	if (nfq_nlmsg_parse(nlh, attr) < 0 || attr[NFQA_PACKET_HDR] == NULL)
		return MNL_CB_OK;
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	id = ntohl(ph->packet_id);
	if (attr[NFQA_MARK] != NULL)
		mark = ntohl(mnl_attr_get_u32(attr[NFQA_MARK]));
	q = mark ? link_find(d, mark) : NULL;
	if (q == NULL) {
		verdict_add(d, id, NF_ACCEPT);
		stat_set(&d->unknown, d->unknown + 1);
		stat_set(&d->packets, d->packets + 1);
		return MNL_CB_OK;
	}
	due = d->now + (int64_t)q->l.delay_us * 1000;
	if (q->l.jitter_us > 0) {
		j = (int64_t)(rng_next(d) % (2 * (uint64_t)q->l.jitter_us + 1));
		due += (j - (int64_t)q->l.jitter_us) * 1000;
		if (due < d->now)
			due = d->now;
	}
	if (due < q->last_due)
		due = q->last_due;	/* never ahead of the one before */
	if (ring_push(q, id, due) < 0) {
		verdict_add(d, id, NF_ACCEPT);
		stat_set(&d->packets, d->packets + 1);
		return MNL_CB_OK;
	}
	q->last_due = due;
	if (q->len == 1)
		heap_add(d, (uint32_t)(q - d->links));
	stat_set(&d->held, d->held + 1);
	return MNL_CB_OK;
}

/* Let every packet due by NOW go; returns the next due time (or
 * INT64_MAX when nothing is held). */
static int64_t
release_due(struct dn_delay *d, int64_t now)
{
	uint64_t n = 0, maxerr = d->max_err_ns;

	while (d->hlen > 0 && head_due(d, d->heap[0]) <= now) {
		struct link_q *q = &d->links[d->heap[0]];

		while (q->len > 0 && q->ring[q->head].due <= now) {
			struct held *h = &q->ring[q->head];

			if ((uint64_t)(now - h->due) > maxerr)
				maxerr = (uint64_t)(now - h->due);
			verdict_add(d, h->id, NF_ACCEPT);
			q->head = (q->head + 1) & (q->cap - 1);
			q->len--;
			n++;
		}
		heap_top_done(d);
	}
	verdict_flush(d);
	if (n > 0) {
		stat_set(&d->held, d->held - n);
		stat_set(&d->packets, d->packets + n);
		stat_set(&d->max_err_ns, maxerr);
	}
	return d->hlen > 0 ? head_due(d, d->heap[0]) : INT64_MAX;
}

/* Read what the socket has (up to RECV_ROUNDS batches), each message
 * into its FIFO, stamped with the time its batch arrived. */
static void
drain(struct dn_delay *d)
{
	struct mmsghdr mm[RECV_BATCH];
	struct iovec iov[RECV_BATCH];
	int fd = mnl_socket_get_fd(d->nl), r, i, round;

	for (round = 0; round < RECV_ROUNDS; round++) {
		memset(mm, 0, sizeof(mm));
		for (i = 0; i < RECV_BATCH; i++) {
			iov[i].iov_base = d->rbuf[i];
			iov[i].iov_len = RECV_MSG;
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		r = recvmmsg(fd, mm, RECV_BATCH, MSG_DONTWAIT, NULL);
		if (r <= 0)
			return;
		d->now = mono_ns();
		for (i = 0; i < r; i++)
			(void)mnl_cb_run(d->rbuf[i], mm[i].msg_len, 0, d->portid,
			    on_packet, d);
		if (r < RECV_BATCH)
			return;
	}
}

static void
timer_arm(struct dn_delay *d, int64_t at)
{
	struct itimerspec its = { 0 };

	if (at != INT64_MAX) {
		its.it_value.tv_sec = at / 1000000000;
		its.it_value.tv_nsec = at % 1000000000;
		if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
			its.it_value.tv_nsec = 1;
	}
	(void)timerfd_settime(d->tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static void *
emulator_main(void *arg)
{
	struct dn_delay *d = arg;
	struct dn_rt_budget rb;
	struct pollfd p[3];
	uint64_t x;
	int64_t next;

	/* Wake-ups at the due time, not 50 us after it, and ahead of the
	 * nodes' threads when the CPUs are busy (when allowed: root). */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	dn_rt_budget_start(&rb, 10, DELAY_CPU_PERMILLE);
	stat_set(&d->rt_refused, (uint64_t)rb.refused);
	p[0] = (struct pollfd){ .fd = mnl_socket_get_fd(d->nl),
	    .events = POLLIN };
	p[1] = (struct pollfd){ .fd = d->evfd, .events = POLLIN };
	p[2] = (struct pollfd){ .fd = d->tfd, .events = POLLIN };
	/* Packets queued while the queue was being bound. */
	pthread_mutex_lock(&d->mu);
	next = release_due(d, mono_ns());
	pthread_mutex_unlock(&d->mu);
	timer_arm(d, next);
	for (;;) {
		dn_rt_budget_tick(&rb);
		if (rb.demotions != d->demotions)
			stat_set(&d->demotions, rb.demotions);
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		if (p[2].revents)
			(void)read(d->tfd, &x, sizeof(x));
		pthread_mutex_lock(&d->mu);
		if (p[0].revents & POLLIN)
			drain(d);
		next = release_due(d, mono_ns());
		pthread_mutex_unlock(&d->mu);
		timer_arm(d, next);
	}
	return NULL;
}

/* Bind QUEUE on D's socket: metadata only, the long queue, GSO packets
 * whole; no FAIL_OPEN (fail-closed).  Packets that arrive before the
 * kernel's answer go into their FIFOs. */
static int
queue_bind(struct dn_delay *d, char *err, size_t errlen)
{
	char buf[SEND_BUF];
	struct nlmsghdr *nlh;
	int r;

	nlh = nfq_nlmsg_put(buf, NFQNL_MSG_CONFIG, d->queue);
	nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = 1;
	nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_BIND);
	nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_META, 0);
	nfq_nlmsg_cfg_put_qmaxlen(nlh, DN_DELAY_QUEUE_MAX);
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(NFQA_CFG_F_GSO));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK,
	    htonl(NFQA_CFG_F_GSO | NFQA_CFG_F_FAIL_OPEN));
	if (mnl_socket_sendto(d->nl, nlh, nlh->nlmsg_len) < 0)
		goto fail;
	do {
		r = (int)mnl_socket_recvfrom(d->nl, buf, sizeof(buf));
		if (r < 0)
			goto fail;
		d->now = mono_ns();
		r = mnl_cb_run(buf, (size_t)r, 0, d->portid, on_packet, d);
	} while (r > 0);
	if (r < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "nfqueue %u: cannot bind: %s%s", d->queue,
	    strerror(errno), errno == EBUSY || errno == EPERM ?
	    " (another socket holds this queue)" : "");
	return -1;
}

/* The socket, in the namespace the calling thread is in now. */
static int
socket_open(struct dn_delay *d, char *err, size_t errlen)
{
	int one = 1, sz = RCVBUF_BYTES, fd;
	char path[128];

	d->nl = mnl_socket_open(NETLINK_NETFILTER);
	if (d->nl == NULL || mnl_socket_bind(d->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		snprintf(err, errlen, "nfqueue %u: netlink socket: %s",
		    d->queue, strerror(errno));
		return -1;
	}
	d->portid = mnl_socket_get_portid(d->nl);
	fd = mnl_socket_get_fd(d->nl);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one,
	    sizeof(one));
	if (queue_bind(d, err, errlen) < 0)
		return -1;
	/* The kernel's counters of this namespace's queues (drops). */
	snprintf(path, sizeof(path),
	    "/proc/thread-self/net/netfilter/nfnetlink_queue");
	d->procfd = open(path, O_RDONLY | O_CLOEXEC);
	return 0;
}

static void
destroy(struct dn_delay *d)
{
	size_t i;

	if (d->nl != NULL)
		mnl_socket_close(d->nl);
	if (d->evfd >= 0)
		close(d->evfd);
	if (d->tfd >= 0)
		close(d->tfd);
	if (d->procfd >= 0)
		close(d->procfd);
	for (i = 0; i < d->nlinks; i++)
		free(d->links[i].ring);
	free(d->links);
	free(d->heap);
	pthread_mutex_destroy(&d->mu);
	free(d);
}

struct open_arg {
	struct dn_delay	*d;
	char		*err;
	size_t		errlen;
};

static int
open_cb(void *arg)
{
	struct open_arg *a = arg;

	return socket_open(a->d, a->err, a->errlen);
}

/* Enter NETNS_FD (-1: stay), open the socket, come back. */
static int
open_in(struct dn_delay *d, int netns_fd, char *err, size_t errlen)
{
	struct open_arg a = { d, err, errlen };

	err[0] = '\0';
	if (netns_fd < 0)
		return open_cb(&a);
	if (dn_net_in_ns(netns_fd, open_cb, &a) == 0)
		return 0;
	if (err[0] == '\0')
		snprintf(err, errlen, "nfqueue %u: cannot enter the namespace: "
		    "%s", d->queue, strerror(errno));
	return -1;
}

int
dn_delay_start(struct dn_delay **out, int netns_fd, uint16_t queue,
    const struct dn_delay_link *links, size_t n, char *err, size_t errlen)
{
	struct dn_delay *d;

	*out = NULL;
	if (n > DN_DELAY_QUEUE_MAX) {
		snprintf(err, errlen, "nfqueue %u: %zu links (at most %d)",
		    queue, n, DN_DELAY_QUEUE_MAX);
		return -1;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		snprintf(err, errlen, "nfqueue %u: out of memory", queue);
		return -1;
	}
	pthread_mutex_init(&d->mu, NULL);
	d->queue = queue;
	d->evfd = d->tfd = d->procfd = -1;
	d->rng = 0x9e3779b97f4a7c15ULL ^ ((uint64_t)queue << 32);
	if (links_merge(d, links, n) < 0) {
		snprintf(err, errlen, "nfqueue %u: %s", queue, errno == EINVAL ?
		    "links need distinct marks other than 0" : strerror(errno));
		goto fail;
	}
	d->evfd = eventfd(0, EFD_CLOEXEC);
	d->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (d->evfd < 0 || d->tfd < 0) {
		snprintf(err, errlen, "nfqueue %u: %s", queue, strerror(errno));
		goto fail;
	}
	if (open_in(d, netns_fd, err, errlen) < 0)
		goto fail;
	if (pthread_create(&d->thread, NULL, emulator_main, d) != 0) {
		snprintf(err, errlen, "nfqueue %u: cannot start the thread",
		    queue);
		goto fail;
	}
	d->running = 1;
	*out = d;
	return 0;
fail:
	destroy(d);
	return -1;
}

int
dn_delay_update(struct dn_delay *d, const struct dn_delay_link *links,
    size_t n)
{
	int r;

	pthread_mutex_lock(&d->mu);
	r = links_merge(d, links, n);
	pthread_mutex_unlock(&d->mu);
	return r;
}

/* queue_dropped + user_dropped of D's queue, or -1. */
static uint64_t
kernel_drops(const struct dn_delay *d)
{
	char buf[8192], *line;
	unsigned q, port, total, mode, range;
	unsigned long long qd, ud;
	ssize_t r;

	if (d->procfd < 0)
		return UINT64_MAX;
	r = pread(d->procfd, buf, sizeof(buf) - 1, 0);
	if (r <= 0)
		return UINT64_MAX;
	buf[r] = '\0';
	for (line = buf; line != NULL && *line != '\0'; ) {
		if (sscanf(line, "%u %u %u %u %u %llu %llu", &q, &port, &total,
		    &mode, &range, &qd, &ud) == 7 && q == d->queue)
			return qd + ud;
		line = strchr(line, '\n');
		if (line != NULL)
			line++;
	}
	return UINT64_MAX;
}

void
dn_delay_stats(const struct dn_delay *d, struct dn_delay_stats *out)
{
	clockid_t cid;
	struct timespec ts;

	memset(out, 0, sizeof(*out));
	out->packets = stat_get(&d->packets);
	out->held = stat_get(&d->held);
	out->max_hold_err_us = stat_get(&d->max_err_ns) / 1000;
	out->unknown = stat_get(&d->unknown);
	out->realtime = !stat_get(&d->rt_refused);
	out->demotions = stat_get(&d->demotions);
	out->drops = kernel_drops(d);
	if (d->running && pthread_getcpuclockid(d->thread, &cid) == 0 &&
	    clock_gettime(cid, &ts) == 0)
		out->cpu_ns = (uint64_t)ts.tv_sec * 1000000000 +
		    (uint64_t)ts.tv_nsec;
}

void
dn_delay_stop(struct dn_delay *d)
{
	uint64_t one = 1;

	if (d == NULL)
		return;
	if (d->running) {
		(void)write(d->evfd, &one, sizeof(one));
		pthread_join(d->thread, NULL);
	}
	destroy(d);
}
