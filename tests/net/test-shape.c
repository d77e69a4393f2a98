/*
 * test-shape.c: bandwidth per link mark (orchestrator/net/shape.c) on the
 * lab of netlab.h, measured as TCP goodput from A to B: 10 Mbit within
 * 10 %, then 20 Mbit after a change, unshaped when the class is another
 * mark's or the shaping is cleared; the class counters show the bytes;
 * bad input refused and the interface left unshaped.  Needs root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "net/shape.h"
#include "netlab.h"

#define SECS	3.0
#define HUB_TO_B "h-b"

static struct netlab lab;

static int
lab_up(void **state)
{
	(void)state;
	return netlab_up(&lab, -1);
}

static int
lab_down(void **state)
{
	char err[256];

	(void)state;
	(void)dn_shape_clear(lab.fd[LAB_HUB], HUB_TO_B, err, sizeof(err));
	netlab_down(&lab);
	return 0;
}

static void
shape(const struct dn_shape_class *c, size_t n)
{
	char err[256] = "";
	int r = dn_shape_set(lab.fd[LAB_HUB], HUB_TO_B, c, n, err,
	    sizeof(err));

	if (r != 0)
		fprintf(stderr, "dn_shape_set: %s\n", err);
	assert_int_equal(r, 0);
}

static double
expect_rate(double want_mbit)
{
	double mbit = netlab_tcp_rate(&lab, SECS) / 1e6;

	/* The rate is the wire's: a full 1514-byte frame carries 1448 bytes
	 * of TCP payload (with timestamps), so goodput is 4.4 % below it.
	 * Within 5 % of that is within 10 % of the rate asked. */
	double good = want_mbit * 1448 / 1514;

	printf("# TCP A->B: %.2f Mbit/s goodput (want %.1f on the wire, "
	    "%.2f goodput)\n", mbit, want_mbit, good);
	if (want_mbit > 0) {
		assert_true(mbit >= good * 0.95);
		assert_true(mbit <= good * 1.05);
	}
	return mbit;
}

static void
rates(void **state)
{
	struct dn_shape_class c = { 1, 10000000, 100 };
	struct dn_shape_class c20 = { 1, 20000000, 100 };
	struct dn_shape_stats st[4];
	char err[256];
	int n;

	(void)state;
	shape(&c, 1);
	expect_rate(10);
	n = dn_shape_read(lab.fd[LAB_HUB], HUB_TO_B, st, 4, err, sizeof(err));
	assert_int_equal(n, 1);
	printf("# class mark %u: %llu bytes %llu packets %llu drops %llu "
	    "overlimits\n", st[0].mark, (unsigned long long)st[0].bytes,
	    (unsigned long long)st[0].packets,
	    (unsigned long long)st[0].drops,
	    (unsigned long long)st[0].overlimits);
	assert_int_equal(st[0].mark, 1);
	assert_true(st[0].bytes > 10000000 / 8 * (SECS - 1) * 0.9);
	assert_true(st[0].overlimits > 0);
	shape(&c20, 1);
	expect_rate(20);
}

/* A class for a mark that B-bound traffic does not carry shapes
 * nothing; nor does a cleared interface. */
static void
other_mark_and_clear(void **state)
{
	struct dn_shape_class c[] = { { 3, 10000000, 100 },
	    { 4, 5000000, 0 } };
	char err[256];

	(void)state;
	shape(c, 2);
	assert_true(expect_rate(0) > 30);
	assert_int_equal(dn_shape_clear(lab.fd[LAB_HUB], HUB_TO_B, err,
	    sizeof(err)), 0);
	assert_true(expect_rate(0) > 30);
	assert_int_equal(dn_shape_clear(lab.fd[LAB_HUB], HUB_TO_B, err,
	    sizeof(err)), 0);
}

static void
refused(void **state)
{
	struct dn_shape_class dup[] = { { 1, 1000000, 0 }, { 1, 2000000, 0 } };
	struct dn_shape_class zero = { 0, 1000000, 0 };
	char err[256];
	struct dn_shape_stats st[1];

	(void)state;
	assert_int_equal(dn_shape_set(lab.fd[LAB_HUB], HUB_TO_B, dup, 2, err,
	    sizeof(err)), -1);
	printf("# %s\n", err);
	assert_int_equal(dn_shape_set(lab.fd[LAB_HUB], HUB_TO_B, &zero, 1,
	    err, sizeof(err)), -1);
	assert_int_equal(dn_shape_set(lab.fd[LAB_HUB], "nosuch0", &zero + 0,
	    0, err, sizeof(err)), -1);
	printf("# %s\n", err);
	assert_non_null(strstr(err, "no such interface"));
	assert_int_equal(dn_shape_read(lab.fd[LAB_HUB], HUB_TO_B, st, 1, err,
	    sizeof(err)), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rates),
		cmocka_unit_test(other_mark_and_clear),
		cmocka_unit_test(refused),
	};

	if (geteuid() != 0) {
		printf("skipped: needs root (network namespaces, iptables)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, lab_up, lab_down);
}
