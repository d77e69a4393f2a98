/*
 * alloc-read.c: the probe's side of the allocation counter page
 * (alloc-shm.h): create the file, map it read-only, sum the slots.  The
 * counting itself happens in the measured processes (alloc-shim.c).
 */
#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc-shm.h"
#include "probe.h"
#include "xalloc.h"

struct alloc_page {
	const struct dn_ashm	*shm;
	char			*path;
	char			 name[DN_ASHM_NAME + 1];
};

int
alloc_page_create(struct alloc_page **pp, const char *path, char **cause)
{
	struct alloc_page	*p;
	uint32_t		 hdr[2] = { DN_ASHM_MAGIC, DN_ASHM_VERSION };
	void			*m;
	int			 fd;

	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd == -1) {
		*cause = dn_xasprintf("cannot create allocation counter "
		    "file '%s': %s", path, strerror(errno));
		return (-1);
	}
	/* Sparse: only the pages of claimed slots ever take memory. */
	if (ftruncate(fd, sizeof(struct dn_ashm)) == -1 ||
	    pwrite(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		*cause = dn_xasprintf("cannot size '%s': %s", path,
		    strerror(errno));
		close(fd);
		unlink(path);
		return (-1);
	}
	m = mmap(NULL, sizeof(struct dn_ashm), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		*cause = dn_xasprintf("cannot map '%s': %s", path,
		    strerror(errno));
		unlink(path);
		return (-1);
	}
	p = dn_xcalloc(1, sizeof(*p));
	p->shm = m;
	p->path = dn_xstrdup(path);
	*pp = p;
	return (0);
}

void
alloc_page_destroy(struct alloc_page *p, int remove)
{
	if (p == NULL)
		return;
	if (remove)
		unlink(p->path);
	munmap((void *)p->shm, sizeof(struct dn_ashm));
	free(p->path);
	free(p);
}

/* Add slot S to *TOT; its live bytes only if LIVE. */
static void
add_slot(struct alloc_totals *tot, int64_t *live,
    const struct dn_ashm_slot *s, int count_live)
{
	uint64_t	ab, fb;

	tot->allocs += atomic_load_explicit(&s->allocs, memory_order_relaxed);
	tot->frees += atomic_load_explicit(&s->frees, memory_order_relaxed);
	ab = atomic_load_explicit(&s->alloc_bytes, memory_order_relaxed);
	fb = atomic_load_explicit(&s->free_bytes, memory_order_relaxed);
	tot->alloc_bytes += ab;
	if (count_live)
		*live += (int64_t)(ab - fb);
}

int
alloc_page_read(struct alloc_page *p, struct tree *t,
    struct alloc_totals *tot)
{
	const struct dn_ashm	*m = p->shm;
	uint32_t		 n, i;
	int64_t			 live = 0;

	memset(tot, 0, sizeof(*tot));
	if (atomic_load((_Atomic uint32_t *)&m->attached) == 0)
		return (-1);
	n = atomic_load((_Atomic uint32_t *)&m->nslots);
	if (n > DN_ASHM_SLOTS)
		n = DN_ASHM_SLOTS;
	/* A process's live heap ends with it: slots of pids no longer in
	 * the tree add their counts but not their live bytes.  A fork
	 * child's slot can be negative (it frees inherited blocks); it
	 * nets out while the child lives. */
	for (i = 0; i < n; i++) {
		const struct dn_ashm_slot *s = &m->slots[i];
		pid_t	pid = atomic_load_explicit(
			    (_Atomic int32_t *)&s->pid, memory_order_relaxed);

		add_slot(tot, &live, s, pid != 0 && tree_has(t, pid));
	}
	add_slot(tot, &live, &m->overflow, 1);
	tot->heap_live_bytes = live > 0 ? (uint64_t)live : 0;
	return (0);
}

const char *
alloc_page_allocator(struct alloc_page *p, int *mixed)
{
	const struct dn_ashm	*m = p->shm;

	if (atomic_load((_Atomic uint32_t *)&m->named) != 2)
		return (NULL);
	memcpy(p->name, m->allocator, DN_ASHM_NAME);
	p->name[DN_ASHM_NAME] = '\0';
	*mixed = atomic_load((_Atomic uint32_t *)&m->mixed) != 0;
	return (p->name);
}
