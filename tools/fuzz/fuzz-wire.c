/*
 * fuzz-wire.c: libFuzzer harness for the wire decoders of
 * metrics/wire/protocol.h.  The input is a whole message as received: its header
 * is checked (with and without a token / node range), and a payload that
 * passes goes to the decoder of its kind.  Every payload decoder also gets
 * the raw input, so they are fuzzed without a valid header in front.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;
static volatile double	 fsink;

static void
payload(uint16_t kind, const uint8_t *p, size_t len)
{
	struct dn_sample	 s;
	struct dn_status	 st;
	struct dn_tx		 tx;
	const uint8_t		*items;
	static struct dn_named	 named[DN_NAMED_MAX];
	size_t			 nnamed, j;
	uint16_t		 flags;
	uint64_t		 height, proposed;
	uint32_t		 count, hops, i;

	switch (kind) {
	case DN_MSG_SAMPLE:
		if (dn_sample_decode(p, len, &s) == 0) {
			if (s.count == 0 || s.count > DN_SAMPLE_MAX)
				abort();
			for (i = 0; i < s.count; i++)
				fsink += s.values[i];
		}
		break;
	case DN_MSG_TXS:
		if (dn_txs_check(p, len, &count, &hops, &items) == 0) {
			for (i = 0; i < count; i++) {
				dn_tx_get(items + (size_t)i * DN_TX_SIZE, &tx);
				sink += tx.id + tx.amount;
			}
		}
		break;
	case DN_MSG_INCLUDED:
		if (dn_included_check(p, len, &height, &proposed, &count,
		    &items) == 0) {
			for (i = 0; i < count; i++)
				sink += dn_get_u64(items +
				    (size_t)i * DN_INCL_ENTRY) +
				    dn_get_u32(items +
				    (size_t)i * DN_INCL_ENTRY + 16);
		}
		break;
	case DN_MSG_CTL_STATUS:
		if (dn_status_get(p, len, &st) == 0)
			sink += st.height + st.state_hash[31];
		break;
	case DN_MSG_NAMED:
		if (dn_named_decode(p, len, &flags, named, DN_NAMED_MAX,
		    &nnamed) == 0) {
			if (nnamed == 0 || nnamed > DN_NAMED_MAX)
				abort();
			for (j = 0; j < nnamed; j++)
				fsink += named[j].value + named[j].name[0];
		}
		break;
	default:
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dn_hdr	h;
	uint8_t		*copy;
	int		 rc;
	uint16_t	 k;

	/* an exact-size heap copy: ASan sees any read past the end */
	copy = malloc(size ? size : 1);
	if (copy == NULL)
		return (0);
	memcpy(copy, data, size);
	rc = dn_hdr_check(copy, size, 0, 0, 1, &h);
	if (rc == 0) {
		if (h.len != size - DN_HDR_SIZE || h.kind == 0 ||
		    h.kind > DN_MSG_KIND_MAX)
			abort();
		payload(h.kind, copy + DN_HDR_SIZE, h.len);
	} else if (rc >= 0 || -rc >= DN_REJ_COUNT ||
	    dn_reject_name(rc) == NULL)
		abort();
	(void)dn_hdr_check(copy, size, 0x1122334455667788ull, 3, 0, &h);
	for (k = 1; k <= DN_MSG_KIND_MAX; k++)
		payload(k, copy, size);
	free(copy);
	return (0);
}
