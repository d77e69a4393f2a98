/*
 * alloc.h: whole-process heap allocation counter.
 *
 * When built with DN_ALLOC_COUNT (alloc.c), the executable that links this
 * module defines malloc, calloc, realloc, free, memalign, aligned_alloc,
 * posix_memalign, valloc and pvalloc itself and forwards them to glibc's
 * __libc_* functions, counting on the way.  Because the definitions live in
 * the executable they also catch allocations made inside shared libraries
 * (librocksdb, libstdc++'s operator new, libnng, glibc).  Sizes are
 * malloc_usable_size() of the block, at allocation and at free alike, so
 * live bytes never drift.
 *
 * Sanitizer builds link alloc-stub.c instead: dn_alloc_enabled() is 0 and
 * every counter reads 0.  Not a leak checker, not a profiler.
 */
#ifndef DN_ALLOC_H
#define DN_ALLOC_H

#include <stdint.h>

struct dn_alloc_stats {
	uint64_t	allocs;		/* successful allocations */
	uint64_t	frees;		/* free() of a non-NULL pointer */
	uint64_t	alloc_bytes;	/* usable bytes handed out */
	uint64_t	free_bytes;	/* usable bytes given back */
};

/* 1 if this build counts allocations, 0 for the stub. */
int	 dn_alloc_enabled(void);

/*
 * Sum the counters of every thread into *ST.  Allocation-free and safe to
 * call from any thread at any time; the result is a consistent-enough
 * snapshot (each counter is read once, racing updates may be missed by one).
 */
void	 dn_alloc_read(struct dn_alloc_stats *st);

/*
 * The calling thread's own counters into *ST: what this thread allocated
 * and freed, not the library threads beside it (RocksDB's flush and
 * compaction threads, say).  For tests that count the allocations of one
 * call path exactly.  A thread beyond the slot array shares the overflow
 * slot and reads that shared sum.
 */
void	 dn_alloc_read_thread(struct dn_alloc_stats *st);

#endif
