/*
 * alloc-known-lib.c: a library alloc-known.c loads with dlopen, so the
 * test sees allocations made by code loaded after the program started.
 */
#include <stdlib.h>
#include <string.h>

unsigned long	known_lib_alloc(int);

/* N mallocs and N frees; returns N. */
unsigned long
known_lib_alloc(int n)
{
	int	i;

	for (i = 0; i < n; i++) {
		char	*p = malloc(24 + (size_t)i % 100);

		if (p == NULL)
			return (0);
		memset(p, 1, 24);
		free(p);
	}
	return ((unsigned long)n);
}
