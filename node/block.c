/* block.c: codec of node-to-node payloads (see block.h).  No I/O. */
#include <string.h>

#include "block.h"
#include "sha256.h"

size_t
block_size(uint32_t ntx)
{
	return (BLOCK_FIXED + (size_t)ntx * DN_TX_SIZE);
}

void
block_encode(uint8_t *p, const struct block *b, const struct dn_tx *txs)
{
	uint32_t	i;

	dn_put_u64(p, b->height);
	dn_put_u64(p + 8, b->proposed_ns);
	dn_put_u32(p + 16, b->proposer);
	dn_put_u32(p + 20, b->ntx);
	memcpy(p + 24, b->parent, 32);
	for (i = 0; i < b->ntx; i++)
		dn_tx_put(p + BLOCK_FIXED + (size_t)i * DN_TX_SIZE, &txs[i]);
}

int
block_decode(const uint8_t *p, size_t len, struct block *b)
{
	if (len < BLOCK_FIXED)
		return (-DN_REJ_PAYLOAD);
	b->height = dn_get_u64(p);
	b->proposed_ns = dn_get_u64(p + 8);
	b->proposer = dn_get_u32(p + 16);
	b->ntx = dn_get_u32(p + 20);
	if (b->height == 0 || b->ntx > BLOCK_TXS_MAX ||
	    len != block_size(b->ntx))
		return (-DN_REJ_PAYLOAD);
	memcpy(b->parent, p + 24, 32);
	b->txs = p + BLOCK_FIXED;
	return (0);
}

void
block_hash(const uint8_t *p, size_t len, uint8_t out[32])
{
	struct dn_sha256	c;

	dn_sha256_init(&c);
	dn_sha256_update(&c, p, len);
	dn_sha256_final(&c, out);
}

void
head_encode(uint8_t *p, uint64_t height, uint64_t proposed_ns)
{
	dn_put_u64(p, height);
	dn_put_u64(p + 8, proposed_ns);
}

int
head_decode(const uint8_t *p, size_t len, uint64_t *height,
    uint64_t *proposed_ns)
{
	if (len != HEAD_SIZE)
		return (-DN_REJ_PAYLOAD);
	*height = dn_get_u64(p);
	*proposed_ns = dn_get_u64(p + 8);
	return (0);
}

void
block_req_encode(uint8_t *p, uint64_t from, uint32_t max)
{
	dn_put_u64(p, from);
	dn_put_u32(p + 8, max);
	dn_put_u32(p + 12, 0);
}

int
block_req_decode(const uint8_t *p, size_t len, uint64_t *from, uint32_t *max)
{
	if (len != BLOCK_REQ_SIZE)
		return (-DN_REJ_PAYLOAD);
	*from = dn_get_u64(p);
	*max = dn_get_u32(p + 8);
	if (*from == 0 || *max == 0)
		return (-DN_REJ_PAYLOAD);
	return (0);
}
