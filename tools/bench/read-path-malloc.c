/*
 * read-path-malloc.c: what the allocation counter (metrics/agent/alloc.c) adds
 * to one malloc+free pair.  Built twice by hand, with and without the
 * counter (docs/benchmarks.md, "Node read path"):
 *
 *   gcc -O2 -o /tmp/mb-plain tools/bench/read-path-malloc.c
 *   gcc -O2 -fno-builtin -D_GNU_SOURCE -Imetrics/agent -o /tmp/mb-count \
 *       tools/bench/read-path-malloc.c metrics/agent/alloc.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PAIRS	10000000

static void *volatile sink;

int
main(void)
{
	struct timespec	a, b;
	double		ns, best = 1e9;
	int		r, i;

	for (r = 0; r < 5; r++) {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		for (i = 0; i < PAIRS; i++) {
			void	*p = malloc(32);

			sink = p;
			free(p);
		}
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 +
		    (double)(b.tv_nsec - a.tv_nsec)) / PAIRS;
		if (ns < best)
			best = ns;
	}
	printf("%.1f ns per malloc+free pair (best of 5, thread CPU time)\n",
	    best);
	return (0);
}
