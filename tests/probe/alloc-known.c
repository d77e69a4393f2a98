/*
 * alloc-known.c: a program that makes a known number of allocations, for
 * tests/probe/alloc.sh.  Built once per allocator (glibc, and linked to
 * jemalloc, tcmalloc, mimalloc); run under devnet-probe --count-allocs, it
 * prints how many allocations and frees it made itself, and the test
 * checks that devnet counted them (within 1 %).
 *
 * Every entry point the shim defines is called each round, from the main
 * thread, from threads, from a fork child and from a dlopen'ed library
 * (alloc-known-lib.c), and malloc_usable_size is asked about every block.
 * Not a benchmark.
 */
#include <sys/wait.h>

#include <dlfcn.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void	*reallocarray(void *, size_t, size_t);
void	*pvalloc(size_t);

static int	 rounds = 2000;
static int	 use_pvalloc = 1;
static int	 bad;

static void
check(void *p, size_t n)
{
	if (p == NULL || malloc_usable_size(p) < n)
		bad = 1;
	else
		memset(p, 0x5a, n);	/* touch it: the block is real */
}

/* One round: every entry point once; returns the allocations made (each
 * one freed once, and realloc of a block counts one free and one more
 * allocation). */
static unsigned long
one_round(int i)
{
	void		*p, *q;
	size_t		 n = 16 + (size_t)(i % 64) * 8;
	unsigned long	 a = 0;

	p = malloc(n); check(p, n); free(p); a++;
	p = calloc(4, n); check(p, 4 * n); free(p); a++;
	p = realloc(NULL, n); check(p, n); a++;
	q = realloc(p, 4 * n + 4096); check(q, 4 * n + 4096); a++;
	free(q);
	if (posix_memalign(&p, 64, n) != 0)
		bad = 1;
	check(p, n); free(p); a++;
	p = aligned_alloc(32, 64); check(p, 64); free(p); a++;
	p = memalign(128, n); check(p, n); free(p); a++;
	p = valloc(n); check(p, n); free(p); a++;
	if (use_pvalloc) {
		p = pvalloc(n); check(p, n); free(p); a++;
	}
	p = reallocarray(NULL, 3, n); check(p, 3 * n); free(p); a++;
	return (a);
}

static unsigned long
run_rounds(void)
{
	unsigned long	a = 0;
	int		i;

	for (i = 0; i < rounds; i++)
		a += one_round(i);
	return (a);
}

static void *
thread_main(void *arg)
{
	*(unsigned long *)arg = run_rounds();
	return (NULL);
}

int
main(int argc, char **argv)
{
	pthread_t	 th[2];
	unsigned long	 ta[2], total, lib = 0;
	unsigned long	(*lib_alloc)(int);
	void		*h;
	const char	*libpath = NULL;
	int		 i, st, sleep_ms = 1500;
	pid_t		 pid;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--no-pvalloc") == 0)
			use_pvalloc = 0;
		else if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--lib") == 0 && i + 1 < argc)
			libpath = argv[++i];
		else if (strcmp(argv[i], "--sleep") == 0 && i + 1 < argc)
			sleep_ms = atoi(argv[++i]);
	}
	total = run_rounds();
	for (i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, thread_main, &ta[i]) != 0)
			return (2);
	for (i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		total += ta[i];
	}
	/* A fork child without exec counts into the same page. */
	if ((pid = fork()) == 0)
		_exit(run_rounds() == total / 3 ? 0 : 3);
	if (pid == -1 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0)
		return (3);
	total += total / 3;
	if (libpath != NULL) {
		if ((h = dlopen(libpath, RTLD_NOW)) == NULL) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return (4);
		}
		*(void **)&lib_alloc = dlsym(h, "known_lib_alloc");
		if (lib_alloc == NULL)
			return (4);
		lib = lib_alloc(rounds);
		total += lib;
	}
	if (bad) {
		fprintf(stderr, "alloc-known: a block was NULL or short\n");
		return (5);
	}
	printf("KNOWN allocs=%lu frees=%lu lib=%lu\n", total, total, lib);
	fflush(stdout);
	usleep((useconds_t)sleep_ms * 1000);
	return (0);
}
