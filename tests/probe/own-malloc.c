/*
 * own-malloc.c: a dynamically linked program that brings its own malloc,
 * free, calloc and realloc (a bump allocator over a static arena), as a
 * Rust or Zig program with its own allocator can.  The allocation shim
 * cannot count it: devnet-probe must say "not measured: the program
 * defines malloc", never show 0 allocations (issue 37 #7; alloc.sh).
 *
 *   own-malloc [N]    N allocations (default 1000), then 300 ms asleep
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned char	arena[8 << 20] __attribute__((aligned(16)));
static size_t		used;
static unsigned long	made;

void	*malloc(size_t);
void	 free(void *);
void	*calloc(size_t, size_t);
void	*realloc(void *, size_t);

void *
malloc(size_t n)
{
	size_t		*h;

	n = (n + 15) & ~(size_t)15;
	if (used + n + 16 > sizeof(arena)) {
		errno = ENOMEM;
		return (NULL);
	}
	h = (size_t *)(arena + used);
	*h = n;
	used += n + 16;
	made++;
	return ((unsigned char *)h + 16);
}

void
free(void *p)
{
	(void)p;	/* never given back: the arena is the heap */
}

void *
calloc(size_t n, size_t sz)
{
	void	*p;

	if (sz != 0 && n > SIZE_MAX / sz)
		return (NULL);
	if ((p = malloc(n * sz)) != NULL)
		memset(p, 0, n * sz);
	return (p);
}

void *
realloc(void *old, size_t n)
{
	void	*p;
	size_t	 had;

	if ((p = malloc(n)) == NULL || old == NULL)
		return (p);
	had = *(size_t *)((unsigned char *)old - 16);
	memcpy(p, old, had < n ? had : n);
	return (p);
}

int
main(int argc, char **argv)
{
	struct timespec	ts = { 0, 300 * 1000000L };
	unsigned long	n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	unsigned long	i;
	volatile char	*p;

	for (i = 0; i < n; i++) {
		p = malloc(32);
		if (p == NULL)
			return (1);
		p[0] = 1;
		free((void *)p);
	}
	nanosleep(&ts, NULL);
	printf("own-malloc: %lu allocations of its own\n", made);
	return (0);
}
