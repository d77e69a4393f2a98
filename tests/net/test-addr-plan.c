/*
 * test-addr-plan.c: the emulated network's address plan beyond 254 nodes
 * (net/topo.h, issue 40), as pure computation (no namespace is made): at
 * 300 nodes and the load, 301 endpoints, every address distinct, in
 * 10.0.0.0/8, .2 of its own /24 with the hub's side .1 of the same /24,
 * its text the same address, inside one of the /16s every node routes
 * through the hub; the first 255 as before (10.99.I.2, one /16); the
 * 300th node 10.100.43.2; the last endpoint the plan holds 10.162.255.2.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "net/topo.h"

#define NODES	300

static void
plan_300(void **state)
{
	int		 n = NODES + 1, i, j, b, nb = dn_net_blocks(n), in;
	uint32_t	*a = calloc((size_t)n, sizeof(*a)), h, blk;
	char		 txt[32], want[32];
	struct in_addr	 ia;

	(void)state;
	assert_non_null(a);
	assert_int_equal(nb, 2);
	for (i = 0; i < n; i++) {
		a[i] = ntohl(dn_net_addr(i));
		h = ntohl(dn_net_hub_addr(i));
		assert_int_equal(a[i] >> 24, 10);
		assert_int_equal(a[i] & 0xff, 2);
		assert_int_equal(h, (a[i] & 0xffffff00u) | 1);
		dn_net_addr_str(i, txt, sizeof(txt));
		ia.s_addr = dn_net_addr(i);
		assert_string_equal(txt, inet_ntoa(ia));
		for (in = 0, b = 0; b < nb; b++) {
			blk = ntohl(dn_net_block(b));
			in += (a[i] & 0xffff0000u) == blk;
		}
		assert_int_equal(in, 1);
		if (i < 255) {
			snprintf(want, sizeof(want), "10.99.%d.2", i);
			assert_string_equal(txt, want);
		}
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			assert_true(a[i] != a[j]);
	dn_net_addr_str(NODES - 1, txt, sizeof(txt));
	assert_string_equal(txt, "10.100.43.2");
	dn_net_addr_str(NODES, txt, sizeof(txt));	/* the load */
	assert_string_equal(txt, "10.100.44.2");
	free(a);
}

static void
plan_bounds(void **state)
{
	char	txt[32];

	(void)state;
	/* a network of before: one route, 10.99.0.0/16 */
	assert_int_equal(dn_net_blocks(DN_NET_MAX), 1);
	assert_int_equal(ntohl(dn_net_block(0)), 0x0a630000u);
	assert_int_equal(dn_net_blocks(256), 1);
	assert_int_equal(dn_net_blocks(257), 2);
	assert_int_equal(dn_net_blocks(DN_NET_PLAN_MAX), DN_NET_PLAN_BLOCKS);
	dn_net_addr_str(DN_NET_PLAN_MAX - 1, txt, sizeof(txt));
	assert_string_equal(txt, "10.162.255.2");
	assert_int_equal(ntohl(dn_net_block(DN_NET_PLAN_BLOCKS - 1)),
	    0x0aa20000u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(plan_300),
		cmocka_unit_test(plan_bounds),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
