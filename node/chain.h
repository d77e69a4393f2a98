/*
 * chain.h: the node's state machine over the store: genesis, the
 * consensus read set, transaction rules, block building and applying, the
 * mempool and the state hash.  No networking, no clocks, no threads: the
 * caller (node.c) decides when to propose and where blocks come from, so
 * the rules can be tested on a real RocksDB without processes.
 *
 * Keys (all multi-byte integers in keys big-endian, so key order is
 * numeric order; values little-endian):
 *   genesis          u32 accounts, u32 nodes, u64 seed, u64 keys
 *   head             u64 height, 32 hash, u64 proposed_ns,
 *                    u64 txs_applied, u64 txs_rejected (chain totals)
 *   a/<u32>          account: u64 balance, u64 nonce
 *   v/<u32>          validator: u32 index, u32 0, u64 stake, 32 key
 *   b/<u64>          block payload (block.h)
 *   H/<u64>          block hash (32 bytes)
 *   r/<u64 tx id>    receipt: u32 status (enum dn_tx_status), u32 0,
 *                    u64 height
 *   k/<14 digits>    readrandom keys (16 bytes) with 100-byte values,
 *                    only when created with keys > 0
 *
 * Rules of a transfer, in order: the id appeared earlier in the same
 * block -> DN_TX_DUPLICATE; unknown sender or receiver ->
 * DN_TX_BAD_ACCOUNT; a receipt for its id exists -> DN_TX_DUPLICATE;
 * nonce != sender's nonce -> DN_TX_BAD_NONCE; amount > sender's balance
 * -> DN_TX_NO_FUNDS; else
 * DN_TX_OK: balances move, the sender's nonce goes up by one.  Every
 * transaction gets a receipt (a duplicate keeps the first one); a rejected
 * one changes nothing else.
 */
#ifndef DN_NODE_CHAIN_H
#define DN_NODE_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

struct store;
struct chain;

#define CHAIN_GENESIS_BALANCE	(1ull << 40)
#define CHAIN_RECENT_HASHES	8
#define CHAIN_MEMPOOL_MAX	1000000
#define CHAIN_KEY_SIZE		16	/* readrandom key */
#define CHAIN_VALUE_SIZE	100	/* readrandom value */

struct chain_config {
	uint32_t	nodes;
	uint32_t	accounts;
	uint64_t	seed;
	uint32_t	block_reads;	/* extra random account reads/block */
	uint64_t	keys;		/* readrandom keys at genesis */
};

struct chain_head {
	uint64_t	height;
	uint8_t		hash[32];
	uint64_t	proposed_ns;
	uint64_t	txs_applied;
	uint64_t	txs_rejected;
};

/*
 * Load the chain from S, writing genesis first if the DB has none.  A DB
 * created with other accounts/nodes/seed/keys is an error.  S stays the
 * caller's.  *CP: chain_free.
 */
int	 chain_open(struct chain **cp, struct store *s,
	    const struct chain_config *c, char **cause);
void	 chain_free(struct chain *c);

/* The applied head (a copy). */
void	 chain_head(struct chain *c, struct chain_head *h);

/*
 * Apply the block payload P (LEN bytes): it must decode, be at
 * height + 1, name the right parent and proposer.  Does the consensus read
 * set, evaluates every transaction, writes state, receipts, block, hash and
 * head in one batch, and removes the block's transactions from the
 * mempool.  STATUS (ntx bytes, may be NULL) receives each transaction's
 * enum dn_tx_status.  Returns 0, or -1 with *CAUSE (the block is refused
 * and nothing is written).
 */
int	 chain_apply(struct chain *c, const uint8_t *p, size_t len,
	    uint8_t *status, char **cause);

/*
 * Build the payload of block height + 1 from the mempool: transactions in
 * arrival order whose nonce is the next one for their sender (counting
 * earlier ones in the block); future nonces wait; everything else that
 * would be rejected is included as rejected.  At most MAX_TXS.  *PP is the
 * caller's (free).  Returns 0 or -1.
 */
int	 chain_build(struct chain *c, uint32_t proposer, uint64_t proposed_ns,
	    uint32_t max_txs, uint8_t **pp, size_t *lenp, char **cause);

/*
 * Offer TX to the mempool.  Returns 1 if added, 0 if already known (in
 * the mempool or already has a receipt) or the mempool is full.
 */
int	 chain_mempool_add(struct chain *c, const struct dn_tx *tx);
size_t	 chain_mempool_size(struct chain *c);

/* Read the stored block at HEIGHT.  Returns 1 (*PP the caller's), 0 if
 * absent, -1 on error. */
int	 chain_block_get(struct chain *c, uint64_t height, uint8_t **pp,
	    size_t *lenp, char **cause);

/* Evaluate one transaction against the current state (no write): the
 * status chain_apply would give it as the only transaction of a block. */
int	 chain_tx_check(struct chain *c, const struct dn_tx *tx,
	    uint8_t *status, char **cause);

/* Balance and nonce of account ID.  Returns 1, 0 (absent) or -1. */
int	 chain_account(struct chain *c, uint32_t id, uint64_t *balance,
	    uint64_t *nonce, char **cause);

/*
 * SHA-256 over every key and value of S in key order (u32 key length,
 * key, u32 value length, value, lengths little-endian), from one snapshot;
 * *HEIGHT is the head height in that snapshot.  Thread-safe.
 */
int	 chain_state_hash(struct store *s, uint8_t out[32], uint64_t *height,
	    char **cause);

/* The readrandom key and value of index I (KEY: CHAIN_KEY_SIZE bytes,
 * VAL: CHAIN_VALUE_SIZE bytes). */
void	 chain_bench_key(uint64_t i, uint8_t *key);
void	 chain_bench_value(uint64_t seed, uint64_t i, uint8_t *val);
/* Account key of ID into KEY (6 bytes); returns the length. */
size_t	 chain_account_key(uint32_t id, uint8_t *key);

#endif
