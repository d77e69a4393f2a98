/*
 * wire-seeds.c: write one encoded message of each kind into DIR, the seed
 * corpus of fuzz-wire (tools/fuzz/corpus/wire).  Usage: fuzz-wire-seeds DIR
 */
#include <stdio.h>
#include <string.h>

#include "metric-table.h"
#include "protocol.h"

static int
put(const char *dir, const char *name, const uint8_t *buf, size_t len)
{
	char	path[512];
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "wb")) == NULL ||
	    fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		return (-1);
	}
	return (0);
}

/* Header KIND with a payload of LEN bytes already at BUF + DN_HDR_SIZE. */
static size_t
frame(uint8_t *buf, uint16_t kind, size_t len)
{
	struct dn_hdr	h = { .kind = kind, .token = 0x1122334455667788ull,
			    .node = 1, .len = (uint32_t)len, .seq = 9,
			    .t_ns = 123456789 };

	dn_hdr_put(buf, &h);
	return (DN_HDR_SIZE + len);
}

int
main(int argc, char **argv)
{
	static uint8_t		buf[1 << 16];
	struct dn_hdr		h = { .token = 0x1122334455667788ull,
				    .node = 2, .seq = 1, .t_ns = 5 };
	struct dn_sample	s = { .count = DN_METRIC_COUNT, .dropped = 1 };
	struct dn_status	st = { .height = 10, .txs_applied = 20,
				    .peers = 3, .pid = 42, .flags = 1 };
	struct dn_tx		tx = { .id = 1, .intended_ns = 2, .from = 3,
				    .to = 4, .amount = 5, .nonce = 6 };
	uint8_t			*p = buf + DN_HDR_SIZE;
	size_t			 n;
	int			 i, rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: fuzz-wire-seeds DIR\n");
		return (2);
	}
	for (i = 0; i < DN_METRIC_COUNT; i++)
		s.values[i] = i * 2.5;
	n = dn_sample_encode(buf, sizeof(buf), &h, &s);
	rc |= put(argv[1], "sample", buf, n);
	s.flags = DN_SAMPLE_FINAL;
	s.count = 1;
	n = dn_sample_encode(buf, sizeof(buf), &h, &s);
	rc |= put(argv[1], "sample-final", buf, n);
	dn_put_u32(p, 1234);
	dn_put_u32(p + 4, 0);
	rc |= put(argv[1], "hello", buf, frame(buf, DN_MSG_HELLO,
	    DN_HELLO_SIZE));
	dn_put_u32(p, 2);
	dn_put_u32(p + 4, 0);
	dn_tx_put(p + 8, &tx);
	tx.id = 2;
	dn_tx_put(p + 8 + DN_TX_SIZE, &tx);
	rc |= put(argv[1], "txs", buf, frame(buf, DN_MSG_TXS,
	    8 + 2 * DN_TX_SIZE));
	memset(p, 0, 24 + 2 * DN_INCL_ENTRY);
	dn_put_u64(p, 7);
	dn_put_u64(p + 8, 99);
	dn_put_u32(p + 16, 2);
	dn_put_u64(p + 24, 1);
	dn_put_u64(p + 24 + DN_INCL_ENTRY, 2);
	dn_put_u32(p + 24 + DN_INCL_ENTRY + 16, DN_TX_NO_FUNDS);
	rc |= put(argv[1], "included", buf, frame(buf, DN_MSG_INCLUDED,
	    24 + 2 * DN_INCL_ENTRY));
	dn_status_put(p, &st);
	rc |= put(argv[1], "status", buf, frame(buf, DN_MSG_CTL_STATUS,
	    DN_STATUS_SIZE));
	dn_put_u32(p, 1);
	rc |= put(argv[1], "status-req", buf, frame(buf, DN_MSG_CTL_STATUS,
	    4));
	rc |= put(argv[1], "stop", buf, frame(buf, DN_MSG_CTL_STOP, 0));
	dn_put_u64(p, 5);
	rc |= put(argv[1], "head", buf, frame(buf, DN_MSG_HEAD, 8));
	return (rc ? 1 : 0);
}
