/* test-protocol.c: the wire codec round-trips and rejects what it must. */
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

static size_t
make_sample(uint8_t *buf, size_t cap, uint32_t node)
{
	struct dn_hdr		h = { .token = TOKEN, .node = node, .seq = 7,
				    .t_ns = 123456789 };
	struct dn_sample	s = { .count = DN_METRIC_COUNT, .flags = 1,
				    .dropped = 3 };
	int			i;

	for (i = 0; i < DN_METRIC_COUNT; i++)
		s.values[i] = i * 1.5;
	return (dn_sample_encode(buf, cap, &h, &s));
}

static void
sample_round_trip(void **state)
{
	uint8_t			buf[1024];
	struct dn_hdr		h;
	struct dn_sample	s;
	size_t			n = make_sample(buf, sizeof(buf), 2);
	int			i;

	(void)state;
	assert_int_equal(n, DN_HDR_SIZE + 8 + 8 * DN_METRIC_COUNT);
	assert_int_equal(dn_hdr_check(buf, n, TOKEN, 3, 0, &h), 0);
	assert_int_equal(h.kind, DN_MSG_SAMPLE);
	assert_int_equal(h.node, 2);
	assert_int_equal(h.seq, 7);
	assert_int_equal(h.t_ns, 123456789);
	assert_int_equal(dn_sample_decode(buf + DN_HDR_SIZE, h.len, &s), 0);
	assert_int_equal(s.count, DN_METRIC_COUNT);
	assert_int_equal(s.flags, DN_SAMPLE_FINAL);
	assert_int_equal(s.dropped, 3);
	for (i = 0; i < DN_METRIC_COUNT; i++)
		assert_true(s.values[i] == i * 1.5);
}

static void
rejects_bad_headers(void **state)
{
	uint8_t		buf[1024], bad[1024];
	struct dn_hdr	h;
	size_t		n = make_sample(buf, sizeof(buf), 1);
	size_t		i;

	(void)state;
	/* every truncation is rejected, none reads past the end */
	for (i = 0; i < n; i++)
		assert_true(dn_hdr_check(buf, i, TOKEN, 3, 0, &h) < 0);
	assert_int_equal(dn_hdr_check(buf, 10, TOKEN, 3, 0, &h),
	    -DN_REJ_SHORT);
	assert_int_equal(dn_hdr_check(buf, n - 1, TOKEN, 3, 0, &h),
	    -DN_REJ_LENGTH);
	/* oversized: trailing bytes beyond the declared payload */
	memcpy(bad, buf, n);
	bad[n] = 0;
	assert_int_equal(dn_hdr_check(bad, n + 1, TOKEN, 3, 0, &h),
	    -DN_REJ_LENGTH);
	memcpy(bad, buf, n);
	bad[0] ^= 0xff;
	assert_int_equal(dn_hdr_check(bad, n, TOKEN, 3, 0, &h), -DN_REJ_MAGIC);
	memcpy(bad, buf, n);
	dn_put_u16(bad + 4, DN_PROTOCOL_VERSION + 1);
	assert_int_equal(dn_hdr_check(bad, n, TOKEN, 3, 0, &h),
	    -DN_REJ_VERSION);
	assert_int_equal(dn_hdr_check(buf, n, TOKEN + 1, 3, 0, &h),
	    -DN_REJ_TOKEN);
	assert_int_equal(dn_hdr_check(buf, n, TOKEN, 1, 0, &h), -DN_REJ_NODE);
	memcpy(bad, buf, n);
	dn_put_u16(bad + 6, 0);
	assert_int_equal(dn_hdr_check(bad, n, TOKEN, 3, 0, &h), -DN_REJ_KIND);
	dn_put_u16(bad + 6, DN_MSG_KIND_MAX + 1);
	assert_int_equal(dn_hdr_check(bad, n, TOKEN, 3, 0, &h), -DN_REJ_KIND);
	assert_string_equal(dn_reject_name(-DN_REJ_TOKEN), "bad run token");
}

static void
rejects_bad_samples(void **state)
{
	uint8_t			buf[1024];
	struct dn_sample	s;
	size_t			n = make_sample(buf, sizeof(buf), 0);
	uint8_t			*p = buf + DN_HDR_SIZE;
	size_t			plen = n - DN_HDR_SIZE;

	(void)state;
	assert_int_equal(dn_sample_decode(p, plen - 8, &s), -DN_REJ_PAYLOAD);
	assert_int_equal(dn_sample_decode(p, 4, &s), -DN_REJ_PAYLOAD);
	dn_put_u16(p, 0);
	assert_int_equal(dn_sample_decode(p, plen, &s), -DN_REJ_PAYLOAD);
	dn_put_u16(p, DN_SAMPLE_MAX + 1);
	assert_int_equal(dn_sample_decode(p, plen, &s), -DN_REJ_PAYLOAD);
	dn_put_u16(p, DN_METRIC_COUNT);
	dn_put_f64(p + 8, NAN);
	assert_int_equal(dn_sample_decode(p, plen, &s), -DN_REJ_PAYLOAD);
	dn_put_f64(p + 8, INFINITY);
	assert_int_equal(dn_sample_decode(p, plen, &s), -DN_REJ_PAYLOAD);
	/* an encoder refuses what the decoder would refuse */
	s.count = 0;
	assert_int_equal(dn_sample_encode(buf, sizeof(buf),
	    &(struct dn_hdr){ 0 }, &s), 0);
}

static void
txs_and_included(void **state)
{
	uint8_t		buf[8 + 2 * DN_TX_SIZE];
	struct dn_tx	tx = { 1, 2, 3, 4, 5, 6 }, out;
	const uint8_t	*txs, *ent;
	uint32_t	count, hops;
	uint64_t	height, pns;
	uint8_t		inc[24 + DN_INCL_ENTRY];

	(void)state;
	dn_put_u32(buf, 2);
	dn_put_u32(buf + 4, 1);
	dn_tx_put(buf + 8, &tx);
	dn_tx_put(buf + 8 + DN_TX_SIZE, &tx);
	assert_int_equal(dn_txs_check(buf, sizeof(buf), &count, &hops, &txs), 0);
	assert_int_equal(count, 2);
	assert_int_equal(hops, 1);
	dn_tx_get(txs + DN_TX_SIZE, &out);
	assert_memory_equal(&out, &tx, sizeof(tx));
	assert_true(dn_txs_check(buf, sizeof(buf) - 1, &count, &hops,
	    &txs) < 0);
	dn_put_u32(buf, 3);
	assert_true(dn_txs_check(buf, sizeof(buf), &count, &hops, &txs) < 0);
	dn_put_u32(buf, 0);
	assert_true(dn_txs_check(buf, 8, &count, &hops, &txs) < 0);

	memset(inc, 0, sizeof(inc));
	dn_put_u64(inc, 9);
	dn_put_u64(inc + 8, 10);
	dn_put_u32(inc + 16, 1);
	assert_int_equal(dn_included_check(inc, sizeof(inc), &height, &pns,
	    &count, &ent), 0);
	assert_int_equal(height, 9);
	assert_int_equal(count, 1);
	dn_put_u32(inc + 16, 2);
	assert_true(dn_included_check(inc, sizeof(inc), &height, &pns, &count,
	    &ent) < 0);
}

static void
status_round_trip(void **state)
{
	struct dn_status	st = { 1, 2, 3, 4, 5, 6, DN_CTL_READY, { 9 } }, out;
	uint8_t			buf[DN_STATUS_SIZE];

	(void)state;
	dn_status_put(buf, &st);
	assert_int_equal(dn_status_get(buf, sizeof(buf), &out), 0);
	assert_memory_equal(&st, &out, sizeof(st));
	assert_true(dn_status_get(buf, sizeof(buf) - 1, &out) < 0);
}

static void
metric_table(void **state)
{
	(void)state;
	assert_int_equal(dn_metric_lookup("rss_bytes"), DN_M_RSS_BYTES);
	assert_int_equal(dn_metric_lookup("rocksdb_table_readers_bytes"),
	    DN_M_ROCKSDB_TABLE_READERS_BYTES);
	assert_int_equal(dn_metric_lookup("nope"), -1);
	assert_int_equal(dn_metric_defs[DN_M_ALLOCS].kind, DN_KIND_C);
	assert_int_equal(dn_metric_defs[DN_M_HEIGHT].better, DN_BETTER_H);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sample_round_trip),
		cmocka_unit_test(rejects_bad_headers),
		cmocka_unit_test(rejects_bad_samples),
		cmocka_unit_test(txs_and_included),
		cmocka_unit_test(status_round_trip),
		cmocka_unit_test(metric_table),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
