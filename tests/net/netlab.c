/*
 * netlab.c: the two-namespaces-and-a-hub lab of netlab.h, and the
 * measurements taken across it (one-way UDP delays, UDP ping-pong, TCP
 * goodput).  All namespaces share CLOCK_MONOTONIC, so a packet's send
 * time read at the receiver gives its one-way delay directly.
 */
#include "netlab.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define UDP_PORT	7000
#define TCP_PORT	7100

struct probe {
	uint32_t	seq;
	uint32_t	pad;
	int64_t		sent_ns;
};

double
netlab_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
netlab_sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int r;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	r = system(cmd);
	return r == -1 ? -1 : WEXITSTATUS(r);
}

uint32_t
netlab_addr(int side)
{
	return htonl(side == LAB_A ? 0x0a4d0102 : 0x0a4d0202);
}

int
netlab_up(struct netlab *l, int queue)
{
	static const char *sfx = "abh";
	char path[96];
	int i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < 3; i++) {
		snprintf(l->ns[i], sizeof(l->ns[i]), "dnt%d%c", (int)getpid(),
		    sfx[i]);
		l->fd[i] = -1;
	}
	/* Sweep labs whose test process is gone. */
	(void)netlab_sh("for n in $(ip netns list | sed -n "
	    "'s/^dnt\\([0-9]*\\)[abh]\\b.*/\\1/p' | sort -u); do "
	    "[ -d /proc/$n ] || for s in a b h; do ip netns del dnt$n$s "
	    "2>/dev/null; done; done");
	if (netlab_sh("set -e; A=%s B=%s H=%s\n"
	    "for n in $A $B $H; do ip netns add $n; "
	    "ip -n $n link set lo up; done\n"
	    "ip link add h-a netns $H type veth peer name eth0 netns $A\n"
	    "ip link add h-b netns $H type veth peer name eth0 netns $B\n"
	    "ip -n $A addr add 10.77.1.2/24 dev eth0\n"
	    "ip -n $B addr add 10.77.2.2/24 dev eth0\n"
	    "ip -n $H addr add 10.77.1.1/24 dev h-a\n"
	    "ip -n $H addr add 10.77.2.1/24 dev h-b\n"
	    "for n in $A $B; do ip -n $n link set eth0 up; done\n"
	    "ip -n $H link set h-a up; ip -n $H link set h-b up\n"
	    "ip -n $A route add default via 10.77.1.1\n"
	    "ip -n $B route add default via 10.77.2.1\n"
	    "ip netns exec $H sysctl -qw net.ipv4.ip_forward=1\n"
	    "ip netns exec $H iptables -t mangle -A FORWARD -i h-a "
	    "-j MARK --set-mark 1\n"
	    "ip netns exec $H iptables -t mangle -A FORWARD -i h-b "
	    "-j MARK --set-mark 2\n",
	    l->ns[0], l->ns[1], l->ns[2]) != 0)
		goto fail;
	if (queue >= 0 && netlab_sh("ip netns exec %s iptables -A FORWARD "
	    "-j NFQUEUE --queue-num %d", l->ns[2], queue) != 0)
		goto fail;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "/run/netns/%s", l->ns[i]);
		l->fd[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (l->fd[i] < 0)
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "netlab: cannot build the lab\n");
	netlab_down(l);
	return -1;
}

void
netlab_down(struct netlab *l)
{
	int i;

	for (i = 0; i < 3; i++) {
		if (l->fd[i] >= 0)
			close(l->fd[i]);
		l->fd[i] = -1;
		if (l->ns[i][0] != '\0')
			(void)netlab_sh("ip netns del %s 2>/dev/null", l->ns[i]);
		l->ns[i][0] = '\0';
	}
}

int
netlab_socket(int nsfd, int type)
{
	int self, s;

	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -1;
	if (setns(nsfd, CLONE_NEWNET) < 0) {
		close(self);
		return -1;
	}
	s = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (setns(self, CLONE_NEWNET) < 0)
		abort();	/* a test thread stranded in the lab */
	close(self);
	return s;
}

static int
bound(struct netlab *l, int side, int type, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
	    .sin_port = htons((uint16_t)port), .sin_addr.s_addr =
	    netlab_addr(side) };
	int s = netlab_socket(l->fd[side], type), one = 1;

	if (s < 0)
		return -1;
	(void)setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(s);
		return -1;
	}
	return s;
}

static int64_t
real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* One probe from S, with the kernel's arrival time (SO_TIMESTAMPNS,
 * CLOCK_REALTIME: the receiver's own scheduling does not count). */
static int
recv_stamped(int s, struct probe *p, int64_t *at)
{
	char cbuf[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { p, sizeof(*p) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	struct timespec ts;

	if (recvmsg(s, &mh, MSG_DONTWAIT) != sizeof(*p))
		return -1;
	*at = real_ns();
	for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_TIMESTAMPNS) {
			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			*at = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		}
	return 0;
}

/* The measuring thread at a real-time priority below the emulator's
 * (when allowed), so that what is measured is the emulator and not this
 * thread's wait for a CPU between its clock read and its send; *OLD
 * keeps what to restore. */
static void
rt_enter(int *old, struct sched_param *oldp)
{
	struct sched_param sp = { .sched_priority = 5 };

	(void)pthread_getschedparam(pthread_self(), old, oldp);
	(void)pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

static void
rt_leave(int old, const struct sched_param *oldp)
{
	(void)pthread_setschedparam(pthread_self(), old, oldp);
}

static void
wait_until(int64_t at)
{
	struct timespec ts = { at / 1000000000, at % 1000000000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	    EINTR)
		;
}

struct rx {
	int		fd;
	size_t		count, got;
	double		*out_ms;
	int		ordered;
	int64_t		sent_all;	/* set by the sender when done */
};

/* The receiver: each probe's delay into OUT_MS as it lands, until all
 * have come or 1 s passed without one after the last was sent. */
static void *
rx_main(void *arg)
{
	struct rx *x = arg;
	struct pollfd pf = { .fd = x->fd, .events = POLLIN };
	struct probe p;
	int64_t last = -1, t, quiet = 0, sent;

	while (x->got < x->count) {
		if (poll(&pf, 1, 10) <= 0) {
			sent = __atomic_load_n(&x->sent_all, __ATOMIC_ACQUIRE);
			if (sent && now_ns() > (quiet > sent ? quiet : sent) +
			    1000000000)
				break;
			continue;
		}
		while (recv_stamped(x->fd, &p, &t) == 0) {
			quiet = now_ns();
			if (p.seq >= x->count || x->out_ms[p.seq] >= 0)
				continue;
			x->out_ms[p.seq] = (double)(t - p.sent_ns) / 1e6;
			if ((int64_t)p.seq < last)
				x->ordered = 0;
			last = p.seq;
			x->got++;
		}
	}
	return NULL;
}

/* The machine's lateness (netlab.h, last_stall_ms): on each CPU this
 * process may use, a SCHED_OTHER thread pinned there that asks to wake
 * every millisecond until told to stop.  Per CPU, because what forwards
 * a packet the emulator let go on a busy machine is that CPU's own
 * ksoftirqd: a real-time thread spinning on one CPU (another test's)
 * starves it there while a thread free to move runs on the other (the
 * suite, 2026-12-07: jitter's p95 at 70-388 ms beside other tests, an
 * unpinned thread 4-5 ms late). */
#define WATCH_MAX	64

struct watch_cpu {
	const int	*stop;
	int		 cpu, started;
	int64_t		 worst_ns;
	pthread_t	 th;
};

struct watch {
	int		 stop;
	size_t		 n;
	struct watch_cpu c[WATCH_MAX];
};

static void *
watch_main(void *arg)
{
	struct watch_cpu *c = arg;
	int64_t at, late;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c->cpu, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	at = now_ns();
	while (!__atomic_load_n(c->stop, __ATOMIC_ACQUIRE)) {
		at += 1000000;
		wait_until(at);
		late = now_ns() - at;
		if (late > c->worst_ns)
			c->worst_ns = late;
		if (late > 1000000)
			at = now_ns();	/* from here, not a burst of catch-up */
	}
	return NULL;
}

/* Start W's threads, one per CPU allowed (none started: no figure) ... */
static void
watch_start(struct watch *w)
{
	cpu_set_t allowed;
	int cpu;

	memset(w, 0, sizeof(*w));
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return;
	for (cpu = 0; cpu < CPU_SETSIZE && w->n < WATCH_MAX; cpu++) {
		struct watch_cpu *c = &w->c[w->n];

		if (!CPU_ISSET(cpu, &allowed))
			continue;
		c->stop = &w->stop;
		c->cpu = cpu;
		c->started = pthread_create(&c->th, NULL, watch_main, c) == 0;
		w->n++;
	}
}

/* ... and stop them: the worst lateness of any into L->last_stall_ms. */
static void
watch_stop(struct netlab *l, struct watch *w)
{
	int64_t worst = 0;
	size_t i;

	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < w->n; i++) {
		if (!w->c[i].started)
			continue;
		pthread_join(w->c[i].th, NULL);
		if (w->c[i].worst_ns > worst)
			worst = w->c[i].worst_ns;
	}
	l->last_stall_ms = (double)worst / 1e6;
}

size_t
netlab_oneway(struct netlab *l, int from, size_t count, unsigned gap_us,
    double *out_ms, int *ordered)
{
	int to = from == LAB_A ? LAB_B : LAB_A;
	int tx = netlab_socket(l->fd[from], SOCK_DGRAM);
	struct sockaddr_in dst = { .sin_family = AF_INET,
	    .sin_port = htons(UDP_PORT), .sin_addr.s_addr = netlab_addr(to) };
	struct rx x = { .fd = bound(l, to, SOCK_DGRAM, UDP_PORT),
	    .count = count, .out_ms = out_ms, .ordered = 1 };
	struct watch w;
	pthread_t th;
	size_t i, burst;
	int64_t t0 = now_ns();
	int one = 1, pol;
	struct sched_param sp;

	int rcvbuf = 8 << 20;

	if (x.fd >= 0) {
		(void)setsockopt(x.fd, SOL_SOCKET, SO_TIMESTAMPNS, &one,
		    sizeof(one));
		(void)setsockopt(x.fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		    sizeof(rcvbuf));
	}
	for (i = 0; i < count; i++)
		out_ms[i] = -1;
	watch_start(&w);
	if (tx < 0 || x.fd < 0 || pthread_create(&th, NULL, rx_main, &x) != 0)
		goto out;
	/* Under 1 ms apart, a burst per millisecond: one sleep per packet
	 * would cost more than the packet. */
	burst = gap_us >= 1000 || gap_us == 0 ? 1 : 1000 / gap_us;
	rt_enter(&pol, &sp);
	for (i = 0; i < count; i++) {
		struct probe p = { (uint32_t)i, 0, 0 };

		if (i % burst == 0)
			wait_until(t0 + (int64_t)i * gap_us * 1000);
		p.sent_ns = real_ns();
		(void)sendto(tx, &p, sizeof(p), 0, (struct sockaddr *)&dst,
		    sizeof(dst));
	}
	rt_leave(pol, &sp);
	l->last_send_s = (double)(now_ns() - t0) / 1e9;
	__atomic_store_n(&x.sent_all, now_ns(), __ATOMIC_RELEASE);
	pthread_join(th, NULL);
out:
	watch_stop(l, &w);
	*ordered = x.ordered;
	if (tx >= 0)
		close(tx);
	if (x.fd >= 0)
		close(x.fd);
	return x.got;
}

size_t
netlab_pingpong(struct netlab *l, size_t count, unsigned gap_us,
    double *out_ms)
{
	int a = bound(l, LAB_A, SOCK_DGRAM, UDP_PORT + 1);
	int b = bound(l, LAB_B, SOCK_DGRAM, UDP_PORT + 1);
	struct sockaddr_in pa = { .sin_family = AF_INET,
	    .sin_port = htons(UDP_PORT + 1), .sin_addr.s_addr =
	    netlab_addr(LAB_A) };
	struct sockaddr_in pb = pa;
	struct pollfd pf[2];
	struct probe p;
	struct sched_param sp;
	struct watch w;
	int pol;
	size_t i, sent = 0, got = 0;
	int64_t t0 = now_ns(), next, end = -1, t;

	pb.sin_addr.s_addr = netlab_addr(LAB_B);
	for (i = 0; i < count; i++)
		out_ms[i] = -1;
	watch_start(&w);
	if (a < 0 || b < 0)
		goto out;
	pf[0] = (struct pollfd){ .fd = a, .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = b, .events = POLLIN };
	rt_enter(&pol, &sp);
	while (got < count && (end < 0 || now_ns() < end)) {
		next = t0 + (int64_t)sent * gap_us * 1000;
		if (sent < count && now_ns() >= next) {
			p = (struct probe){ (uint32_t)sent++, 0, now_ns() };
			(void)sendto(a, &p, sizeof(p), 0,
			    (struct sockaddr *)&pb, sizeof(pb));
			if (sent == count)
				end = now_ns() + 2000000000LL;
			continue;
		}
		(void)poll(pf, 2, 1);
		while (recv(b, &p, sizeof(p), MSG_DONTWAIT) == sizeof(p))
			(void)sendto(b, &p, sizeof(p), 0,
			    (struct sockaddr *)&pa, sizeof(pa));
		while (recv(a, &p, sizeof(p), MSG_DONTWAIT) == sizeof(p)) {
			t = now_ns();
			if (p.seq < count && out_ms[p.seq] < 0) {
				out_ms[p.seq] = (double)(t - p.sent_ns) / 1e6;
				got++;
			}
		}
	}
	rt_leave(pol, &sp);
out:
	watch_stop(l, &w);
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
	return got;
}

struct bulk {
	int	fd;
	int64_t	until;
};

static void *
bulk_send(void *arg)
{
	struct bulk *b = arg;
	static char chunk[65536];

	while (now_ns() < b->until)
		if (send(b->fd, chunk, sizeof(chunk), MSG_NOSIGNAL) < 0)
			break;
	shutdown(b->fd, SHUT_WR);
	return NULL;
}

double
netlab_tcp_rate(struct netlab *l, double secs)
{
	int ls = bound(l, LAB_B, SOCK_STREAM, TCP_PORT), c, s = -1;
	struct sockaddr_in sa = { .sin_family = AF_INET,
	    .sin_port = htons(TCP_PORT), .sin_addr.s_addr =
	    netlab_addr(LAB_B) };
	struct bulk b;
	pthread_t th;
	static char buf[65536];
	ssize_t r;
	int64_t t0, from, to, t;
	uint64_t bytes = 0;
	double rate = 0;

	c = netlab_socket(l->fd[LAB_A], SOCK_STREAM);
	if (ls < 0 || c < 0 || listen(ls, 1) < 0 ||
	    connect(c, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (s = accept(ls, NULL, NULL)) < 0)
		goto out;
	t0 = now_ns();
	from = t0 + 1000000000;
	to = t0 + (int64_t)(secs * 1e9);
	b = (struct bulk){ c, to };
	if (pthread_create(&th, NULL, bulk_send, &b) != 0)
		goto out;
	while ((r = recv(s, buf, sizeof(buf), 0)) > 0) {
		t = now_ns();
		if (t >= to)
			break;
		if (t >= from)
			bytes += (uint64_t)r;
	}
	/* Wake the sender if it waits on a full buffer; what is still in
	 * flight is not measured. */
	shutdown(c, SHUT_RDWR);
	pthread_join(th, NULL);
	rate = (double)bytes * 8 / ((double)(to - from) / 1e9);
out:
	if (s >= 0)
		close(s);
	if (c >= 0)
		close(c);
	if (ls >= 0)
		close(ls);
	return rate;
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
netlab_pct(const double *v, size_t n, double p)
{
	double *c = malloc((n ? n : 1) * sizeof(*c)), r;
	size_t i, m = 0;

	if (c == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (v[i] >= 0)
			c[m++] = v[i];
	if (m == 0) {
		free(c);
		return -1;
	}
	qsort(c, m, sizeof(*c), dbl_cmp);
	i = (size_t)(p / 100.0 * (double)(m - 1) + 0.5);
	r = c[i < m ? i : m - 1];
	free(c);
	return r;
}
