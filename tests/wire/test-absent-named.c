/*
 * test-absent-named.c: protocol version 3's additions: absent values in a
 * SAMPLE (the presence bitmap) and the NAMED message of (name, value)
 * pairs.  Round trips and every rejection the decoders promise.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "metric-table.h"
#include "protocol.h"

#define TOKEN	0x1122334455667788ull

static void
absent_round_trip(void **state)
{
	struct dn_hdr		h = { .token = TOKEN, .node = 1, .seq = 3 };
	struct dn_sample	s = { .count = DN_METRIC_COUNT }, out;
	uint8_t			buf[1024];
	size_t			n;
	int			i;

	(void)state;
	for (i = 0; i < DN_METRIC_COUNT; i++)
		s.values[i] = i + 1;
	/* no absent value: the version 2 layout, flag clear */
	n = dn_sample_encode(buf, sizeof(buf), &h, &s);
	assert_int_equal(n, DN_HDR_SIZE + 8 + 8 * DN_METRIC_COUNT);
	assert_int_equal(dn_sample_decode(buf + DN_HDR_SIZE,
	    n - DN_HDR_SIZE, &out), 0);
	assert_int_equal(out.absent, 0);
	assert_int_equal(out.flags & DN_SAMPLE_ABSENT, 0);

	s.absent = (1ull << DN_M_ALLOCS) | (1ull << DN_M_HEAP_LIVE_BYTES);
	n = dn_sample_encode(buf, sizeof(buf), &h, &s);
	assert_int_equal(n, DN_HDR_SIZE + 16 + 8 * DN_METRIC_COUNT);
	assert_int_equal(dn_sample_decode(buf + DN_HDR_SIZE,
	    n - DN_HDR_SIZE, &out), 0);
	assert_true(out.flags & DN_SAMPLE_ABSENT);
	assert_int_equal(out.absent, s.absent);
	assert_true(dn_sample_absent(&out, DN_M_ALLOCS));
	assert_false(dn_sample_absent(&out, DN_M_FREES));
	/* absent values travel as 0, whatever the sender had */
	assert_true(out.values[DN_M_ALLOCS] == 0.0);
	assert_true(out.values[DN_M_FREES] == DN_M_FREES + 1);
}

static void
absent_rejects(void **state)
{
	struct dn_hdr		h = { .token = TOKEN };
	struct dn_sample	s = { .count = 4, .absent = 0x2 }, out;
	uint8_t			buf[256];
	uint8_t			*p = buf + DN_HDR_SIZE;
	size_t			n, plen, i;

	(void)state;
	n = dn_sample_encode(buf, sizeof(buf), &h, &s);
	plen = n - DN_HDR_SIZE;
	assert_int_equal(dn_sample_decode(p, plen, &out), 0);
	for (i = 0; i < plen; i++)
		assert_true(dn_sample_decode(p, i, &out) < 0);
	/* a bit beyond count */
	dn_put_u64(p + 8, 0x12);
	assert_int_equal(dn_sample_decode(p, plen, &out), -DN_REJ_PAYLOAD);
	/* an absent value that is not 0 */
	dn_put_u64(p + 8, 0x2);
	dn_put_f64(p + 16 + 8, 5.0);
	assert_int_equal(dn_sample_decode(p, plen, &out), -DN_REJ_PAYLOAD);
	/* flag without room for the bitmap */
	dn_put_u16(p, 1);
	assert_int_equal(dn_sample_decode(p, 15, &out), -DN_REJ_PAYLOAD);
}

static void
named_round_trip(void **state)
{
	struct dn_hdr	h = { .token = TOKEN, .node = 2, .seq = 9 }, hh;
	struct dn_named	v[3] = {
		{ "db_bench_ops_per_sec", DN_NAMED_GAUGE, 251234.5 },
		{ "etcd_server_proposals_applied_total", DN_NAMED_COUNTER,
		    1e6 },
		{ "x.y:z", DN_NAMED_GAUGE, -1.25 },
	};
	struct dn_named	out[DN_NAMED_MAX];
	uint8_t		buf[1024];
	uint16_t	flags;
	size_t		n, got, i;

	(void)state;
	n = dn_named_encode(buf, sizeof(buf), &h, DN_SAMPLE_FINAL, v, 3);
	assert_true(n > 0);
	assert_int_equal(dn_hdr_check(buf, n, TOKEN, 3, 0, &hh), 0);
	assert_int_equal(hh.kind, DN_MSG_NAMED);
	assert_int_equal(dn_named_decode(buf + DN_HDR_SIZE, hh.len, &flags,
	    out, DN_NAMED_MAX, &got), 0);
	assert_int_equal(got, 3);
	assert_int_equal(flags, DN_SAMPLE_FINAL);
	for (i = 0; i < 3; i++) {
		assert_string_equal(out[i].name, v[i].name);
		assert_int_equal(out[i].kind, v[i].kind);
		assert_true(out[i].value == v[i].value);
	}
	/* every truncation is rejected */
	for (i = 0; i < hh.len; i++)
		assert_true(dn_named_decode(buf + DN_HDR_SIZE, i, &flags, out,
		    DN_NAMED_MAX, &got) < 0);
	/* not enough room in the caller's array */
	assert_true(dn_named_decode(buf + DN_HDR_SIZE, hh.len, &flags, out,
	    2, &got) < 0);
}

/* Encode one entry by hand so the decoder sees what an encoder refuses. */
static size_t
raw_one(uint8_t *p, const char *name, uint8_t kind, double value)
{
	size_t	l = strlen(name);

	dn_put_u16(p, 1);
	dn_put_u16(p + 2, 0);
	dn_put_u32(p + 4, 0);
	p[8] = (uint8_t)l;
	p[9] = kind;
	memcpy(p + 10, name, l);
	dn_put_f64(p + 10 + l, value);
	return (10 + l + 8);
}

static void
named_rejects(void **state)
{
	struct dn_named	out[DN_NAMED_MAX];
	struct dn_named	dup[2] = { { "a", 0, 1 }, { "a", 0, 2 } };
	struct dn_hdr	h = { .token = TOKEN };
	uint8_t		p[512];
	uint16_t	flags;
	size_t		n, got;

	(void)state;
	n = raw_one(p, "ok_name", 0, 1.0);
	assert_int_equal(dn_named_decode(p, n, &flags, out, DN_NAMED_MAX,
	    &got), 0);
	n = raw_one(p, "ok_name", 2, 1.0);	/* unknown kind */
	assert_true(dn_named_decode(p, n, &flags, out, DN_NAMED_MAX, &got) < 0);
	n = raw_one(p, "ok_name", 0, NAN);
	assert_true(dn_named_decode(p, n, &flags, out, DN_NAMED_MAX, &got) < 0);
	n = raw_one(p, "9lives", 0, 1.0);	/* leading digit */
	assert_true(dn_named_decode(p, n, &flags, out, DN_NAMED_MAX, &got) < 0);
	n = raw_one(p, "has space", 0, 1.0);
	assert_true(dn_named_decode(p, n, &flags, out, DN_NAMED_MAX, &got) < 0);
	n = raw_one(p, "rss_bytes", 0, 1.0);	/* a table metric */
	assert_true(dn_named_decode(p, n, &flags, out, DN_NAMED_MAX, &got) < 0);
	n = raw_one(p, "nul\0x", 0, 1.0);
	p[8] = 5;	/* length says 5, a NUL inside */
	memcpy(p + 10, "nul\0x", 5);
	dn_put_f64(p + 15, 1.0);
	assert_true(dn_named_decode(p, 23, &flags, out, DN_NAMED_MAX,
	    &got) < 0);
	n = raw_one(p, "ok_name", 0, 1.0);
	dn_put_u16(p + 2, 0x4);			/* unknown flag */
	assert_true(dn_named_decode(p, n, &flags, out, DN_NAMED_MAX, &got) < 0);
	n = raw_one(p, "ok_name", 0, 1.0);
	dn_put_u32(p + 4, 1);			/* reserved word */
	assert_true(dn_named_decode(p, n, &flags, out, DN_NAMED_MAX, &got) < 0);
	n = raw_one(p, "ok_name", 0, 1.0);
	assert_true(dn_named_decode(p, n + 1, &flags, out, DN_NAMED_MAX,
	    &got) < 0);			/* trailing byte */
	dn_put_u16(p, 0);
	assert_true(dn_named_decode(p, 8, &flags, out, DN_NAMED_MAX, &got) < 0);
	/* the encoder refuses duplicates; hand-build one for the decoder */
	assert_int_equal(dn_named_encode(p, sizeof(p), &h, 0, dup, 2), 0);
	n = raw_one(p, "a", 0, 1.0);
	memcpy(p + n, p + 8, n - 8);
	dn_put_u16(p, 2);
	assert_true(dn_named_decode(p, n + n - 8, &flags, out, DN_NAMED_MAX,
	    &got) < 0);
	/* and with distinct names the same shape decodes */
	p[n + 2] = 'b';
	assert_int_equal(dn_named_decode(p, n + n - 8, &flags, out,
	    DN_NAMED_MAX, &got), 0);
	assert_int_equal(got, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(absent_round_trip),
		cmocka_unit_test(absent_rejects),
		cmocka_unit_test(named_round_trip),
		cmocka_unit_test(named_rejects),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
