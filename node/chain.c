/*
 * chain.c: genesis, rules, blocks and mempool over the store (see
 * chain.h).  Single-threaded: one caller at a time (the node's chain
 * thread), except chain_state_hash which only reads through the store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block.h"
#include "chain.h"
#include "rocks.h"
#include "rng.h"
#include "sha256.h"
#include "buf.h"
#include "xalloc.h"

#define GENESIS_SIZE	24
#define HEAD_VAL_SIZE	72
#define ACCOUNT_SIZE	16
#define RECEIPT_SIZE	16
#define VALIDATOR_SIZE	48
/* puts per batch while writing genesis: a batch of ~25 KB stays in cache;
 * one of all 10,000 accounts was ~400 KB grown by doubling, and its
 * copies and first-touch page faults were ~4 % of a 10-node start's CPU
 * (issue 26).  Atomic either way: the genesis record goes last. */
#define GENESIS_BATCH	1000
#define BUILD_PASSES	4

/* --- a set of u64 (open addressing, linear probing) ------------------- */
struct u64set {
	uint64_t	*keys;
	uint8_t		*used;
	size_t		 cap;	/* power of two, or 0 */
	size_t		 n;
};

static size_t
mix(uint64_t k, size_t cap)
{
	k *= 0x9e3779b97f4a7c15ull;
	return ((size_t)(k ^ (k >> 29)) & (cap - 1));
}

static void
set_clear(struct u64set *s)
{
	if (s->cap != 0)
		memset(s->used, 0, s->cap);
	s->n = 0;
}

static void
set_free(struct u64set *s)
{
	free(s->keys);
	free(s->used);
	memset(s, 0, sizeof(*s));
}

static int	set_add(struct u64set *, uint64_t);

static void
set_grow(struct u64set *s)
{
	struct u64set	old = *s;
	size_t		i;

	s->cap = old.cap == 0 ? 64 : old.cap * 2;
	s->keys = dn_xcalloc(s->cap, sizeof(*s->keys));
	s->used = dn_xcalloc(s->cap, 1);
	s->n = 0;
	for (i = 0; i < old.cap; i++) {
		if (old.used[i])
			set_add(s, old.keys[i]);
	}
	free(old.keys);
	free(old.used);
}

static int
set_has(const struct u64set *s, uint64_t k)
{
	size_t	i;

	if (s->cap == 0)
		return (0);
	for (i = mix(k, s->cap); s->used[i]; i = (i + 1) & (s->cap - 1)) {
		if (s->keys[i] == k)
			return (1);
	}
	return (0);
}

/* Returns 1 if K was added, 0 if present. */
static int
set_add(struct u64set *s, uint64_t k)
{
	size_t	i;

	if ((s->n + 1) * 2 > s->cap)
		set_grow(s);
	for (i = mix(k, s->cap); s->used[i]; i = (i + 1) & (s->cap - 1)) {
		if (s->keys[i] == k)
			return (0);
	}
	s->used[i] = 1;
	s->keys[i] = k;
	s->n++;
	return (1);
}

/* --- the chain -------------------------------------------------------- */
struct acct {
	uint32_t	id;
	uint8_t		used;
	uint8_t		exists;
	uint8_t		dirty;
	uint64_t	balance;
	uint64_t	nonce;
};

struct chain {
	struct store		*s;
	struct chain_config	 cfg;
	struct chain_head	 head;

	struct acct		*ov;	/* accounts touched by this block */
	size_t			 ovcap;
	size_t			 ovn;
	struct u64set		 blockids; /* tx ids of this block */

	struct dn_tx		*pool;	/* mempool, arrival order */
	size_t			 npool;
	size_t			 poolcap;
	struct u64set		 poolids;
};

size_t
chain_account_key(uint32_t id, uint8_t *key)
{
	key[0] = 'a';
	key[1] = '/';
	key[2] = (uint8_t)(id >> 24);
	key[3] = (uint8_t)(id >> 16);
	key[4] = (uint8_t)(id >> 8);
	key[5] = (uint8_t)id;
	return (6);
}

/* PREFIX (2 chars) + big-endian u64 into KEY (10 bytes). */
static size_t
key64(const char *prefix, uint64_t v, uint8_t *key)
{
	int	i;

	key[0] = (uint8_t)prefix[0];
	key[1] = (uint8_t)prefix[1];
	for (i = 0; i < 8; i++)
		key[2 + i] = (uint8_t)(v >> (56 - 8 * i));
	return (10);
}

static size_t
validator_key(uint32_t i, uint8_t *key)
{
	chain_account_key(i, key);
	key[0] = 'v';
	return (6);
}

void
chain_bench_key(uint64_t i, uint8_t *key)
{
	char	buf[CHAIN_KEY_SIZE + 1];

	snprintf(buf, sizeof(buf), "k/%014llu",
	    (unsigned long long)(i % 100000000000000ull));
	memcpy(key, buf, CHAIN_KEY_SIZE);
}

void
chain_bench_value(uint64_t seed, uint64_t i, uint8_t *val)
{
	uint64_t	st = seed * 0x100000001b3ull + i, r = 0;
	int		j;

	for (j = 0; j < CHAIN_VALUE_SIZE; j++) {
		if (j % 8 == 0)
			r = dn_rand64(&st);
		val[j] = (uint8_t)('a' + (r & 0xff) % 26);
		r >>= 8;
	}
}

static void
head_put_val(uint8_t *v, const struct chain_head *h)
{
	dn_put_u64(v, h->height);
	memcpy(v + 8, h->hash, 32);
	dn_put_u64(v + 40, h->proposed_ns);
	dn_put_u64(v + 48, h->txs_applied);
	dn_put_u64(v + 56, h->txs_rejected);
	dn_put_u64(v + 64, 0);
}

static void
head_get_val(const uint8_t *v, struct chain_head *h)
{
	h->height = dn_get_u64(v);
	memcpy(h->hash, v + 8, 32);
	h->proposed_ns = dn_get_u64(v + 40);
	h->txs_applied = dn_get_u64(v + 48);
	h->txs_rejected = dn_get_u64(v + 56);
}

static void
genesis_put_val(uint8_t *v, const struct chain_config *c)
{
	dn_put_u32(v, c->accounts);
	dn_put_u32(v + 4, c->nodes);
	dn_put_u64(v + 8, c->seed);
	dn_put_u64(v + 16, c->keys);
}

static int
write_genesis(struct chain *c, char **cause)
{
	const struct chain_config *cfg = &c->cfg;
	uint8_t			 key[CHAIN_KEY_SIZE], val[CHAIN_VALUE_SIZE];
	uint8_t			 g[GENESIS_SIZE], hv[HEAD_VAL_SIZE];
	struct dn_sha256	 sha;
	uint64_t		 i, st = cfg->seed, puts = 0;

	for (i = 0; i < cfg->accounts; i++) {
		dn_put_u64(val, CHAIN_GENESIS_BALANCE +
		    dn_rand64(&st) % 1000000);
		dn_put_u64(val + 8, 0);
		store_batch_put(c->s, key, chain_account_key((uint32_t)i,
		    key), val, ACCOUNT_SIZE);
		if (++puts % GENESIS_BATCH == 0 &&
		    store_batch_commit(c->s, cause) != 0)
			return (-1);
	}
	for (i = 0; i < cfg->nodes; i++) {
		memset(val, 0, VALIDATOR_SIZE);
		dn_put_u32(val, (uint32_t)i);
		dn_put_u64(val + 8, 1000 + i);
		dn_sha256_init(&sha);
		dn_sha256_update(&sha, "validator", 9);
		dn_sha256_update(&sha, &cfg->seed, sizeof(cfg->seed));
		dn_sha256_update(&sha, &i, sizeof(i));
		dn_sha256_final(&sha, val + 16);
		store_batch_put(c->s, key, validator_key((uint32_t)i, key),
		    val, VALIDATOR_SIZE);
	}
	for (i = 0; i < cfg->keys; i++) {
		chain_bench_key(i, key);
		chain_bench_value(cfg->seed, i, val);
		store_batch_put(c->s, key, CHAIN_KEY_SIZE, val,
		    CHAIN_VALUE_SIZE);
		if (++puts % GENESIS_BATCH == 0 &&
		    store_batch_commit(c->s, cause) != 0)
			return (-1);
	}
	/* Genesis record and head last: an interrupted genesis has neither
	 * and is simply written again at the next start. */
	genesis_put_val(g, cfg);
	memset(&c->head, 0, sizeof(c->head));
	dn_sha256_init(&sha);
	dn_sha256_update(&sha, "devnet-genesis", 14);
	dn_sha256_update(&sha, g, sizeof(g));
	dn_sha256_final(&sha, c->head.hash);
	head_put_val(hv, &c->head);
	store_batch_put(c->s, "genesis", 7, g, sizeof(g));
	store_batch_put(c->s, "head", 4, hv, sizeof(hv));
	return (store_batch_commit(c->s, cause));
}

int
chain_open(struct chain **cp, struct store *s, const struct chain_config *cfg,
    char **cause)
{
	struct chain	*c;
	uint8_t		 g[GENESIS_SIZE], want[GENESIS_SIZE];
	uint8_t		 hv[HEAD_VAL_SIZE];
	size_t		 len;
	int		 rv;

	c = dn_xcalloc(1, sizeof(*c));
	c->s = s;
	c->cfg = *cfg;
	if (c->cfg.nodes == 0)
		c->cfg.nodes = 1;
	rv = store_get(s, "genesis", 7, g, sizeof(g), &len, cause);
	if (rv < 0)
		goto fail;
	if (rv == 0) {
		if (write_genesis(c, cause) != 0)
			goto fail;
	} else {
		genesis_put_val(want, &c->cfg);
		if (len != GENESIS_SIZE || memcmp(g, want, len) != 0) {
			*cause = dn_xasprintf("the DB was created for "
			    "accounts=%u nodes=%u seed=%llu keys=%llu, not "
			    "for these flags; use the same flags or a new "
			    "--dir", dn_get_u32(g), dn_get_u32(g + 4),
			    (unsigned long long)dn_get_u64(g + 8),
			    (unsigned long long)dn_get_u64(g + 16));
			goto fail;
		}
		rv = store_get(s, "head", 4, hv, sizeof(hv), &len, cause);
		if (rv < 0)
			goto fail;
		if (rv == 0 || len != HEAD_VAL_SIZE) {
			*cause = dn_xstrdup("the DB has a genesis record but "
			    "no valid head; remove the directory");
			goto fail;
		}
		head_get_val(hv, &c->head);
	}
	*cp = c;
	return (0);
fail:
	chain_free(c);
	return (-1);
}

void
chain_free(struct chain *c)
{
	if (c == NULL)
		return;
	free(c->ov);
	set_free(&c->blockids);
	free(c->pool);
	set_free(&c->poolids);
	free(c);
}

void
chain_head(struct chain *c, struct chain_head *h)
{
	*h = c->head;
}

/* --- accounts touched by one block ----------------------------------- */
static void
ov_clear(struct chain *c, size_t expect)
{
	size_t	want = 64;

	while (want < expect * 4)
		want *= 2;
	if (c->ovcap < want) {
		free(c->ov);
		c->ov = dn_xcalloc(want, sizeof(*c->ov));
		c->ovcap = want;
	} else
		memset(c->ov, 0, c->ovcap * sizeof(*c->ov));
	c->ovn = 0;
	set_clear(&c->blockids);
}

static void
ov_grow(struct chain *c)
{
	struct acct	*old = c->ov;
	size_t		 oldcap = c->ovcap, i, j;

	c->ovcap *= 2;
	c->ov = dn_xcalloc(c->ovcap, sizeof(*c->ov));
	for (j = 0; j < oldcap; j++) {
		if (!old[j].used)
			continue;
		for (i = mix(old[j].id, c->ovcap); c->ov[i].used;
		    i = (i + 1) & (c->ovcap - 1))
			;
		c->ov[i] = old[j];
	}
	free(old);
}

/*
 * The overlay entry of account ID, loaded from the store on first use.
 * Returns NULL with *CAUSE on a read error.  Loading a new account may
 * move the others: callers holding two entries look the first up again.
 */
static struct acct *
ov_get(struct chain *c, uint32_t id, char **cause)
{
	struct acct	*a;
	uint8_t		 key[6], val[ACCOUNT_SIZE];
	size_t		 i, len;
	int		 rv;

	for (i = mix(id, c->ovcap); c->ov[i].used;
	    i = (i + 1) & (c->ovcap - 1)) {
		if (c->ov[i].id == id)
			return (&c->ov[i]);
	}
	rv = store_get(c->s, key, chain_account_key(id, key), val,
	    sizeof(val), &len, cause);
	if (rv < 0)
		return (NULL);
	if (rv == 1 && len != ACCOUNT_SIZE) {
		*cause = dn_xasprintf("account %u has a %zu-byte record",
		    id, len);
		return (NULL);
	}
	if ((c->ovn + 1) * 2 > c->ovcap) {
		ov_grow(c);
		for (i = mix(id, c->ovcap); c->ov[i].used;
		    i = (i + 1) & (c->ovcap - 1))
			;
	}
	a = &c->ov[i];
	a->used = 1;
	a->id = id;
	a->exists = rv == 1;
	a->balance = rv == 1 ? dn_get_u64(val) : 0;
	a->nonce = rv == 1 ? dn_get_u64(val + 8) : 0;
	c->ovn++;
	return (a);
}

/* Evaluate TX against the overlay (updating it when OK). */
static int
eval_tx(struct chain *c, const struct dn_tx *tx, uint8_t *status,
    char **cause)
{
	struct acct	*from, *to;
	uint8_t		 key[10], val[RECEIPT_SIZE];
	int		 rv;

	/* Every id of the block is remembered (the mempool drops them all
	 * after the block); a repeat inside one block is a duplicate. */
	if (!set_add(&c->blockids, tx->id)) {
		*status = DN_TX_DUPLICATE;
		return (0);
	}
	if (tx->from >= c->cfg.accounts || tx->to >= c->cfg.accounts) {
		*status = DN_TX_BAD_ACCOUNT;
		return (0);
	}
	rv = store_get(c->s, key, key64("r/", tx->id, key), val, sizeof(val),
	    NULL, cause);
	if (rv < 0)
		return (-1);
	if (rv == 1) {
		*status = DN_TX_DUPLICATE;
		return (0);
	}
	if ((from = ov_get(c, tx->from, cause)) == NULL ||
	    (to = ov_get(c, tx->to, cause)) == NULL)
		return (-1);
	/* ov_get may have moved FROM while growing: look it up again. */
	from = ov_get(c, tx->from, cause);
	if (!from->exists || !to->exists) {
		*status = DN_TX_BAD_ACCOUNT;
		return (0);
	}
	if (tx->nonce != from->nonce) {
		*status = DN_TX_BAD_NONCE;
		return (0);
	}
	if (tx->amount > from->balance) {
		*status = DN_TX_NO_FUNDS;
		return (0);
	}
	from->balance -= tx->amount;
	from->nonce++;
	from->dirty = 1;
	to->balance += tx->amount;
	to->dirty = 1;
	*status = DN_TX_OK;
	return (0);
}

/* The reads a consensus node does every round, block or no block. */
static int
consensus_reads(struct chain *c, uint64_t height, char **cause)
{
	uint8_t		key[10], val[HEAD_VAL_SIZE];
	uint64_t	st, j;
	uint32_t	i;
	int		rv;

	rv = store_get(c->s, "head", 4, val, sizeof(val), NULL, cause);
	if (rv <= 0)
		goto bad;
	for (i = 0; i < c->cfg.nodes; i++) {
		rv = store_get(c->s, key, validator_key(i, key), val,
		    sizeof(val), NULL, cause);
		if (rv <= 0)
			goto bad;
	}
	for (j = 0; j < CHAIN_RECENT_HASHES && j < c->head.height; j++) {
		rv = store_get(c->s, key, key64("H/", c->head.height - j, key),
		    val, sizeof(val), NULL, cause);
		if (rv <= 0)
			goto bad;
	}
	st = c->cfg.seed ^ (height * 0x2545f4914f6cdd1dull);
	for (j = 0; j < c->cfg.block_reads; j++) {
		rv = store_get(c->s, key, chain_account_key((uint32_t)(
		    dn_rand64(&st) % c->cfg.accounts), key), val, sizeof(val),
		    NULL, cause);
		if (rv < 0)
			return (-1);
	}
	return (0);
bad:
	if (rv == 0)
		*cause = dn_xasprintf("consensus read set incomplete at "
		    "height %llu (state damaged?)",
		    (unsigned long long)c->head.height);
	return (-1);
}

/* Drop from the mempool every transaction whose id is in c->blockids. */
static void
mempool_remove_block(struct chain *c)
{
	size_t	i, n = 0;

	if (c->blockids.n == 0 || c->npool == 0)
		return;
	for (i = 0; i < c->npool; i++) {
		if (!set_has(&c->blockids, c->pool[i].id))
			c->pool[n++] = c->pool[i];
	}
	if (n == c->npool)
		return;
	c->npool = n;
	set_clear(&c->poolids);
	for (i = 0; i < c->npool; i++)
		set_add(&c->poolids, c->pool[i].id);
}

int
chain_apply(struct chain *c, const uint8_t *p, size_t len, uint8_t *status,
    char **cause)
{
	struct block		 b;
	struct chain_head	 nh;
	struct dn_tx		 tx;
	uint8_t			 key[10], val[HEAD_VAL_SIZE], st;
	uint32_t		 i;
	size_t			 j;

	if (block_decode(p, len, &b) != 0) {
		*cause = dn_xstrdup("malformed block");
		return (-1);
	}
	if (b.height != c->head.height + 1) {
		*cause = dn_xasprintf("block %llu does not follow head %llu",
		    (unsigned long long)b.height,
		    (unsigned long long)c->head.height);
		return (-1);
	}
	if (memcmp(b.parent, c->head.hash, 32) != 0) {
		*cause = dn_xasprintf("block %llu names the wrong parent",
		    (unsigned long long)b.height);
		return (-1);
	}
	if (b.proposer != b.height % c->cfg.nodes) {
		*cause = dn_xasprintf("block %llu proposed by node %u, not "
		    "by node %llu", (unsigned long long)b.height, b.proposer,
		    (unsigned long long)(b.height % c->cfg.nodes));
		return (-1);
	}
	if (consensus_reads(c, b.height, cause) != 0)
		return (-1);
	ov_clear(c, b.ntx);
	nh = c->head;
	for (i = 0; i < b.ntx; i++) {
		dn_tx_get(b.txs + (size_t)i * DN_TX_SIZE, &tx);
		if (eval_tx(c, &tx, &st, cause) != 0)
			goto fail;
		if (status != NULL)
			status[i] = st;
		if (st == DN_TX_OK)
			nh.txs_applied++;
		else
			nh.txs_rejected++;
		/* A duplicate keeps the receipt of its first inclusion. */
		if (st != DN_TX_DUPLICATE) {
			memset(val, 0, RECEIPT_SIZE);
			dn_put_u32(val, st);
			dn_put_u64(val + 8, b.height);
			store_batch_put(c->s, key, key64("r/", tx.id, key),
			    val, RECEIPT_SIZE);
		}
	}
	for (j = 0; j < c->ovcap; j++) {
		struct acct	*a = &c->ov[j];

		if (!a->used || !a->dirty)
			continue;
		dn_put_u64(val, a->balance);
		dn_put_u64(val + 8, a->nonce);
		store_batch_put(c->s, key, chain_account_key(a->id, key), val,
		    ACCOUNT_SIZE);
	}
	nh.height = b.height;
	nh.proposed_ns = b.proposed_ns;
	block_hash(p, len, nh.hash);
	store_batch_put(c->s, key, key64("b/", b.height, key), p, len);
	store_batch_put(c->s, key, key64("H/", b.height, key), nh.hash, 32);
	head_put_val(val, &nh);
	store_batch_put(c->s, "head", 4, val, HEAD_VAL_SIZE);
	if (store_batch_commit(c->s, cause) != 0)
		return (-1);
	c->head = nh;
	mempool_remove_block(c);
	return (0);
fail:
	store_batch_abort(c->s);
	return (-1);
}

int
chain_build(struct chain *c, uint32_t proposer, uint64_t proposed_ns,
    uint32_t max_txs, uint8_t **pp, size_t *lenp, char **cause)
{
	struct block	 b;
	struct dn_tx	*txs = NULL;
	struct acct	*a;
	uint8_t		*chosen = NULL, st;
	uint32_t	 n = 0;
	size_t		 i;
	int		 pass, progress, rv = -1;

	if (max_txs > BLOCK_TXS_MAX)
		max_txs = BLOCK_TXS_MAX;
	ov_clear(c, c->npool < max_txs ? c->npool : max_txs);
	if (c->npool > 0) {
		chosen = dn_xcalloc(c->npool, 1);
		txs = dn_xcalloc(c->npool < max_txs ? c->npool : max_txs,
		    sizeof(*txs));
	}
	for (pass = 0; pass < BUILD_PASSES && n < max_txs; pass++) {
		progress = 0;
		for (i = 0; i < c->npool && n < max_txs; i++) {
			const struct dn_tx *tx = &c->pool[i];

			if (chosen[i])
				continue;
			if (tx->from < c->cfg.accounts) {
				if ((a = ov_get(c, tx->from, cause)) == NULL)
					goto out;
				if (a->exists && tx->nonce > a->nonce)
					continue;	/* not yet */
			}
			if (eval_tx(c, tx, &st, cause) != 0)
				goto out;
			chosen[i] = 1;
			txs[n++] = *tx;
			progress = 1;
		}
		if (!progress)
			break;
	}
	memset(&b, 0, sizeof(b));
	b.height = c->head.height + 1;
	b.proposed_ns = proposed_ns;
	b.proposer = proposer;
	b.ntx = n;
	memcpy(b.parent, c->head.hash, 32);
	*lenp = block_size(n);
	*pp = dn_xmalloc(*lenp);
	block_encode(*pp, &b, txs);
	rv = 0;
out:
	free(chosen);
	free(txs);
	return (rv);
}

int
chain_mempool_add(struct chain *c, const struct dn_tx *tx)
{
	uint8_t	key[10], val[RECEIPT_SIZE];
	char	*cause = NULL;
	int	 rv;

	if (c->npool >= CHAIN_MEMPOOL_MAX || set_has(&c->poolids, tx->id))
		return (0);
	/* Already has an outcome: a late copy of a gossiped transaction. */
	rv = store_get(c->s, key, key64("r/", tx->id, key), val, sizeof(val),
	    NULL, &cause);
	free(cause);
	if (rv != 0)
		return (0);
	c->pool = dn_xgrow(c->pool, &c->poolcap, c->npool + 1,
	    sizeof(*c->pool));
	c->pool[c->npool++] = *tx;
	set_add(&c->poolids, tx->id);
	return (1);
}

size_t
chain_mempool_size(struct chain *c)
{
	return (c->npool);
}

int
chain_block_get(struct chain *c, uint64_t height, uint8_t **pp, size_t *lenp,
    char **cause)
{
	uint8_t		 key[10], *buf;
	size_t		 len, cap = block_size(256);
	int		 rv;

	buf = dn_xmalloc(cap);
	for (;;) {
		rv = store_get(c->s, key, key64("b/", height, key), buf, cap,
		    &len, cause);
		if (rv <= 0 || len <= cap)
			break;
		cap = len;
		buf = dn_xrealloc(buf, cap);
	}
	if (rv <= 0) {
		free(buf);
		return (rv);
	}
	*pp = buf;
	*lenp = len;
	return (1);
}

int
chain_tx_check(struct chain *c, const struct dn_tx *tx, uint8_t *status,
    char **cause)
{
	ov_clear(c, 2);
	return (eval_tx(c, tx, status, cause));
}

int
chain_account(struct chain *c, uint32_t id, uint64_t *balance,
    uint64_t *nonce, char **cause)
{
	uint8_t	key[6], val[ACCOUNT_SIZE];
	int	rv;

	rv = store_get(c->s, key, chain_account_key(id, key), val,
	    sizeof(val), NULL, cause);
	if (rv == 1) {
		*balance = dn_get_u64(val);
		*nonce = dn_get_u64(val + 8);
	}
	return (rv);
}

struct hash_state {
	struct dn_sha256	sha;
	uint64_t		height;
};

static int
hash_kv(void *arg, const void *k, size_t kl, const void *v, size_t vl)
{
	struct hash_state	*hs = arg;
	uint8_t			 n[4];

	dn_put_u32(n, (uint32_t)kl);
	dn_sha256_update(&hs->sha, n, 4);
	dn_sha256_update(&hs->sha, k, kl);
	dn_put_u32(n, (uint32_t)vl);
	dn_sha256_update(&hs->sha, n, 4);
	dn_sha256_update(&hs->sha, v, vl);
	if (kl == 4 && memcmp(k, "head", 4) == 0 && vl >= 8)
		hs->height = dn_get_u64(v);
	return (0);
}

int
chain_state_hash(struct store *s, uint8_t out[32], uint64_t *height,
    char **cause)
{
	struct hash_state	hs;

	memset(&hs, 0, sizeof(hs));
	dn_sha256_init(&hs.sha);
	if (store_iterate(s, hash_kv, &hs, cause) != 0)
		return (-1);
	dn_sha256_final(&hs.sha, out);
	*height = hs.height;
	return (0);
}
