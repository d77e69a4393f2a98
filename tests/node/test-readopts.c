/*
 * test-readopts.c: `read_options: cached` really reuses one ReadOptions.
 * The same 10,000 point reads through store_get (node/rocks.c) in per-call
 * and in cached mode, counted with the node's allocation counter
 * (metrics/alloc.h), this thread's counts only (RocksDB's own threads may
 * flush or compact meanwhile): per-call makes exactly one allocation more
 * per read, the rocksdb_readoptions_t it creates.  The verdict test finds the same
 * effect in minutes on a devnet; this finds it in about a second.
 *
 * Not a benchmark (tools/bench/read-path.sh times the read path).  Skipped
 * (exit 77) in sanitizer builds, where the allocation counter is off.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "alloc.h"
#include "chain.h"
#include "rocks.h"
#include "rng.h"
#include "xalloc.h"

#define KEYS	2000
#define READS	10000

static char	dir[64];
static char	*path;

static struct store *
open_store(enum store_mode read_mode)
{
	struct store_config	 sc = { .path = path, .read_mode = read_mode,
				    .block_cache = 64 << 20 };
	struct store		*s;
	char			*cause = NULL;

	if (store_open(&s, &sc, &cause) != 0)
		fail_msg("store_open: %s", cause);
	return (s);
}

/* READS reads of keys from a fixed sequence; returns the allocations they
 * made (after one unmeasured pass that warms the block cache). */
static uint64_t
count_reads(enum store_mode mode)
{
	struct store		*s = open_store(mode);
	struct dn_alloc_stats	 a, b;
	uint8_t			 key[CHAIN_KEY_SIZE], val[CHAIN_VALUE_SIZE];
	uint64_t		 rng, i, found = 0;
	char			*cause = NULL;
	int			 pass, rv;

	for (pass = 0; pass < 2; pass++) {
		rng = 1;
		dn_alloc_read_thread(&a);
		for (i = 0; i < READS; i++) {
			chain_bench_key(dn_rand64(&rng) % KEYS, key);
			rv = store_get(s, key, sizeof(key), val, sizeof(val),
			    NULL, &cause);
			if (rv < 0)
				fail_msg("store_get: %s", cause);
			found += (uint64_t)rv;
		}
		dn_alloc_read_thread(&b);
	}
	assert_int_equal(found, 2 * READS);	/* every key is there */
	store_close(s);
	return (b.allocs - a.allocs);
}

static int
setup(void **state)
{
	struct store	*s;
	uint8_t		 key[CHAIN_KEY_SIZE], val[CHAIN_VALUE_SIZE];
	uint64_t	 i;
	char		*cause = NULL;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/dn-readopts-XXXXXX");
	if (mkdtemp(dir) == NULL)
		return (-1);
	path = dn_xasprintf("%s/db", dir);
	s = open_store(STORE_CACHED);
	for (i = 0; i < KEYS; i++) {
		chain_bench_key(i, key);
		chain_bench_value(1, i, val);
		store_batch_put(s, key, sizeof(key), val, sizeof(val));
	}
	if (store_batch_commit(s, &cause) != 0) {
		fprintf(stderr, "commit: %s\n", cause);
		return (-1);
	}
	store_compact(s);
	store_close(s);
	return (0);
}

static int
teardown(void **state)
{
	char	*cmd;

	(void)state;
	cmd = dn_xasprintf("rm -rf '%s'", dir);
	(void)!system(cmd);
	free(cmd);
	free(path);
	return (0);
}

static void
per_call_costs_one_allocation_per_read(void **state)
{
	uint64_t	cached, per_call;

	(void)state;
	cached = count_reads(STORE_CACHED);
	per_call = count_reads(STORE_PER_CALL);
	print_message("allocations per read: cached %.4f, per-call %.4f\n",
	    (double)cached / READS, (double)per_call / READS);
	/* Exactly READS more: one rocksdb_readoptions_t per read. */
	assert_int_equal(per_call - cached, READS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(per_call_costs_one_allocation_per_read),
	};

	if (!dn_alloc_enabled()) {
		printf("SKIP: the allocation counter is off in this build "
		    "(sanitizers replace malloc)\n");
		return (77);
	}
	return (cmocka_run_group_tests(tests, setup, teardown));
}
