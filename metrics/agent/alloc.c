/*
 * alloc.c: the allocation counter (alloc.h), built only with DN_ALLOC_COUNT.
 *
 * Defines the glibc allocation entry points in the executable and forwards
 * them to __libc_*.  Each thread owns one counter slot (claimed on its
 * first allocation from a static array, so claiming allocates nothing);
 * only that thread writes it, with relaxed atomic loads and stores, which
 * compile to plain moves: a few ns per call and no shared cache line.  The
 * reader sums all slots.  Threads beyond DN_ALLOC_SLOTS share one overflow
 * slot updated with atomic adds.  Slots of exited threads keep their counts
 * (the counters are cumulative), so nothing is lost when threads come and go.
 *
 * Nothing in this file may allocate, take a lock that allocation might
 * need, or use dynamic TLS (initial-exec only: no __tls_get_addr malloc).
 */
#include <errno.h>
#include <malloc.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"

extern void	*__libc_malloc(size_t);
extern void	*__libc_calloc(size_t, size_t);
extern void	*__libc_realloc(void *, size_t);
extern void	 __libc_free(void *);
extern void	*__libc_memalign(size_t, size_t);
extern void	*__libc_valloc(size_t);
extern void	*__libc_pvalloc(size_t);

/* The interposed entry points (declared to keep -Wmissing-prototypes
 * quiet; their real prototypes come from <stdlib.h>/<malloc.h>). */
void	*pvalloc(size_t);

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

static inline void
count_alloc(void *p)
{
	struct slot	*s;

	if (p == NULL)
		return;
	s = get_slot();
	bump(&s->allocs, 1, s == &overflow);
	bump(&s->alloc_bytes, malloc_usable_size(p), s == &overflow);
}

static inline void
count_free(void *p)
{
	struct slot	*s;

	if (p == NULL)
		return;
	s = get_slot();
	bump(&s->frees, 1, s == &overflow);
	bump(&s->free_bytes, malloc_usable_size(p), s == &overflow);
}

void *
malloc(size_t n)
{
	void	*p = __libc_malloc(n);

	count_alloc(p);
	return (p);
}

void *
calloc(size_t n, size_t sz)
{
	void	*p = __libc_calloc(n, sz);

	count_alloc(p);
	return (p);
}

void *
realloc(void *old, size_t n)
{
	void	*p;

	if (old == NULL) {
		p = __libc_realloc(NULL, n);
		count_alloc(p);
		return (p);
	}
	/* Count the old block as freed only if realloc gives it up; its size
	 * must be read before, since afterwards it may belong to another. */
	{
		size_t		 oldsz = malloc_usable_size(old);
		struct slot	*s;

		p = __libc_realloc(old, n);
		if (p == NULL && n != 0)
			return (NULL);	/* failed: OLD untouched */
		s = get_slot();
		bump(&s->frees, 1, s == &overflow);
		bump(&s->free_bytes, oldsz, s == &overflow);
		count_alloc(p);
	}
	return (p);
}

void
free(void *p)
{
	count_free(p);
	__libc_free(p);
}

void *
memalign(size_t align, size_t n)
{
	void	*p = __libc_memalign(align, n);

	count_alloc(p);
	return (p);
}

void *
aligned_alloc(size_t align, size_t n)
{
	void	*p = __libc_memalign(align, n);

	count_alloc(p);
	return (p);
}

int
posix_memalign(void **pp, size_t align, size_t n)
{
	void	*p;

	if (align < sizeof(void *) || (align & (align - 1)) != 0)
		return (EINVAL);
	p = __libc_memalign(align, n);
	if (p == NULL)
		return (ENOMEM);
	count_alloc(p);
	*pp = p;
	return (0);
}

void *
valloc(size_t n)
{
	void	*p = __libc_valloc(n);

	count_alloc(p);
	return (p);
}

void *
pvalloc(size_t n)
{
	void	*p = __libc_pvalloc(n);

	count_alloc(p);
	return (p);
}

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
