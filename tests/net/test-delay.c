/*
 * test-delay.c: the link emulator (orchestrator/net/delay.c) on a real
 * lab (netlab.h: two namespaces through a routed hub whose forward chain
 * marks and queues): one-way delay at 0, 10 and 100 ms within max(1 ms,
 * 10 %), each direction its own, jitter's spread, order kept, a change of
 * delay while running, many links held at once each let go at its own
 * time, the counters, and fail-closed (no emulator, no traffic; also
 * after its process is SIGKILLed).  Needs root
 * (namespaces, iptables); exits 77 otherwise.
 */
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/delay.h"
#include "netlab.h"

#define QUEUE	7
#define N	200

static struct netlab lab;
static struct dn_delay *emu;	/* stopped after each test, even a failed one */

static int
lab_up(void **state)
{
	(void)state;
	return netlab_up(&lab, QUEUE);
}

static int
lab_down(void **state)
{
	(void)state;
	netlab_down(&lab);
	return 0;
}

static int
emu_stop(void **state)
{
	(void)state;
	dn_delay_stop(emu);
	emu = NULL;
	return 0;
}

static double
tol_ms(double want)
{
	return want * 0.1 > 1.0 ? want * 0.1 : 1.0;
}

static struct dn_delay *
start(const struct dn_delay_link *links, size_t n)
{
	struct dn_delay *d = NULL;
	char err[256] = "";
	int r;

	r = dn_delay_start(&d, lab.fd[LAB_HUB], QUEUE, links, n, err,
	    sizeof(err));
	if (r != 0)
		fprintf(stderr, "dn_delay_start: %s\n", err);
	assert_int_equal(r, 0);
	emu = d;
	return d;
}

/* Send N probes A -> B, GAP_US apart; check their one-way delay against
 * WANT_MS at the median and at the 1st and 90th percentiles.  Every
 * probe arrives and in order, each time.  No packet leaves early, and
 * nine in ten are on time; the last few per cent are the machine's: on 2
 * busy cores the kernel's own softirq work after a verdict may wait for
 * ksoftirqd (p99 is printed, and measured in docs/benchmarks.md).  A
 * shared CI machine may stall a whole burst of 200 probes (CI, 2026-12-06:
 * p90 past 11 ms at 10 ms once in 118 tests), so the timing is measured
 * up to three times and one clean measurement passes: a wrong delay is
 * wrong every time.  And late is judged against the machine: a packet
 * the emulator lets go on time is forwarded by the kernel's ksoftirqd
 * (SCHED_OTHER, one per CPU) when the CPUs are busy, so the bound on
 * the late side widens by how late a SCHED_OTHER thread pinned to a CPU
 * woke meanwhile (netlab.h, last_stall_ms; with four busy loops on the
 * 2 cores and SCHED_FIFO refused, p90 1-4 ms late, the threads 2-7 ms).
 * CI under ASan, 2026-12-07, saw B->A 30 ms at p50 662 ms in all three
 * tries, and the suite here jitter's p95 at 70-388 ms while a thread
 * free to move woke 4-5 ms late: another test's real-time threads
 * starving one CPU's ksoftirqd.  So the threads are pinned, one per CPU,
 * and the test runs alone (tests.cmake).  A quiet machine's lateness is
 * a fraction of a millisecond, and nothing may ever leave early. */
static void
expect_oneway(int from, double want_ms, unsigned gap_us)
{
	double ms[N], p1, p50, p90, p99;
	int ordered, try, on_time = 0;
	size_t got;

	for (try = 0; try < 3 && !on_time; try++) {
		got = netlab_oneway(&lab, from, N, gap_us, ms, &ordered);
		p1 = netlab_pct(ms, N, 1);
		p50 = netlab_pct(ms, N, 50);
		p90 = netlab_pct(ms, N, 90);
		p99 = netlab_pct(ms, N, 99);
		printf("# %c->%c want %.1f ms: got %zu/%d p1 %.3f p50 %.3f"
		    " p90 %.3f p99 %.3f ordered %d; machine late %.3f\n",
		    from == LAB_A ? 'A' : 'B', from == LAB_A ? 'B' : 'A',
		    want_ms, got, N, p1, p50, p90, p99, ordered,
		    lab.last_stall_ms);
		assert_int_equal(got, N);
		assert_true(ordered);
		on_time = p1 >= want_ms - tol_ms(want_ms) &&
		    p50 >= want_ms - tol_ms(want_ms) &&
		    p50 <= want_ms + tol_ms(want_ms) + lab.last_stall_ms &&
		    p90 <= want_ms + tol_ms(want_ms) + lab.last_stall_ms;
	}
	assert_true(on_time);
}

static void
delay_levels(void **state)
{
	static const unsigned want[] = { 0, 10, 100 };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		struct dn_delay_link l[] = { { 1, want[i] * 1000, 0 } };
		(void)start(l, 1);

		expect_oneway(LAB_A, want[i], 1000);
		emu_stop(NULL);
	}
}

/* Latency is one way: A -> B and B -> A are two links, two delays, and
 * a round trip is their sum. */
static void
directions(void **state)
{
	struct dn_delay_link l[] = { { 1, 10000, 0 }, { 2, 30000, 0 } };
	(void)start(l, 2);
	double rtt[50], p50;

	(void)state;
	expect_oneway(LAB_A, 10, 2000);
	expect_oneway(LAB_B, 30, 2000);
	assert_int_equal(netlab_pingpong(&lab, 50, 5000, rtt), 50);
	p50 = netlab_pct(rtt, 50, 50);
	printf("# ping-pong A->B 10 ms, B->A 30 ms: rtt p50 %.3f ms; machine "
	    "late %.3f\n", p50, lab.last_stall_ms);
	assert_true(p50 >= 40 - tol_ms(40) &&
	    p50 <= 40 + tol_ms(40) + lab.last_stall_ms);
	emu_stop(NULL);
}

/* 20 ms +- 5 ms with packets 12 ms apart (wider than the jitter, so the
 * order rule seldom bites): the spread shows; 1 ms apart: the order is
 * kept although the draws would reorder. */
static void
jitter(void **state)
{
	struct dn_delay_link l[] = { { 1, 20000, 5000 } };
	(void)start(l, 1);
	double ms[N], p5, p95, lo, hi;
	int ordered, try, ok = 0;

	(void)state;
	/* Up to three measurements, as in expect_oneway: none early, ever;
	 * p95 late only when the machine stalled (the max is the
	 * machine's). */
	for (try = 0; try < 3 && !ok; try++) {
		assert_int_equal(netlab_oneway(&lab, LAB_A, 100, 12000, ms,
		    &ordered), 100);
		lo = netlab_pct(ms, 100, 0);
		p5 = netlab_pct(ms, 100, 5);
		p95 = netlab_pct(ms, 100, 95);
		hi = netlab_pct(ms, 100, 100);
		printf("# jitter 20+-5 ms: min %.3f p5 %.3f p95 %.3f"
		    " max %.3f; machine late %.3f\n", lo, p5, p95, hi,
		    lab.last_stall_ms);
		assert_true(lo >= 15 - 1.0);
		ok = p95 <= 25 + 1.0 + lab.last_stall_ms &&
		    p95 - p5 >= 6.0;	/* uniform +-5: about 9 */
	}
	assert_true(ok);
	assert_int_equal(netlab_oneway(&lab, LAB_A, N, 1000, ms, &ordered), N);
	assert_true(ordered);
	emu_stop(NULL);
}

/* A new delay for new packets, while running. */
static void
update(void **state)
{
	struct dn_delay_link l[] = { { 1, 10000, 0 } };
	struct dn_delay_link l2[] = { { 1, 50000, 0 } };
	struct dn_delay_link dup[] = { { 1, 0, 0 }, { 1, 0, 0 } };
	struct dn_delay *d = start(l, 1);

	(void)state;
	expect_oneway(LAB_A, 10, 1000);
	assert_int_equal(dn_delay_update(d, l2, 1), 0);
	expect_oneway(LAB_A, 50, 1000);
	assert_int_equal(dn_delay_update(d, dup, 2), -1);
	/* A mark no link has any more passes at once. */
	assert_int_equal(dn_delay_update(d, NULL, 0), 0);
	expect_oneway(LAB_A, 0, 1000);
	emu_stop(NULL);
}

#define NLINKS	8
#define PORT0	6001

/* Hub rules that mark A -> B UDP to port PORT0 + I with 11 + I (after
 * the lab's own mark 1, so they win), added or (OP "D") removed. */
static int
port_marks(const char *op)
{
	int i, r = 0;

	for (i = 0; i < NLINKS; i++)
		r |= netlab_sh("ip netns exec %s iptables -t mangle -%s FORWARD "
		    "-i h-a -p udp --dport %d -j MARK --set-mark %d",
		    lab.ns[LAB_HUB], op, PORT0 + i, 11 + i);
	return r;
}

/* One packet on each of NLINKS links held at once, the longest delay
 * queued first (80, 70, ..., 10 ms): each leaves at its own link's time,
 * never at the time of a link queued ahead of it on another link (the
 * emulator's heap of links, delay.c).  Up to three tries, one clean
 * passes: late is bounded loosely (a busy machine), but a link that
 * waited for another would be 10-70 ms late. */
static void
many_links(void **state)
{
	struct dn_delay_link l[NLINKS + 2] = { { 1, 0, 0 }, { 2, 0, 0 } };
	struct sockaddr_in sa[NLINKS];
	int tx, rx[NLINKS], i, try, ok = 0;
	double sent[NLINKS], got[NLINKS];

	(void)state;
	for (i = 0; i < NLINKS; i++) {
		l[2 + i] = (struct dn_delay_link){ 11 + (uint32_t)i,
		    (uint32_t)(NLINKS - i) * 10000, 0 };
		sa[i] = (struct sockaddr_in){ .sin_family = AF_INET,
		    .sin_port = htons((uint16_t)(PORT0 + i)),
		    .sin_addr.s_addr = netlab_addr(LAB_B) };
	}
	assert_int_equal(port_marks("A"), 0);
	start(l, NLINKS + 2);
	tx = netlab_socket(lab.fd[LAB_A], SOCK_DGRAM);
	assert_true(tx >= 0);
	for (i = 0; i < NLINKS; i++) {
		rx[i] = netlab_socket(lab.fd[LAB_B], SOCK_DGRAM);
		assert_true(rx[i] >= 0);
		assert_int_equal(bind(rx[i], (struct sockaddr *)&sa[i],
		    sizeof(sa[i])), 0);
	}
	for (try = 0; try < 3 && !ok; try++) {
		struct pollfd p[NLINKS];
		int left = NLINKS;
		double t0 = netlab_now_ms();

		for (i = 0; i < NLINKS; i++) {
			got[i] = -1;
			sent[i] = netlab_now_ms();
			assert_int_equal(sendto(tx, "x", 1, 0,
			    (struct sockaddr *)&sa[i], sizeof(sa[i])), 1);
			p[i] = (struct pollfd){ .fd = rx[i], .events = POLLIN };
		}
		while (left > 0 && netlab_now_ms() - t0 < 1000) {
			char c;

			if (poll(p, NLINKS, 100) <= 0)
				continue;
			for (i = 0; i < NLINKS; i++)
				if (p[i].revents & POLLIN) {
					(void)recv(rx[i], &c, 1, 0);
					got[i] = netlab_now_ms() - sent[i];
					p[i].fd = -1;
					left--;
				}
		}
		ok = left == 0;
		for (i = 0; i < NLINKS; i++) {
			double want = (NLINKS - i) * 10.0;

			printf("# link %d: want %.0f ms, got %.3f ms\n",
			    11 + i, want, got[i]);
			assert_true(got[i] < 0 || got[i] >= want - tol_ms(want));
			if (got[i] < 0 || got[i] > want + 5.0)
				ok = 0;
		}
	}
	for (i = 0; i < NLINKS; i++)
		close(rx[i]);
	close(tx);
	assert_int_equal(port_marks("D"), 0);
	assert_true(ok);
	emu_stop(NULL);
}

/* Every packet counted, none held at the end, none dropped; then the
 * emulator gone: the queue has no listener and nothing passes. */
static void
stats_and_fail_closed(void **state)
{
	struct dn_delay_link l[] = { { 1, 5000, 0 } };
	struct dn_delay *d = start(l, 1), *other = NULL;
	struct dn_delay_stats st;
	double ms[N];
	int ordered;
	char err[256];

	(void)state;
	assert_int_equal(dn_delay_start(&other, lab.fd[LAB_HUB], QUEUE, l, 1,
	    err, sizeof(err)), -1);
	printf("# second bind: %s\n", err);
	assert_non_null(strstr(err, "nfqueue 7"));
	assert_int_equal(netlab_oneway(&lab, LAB_A, N, 500, ms, &ordered), N);
	usleep(20000);
	dn_delay_stats(d, &st);
	printf("# stats: packets %llu held %llu max err %llu us drops %llu "
	    "unknown %llu cpu %llu us realtime %d demotions %llu\n",
	    (unsigned long long)st.packets,
	    (unsigned long long)st.held, (unsigned long long)st.max_hold_err_us,
	    (unsigned long long)st.drops, (unsigned long long)st.unknown,
	    (unsigned long long)st.cpu_ns / 1000, st.realtime,
	    (unsigned long long)st.demotions);
	assert_int_equal(st.packets, N);
	assert_int_equal(st.held, 0);
	assert_int_equal(st.drops, 0);
	assert_int_equal(st.unknown, 0);
	/* Its worst wake-up of 200: under 1 ms on a quiet machine; other
	 * real-time threads (realtime load generators) can take a CPU, and
	 * where SCHED_FIFO is refused (a container's cpu cgroup with no
	 * realtime runtime) it waits as any thread does: beside four busy
	 * loops, 4,989 us at FIFO and up to 7,073 without, the machine's
	 * lateness meanwhile allowed for. */
	printf("# machine late %.3f ms\n", lab.last_stall_ms);
	assert_true(st.max_hold_err_us < 5000 + lab.last_stall_ms * 1000);
	assert_true(st.cpu_ns > 0);
	emu_stop(NULL);
	assert_int_equal(netlab_oneway(&lab, LAB_A, 20, 1000, ms, &ordered), 0);
}

/* The emulator's process SIGKILLed with packets held: the kernel unbinds
 * the queue and what is queued from then on is dropped, never passed
 * undelayed (no bypass, no fail-open). */
static void
killed(void **state)
{
	struct dn_delay_link l[] = { { 1, 5000, 0 } };
	double ms[N];
	int ordered, st, p[2];
	pid_t pid;
	char c;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct dn_delay *d;
		char err[256];

		close(p[0]);
		if (dn_delay_start(&d, lab.fd[LAB_HUB], QUEUE, l, 1, err,
		    sizeof(err)) != 0)
			_exit(1);
		(void)write(p[1], "r", 1);
		for (;;)
			pause();
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	assert_int_equal(netlab_oneway(&lab, LAB_A, 50, 1000, ms, &ordered),
	    50);
	assert_true(netlab_pct(ms, 50, 50) >= 4.0);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_int_equal(netlab_oneway(&lab, LAB_A, 20, 1000, ms, &ordered), 0);
	printf("# emulator SIGKILLed: 0 of 20 probes passed\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(delay_levels, emu_stop),
		cmocka_unit_test_teardown(directions, emu_stop),
		cmocka_unit_test_teardown(jitter, emu_stop),
		cmocka_unit_test_teardown(update, emu_stop),
		cmocka_unit_test_teardown(many_links, emu_stop),
		cmocka_unit_test_teardown(stats_and_fail_closed, emu_stop),
		cmocka_unit_test(killed),
	};

	if (geteuid() != 0) {
		printf("skipped: needs root (network namespaces, iptables)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, lab_up, lab_down);
}
