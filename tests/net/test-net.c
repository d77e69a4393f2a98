/*
 * test-net.c: orchestrator/net/ on the real kernel: a 3-node network in
 * namespaces, loss and a one-way partition as nf_tables rules in the hub,
 * measured by the probe and by the rules' counters, healed, then removed
 * with nothing left (no namespace, no nft table); a thread that enters an
 * endpoint's namespace for good (the http load's way) and reaches a node
 * through the hub from there; rules on every link of the largest network
 * the address plan holds; and the sweep of a network whose owner was
 * SIGKILLed, and of names whose pid was reused or is of another pid
 * namespace.  Needs root (namespaces); skips
 * (77) without it.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/nft.h"
#include "net/probe.h"
#include "net/topo.h"
#include "clock.h"

#define RATE	100	/* probes per link per second */

static void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* How many /run/netns entries start with "devnet-PID-". */
static int
count_ns(long pid)
{
	DIR		*d = opendir("/run/netns");
	struct dirent	*e;
	char		 pre[64];
	int		 n = 0;

	if (d == NULL)
		return (0);
	snprintf(pre, sizeof(pre), DN_NET_PREFIX "%ld-", pid);
	while ((e = readdir(d)) != NULL)
		if (strncmp(e->d_name, pre, strlen(pre)) == 0)
			n++;
	closedir(d);
	return (n);
}

/* `ip netns list` and `nft list tables` (when nft is installed) name no
 * namespace of PID and no devnet table. */
static void
assert_nothing_left(long pid)
{
	char	 cmd[256], line[512], pre[64];
	FILE	*f;

	assert_int_equal(count_ns(pid), 0);
	snprintf(pre, sizeof(pre), DN_NET_PREFIX "%ld-", pid);
	snprintf(cmd, sizeof(cmd), "ip netns list 2>&1; command -v nft "
	    ">/dev/null && nft list tables 2>&1");
	assert_non_null(f = popen(cmd, "r"));
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strstr(line, pre) != NULL ||
		    strstr(line, "table ip " DN_NFT_TABLE) != NULL)
			fail_msg("left behind: %s", line);
	}
	pclose(f);
}

static void
window(struct dn_probe *p, int s, int d, uint64_t from, uint64_t to,
    struct dn_probe_stats *st)
{
	dn_probe_window(p, s, d, from, to, st);
	printf("  %d->%d: %llu sent, %llu crossed, %llu echoed\n", s, d,
	    (unsigned long long)st->sent, (unsigned long long)st->crossed,
	    (unsigned long long)st->echoed);
}

static uint64_t
counter(const struct dn_nft_counter *v, size_t n, enum dn_nft_kind k,
    int s, int d)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].kind == k && v[i].src == s && v[i].dst == d)
			return (v[i].packets);
	fail_msg("no %d rule for %d->%d", (int)k, s, d);
	return (0);
}

static void
test_conditions(void **state)
{
	struct dn_net		*net;
	struct dn_probe		*pr;
	struct dn_probe_stats	 st;
	struct dn_nft_counter	*cv;
	size_t			 ncv;
	char			 err[256];
	uint64_t		 t0, t1, t2;
	double			 loss;
	/* 20% loss 0 -> 1; 2 cannot send to 0 (one way: 0 -> 2 passes) */
	const struct dn_nft_link links[] = {
		{ 0, 1, 0, 200000, 0, 0 },
		{ 2, 0, 1, 0, 0, 0 },
	};

	(void)state;
	if (dn_net_create(&net, 3, err, sizeof(err)) != 0)
		fail_msg("create: %s", err);
	assert_int_equal(count_ns(getpid()), 4);
	dn_net_addr_str(2, err, sizeof(err));
	assert_string_equal(err, "10.99.2.2");
	dn_net_hub_ifname(2, err, sizeof(err));
	assert_string_equal(err, "h2");
	if (dn_nft_apply(dn_net_ns_fd(net, -1), links, 2, 0, err,
	    sizeof(err)) != 0)
		fail_msg("apply: %s", err);
	if (dn_probe_start(&pr, net, RATE, err, sizeof(err)) != 0)
		fail_msg("probe: %s", err);
	t0 = dn_now_ns();
	sleep_ms(3200);
	t1 = dn_now_ns() - 200000000ull;	/* in flight: not counted */

	window(pr, 0, 1, t0, t1, &st);
	assert_true(st.sent >= 250);
	loss = 100.0 * (double)(st.sent - st.crossed) / (double)st.sent;
	printf("  0->1 loss %.1f%% (asked 20%%)\n", loss);
	assert_true(loss > 13.0 && loss < 27.0);
	dn_probe_stats_release(&st);
	window(pr, 2, 0, t0, t1, &st);
	assert_true(st.sent >= 250);
	assert_int_equal(st.crossed, 0);
	dn_probe_stats_release(&st);
	window(pr, 0, 2, t0, t1, &st);	/* crosses; its echo does not */
	assert_int_equal(st.crossed, st.sent);
	assert_int_equal(st.echoed, 0);
	dn_probe_stats_release(&st);
	window(pr, 1, 2, t0, t1, &st);
	assert_int_equal(st.crossed, st.sent);
	assert_int_equal(st.echoed, st.sent);
	assert_true(st.nrtt > 0 && st.rtt_ms[0] < 50.0);
	dn_probe_stats_release(&st);

	if (dn_nft_counters(dn_net_ns_fd(net, -1), &cv, &ncv, err,
	    sizeof(err)) != 0)
		fail_msg("counters: %s", err);
	assert_int_equal(ncv, 2);
	printf("  counters: loss 0->1 %llu, block 2->0 %llu\n",
	    (unsigned long long)counter(cv, ncv, DN_NFT_LOSS, 0, 1),
	    (unsigned long long)counter(cv, ncv, DN_NFT_BLOCK, 2, 0));
	/* 2 -> 0 carries 2's probes and its echoes of 0's */
	assert_true(counter(cv, ncv, DN_NFT_BLOCK, 2, 0) >= 500);
	assert_true(counter(cv, ncv, DN_NFT_LOSS, 0, 1) >= 50);
	free(cv);

	/* heal: an empty chain, and 2 reaches 0 again */
	if (dn_nft_apply(dn_net_ns_fd(net, -1), NULL, 0, 0, err,
	    sizeof(err)) != 0)
		fail_msg("heal: %s", err);
	t2 = dn_now_ns();
	sleep_ms(700);
	window(pr, 2, 0, t2, dn_now_ns() - 200000000ull, &st);
	assert_true(st.sent >= 30);
	assert_int_equal(st.crossed, st.sent);
	dn_probe_stats_release(&st);
	if (dn_nft_counters(dn_net_ns_fd(net, -1), &cv, &ncv, err,
	    sizeof(err)) != 0)
		fail_msg("counters after heal: %s", err);
	assert_int_equal(ncv, 0);
	free(cv);

	dn_probe_stop(pr);
	dn_net_destroy(net);
	assert_nothing_left(getpid());
}

/* A TCP listener on node 1's address, made inside its namespace. */
static int
listen_cb(void *arg)
{
	struct sockaddr_in	 sa = { .sin_family = AF_INET,
				    .sin_port = htons(24999) };
	int			*fd = arg, one = 1;

	sa.sin_addr.s_addr = dn_net_addr(1);
	if ((*fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return (-1);
	setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(*fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(*fd, 4) != 0)
		return (-1);
	return (0);
}

/* Connect to node 1's listener from the calling thread's namespace:
 * 0 when it connects. */
static int
dial(void)
{
	struct sockaddr_in	 sa = { .sin_family = AF_INET,
				    .sin_port = htons(24999) };
	struct timeval		 tv = { 5, 0 };	/* a loaded machine */
	int			 fd, rv;

	sa.sin_addr.s_addr = dn_net_addr(1);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		return (-1);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	rv = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return (rv);
}

struct load_arg {
	int	nsfd, entered, dialed;
};

/* The load generator's way: the thread enters the load namespace for
 * good, then dials. */
static void *
load_thread(void *arg)
{
	struct load_arg *a = arg;

	a->entered = dn_net_enter(a->nsfd);
	a->dialed = a->entered == 0 ? dial() : -1;
	return (NULL);
}

/* A thread that enters endpoint 2's namespace for good (dn_net_enter,
 * as the http load enters the load's endpoint) reaches node 1 at
 * 10.99.1.2 through the hub, from 10.99.2.2.  (The host's namespace is
 * never dialled: this sandbox's default route may lead to a proxy that
 * accepts any address.) */
static void
test_enter(void **state)
{
	struct dn_net		*net;
	struct load_arg		 a;
	struct sockaddr_in	 peer;
	socklen_t		 plen = sizeof(peer);
	pthread_t		 th;
	char			 err[256], buf[32];
	int			 lfd = -1, cfd;

	(void)state;
	if (dn_net_create(&net, 3, err, sizeof(err)) != 0)
		fail_msg("create: %s", err);
	assert_int_equal(dn_net_in_ns(dn_net_ns_fd(net, 1), listen_cb, &lfd),
	    0);
	a.nsfd = dn_net_ns_fd(net, 2);
	assert_int_equal(pthread_create(&th, NULL, load_thread, &a), 0);
	pthread_join(th, NULL);
	assert_int_equal(a.entered, 0);
	assert_int_equal(a.dialed, 0);
	assert_true((cfd = accept(lfd, (struct sockaddr *)&peer, &plen)) >= 0);
	inet_ntop(AF_INET, &peer.sin_addr, buf, sizeof(buf));
	printf("  node 1 accepted the thread of endpoint 2 from %s\n", buf);
	assert_string_equal(buf, "10.99.2.2");
	close(cfd);
	close(lfd);
	dn_net_destroy(net);
	assert_nothing_left(getpid());
}

/* A UDP socket made in the namespace at ARG's fd, into it. */
static int
udp_cb(void *arg)
{
	int *fd = arg;

	return ((*fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ? -1 : 0);
}

/* COUNT datagrams from endpoint S to endpoint D's port 9 (discarded). */
static void
send_udp(struct dn_net *net, int s, int d, int count)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
	int		   fd = -1, i;

	to.sin_addr.s_addr = dn_net_addr(d);
	assert_int_equal(dn_net_in_ns(dn_net_ns_fd(net, s), udp_cb, &fd), 0);
	for (i = 0; i < count; i++)
		assert_int_equal(sendto(fd, "x", 1, 0,
		    (struct sockaddr *)&to, sizeof(to)), 1);
	close(fd);
}

static double
secs_since(uint64_t t0)
{
	return ((double)(dn_now_ns() - t0) / 1e9);
}

/*
 * The address plan's most, DN_NET_MAX endpoints, with a rule on every
 * one of their 64,770 directed links (issue 40: an ack per rule
 * overflowed the hub's socket from 15 endpoints on, and the one dump of
 * every rule took the square of their number).  Applied twice (the
 * second replaces the first), every counter read back, and a packet
 * meets its own link's rules from the first source to the last.
 */
static void
test_full_mesh(void **state)
{
	struct dn_net		*net;
	struct dn_nft_link	*l;
	struct dn_nft_counter	*cv;
	const int		 n = DN_NET_MAX, last = DN_NET_MAX - 1;
	size_t			 nl = 0, ncv, i;
	char			 err[256];
	uint64_t		 t0;
	int			 s, d, rep;

	(void)state;
	t0 = dn_now_ns();
	if (dn_net_create(&net, n, err, sizeof(err)) != 0)
		fail_msg("create: %s", err);
	printf("  %d namespaces in %.2f s\n", n + 1, secs_since(t0));
	l = calloc((size_t)n * (size_t)n, sizeof(*l));
	assert_non_null(l);
	for (s = 0; s < n; s++)
		for (d = 0; d < n; d++) {
			if (s == d)
				continue;
			l[nl].src = s;
			l[nl].dst = d;
			l[nl].mark = (uint32_t)(s * n + d + 1);
			/* the last source's last link blocked */
			l[nl].blocked = s == last && d == last - 1;
			nl++;
		}
	for (rep = 0; rep < 2; rep++) {
		t0 = dn_now_ns();
		if (dn_nft_apply(dn_net_ns_fd(net, -1), l, nl, 0, err,
		    sizeof(err)) != 0)
			fail_msg("apply %zu links: %s", nl, err);
		printf("  %zu links' rules applied in %.2f s\n", nl,
		    secs_since(t0));
	}
	send_udp(net, 0, 1, 7);
	send_udp(net, last, last - 1, 5);
	send_udp(net, last, 0, 3);
	sleep_ms(100);
	t0 = dn_now_ns();
	if (dn_nft_counters(dn_net_ns_fd(net, -1), &cv, &ncv, err,
	    sizeof(err)) != 0)
		fail_msg("counters: %s", err);
	printf("  %zu counters read in %.2f s\n", ncv, secs_since(t0));
	assert_int_equal(ncv, nl);
	assert_int_equal(counter(cv, ncv, DN_NFT_DELAY, 0, 1), 7);
	assert_int_equal(counter(cv, ncv, DN_NFT_BLOCK, last, last - 1), 5);
	assert_int_equal(counter(cv, ncv, DN_NFT_DELAY, last, 0), 3);
	/* and no other link (but the ICMP "port unreachable" back) */
	for (i = 0; i < ncv; i++)
		if (cv[i].packets > 0 && cv[i].src + cv[i].dst != 1 &&
		    cv[i].src != last && cv[i].dst != last)
			fail_msg("%d->%d counted %llu packets", cv[i].src,
			    cv[i].dst, (unsigned long long)cv[i].packets);
	free(cv);
	free(l);
	dn_net_destroy(net);
	assert_nothing_left(getpid());
}

/* A child builds a network and is SIGKILLed; the sweep removes it all. */
static void
test_sweep(void **state)
{
	int	 fds[2];
	pid_t	 pid;
	char	 c = 0, err[256];
	int	 st;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		struct dn_net *net;

		close(fds[0]);
		if (dn_net_create(&net, 2, err, sizeof(err)) != 0)
			_exit(1);
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	assert_int_equal(count_ns(pid), 3);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	assert_int_equal(count_ns(pid), 3);	/* the files keep them */
	assert_true(dn_net_sweep(&st, err, sizeof(err)) >= 3);
	assert_int_equal(st, 0);
	assert_nothing_left(pid);
}

/* Field 22 of /proc/PID/stat: its start time in clock ticks. */
static unsigned long long
start_of(pid_t pid)
{
	char	 path[64], buf[1024], *p;
	FILE	*f;
	int	 i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	assert_non_null(f = fopen(path, "r"));
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_non_null(p = strrchr(buf, ')'));
	for (i = 2; i < 22; i++)
		assert_non_null(p = strchr(p + 1, ' '));
	return (strtoull(p + 1, NULL, 10));
}

/* A namespace file at /run/netns/NAME (this thread's own network). */
static void
fake_ns(char *path, size_t cap, const char *name)
{
	int	fd;

	snprintf(path, cap, "/run/netns/%s", name);
	assert_true((fd = open(path, O_RDONLY | O_CREAT, 0444)) >= 0);
	close(fd);
	assert_int_equal(mount("/proc/thread-self/ns/net", path, "none",
	    MS_BIND, NULL), 0);
}

static void
drop_ns(const char *path)
{
	umount2(path, MNT_DETACH);
	unlink(path);
}

/*
 * The sweep judges a name by pid, start time and pid namespace (issue
 * 38): a living pid that started at another time is a dead devnet's pid
 * reused (swept); a living one at its start time, and any of another pid
 * namespace (whose pid means nothing here), are left alone.
 */
static void
test_sweep_owner(void **state)
{
	struct stat		 st;
	unsigned long long	 start, pidns;
	char			 name[128], reused[300], live[300], other[300];
	char			 err[512];
	pid_t			 pp = getppid();
	int			 failed;

	(void)state;
	start = start_of(pp);
	assert_int_equal(stat("/proc/self/ns/pid", &st), 0);
	pidns = (unsigned long long)st.st_ino;
	snprintf(name, sizeof(name), DN_NET_PREFIX "%ld-%llu-%llu-0-hub",
	    (long)pp, start + 1, pidns);
	fake_ns(reused, sizeof(reused), name);
	snprintf(name, sizeof(name), DN_NET_PREFIX "%ld-%llu-%llu-0-hub",
	    (long)pp, start, pidns);
	fake_ns(live, sizeof(live), name);
	snprintf(name, sizeof(name), DN_NET_PREFIX "%ld-%llu-%llu-0-hub",
	    (long)pp, start + 1, pidns + 1);
	fake_ns(other, sizeof(other), name);
	assert_true(dn_net_sweep(&failed, err, sizeof(err)) >= 1);
	assert_int_equal(failed, 0);
	assert_int_not_equal(access(reused, F_OK), 0);
	assert_int_equal(access(live, F_OK), 0);
	assert_int_equal(access(other, F_OK), 0);
	drop_ns(live);
	drop_ns(other);
	drop_ns(reused);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conditions),
		cmocka_unit_test(test_enter),
		cmocka_unit_test(test_full_mesh),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_sweep_owner),
	};
	char err[256];

	if (geteuid() != 0) {
		printf("SKIP: network namespaces need root\n");
		return (77);
	}
	int failed;

	if (dn_net_sweep(&failed, err, sizeof(err)) < 0) {
		printf("SKIP: %s\n", err);
		return (77);
	}
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
