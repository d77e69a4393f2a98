/*
 * read-path.c: the read-path benchmark driver (tools/bench/read-path.sh).
 * Fills a DB with the readrandom shape (16-byte keys, 100-byte values)
 * through node/rocks.c, then does random point reads through store_get in
 * the node's cached or per-call mode, counting heap allocations with the
 * node's allocation counter (metrics/agent/alloc.h).  Not a test: timings are
 * printed, never asserted.
 *
 *   dn-read-path-bench fill DIR KEYS [CACHE_BYTES]
 *   dn-read-path-bench read DIR KEYS READS cached|per-call [CACHE_BYTES]
 *
 * read prints one line:
 *   mode=cached reads=N seconds=S reads_per_s=R cpu_seconds=C
 *   reads_per_cpu_s=RC allocs_per_read=A found=F alloc_counter=on|off
 * after one unmeasured warm-up pass of READS reads (fills the block cache).
 * CPU time (user + system of the process, getrusage) is the steadier
 * figure on a shared machine: wall time counts time spent descheduled.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "alloc.h"
#include "chain.h"
#include "rocks.h"
#include "clock.h"
#include "rng.h"
#include "units.h"

static void
die(const char *what, char *cause)
{
	fprintf(stderr, "dn-read-path-bench: %s: %s\n", what, cause);
	free(cause);
	exit(1);
}

static uint64_t
num(const char *s, const char *what)
{
	uint64_t	v;

	if (dn_parse_u64(s, &v) != 0) {
		fprintf(stderr, "dn-read-path-bench: bad %s '%s'\n", what, s);
		exit(2);
	}
	return (v);
}

static uint64_t
reads(struct store *s, uint64_t keys, uint64_t n, uint64_t *rng)
{
	uint8_t		key[CHAIN_KEY_SIZE], val[CHAIN_VALUE_SIZE];
	uint64_t	i, found = 0;
	char		*cause = NULL;
	int		rv;

	for (i = 0; i < n; i++) {
		chain_bench_key(dn_rand64(rng) % keys, key);
		rv = store_get(s, key, sizeof(key), val, sizeof(val), NULL,
		    &cause);
		if (rv < 0)
			die("read", cause);
		found += (uint64_t)rv;
	}
	return (found);
}

int
main(int argc, char **argv)
{
	struct store_config	 sc;
	struct store		*s;
	struct dn_alloc_stats	 a, b;
	uint8_t			 key[CHAIN_KEY_SIZE], val[CHAIN_VALUE_SIZE];
	uint64_t		 keys, n = 0, i, t0, t1, found, rng = 1;
	double			 c0, c1;
	char			*cause = NULL, *path;
	int			 fill;

	if (argc < 4 || (strcmp(argv[1], "fill") != 0 &&
	    strcmp(argv[1], "read") != 0) ||
	    (strcmp(argv[1], "read") == 0 && argc < 6)) {
		fprintf(stderr, "usage: dn-read-path-bench fill DIR KEYS "
		    "[CACHE]\n       dn-read-path-bench read DIR KEYS READS "
		    "cached|per-call [CACHE]\n");
		return (2);
	}
	fill = strcmp(argv[1], "fill") == 0;
	keys = num(argv[3], "key count");
	memset(&sc, 0, sizeof(sc));
	path = argv[2];
	sc.path = path;
	sc.block_cache = 1ull << 30;
	if (fill) {
		if (argc > 4)
			sc.block_cache = num(argv[4], "cache size");
	} else {
		n = num(argv[4], "read count");
		if (strcmp(argv[5], "cached") == 0)
			sc.read_mode = STORE_CACHED;
		else if (strcmp(argv[5], "per-call") == 0)
			sc.read_mode = STORE_PER_CALL;
		else {
			fprintf(stderr, "dn-read-path-bench: mode '%s': "
			    "expected cached or per-call\n", argv[5]);
			return (2);
		}
		if (argc > 6)
			sc.block_cache = num(argv[6], "cache size");
	}
	if (store_open(&s, &sc, &cause) != 0)
		die("open", cause);
	if (fill) {
		for (i = 0; i < keys; i++) {
			chain_bench_key(i, key);
			chain_bench_value(1, i, val);
			store_batch_put(s, key, sizeof(key), val, sizeof(val));
			if ((i + 1) % 10000 == 0 &&
			    store_batch_commit(s, &cause) != 0)
				die("write", cause);
		}
		if (store_batch_commit(s, &cause) != 0)
			die("write", cause);
		store_compact(s);
		store_close(s);
		printf("filled %s with %" PRIu64 " keys\n", path, keys);
		return (0);
	}
	(void)reads(s, keys, n, &rng);		/* warm the block cache */
	dn_alloc_read(&a);
	c0 = dn_cpu_s();
	t0 = dn_now_ns();
	found = reads(s, keys, n, &rng);
	t1 = dn_now_ns();
	c1 = dn_cpu_s();
	dn_alloc_read(&b);
	printf("mode=%s reads=%" PRIu64 " seconds=%.3f reads_per_s=%.0f "
	    "cpu_seconds=%.3f reads_per_cpu_s=%.0f "
	    "allocs_per_read=%.4f found=%" PRIu64 " alloc_counter=%s\n",
	    argv[5], n, (double)(t1 - t0) / 1e9,
	    (double)n * 1e9 / (double)(t1 - t0), c1 - c0,
	    (double)n / (c1 - c0),
	    (double)(b.allocs - a.allocs) / (double)n, found,
	    dn_alloc_enabled() ? "on" : "off");
	store_close(s);
	return (0);
}
