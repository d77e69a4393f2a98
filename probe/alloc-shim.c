/*
 * alloc-shim.c: libdevnet-alloc.so, an LD_PRELOAD allocation counter for
 * programs devnet did not build.  devnet-probe injects it with
 * `--count-allocs`; it is not for linking, and not a leak checker.
 *
 * Defines malloc, calloc, realloc, reallocarray, free, memalign,
 * aligned_alloc, posix_memalign, valloc, pvalloc and malloc_usable_size,
 * and forwards each to the definition the program would have called
 * without the shim: dlsym(RTLD_NEXT) per name, so a program linked to
 * jemalloc, tcmalloc or mimalloc keeps its allocator and only gains the
 * counting (the code of devnet-node's built-in counter,
 * metrics/agent/alloc-interpose.h).  Forwarding to glibc instead, as this
 * file once did, handed glibc blocks to jemalloc's malloc_usable_size and
 * crashed Redis (issue 25).  dlsym may allocate (its error buffer): while
 * a thread resolves, its allocations come from a small static arena, never
 * freed and never counted.  The name of the library that provides malloc
 * (glibc, jemalloc, ...) is written into the counter page, or that the
 * program defines malloc itself (then the shim sees nothing).
 *
 * The counters live in the file named by DN_ALLOC_SHM (layout:
 * alloc-shm.h), mapped MAP_SHARED at the first allocation: no thread, no
 * socket, no lock in the host process.  Initialisation runs inside the
 * first malloc, so it uses only getenv, open, mmap, close and dladdr (none
 * allocates).  Allocations of other threads during those microseconds are
 * not counted; so are none at all when the variable is unset or the file
 * is not a counter page (then `attached` stays 0 and the probe reports
 * allocations as unavailable).
 *
 * Processes: an exec'd program keeps the environment, loads the shim
 * again and counts into the same page under its own pid.  A child forked
 * without exec inherits the mapping; a pthread_atfork handler makes it
 * claim fresh slots under its pid, so parent and child never write the
 * same slot.  Its frees of blocks it inherited count as frees (the totals
 * are of the whole tree).  Not seen: allocators that do not go through
 * the malloc names (Go's runtime, an allocator linked in statically),
 * C++ operator new of an allocator that defines it itself (tcmalloc,
 * jemalloc, mimalloc do), and static binaries.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc-shm.h"

/* Only the shim interposes this one (its prototype comes from <stdlib.h>
 * with _DEFAULT_SOURCE; this keeps -Wmissing-prototypes quiet). */
void	*reallocarray(void *, size_t, size_t);
void	*pvalloc(size_t);

/*
 * The allocator underneath, resolved on first use.  `resolving` marks the
 * thread inside dlsym: its allocations then come from `boot`, a bump
 * arena (16-byte header holding the size), which free ignores and realloc
 * copies out of.  Another thread may resolve at the same time: both store
 * the same pointers.
 */
struct next {
	void	*(*malloc)(size_t);
	void	*(*calloc)(size_t, size_t);
	void	*(*realloc)(void *, size_t);
	void	 (*free)(void *);
	void	*(*memalign)(size_t, size_t);
	void	*(*aligned_alloc)(size_t, size_t);
	int	 (*posix_memalign)(void **, size_t, size_t);
	void	*(*valloc)(size_t);
	void	*(*pvalloc)(size_t);
	size_t	 (*usable)(void *);
};

static struct next	 nx;
static _Atomic int	 nx_ready;
static __thread int	 resolving __attribute__((tls_model("initial-exec")));

#define BOOT_SIZE	(256 * 1024)
static alignas(64) unsigned char boot[BOOT_SIZE];
static _Atomic size_t	 boot_used;

static int
in_boot(const void *p)
{
	return ((const unsigned char *)p >= boot &&
	    (const unsigned char *)p < boot + BOOT_SIZE);
}

static void *
boot_alloc(size_t align, size_t n)
{
	size_t	 off, start;

	if (align < 16)
		align = 16;
	if (n > BOOT_SIZE || align > 4096)
		return (NULL);
	off = atomic_load(&boot_used);
	do {
		start = (off + 16 + align - 1) & ~(align - 1);
		if (start + n > BOOT_SIZE)
			return (NULL);
	} while (!atomic_compare_exchange_weak(&boot_used, &off, start + n));
	*(size_t *)(boot + start - sizeof(size_t)) = n;
	return (boot + start);
}

static size_t
boot_usable(const void *p)
{
	return (*(const size_t *)((const unsigned char *)p - sizeof(size_t)));
}

static void
resolve(void)
{
	struct next	n;

	resolving = 1;
	*(void **)&n.malloc = dlsym(RTLD_NEXT, "malloc");
	*(void **)&n.calloc = dlsym(RTLD_NEXT, "calloc");
	*(void **)&n.realloc = dlsym(RTLD_NEXT, "realloc");
	*(void **)&n.free = dlsym(RTLD_NEXT, "free");
	*(void **)&n.memalign = dlsym(RTLD_NEXT, "memalign");
	*(void **)&n.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
	*(void **)&n.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	*(void **)&n.valloc = dlsym(RTLD_NEXT, "valloc");
	*(void **)&n.pvalloc = dlsym(RTLD_NEXT, "pvalloc");
	*(void **)&n.usable = dlsym(RTLD_NEXT, "malloc_usable_size");
	resolving = 0;
	if (n.malloc == NULL || n.calloc == NULL || n.realloc == NULL ||
	    n.free == NULL)
		abort();	/* no libc underneath: nothing to forward to */
	nx = n;
	atomic_store_explicit(&nx_ready, 1, memory_order_release);
}

/* 1 when the allocator underneath is known; 0 while this very thread is
 * finding it (use the boot arena). */
static inline int
ready(void)
{
	if (__builtin_expect(atomic_load_explicit(&nx_ready,
	    memory_order_acquire), 1))
		return (1);
	if (resolving)
		return (0);
	resolve();
	return (1);
}

static inline void *
next_malloc(size_t n)
{
	return (ready() ? nx.malloc(n) : boot_alloc(16, n));
}

static inline void *
next_calloc(size_t n, size_t sz)
{
	size_t	total;

	if (ready())
		return (nx.calloc(n, sz));
	if (__builtin_mul_overflow(n, sz, &total))
		return (NULL);
	return (boot_alloc(16, total));	/* static: already zero */
}

static inline void *
next_realloc(void *old, size_t n)
{
	void	*p;
	size_t	 oldn;

	if (old == NULL || !in_boot(old))
		return (ready() ? nx.realloc(old, n) : boot_alloc(16, n));
	/* A block of the boot arena moves out (or within it while
	 * resolving); the old one is simply left behind. */
	oldn = boot_usable(old);
	p = ready() ? nx.malloc(n) : boot_alloc(16, n);
	if (p != NULL)
		memcpy(p, old, oldn < n ? oldn : n);
	return (p);
}

static inline void
next_free(void *p)
{
	if (p == NULL || in_boot(p))
		return;
	if (ready())
		nx.free(p);
}

static inline void *
next_memalign(size_t align, size_t n)
{
	if (!ready())
		return (boot_alloc(align, n));
	return (nx.memalign != NULL ? nx.memalign(align, n) : NULL);
}

static inline void *
next_aligned_alloc(size_t align, size_t n)
{
	if (!ready())
		return (boot_alloc(align, n));
	return (nx.aligned_alloc != NULL ? nx.aligned_alloc(align, n) : NULL);
}

static inline int
next_posix_memalign(void **pp, size_t align, size_t n)
{
	void	*p;

	if (ready() && nx.posix_memalign != NULL)
		return (nx.posix_memalign(pp, align, n));
	if (align < sizeof(void *) || (align & (align - 1)) != 0)
		return (EINVAL);
	if ((p = resolving ? boot_alloc(align, n) : NULL) == NULL)
		return (ENOMEM);
	*pp = p;
	return (0);
}

static inline void *
next_valloc(size_t n)
{
	if (!ready())
		return (boot_alloc(4096, n));
	return (nx.valloc != NULL ? nx.valloc(n) : NULL);
}

static inline void *
next_pvalloc(size_t n)
{
	if (!ready())
		return (boot_alloc(4096, (n + 4095) & ~(size_t)4095));
	return (nx.pvalloc != NULL ? nx.pvalloc(n) : NULL);
}

static inline size_t
next_usable(void *p)
{
	if (in_boot(p))
		return (boot_usable(p));
	if (!ready() || nx.usable == NULL)
		return (0);
	return (nx.usable(p));
}

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

/* The allocator underneath, as the probe shows it: "glibc", "jemalloc",
 * "tcmalloc", "mimalloc", else the providing library's file name; or
 * "own:NAME" when the program's malloc is not the shim's (the executable
 * or a library before the shim defines it: the shim then counts nothing). */
static void
allocator_name(char *buf, size_t size)
{
	static const struct {
		const char	*prefix, *name;
	} known[] = {
		{ "libc.so", "glibc" }, { "libjemalloc", "jemalloc" },
		{ "libtcmalloc", "tcmalloc" }, { "libmimalloc", "mimalloc" },
	};
	Dl_info		 di, self;
	const char	*f, *slash, *tag = "";
	void		*def;
	size_t		 i, n;

	resolving = 1;
	def = dlsym(RTLD_DEFAULT, "malloc");
	resolving = 0;
	/*
	 * Whose malloc the program calls: compared by the object that
	 * defines it, not with `(void *)malloc`, which in this shared
	 * object is read through the GOT, is whatever the program's
	 * malloc resolves to, and so always equal (issue 37 #7).  The
	 * shim's own object is found from a static function, which is
	 * never interposed.
	 */
	if (def != NULL && dladdr(def, &di) && dladdr((void *)forget_slot,
	    &self) && di.dli_fbase != self.dli_fbase) {
		tag = "own:";
		f = dladdr(def, &di) && di.dli_fname != NULL &&
		    *di.dli_fname != '\0' ? di.dli_fname : "executable";
	} else
		f = dladdr((void *)nx.malloc, &di) && di.dli_fname != NULL ?
		    di.dli_fname : "unknown";
	if ((slash = strrchr(f, '/')) != NULL)
		f = slash + 1;
	for (i = 0; *tag == '\0' && i < sizeof(known) / sizeof(known[0]);
	    i++)
		if (strncmp(f, known[i].prefix, strlen(known[i].prefix)) == 0)
			f = known[i].name;
	n = strlen(tag);
	memcpy(buf, tag, n);
	for (i = 0; f[i] != '\0' && n + 1 < size; i++)
		buf[n++] = f[i];
	buf[n] = '\0';
}

/* Write this process's allocator into the page: the first process of the
 * tree names it, a later one with another allocator marks it mixed. */
static void
publish_allocator(void)
{
	char		 name[DN_ASHM_NAME];
	uint32_t	 expect = 0;

	if (atomic_load(&state) != ST_MAPPED)
		return;
	(void)ready();
	memset(name, 0, sizeof(name));
	allocator_name(name, sizeof(name));
	if (atomic_compare_exchange_strong(&shm->named, &expect, 1)) {
		memcpy(shm->allocator, name, sizeof(name));
		atomic_store(&shm->named, 2);
	} else if (expect == 2 && strncmp(shm->allocator, name,
	    sizeof(name)) != 0)
		atomic_store(&shm->mixed, 1);
}

__attribute__((constructor)) static void
shim_init(void)
{
	map_page();
	publish_allocator();
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

/* The program's own questions about a block go to the allocator that made
 * it (a block of the boot arena answers from its header). */
size_t
malloc_usable_size(void *p)
{
	return (p == NULL ? 0 : next_usable(p));
}
