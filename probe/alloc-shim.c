/*
 * alloc-shim.c: libdevnet-alloc.so, an LD_PRELOAD allocation counter for
 * programs devnet did not build.  devnet-probe injects it with
 * `--count-allocs`; it is not for linking, and not a leak checker.
 *
 * Defines malloc, calloc, realloc, reallocarray, free, memalign,
 * aligned_alloc, posix_memalign, valloc and pvalloc, forwards each to
 * glibc's __libc_* function (no dlsym, so no calloc-inside-dlsym
 * recursion) and counts calls and usable bytes with the very code of
 * devnet-node's built-in counter (metrics/agent/alloc-interpose.h; this
 * file adds reallocarray and owns the counters).  The counters live in
 * the file named by DN_ALLOC_SHM (layout: alloc-shm.h), mapped MAP_SHARED
 * at the first allocation: no thread, no socket, no lock in the host
 * process.
 *
 * Initialisation runs inside the first malloc, so it uses only getenv,
 * open, mmap and close (none allocates).  Allocations of other threads
 * during those microseconds are not counted; so are none at all when the
 * variable is unset or the file is not a counter page (then `attached`
 * stays 0 and the probe reports allocations as unavailable).
 *
 * Processes: an exec'd program keeps the environment, loads the shim
 * again and counts into the same page under its own pid.  A child forked
 * without exec inherits the mapping; a pthread_atfork handler makes it
 * claim fresh slots under its pid, so parent and child never write the
 * same slot.  Its frees of blocks it inherited count as frees (the totals
 * are of the whole tree).  Only glibc's malloc family is seen: programs
 * with their own allocator (Go's runtime, jemalloc linked in) or static
 * binaries are not counted.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "alloc-shm.h"

/* Only the shim interposes this one (its prototype comes from <stdlib.h>
 * with _DEFAULT_SOURCE; this keeps -Wmissing-prototypes quiet). */
void	*reallocarray(void *, size_t, size_t);

enum { ST_NONE, ST_BUSY, ST_MAPPED, ST_OFF };

static _Atomic int	 state = ST_NONE;
static struct dn_ashm	*shm;

static __thread struct dn_ashm_slot *my_slot
    __attribute__((tls_model("initial-exec")));

static void
map_page(void)
{
	const char	*path;
	struct dn_ashm	*p;
	int		 expect = ST_NONE, fd, ok = 0;

	if (!atomic_compare_exchange_strong(&state, &expect, ST_BUSY))
		return;
	path = getenv(DN_ASHM_ENV);
	if (path != NULL && *path != '\0' &&
	    (fd = open(path, O_RDWR | O_CLOEXEC)) != -1) {
		p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
		close(fd);
		if (p != MAP_FAILED && p->magic == DN_ASHM_MAGIC &&
		    p->version == DN_ASHM_VERSION) {
			shm = p;
			atomic_fetch_add(&p->attached, 1);
			ok = 1;
		} else if (p != MAP_FAILED)
			munmap(p, sizeof(*p));
	}
	atomic_store(&state, ok ? ST_MAPPED : ST_OFF);
}

static void
forget_slot(void)
{
	my_slot = NULL;
}

__attribute__((constructor)) static void
shim_init(void)
{
	map_page();
	pthread_atfork(NULL, NULL, forget_slot);
}

static inline struct dn_ashm_slot *
get_slot(void)
{
	struct dn_ashm_slot	*s;
	uint32_t		 i;

	if (__builtin_expect(my_slot != NULL, 1))
		return (my_slot);
	if (atomic_load_explicit(&state, memory_order_acquire) != ST_MAPPED) {
		if (atomic_load(&state) == ST_NONE)
			map_page();
		if (atomic_load(&state) != ST_MAPPED)
			return (NULL);
	}
	i = atomic_fetch_add_explicit(&shm->nslots, 1, memory_order_relaxed);
	if (i < DN_ASHM_SLOTS) {
		s = &shm->slots[i];
		atomic_store_explicit(&s->pid, (int32_t)getpid(),
		    memory_order_relaxed);
	} else
		s = &shm->overflow;
	my_slot = s;
	return (s);
}

static inline int
slot_shared(const struct dn_ashm_slot *s)
{
	return (s == &shm->overflow);
}

/* The entry points themselves (malloc & co.), shared with devnet-node's
 * built-in counter, counting through get_slot() and slot_shared() above. */
#define DN_ALLOC_SLOT	struct dn_ashm_slot
#include "alloc-interpose.h"

void *
reallocarray(void *old, size_t n, size_t sz)
{
	size_t	total;

	if (__builtin_mul_overflow(n, sz, &total)) {
		errno = ENOMEM;
		return (NULL);
	}
	return (realloc(old, total));
}
