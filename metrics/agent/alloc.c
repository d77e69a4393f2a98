/*
 * alloc.c: the allocation counter (alloc.h), built only with DN_ALLOC_COUNT.
 *
 * Defines the glibc allocation entry points in the executable and forwards
 * them to __libc_*; the entry points are alloc-interpose.h, shared with the
 * LD_PRELOAD shim probe/alloc-shim.c, and this file owns the counters.
 * Each thread owns one counter slot (claimed on its first allocation from
 * a static array, so claiming allocates nothing); only that thread writes
 * it, with relaxed atomic loads and stores, which compile to plain moves: a
 * few ns per call and no shared cache line.  The reader sums all slots.
 * Threads beyond DN_ALLOC_SLOTS share one overflow slot updated with atomic
 * adds.  Slots of exited threads keep their counts (the counters are
 * cumulative), so nothing is lost when threads come and go.
 *
 * Nothing in this file may allocate, take a lock that allocation might
 * need, or use dynamic TLS (initial-exec only: no __tls_get_addr malloc).
 */
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <malloc.h>
#include <string.h>

#include "alloc.h"

#define DN_ALLOC_SLOTS	1024

struct slot {
	alignas(64) _Atomic uint64_t allocs;
	_Atomic uint64_t	frees;
	_Atomic uint64_t	alloc_bytes;
	_Atomic uint64_t	free_bytes;
};

static struct slot	 slots[DN_ALLOC_SLOTS];
static struct slot	 overflow;
static atomic_uint	 nslots;

static __thread struct slot *my_slot
    __attribute__((tls_model("initial-exec")));

static inline struct slot *
get_slot(void)
{
	unsigned	i;

	if (__builtin_expect(my_slot != NULL, 1))
		return (my_slot);
	i = atomic_fetch_add_explicit(&nslots, 1, memory_order_relaxed);
	my_slot = i < DN_ALLOC_SLOTS ? &slots[i] : &overflow;
	return (my_slot);
}

static inline int
slot_shared(const struct slot *s)
{
	return (s == &overflow);
}

/* devnet-node is glibc's: the executable defines malloc, so the allocator
 * underneath is glibc's own, reached through __libc_* (no dlsym, so no
 * calloc-inside-dlsym recursion). */
extern void	*__libc_malloc(size_t);
extern void	*__libc_calloc(size_t, size_t);
extern void	*__libc_realloc(void *, size_t);
extern void	 __libc_free(void *);
extern void	*__libc_memalign(size_t, size_t);
extern void	*__libc_valloc(size_t);
extern void	*__libc_pvalloc(size_t);

#define next_malloc(n)		__libc_malloc(n)
#define next_calloc(n, sz)	__libc_calloc(n, sz)
#define next_realloc(p, n)	__libc_realloc(p, n)
#define next_free(p)		__libc_free(p)
#define next_memalign(al, n)	__libc_memalign(al, n)
#define next_aligned_alloc(al, n) __libc_memalign(al, n)
#define next_valloc(n)		__libc_valloc(n)
#define next_pvalloc(n)		__libc_pvalloc(n)
#define next_usable(p)		malloc_usable_size(p)

static inline int
next_posix_memalign(void **pp, size_t align, size_t n)
{
	void	*p;

	if (align < sizeof(void *) || (align & (align - 1)) != 0)
		return (EINVAL);
	if ((p = __libc_memalign(align, n)) == NULL)
		return (ENOMEM);
	*pp = p;
	return (0);
}

/* The entry points themselves (malloc & co.), shared with the LD_PRELOAD
 * shim, counting through get_slot() and slot_shared() above. */
#define DN_ALLOC_SLOT	struct slot
#include "alloc-interpose.h"

int
dn_alloc_enabled(void)
{
	return (1);
}

void
dn_alloc_read(struct dn_alloc_stats *st)
{
	unsigned	i, n;

	n = atomic_load_explicit(&nslots, memory_order_relaxed);
	if (n > DN_ALLOC_SLOTS)
		n = DN_ALLOC_SLOTS;
	memset(st, 0, sizeof(*st));
	for (i = 0; i <= n; i++) {
		struct slot	*s = i < n ? &slots[i] : &overflow;

		st->allocs += atomic_load_explicit(&s->allocs,
		    memory_order_relaxed);
		st->frees += atomic_load_explicit(&s->frees,
		    memory_order_relaxed);
		st->alloc_bytes += atomic_load_explicit(&s->alloc_bytes,
		    memory_order_relaxed);
		st->free_bytes += atomic_load_explicit(&s->free_bytes,
		    memory_order_relaxed);
	}
}

void
dn_alloc_read_thread(struct dn_alloc_stats *st)
{
	struct slot	*s = get_slot();

	st->allocs = atomic_load_explicit(&s->allocs, memory_order_relaxed);
	st->frees = atomic_load_explicit(&s->frees, memory_order_relaxed);
	st->alloc_bytes = atomic_load_explicit(&s->alloc_bytes,
	    memory_order_relaxed);
	st->free_bytes = atomic_load_explicit(&s->free_bytes,
	    memory_order_relaxed);
}
