/*
 * alloc-interpose.h: the allocation entry points that both allocation
 * counters define: devnet-node's built-in one (metrics/agent/alloc.c) and
 * the LD_PRELOAD shim libdevnet-alloc.so (probe/alloc-shim.c).  Each of
 * those files includes this header exactly once and owns the counters and
 * the allocator underneath; this header owns what counts: which calls,
 * which bytes, and when.
 *
 * Not a normal header: it defines the external functions malloc, calloc,
 * realloc, free, memalign, aligned_alloc, posix_memalign, valloc and
 * pvalloc, which forward to the allocator underneath and count calls and
 * usable bytes (that allocator's malloc_usable_size() of the block, at
 * allocation and at free alike, so live bytes never drift).  Before
 * including it, the file defines
 *
 *	DN_ALLOC_SLOT	the counter slot type, a struct with the
 *			_Atomic uint64_t members allocs, frees,
 *			alloc_bytes and free_bytes;
 *	static inline DN_ALLOC_SLOT *get_slot(void);
 *			the calling thread's slot, or NULL to count
 *			nothing;
 *	static inline int slot_shared(const DN_ALLOC_SLOT *s);
 *			1 if threads share S (then updates are atomic
 *			adds), 0 if only the calling thread writes it;
 *	next_malloc(n), next_calloc(n, sz), next_realloc(p, n),
 *	next_free(p), next_memalign(al, n), next_aligned_alloc(al, n),
 *	next_posix_memalign(pp, al, n), next_valloc(n), next_pvalloc(n),
 *	next_usable(p)
 *			the allocator underneath (functions or macros):
 *			glibc's __libc_* for devnet-node, whatever the
 *			program would have called without the shim for
 *			the shim.  next_usable must be the usable size of
 *			the allocator that made the block: asking another
 *			one is what crashed Redis (its jemalloc asked about
 *			a glibc block, issue 25).
 *
 * The hooks run inside malloc: they must not allocate, take a lock that
 * allocation might need, or use dynamic TLS (initial-exec only).
 *
 * The including file must be compiled with -fno-builtin and
 * -fno-tree-loop-distribute-patterns, so that no code here turns into a
 * call of the allocator (malloc + memset -> calloc).
 */
#ifndef DN_ALLOC_INTERPOSE_H
#define DN_ALLOC_INTERPOSE_H

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The interposed entry points (their prototypes come from <stdlib.h> and
 * <malloc.h>; this keeps -Wmissing-prototypes quiet). */
void	*pvalloc(size_t);

/*
 * Add V to counter C.  A slot that only its own thread writes (SHARED 0)
 * takes a relaxed load and store, which compile to plain moves; a slot
 * that threads share (the overflow slot) takes an atomic add.
 */
static inline void
bump(_Atomic uint64_t *c, uint64_t v, int shared)
{
	if (shared)
		atomic_fetch_add_explicit(c, v, memory_order_relaxed);
	else
		atomic_store_explicit(c,
		    atomic_load_explicit(c, memory_order_relaxed) + v,
		    memory_order_relaxed);
}

/* Count one allocation (IS_FREE 0) or one free (1) of USABLE bytes into
 * the calling thread's slot. */
static inline void
count(int is_free, size_t usable)
{
	DN_ALLOC_SLOT	*s;
	int		 shared;

	if ((s = get_slot()) == NULL)
		return;
	shared = slot_shared(s);
	if (is_free) {
		bump(&s->frees, 1, shared);
		bump(&s->free_bytes, usable, shared);
	} else {
		bump(&s->allocs, 1, shared);
		bump(&s->alloc_bytes, usable, shared);
	}
}

static inline void
count_alloc(void *p)
{
	if (p != NULL)
		count(0, next_usable(p));
}

void *
malloc(size_t n)
{
	void	*p = next_malloc(n);

	count_alloc(p);
	return (p);
}

void *
calloc(size_t n, size_t sz)
{
	void	*p = next_calloc(n, sz);

	count_alloc(p);
	return (p);
}

void *
realloc(void *old, size_t n)
{
	size_t	 oldsz;
	void	*p;

	if (old == NULL) {
		p = next_realloc(NULL, n);
		count_alloc(p);
		return (p);
	}
	/* Count the old block as freed only if realloc gives it up; its size
	 * must be read before, since afterwards it may belong to another. */
	oldsz = next_usable(old);
	p = next_realloc(old, n);
	if (p == NULL && n != 0)
		return (NULL);	/* failed: OLD untouched */
	count(1, oldsz);
	count_alloc(p);
	return (p);
}

void
free(void *p)
{
	if (p != NULL)
		count(1, next_usable(p));
	next_free(p);
}

void *
memalign(size_t align, size_t n)
{
	void	*p = next_memalign(align, n);

	count_alloc(p);
	return (p);
}

void *
aligned_alloc(size_t align, size_t n)
{
	void	*p = next_aligned_alloc(align, n);

	count_alloc(p);
	return (p);
}

int
posix_memalign(void **pp, size_t align, size_t n)
{
	int	r = next_posix_memalign(pp, align, n);

	if (r == 0)
		count_alloc(*pp);
	return (r);
}

void *
valloc(size_t n)
{
	void	*p = next_valloc(n);

	count_alloc(p);
	return (p);
}

void *
pvalloc(size_t n)
{
	void	*p = next_pvalloc(n);

	count_alloc(p);
	return (p);
}

#endif
