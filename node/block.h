/*
 * block.h: node-to-node payloads (after the 40-byte header of
 * metrics/wire/protocol.h).  Little-endian like the rest of the protocol; every
 * decoder checks the whole length first and returns -DN_REJ_PAYLOAD on
 * anything malformed.
 *
 * DN_MSG_BLOCK payload (also the value stored under b/<height>):
 *    0 u64 height          8 u64 proposed_ns (CLOCK_MONOTONIC of proposer)
 *   16 u32 proposer       20 u32 ntx
 *   24 32 bytes parent hash (SHA-256 of the parent block's payload; of
 *      the genesis record for height 1)
 *   56 ntx x 40-byte transaction (dn_tx_put)
 * The block hash is SHA-256 of this payload.
 *
 * DN_MSG_HEAD payload:      u64 height, u64 proposed_ns of that block
 * DN_MSG_BLOCK_REQ payload: u64 first height wanted, u32 max blocks, u32 0
 */
#ifndef DN_NODE_BLOCK_H
#define DN_NODE_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

#define BLOCK_FIXED	56
#define BLOCK_TXS_MAX	DN_TXS_MAX
#define HEAD_SIZE	16
#define BLOCK_REQ_SIZE	16
#define BLOCK_REQ_MAX	64	/* blocks answered per request at most */

struct block {
	uint64_t	 height;
	uint64_t	 proposed_ns;
	uint32_t	 proposer;
	uint32_t	 ntx;
	uint8_t		 parent[32];
	const uint8_t	*txs;	/* ntx x DN_TX_SIZE bytes (dn_tx_get) */
};

/* Payload bytes of a block with NTX transactions. */
size_t	 block_size(uint32_t ntx);
/* Encode B's fixed part and TXS (B->ntx of them) into P (block_size
 * bytes). */
void	 block_encode(uint8_t *p, const struct block *b,
	    const struct dn_tx *txs);
/* Decode; B->txs points into P.  Checks ntx <= BLOCK_TXS_MAX, length,
 * height >= 1.  Returns 0 or -DN_REJ_PAYLOAD. */
int	 block_decode(const uint8_t *p, size_t len, struct block *b);
/* SHA-256 of a block payload. */
void	 block_hash(const uint8_t *p, size_t len, uint8_t out[32]);

void	 head_encode(uint8_t *p, uint64_t height, uint64_t proposed_ns);
int	 head_decode(const uint8_t *p, size_t len, uint64_t *height,
	    uint64_t *proposed_ns);
void	 block_req_encode(uint8_t *p, uint64_t from, uint32_t max);
/* Rejects max 0 and from 0. */
int	 block_req_decode(const uint8_t *p, size_t len, uint64_t *from,
	    uint32_t *max);

#endif
