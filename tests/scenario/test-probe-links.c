/*
 * test-probe-links.c: the links the per-link probe measures
 * (plan/probe-links.c, issue 40): every link of a small network; past
 * that a sample from the seed that holds the gossip graph's links both
 * ways, the load's, every condition class (ordered zone pair, the nodes
 * in no zone, the load's) and every link event's node and partition's
 * group pair PLAN_PROBE_CLASS_MIN times, every endpoint each way, and
 * the same sample for the same seed.  And the longest window a proof can
 * count in (plan_probe_window_ms, the warning of `devnet validate`).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan/plan.h"
#include "scenario/scenario.h"
#include "buf.h"
#include "xalloc.h"

/* A scenario of NODES nodes in three zones (the last two nodes in none),
 * with PEERS (0: none) and EXTRA lines under network: and at the end. */
static struct scenario *
load(int nodes, int peers, const char *net_extra, const char *tail,
    uint64_t seed)
{
	struct dn_buf	 b = DN_BUF_INIT;
	struct scenario	*s = NULL;
	char		*cause = NULL;
	int		 z, k;

	dn_buf_addf(&b, "name: t\nduration: 20s\nseed: %llu\nnetwork:\n"
	    "  nodes: %d\n", (unsigned long long)seed, nodes);
	if (peers > 0)
		dn_buf_addf(&b, "  peers: %d\n", peers);
	dn_buf_puts(&b, "  zones:\n");
	for (z = 0; z < 3; z++) {
		dn_buf_addf(&b, "    z%d: [", z);
		for (k = z; k < nodes - 2; k += 3)
			dn_buf_addf(&b, "%s%d", k == z ? "" : ", ", k);
		dn_buf_puts(&b, "]\n");
	}
	dn_buf_puts(&b, "  links:\n    default: {latency: 2ms}\n"
	    "    z0-z1: {latency: 20ms}\n    z1-z2: {loss: 1%}\n");
	dn_buf_puts(&b, net_extra);
	dn_buf_puts(&b, "workload:\n  kind: transfer\n  tps: 10\n");
	dn_buf_puts(&b, tail);
	if (scenario_load_buffer(&s, "t.yaml", b.p, b.len, NULL, 0, NULL,
	    &cause) != 0)
		fail_msg("%s", cause);
	dn_buf_release(&b);
	return (s);
}

static int
zone(const struct scenario *s, int k)
{
	return (k >= s->network.nodes ? -2 : s->network.zone_of[k]);
}

/* Every ordered class (zones -1..2, the load -2 on either side) holds at
 * least PLAN_PROBE_CLASS_MIN probed links (or all it has), every
 * endpoint each way. */
static void
check_cover(const struct scenario *s, const uint8_t *sel, int n)
{
	int	cnt[5][5] = { { 0 } }, all[5][5] = { { 0 } }, out, in, a, b;
	int	i, k;

	for (i = 0; i < n; i++) {
		out = in = 0;
		for (k = 0; k < n; k++) {
			if (i == k)
				continue;
			assert_int_equal(sel[i * n + i], 0);
			out += sel[i * n + k];
			in += sel[k * n + i];
			all[zone(s, i) + 2][zone(s, k) + 2]++;
			if (sel[i * n + k])
				cnt[zone(s, i) + 2][zone(s, k) + 2]++;
		}
		assert_true(out >= 1);
		assert_true(in >= 1);
	}
	/* (the nodes in no zone are two: 2 links between them) */
	for (a = 1; a < 5; a++)
		for (b = 1; b < 5; b++)
			assert_true(cnt[a][b] >= (all[a][b] <
			    PLAN_PROBE_CLASS_MIN ? all[a][b] :
			    PLAN_PROBE_CLASS_MIN));
	/* the load's class: its links both ways, pooled */
	for (a = 0, i = 1; i < 5; i++)
		a += cnt[0][i] + cnt[i][0];
	assert_true(a >= PLAN_PROBE_CLASS_MIN);
}

/* A sample of S's 31 endpoints: covered, bounded, its rate from its
 * size.  Returns it (caller frees). */
static uint8_t *
check_sample(const struct scenario *s)
{
	uint8_t	*sel;
	size_t	 n;
	int	 hz;

	sel = plan_probe_links(s, 31, &n, &hz);
	assert_non_null(sel);
	check_cover(s, sel, 31);
	assert_true(n >= PLAN_PROBE_FILL && n < 930);
	assert_int_equal(hz, PLAN_PROBE_TOTAL_HZ / (n + 1) > 20 ? 20 :
	    PLAN_PROBE_TOTAL_HZ / (n + 1) < 2 ? 2 :
	    (int)(PLAN_PROBE_TOTAL_HZ / (n + 1)));
	return (sel);
}

static void
small_all(void **state)
{
	struct scenario	*s = load(30, 0, "", "", 1);
	size_t		 n;
	int		 hz;

	(void)state;
	/* 31 endpoints: 930 links, every one probed as before */
	assert_null(plan_probe_links(s, 31, &n, &hz));
	assert_int_equal(n, 930);
	assert_int_equal(hz, 2);
	scenario_free(s);
	s = load(30, 0, "  probe_links: sampled\n", "", 1);
	free(check_sample(s));
	scenario_free(s);
}

static void
gossip_sample(void **state)
{
	struct scenario	*s = load(100, 8, "", "", 7), *s2;
	uint8_t		*sel, *sel2, *m;
	size_t		 n, n2, cnt = 0;
	int		 hz, i, k, nn = 101;

	(void)state;
	sel = plan_probe_links(s, nn, &n, &hz);
	assert_non_null(sel);
	check_cover(s, sel, nn);
	for (i = 0; i < nn * nn; i++)
		cnt += sel[i];
	assert_int_equal(cnt, n);
	/* the graph's 800 directed links and the load's 200, nothing more:
	 * they already cover every class */
	m = plan_peer_graph(s);
	for (i = 0; i < 100; i++)
		for (k = 0; k < 100; k++)
			if (m[i * 100 + k])
				assert_int_equal(sel[i * nn + k], 1);
	for (i = 0; i < 100; i++)
		assert_true(sel[100 * nn + i] && sel[i * nn + 100]);
	assert_true(n >= 1000 && n < 1100);
	assert_int_equal(hz, 2);
	/* the seed decides: the same again, another seed another sample */
	sel2 = plan_probe_links(s, nn, &n2, &hz);
	assert_int_equal(n2, n);
	assert_memory_equal(sel, sel2, (size_t)nn * nn);
	free(sel2);
	s2 = load(100, 8, "", "", 8);
	sel2 = plan_probe_links(s2, nn, &n2, &hz);
	assert_true(memcmp(sel, sel2, (size_t)nn * nn) != 0);
	free(sel2);
	scenario_free(s2);
	free(m);
	free(sel);
	/* all, when asked: the square */
	scenario_free(s);
	s = load(100, 8, "  probe_links: all\n", "", 7);
	assert_null(plan_probe_links(s, nn, &n, &hz));
	assert_int_equal(n, 10100);
	scenario_free(s);
}

/* A link event's nodes PLAN_PROBE_CLASS_MIN times each way, a
 * partition's every ordered pair of groups (the rest one more group) 8
 * times. */
static void
events_covered(void **state)
{
	struct scenario	*s;
	uint8_t		*sel;
	int		 g[30], cnt[3][3] = { { 0 } }, out = 0, in = 0, i, k;

	(void)state;
	s = load(30, 0, "  probe_links: sampled\n", "events:\n"
	    "  - {at: 2s, action: link, nodes: [5], loss: 50%, for: 5s}\n"
	    "  - {at: 8s, action: partition, groups: [[0, 1], [2]]}\n"
	    "  - {at: 12s, action: heal}\n", 3);
	sel = check_sample(s);
	for (k = 0; k < 31; k++) {
		out += sel[5 * 31 + k];
		in += sel[k * 31 + 5];
	}
	assert_true(out >= PLAN_PROBE_CLASS_MIN && in >= PLAN_PROBE_CLASS_MIN);
	for (i = 0; i < 30; i++)
		g[i] = i < 2 ? 0 : i == 2 ? 1 : 2;
	for (i = 0; i < 30; i++)
		for (k = 0; k < 30; k++)
			cnt[g[i]][g[k]] += sel[i * 31 + k];
	/* group [2] is one node: its one link to [0, 1] each way is 2 */
	assert_int_equal(cnt[0][1], 2);
	assert_int_equal(cnt[1][0], 2);
	/* the others at least 8 each (a cut open on half its links is
	 * then missed 1 time in 256) */
	assert_true(cnt[0][2] >= 8);
	assert_true(cnt[2][0] >= 8);
	assert_true(cnt[1][2] >= 8);
	assert_true(cnt[2][1] >= 8);
	free(sel);
	scenario_free(s);
}

/* The longest window a proof can count probes in: between the warmup
 * and the network events (a link event's end too), less the settling;
 * the last ends with the trial.  An event of one variant cuts only its
 * trials. */
static void
proof_window(void **state)
{
	struct scenario	*s;

	(void)state;
	/* 1 | 2 link 7 | 8 partition | 12 heal | 20: 12..20 less 0.3 s */
	s = load(6, 0, "", "warmup: 1s\nevents:\n"
	    "  - {at: 2s, action: link, nodes: [5], loss: 50%, for: 5s}\n"
	    "  - {at: 8s, action: partition, groups: [[0, 1], [2]]}\n"
	    "  - {at: 12s, action: heal}\n", 3);
	assert_int_equal(plan_probe_window_ms(s, 0), 7700);
	scenario_free(s);
	/* a node's pause is no network event: 1..20 less 0.3 s for A; B
	 * cut at 10 s: 10..20 less 0.3 s */
	s = load(6, 0, "", "warmup: 1s\nvariants:\n  A: {}\n  B: {}\n"
	    "events:\n  - {at: 5s, action: stop, node: 1}\n"
	    "  - {at: 10s, action: partition, groups: [[0], [1]], "
	    "variant: B}\n", 3);
	assert_int_equal(plan_probe_window_ms(s, 0), 18700);
	assert_int_equal(plan_probe_window_ms(s, 1), 9700);
	scenario_free(s);
	/* 0.7 s after the warmup: 0.4 s, 8 probes at 20/s */
	s = load(5, 0, "", "warmup: 19300ms\n", 3);
	assert_int_equal(plan_probe_window_ms(s, 0), 400);
	scenario_free(s);
	/* a window that settles to nothing: none */
	s = load(5, 0, "", "warmup: 19800ms\n", 3);
	assert_int_equal(plan_probe_window_ms(s, 0), 0);
	scenario_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(small_all),
		cmocka_unit_test(gossip_sample),
		cmocka_unit_test(events_covered),
		cmocka_unit_test(proof_window),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
