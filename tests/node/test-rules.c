/*
 * test-rules.c: the node's rules on a real RocksDB in a temp dir:
 * transaction rules, nonce-aware block building, store reads identical in
 * cached and per-call modes, the block codec, and equal state hashes
 * after equal blocks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "block.h"
#include "chain.h"
#include "protocol.h"
#include "rocks.h"
#include "rng.h"
#include "sha256.h"
#include "xalloc.h"

struct fixture {
	char		 dir[64];
	struct store	*s;
	struct chain	*c;
};

static int
rm_rf(const char *dir)
{
	char	*cmd = dn_xasprintf("rm -rf '%s'", dir);
	int	 rv = system(cmd);

	free(cmd);
	return (rv);
}

static struct store *
open_store(const char *path, enum store_mode rm, enum store_mode wm)
{
	struct store_config	 sc = { .path = path, .read_mode = rm,
				    .write_mode = wm };
	struct store		*s = NULL;
	char			*cause = NULL;

	if (store_open(&s, &sc, &cause) != 0)
		fail_msg("store_open: %s", cause);
	return (s);
}

static struct chain *
open_chain(struct store *s, uint32_t accounts, uint64_t keys)
{
	struct chain_config	 cc = { .nodes = 1, .accounts = accounts,
				    .seed = 7, .block_reads = 3,
				    .keys = keys };
	struct chain		*c = NULL;
	char			*cause = NULL;

	if (chain_open(&c, s, &cc, &cause) != 0)
		fail_msg("chain_open: %s", cause);
	return (c);
}

static int
setup(void **state)
{
	struct fixture	*f = dn_xcalloc(1, sizeof(*f));
	char		*path;

	snprintf(f->dir, sizeof(f->dir), "/tmp/dn-rules-XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return (-1);
	path = dn_xasprintf("%s/db", f->dir);
	f->s = open_store(path, STORE_CACHED, STORE_CACHED);
	free(path);
	f->c = open_chain(f->s, 10, 0);
	*state = f;
	return (0);
}

static int
teardown(void **state)
{
	struct fixture	*f = *state;

	chain_free(f->c);
	store_close(f->s);
	rm_rf(f->dir);
	free(f);
	return (0);
}

/* Encode a block of TXS on top of C's head. */
static uint8_t *
make_block(struct chain *c, const struct dn_tx *txs, uint32_t n,
    size_t *lenp)
{
	struct chain_head	h;
	struct block		b;
	uint8_t			*p;

	chain_head(c, &h);
	memset(&b, 0, sizeof(b));
	b.height = h.height + 1;
	b.proposed_ns = 1000 + b.height;
	b.proposer = 0;
	b.ntx = n;
	memcpy(b.parent, h.hash, 32);
	*lenp = block_size(n);
	p = dn_xmalloc(*lenp);
	block_encode(p, &b, txs);
	return (p);
}

static void
apply_txs(struct chain *c, const struct dn_tx *txs, uint32_t n,
    uint8_t *status)
{
	uint8_t	*p;
	size_t	 len;
	char	*cause = NULL;

	p = make_block(c, txs, n, &len);
	if (chain_apply(c, p, len, status, &cause) != 0)
		fail_msg("chain_apply: %s", cause);
	free(p);
}

static void
tx_rules(void **state)
{
	struct fixture	*f = *state;
	uint64_t	 b0, n0, b1, n1, b0after, n0after, b1after;
	uint8_t		 st[8];
	char		*cause = NULL;
	struct dn_tx	 txs[5];

	assert_int_equal(chain_account(f->c, 0, &b0, &n0, &cause), 1);
	assert_int_equal(chain_account(f->c, 1, &b1, &n1, &cause), 1);
	assert_true(b0 >= CHAIN_GENESIS_BALANCE);
	assert_int_equal(n0, 0);
	memset(txs, 0, sizeof(txs));
	/* ok */
	txs[0] = (struct dn_tx){ .id = 1, .from = 0, .to = 1, .amount = 5,
	    .nonce = 0 };
	/* insufficient funds (nonce 1 is now right) */
	txs[1] = (struct dn_tx){ .id = 2, .from = 0, .to = 1,
	    .amount = b0 * 2, .nonce = 1 };
	/* wrong nonce */
	txs[2] = (struct dn_tx){ .id = 3, .from = 0, .to = 1, .amount = 1,
	    .nonce = 7 };
	/* unknown account */
	txs[3] = (struct dn_tx){ .id = 4, .from = 0, .to = 10, .amount = 1,
	    .nonce = 1 };
	/* same id again inside the block */
	txs[4] = txs[0];
	apply_txs(f->c, txs, 5, st);
	assert_int_equal(st[0], DN_TX_OK);
	assert_int_equal(st[1], DN_TX_NO_FUNDS);
	assert_int_equal(st[2], DN_TX_BAD_NONCE);
	assert_int_equal(st[3], DN_TX_BAD_ACCOUNT);
	assert_int_equal(st[4], DN_TX_DUPLICATE);
	assert_int_equal(chain_account(f->c, 0, &b0after, &n0after, &cause),
	    1);
	assert_int_equal(chain_account(f->c, 1, &b1after, &n1, &cause), 1);
	assert_int_equal(b0after, b0 - 5);
	assert_int_equal(b1after, b1 + 5);
	assert_int_equal(n0after, 1);

	/* A receipt exists for id 1: a later block sees a duplicate and
	 * changes nothing. */
	txs[0].nonce = 1;
	apply_txs(f->c, txs, 1, st);
	assert_int_equal(st[0], DN_TX_DUPLICATE);
	assert_int_equal(chain_account(f->c, 0, &b0after, &n0after, &cause),
	    1);
	assert_int_equal(b0after, b0 - 5);
	assert_int_equal(n0after, 1);
	assert_int_equal(chain_tx_check(f->c, &txs[0], st, &cause), 0);
	assert_int_equal(st[0], DN_TX_DUPLICATE);
	/* The mempool refuses what already has an outcome. */
	assert_int_equal(chain_mempool_add(f->c, &txs[0]), 0);
}

static void
block_refusals(void **state)
{
	struct fixture		*f = *state;
	struct chain_head	 h0, h1;
	uint8_t			*p;
	size_t			 len;
	char			*cause = NULL;

	chain_head(f->c, &h0);
	p = make_block(f->c, NULL, 0, &len);
	p[24] ^= 1;		/* parent hash */
	assert_int_equal(chain_apply(f->c, p, len, NULL, &cause), -1);
	assert_non_null(strstr(cause, "parent"));
	free(cause);
	p[24] ^= 1;
	dn_put_u64(p, h0.height + 2);	/* a gap */
	assert_int_equal(chain_apply(f->c, p, len, NULL, &cause), -1);
	free(cause);
	dn_put_u64(p, h0.height + 1);
	assert_int_equal(chain_apply(f->c, p, len - 1, NULL, &cause), -1);
	free(cause);
	chain_head(f->c, &h1);
	assert_int_equal(h1.height, h0.height);
	assert_int_equal(chain_apply(f->c, p, len, NULL, &cause), 0);
	chain_head(f->c, &h1);
	assert_int_equal(h1.height, h0.height + 1);
	free(p);
}

static void
mempool_nonces(void **state)
{
	struct fixture	*f = *state;
	struct dn_tx	 tx[4];
	uint8_t		*p;
	size_t		 len;
	struct block	 b;
	char		*cause = NULL;
	int		 i;

	memset(tx, 0, sizeof(tx));
	/* Arrival order: nonce 1 before nonce 0, a future nonce 5, and a
	 * stale one (-> included as rejected). */
	tx[0] = (struct dn_tx){ .id = 11, .from = 2, .to = 3, .amount = 1,
	    .nonce = 1 };
	tx[1] = (struct dn_tx){ .id = 12, .from = 2, .to = 3, .amount = 1,
	    .nonce = 0 };
	tx[2] = (struct dn_tx){ .id = 13, .from = 2, .to = 3, .amount = 1,
	    .nonce = 5 };
	tx[3] = (struct dn_tx){ .id = 14, .from = 4, .to = 3, .amount = 1,
	    .nonce = 0 };
	for (i = 0; i < 4; i++)
		assert_int_equal(chain_mempool_add(f->c, &tx[i]), 1);
	assert_int_equal(chain_mempool_add(f->c, &tx[0]), 0);
	assert_int_equal(chain_mempool_size(f->c), 4);
	assert_int_equal(chain_build(f->c, 0, 5, 100, &p, &len, &cause), 0);
	assert_int_equal(block_decode(p, len, &b), 0);
	assert_int_equal(b.ntx, 3);		/* 13 waits */
	assert_int_equal(chain_apply(f->c, p, len, NULL, &cause), 0);
	free(p);
	assert_int_equal(chain_mempool_size(f->c), 1);
	/* max_txs bounds a block. */
	tx[0] = (struct dn_tx){ .id = 21, .from = 5, .to = 3, .amount = 1 };
	tx[1] = (struct dn_tx){ .id = 22, .from = 6, .to = 3, .amount = 1 };
	assert_int_equal(chain_mempool_add(f->c, &tx[0]), 1);
	assert_int_equal(chain_mempool_add(f->c, &tx[1]), 1);
	assert_int_equal(chain_build(f->c, 0, 6, 1, &p, &len, &cause), 0);
	assert_int_equal(block_decode(p, len, &b), 0);
	assert_int_equal(b.ntx, 1);
	free(p);
}

/* Read every key of the DB at PATH in mode M into one hash. */
static void
read_all(const char *path, enum store_mode m, uint8_t out[32])
{
	struct store		*s = open_store(path, m, m);
	struct dn_sha256	 sha;
	uint8_t			 key[16], val[128];
	size_t			 vlen;
	char			*cause = NULL;
	uint32_t		 i;
	int			 rv;

	dn_sha256_init(&sha);
	for (i = 0; i < 1000; i++) {
		chain_bench_key(i, key);
		rv = store_get(s, key, CHAIN_KEY_SIZE, val, sizeof(val), &vlen,
		    &cause);
		assert_int_equal(rv, i < 500 ? 1 : 0);
		if (rv == 1) {
			assert_int_equal(vlen, CHAIN_VALUE_SIZE);
			dn_sha256_update(&sha, val, vlen);
		}
		rv = store_get(s, key, chain_account_key(i, key), val,
		    sizeof(val), &vlen, &cause);
		assert_int_equal(rv, i < 100 ? 1 : 0);
		if (rv == 1)
			dn_sha256_update(&sha, val, vlen);
	}
	assert_int_equal(store_reads(s), 2000);
	store_close(s);
	dn_sha256_final(&sha, out);
}

static void
store_modes_agree(void **state)
{
	char		 dir[64], *path;
	struct store	*s;
	struct chain	*c;
	uint8_t		 a[32], b[32];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/dn-modes-XXXXXX");
	assert_non_null(mkdtemp(dir));
	path = dn_xasprintf("%s/db", dir);
	/* Genesis written with per-call write options. */
	s = open_store(path, STORE_PER_CALL, STORE_PER_CALL);
	c = open_chain(s, 100, 500);
	assert_true(store_writes(s) > 600);
	chain_free(c);
	store_close(s);
	read_all(path, STORE_CACHED, a);
	read_all(path, STORE_PER_CALL, b);
	assert_memory_equal(a, b, 32);
	/* Reopen keeps the state; other genesis flags are refused. */
	s = open_store(path, STORE_CACHED, STORE_CACHED);
	{
		struct chain_config	 cc = { .nodes = 1, .accounts = 99,
					    .seed = 7, .keys = 500 };
		char			*cause = NULL;

		assert_int_equal(chain_open(&c, s, &cc, &cause), -1);
		assert_non_null(strstr(cause, "accounts=100"));
		free(cause);
	}
	store_close(s);
	free(path);
	rm_rf(dir);
}

static void
bad_options(void **state)
{
	struct store_config	 sc = { .path = "/tmp/dn-never-created",
				    .options = "no_such_option=1" };
	struct store		*s = NULL;
	char			*cause = NULL;

	(void)state;
	assert_int_equal(store_open(&s, &sc, &cause), -1);
	assert_non_null(strstr(cause, "no_such_option"));
	free(cause);
	assert_int_not_equal(access("/tmp/dn-never-created", F_OK), 0);
}

static void
block_codec(void **state)
{
	struct dn_tx	 txs[3], got;
	struct block	 b, d;
	uint8_t		 buf[512], junk[512], h1[32], h2[32];
	uint64_t	 rng = 42, x, y;
	uint32_t	 m;
	size_t		 len, i;
	int		 k;

	(void)state;
	memset(&b, 0, sizeof(b));
	for (k = 0; k < 3; k++)
		txs[k] = (struct dn_tx){ .id = 100 + (uint64_t)k,
		    .intended_ns = 5, .from = (uint32_t)k, .to = 9,
		    .amount = 3, .nonce = (uint64_t)k };
	b.height = 9;
	b.proposed_ns = 123;
	b.proposer = 2;
	b.ntx = 3;
	memset(b.parent, 0xab, 32);
	len = block_size(3);
	block_encode(buf, &b, txs);
	assert_int_equal(block_decode(buf, len, &d), 0);
	assert_int_equal(d.height, 9);
	assert_int_equal(d.proposed_ns, 123);
	assert_int_equal(d.proposer, 2);
	assert_int_equal(d.ntx, 3);
	assert_memory_equal(d.parent, b.parent, 32);
	for (k = 0; k < 3; k++) {
		dn_tx_get(d.txs + (size_t)k * DN_TX_SIZE, &got);
		assert_memory_equal(&got, &txs[k], sizeof(got));
	}
	block_hash(buf, len, h1);
	buf[len - 1] ^= 1;
	block_hash(buf, len, h2);
	assert_memory_not_equal(h1, h2, 32);
	/* Truncated and overlong. */
	for (i = 0; i < len; i++)
		assert_int_equal(block_decode(buf, i, &d), -DN_REJ_PAYLOAD);
	assert_int_equal(block_decode(buf, len + 1, &d), -DN_REJ_PAYLOAD);
	/* A huge ntx, height 0. */
	dn_put_u32(buf + 20, 0xffffffffu);
	assert_int_equal(block_decode(buf, len, &d), -DN_REJ_PAYLOAD);
	dn_put_u32(buf + 20, 3);
	dn_put_u64(buf, 0);
	assert_int_equal(block_decode(buf, len, &d), -DN_REJ_PAYLOAD);
	/* Garbage never crashes and rarely decodes. */
	for (k = 0; k < 2000; k++) {
		size_t	n = dn_rand64(&rng) % sizeof(junk);

		for (i = 0; i < n; i++)
			junk[i] = (uint8_t)dn_rand64(&rng);
		(void)block_decode(junk, n, &d);
		(void)head_decode(junk, n, &x, &y);
		(void)block_req_decode(junk, n, &x, &m);
	}
	/* HEAD and BLOCK_REQ. */
	head_encode(buf, 77, 88);
	assert_int_equal(head_decode(buf, HEAD_SIZE, &x, &y), 0);
	assert_int_equal(x, 77);
	assert_int_equal(y, 88);
	assert_int_equal(head_decode(buf, HEAD_SIZE - 1, &x, &y),
	    -DN_REJ_PAYLOAD);
	block_req_encode(buf, 5, 64);
	assert_int_equal(block_req_decode(buf, BLOCK_REQ_SIZE, &x, &m), 0);
	assert_int_equal(x, 5);
	assert_int_equal(m, 64);
	block_req_encode(buf, 0, 64);
	assert_int_equal(block_req_decode(buf, BLOCK_REQ_SIZE, &x, &m),
	    -DN_REJ_PAYLOAD);
}

static void
same_blocks_same_hash(void **state)
{
	char		 dir[2][64], *path;
	struct store	*s[2];
	struct chain	*c[2];
	struct dn_tx	 tx;
	uint8_t		 h[2][32], *p;
	uint64_t	 height[2];
	size_t		 len;
	char		*cause = NULL;
	int		 i, k;

	(void)state;
	for (i = 0; i < 2; i++) {
		snprintf(dir[i], sizeof(dir[i]), "/tmp/dn-hash-XXXXXX");
		assert_non_null(mkdtemp(dir[i]));
		path = dn_xasprintf("%s/db", dir[i]);
		s[i] = open_store(path, i == 0 ? STORE_CACHED :
		    STORE_PER_CALL, i == 0 ? STORE_CACHED : STORE_PER_CALL);
		free(path);
		c[i] = open_chain(s[i], 50, 0);
	}
	for (k = 0; k < 20; k++) {
		tx = (struct dn_tx){ .id = 1000 + (uint64_t)k,
		    .from = (uint32_t)k % 5, .to = 7, .amount = 10,
		    .nonce = (uint64_t)k / 5 };
		assert_int_equal(chain_mempool_add(c[0], &tx), 1);
		assert_int_equal(chain_build(c[0], 0, 10 + (uint64_t)k, 100,
		    &p, &len, &cause), 0);
		for (i = 0; i < 2; i++)
			assert_int_equal(chain_apply(c[i], p, len, NULL,
			    &cause), 0);
		free(p);
	}
	for (i = 0; i < 2; i++)
		assert_int_equal(chain_state_hash(s[i], h[i], &height[i],
		    &cause), 0);
	assert_int_equal(height[0], 20);
	assert_int_equal(height[1], 20);
	assert_memory_equal(h[0], h[1], 32);
	for (i = 0; i < 2; i++) {
		chain_free(c[i]);
		store_close(s[i]);
		rm_rf(dir[i]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(tx_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(block_refusals, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(mempool_nonces, setup,
		    teardown),
		cmocka_unit_test(store_modes_agree),
		cmocka_unit_test(bad_options),
		cmocka_unit_test(block_codec),
		cmocka_unit_test(same_blocks_same_hash),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
