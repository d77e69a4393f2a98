/*
 * test-netem.c: devnet's own network stack end to end, no iptables: a
 * 3-node network (net/topo.c), the hub's nf_tables rules marking and
 * queueing each delayed link (net/nft.c, xt NFQUEUE through libnftnl),
 * the emulator holding them (net/delay.c), a shaped link (net/shape.c),
 * measured by devnet's probe (net/probe.c): one-way delay per direction
 * within max(1 ms, 10 %) of what each link asked, jitter's spread, and
 * the shaped link's class counting the probes.  Needs root; 77 without.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/delay.h"
#include "net/nft.h"
#include "net/probe.h"
#include "net/shape.h"
#include "net/topo.h"
#include "clock.h"

#define QUEUE	3
#define RATE	100	/* probes per link per second */

/* Torn down after the test, even a failed one: nothing left. */
static struct dn_net *net;
static struct dn_delay *d;
static struct dn_probe *pr;

static int
teardown(void **state)
{
	(void)state;
	dn_probe_stop(pr);
	dn_delay_stop(d);
	dn_net_destroy(net);
	pr = NULL;
	d = NULL;
	net = NULL;
	return 0;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The P-th percentile of the one-way delays of SRC -> DST in the window,
 * after checking every probe crossed. */
static void
owd(struct dn_probe *p, int src, int dst, uint64_t from, uint64_t to,
    double want, double spread_min)
{
	struct dn_probe_stats st;
	double p5, p50, p90, p95, tol = want * 0.1 > 1 ? want * 0.1 : 1;

	dn_probe_window(p, src, dst, from, to, &st);
	assert_true(st.sent >= 100);
	assert_int_equal(st.crossed, st.sent);
	assert_int_equal(st.nowd, st.crossed);
	qsort(st.owd_ms, st.nowd, sizeof(double), cmp_dbl);
	p5 = st.owd_ms[st.nowd * 5 / 100];
	p50 = st.owd_ms[st.nowd / 2];
	p90 = st.owd_ms[st.nowd * 90 / 100];
	p95 = st.owd_ms[st.nowd * 95 / 100];
	printf("# %d->%d want %.0f ms: %llu probes, p5 %.3f p50 %.3f "
	    "p90 %.3f p95 %.3f\n", src, dst, want, (unsigned long long)st.sent,
	    p5, p50, p90, p95);
	/* The median on time and nothing early.  Not the tail: the probe
	 * stamps arrivals in its own (normal-priority) thread, so on a busy
	 * machine its wake-ups show there (tests/net/test-delay.c holds p90
	 * with kernel receive timestamps). */
	assert_true(p50 >= want - tol && p50 <= want + tol);
	if (spread_min > 0) {
		assert_true(p5 >= want - spread_min - tol);
		assert_true(p95 - p5 >= spread_min);
	} else
		assert_true(p5 >= want - tol);
	dn_probe_stats_release(&st);
}

static void
stack(void **state)
{
	/* 0 -> 1: 20 ms; 1 -> 0: 60 ms; 0 -> 2: 40 +- 10 ms; 2 -> 0 and the
	 * rest untouched. */
	const struct dn_nft_link nl[] = {
		{ 0, 1, 0, 0, 1, 1 }, { 1, 0, 0, 0, 2, 1 }, { 0, 2, 0, 0, 3, 1 },
	};
	const struct dn_delay_link dl[] = {
		{ 1, 20000, 0 }, { 2, 60000, 0 }, { 3, 40000, 10000 },
	};
	const struct dn_shape_class sc = { 1, 10000000, 100 };
	struct dn_shape_stats ss[2];
	struct dn_delay_stats ds;
	char err[256], h1[16];
	uint64_t t0, t1;
	int hub;

	(void)state;
	if (dn_net_create(&net, 3, err, sizeof(err)) != 0)
		fail_msg("create: %s", err);
	hub = dn_net_ns_fd(net, -1);
	if (dn_nft_apply(hub, nl, 3, QUEUE, err, sizeof(err)) != 0)
		fail_msg("apply: %s", err);
	if (dn_delay_start(&d, hub, QUEUE, dl, 3, err, sizeof(err)) != 0)
		fail_msg("delay: %s", err);
	dn_net_hub_ifname(1, h1, sizeof(h1));
	if (dn_shape_set(hub, h1, &sc, 1, err, sizeof(err)) != 0)
		fail_msg("shape: %s", err);
	if (dn_probe_start(&pr, net, RATE, err, sizeof(err)) != 0)
		fail_msg("probe: %s", err);
	t0 = dn_now_ns() + 200000000ull;	/* past the first probes */
	usleep(2500000);
	t1 = dn_now_ns() - 300000000ull;	/* in flight: not counted */
	owd(pr, 0, 1, t0, t1, 20, 0);
	owd(pr, 1, 0, t0, t1, 60, 0);
	owd(pr, 0, 2, t0, t1, 40, 10);
	owd(pr, 2, 0, t0, t1, 0, 0);
	owd(pr, 1, 2, t0, t1, 0, 0);
	dn_delay_stats(d, &ds);
	printf("# emulator: %llu packets, %llu held, max err %llu us, "
	    "%llu drops\n", (unsigned long long)ds.packets,
	    (unsigned long long)ds.held,
	    (unsigned long long)ds.max_hold_err_us,
	    (unsigned long long)ds.drops);
	assert_true(ds.packets > 3 * 200);
	assert_int_equal(ds.drops, 0);
	assert_int_equal(ds.unknown, 0);
	assert_int_equal(dn_shape_read(hub, h1, ss, 2, err, sizeof(err)), 1);
	printf("# class for mark 1 on %s: %llu packets\n", h1,
	    (unsigned long long)ss[0].packets);
	assert_true(ss[0].packets >= 200);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(stack, teardown),
	};

	if (geteuid() != 0) {
		printf("skipped: needs root (network namespaces)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
