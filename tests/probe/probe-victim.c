/*
 * probe-victim.c: the program devnet-probe's tests run under the probe.
 * Does on request exactly what the tests assert on: forks, starts
 * threads, makes a known number of allocations, prints numbered log
 * lines, listens on a port, ignores SIGTERM, exits with a given code.
 * Not a benchmark.
 *
 *   probe-victim [--fork] [--threads T] [--allocs N] [--size B]
 *       [--lines L] [--up-after MS] [--listen PORT] [--sleep MS]
 *       [--ignore-term] [--exit CODE] [--orphan-sleep MS]
 *       [--clock-every MS]
 *
 * Order: fork and threads at once; after 300 ms the allocations (kept
 * until exit), "DN-VICTIM-ALLOCATED n=N"; the lines "tick value=I"
 * (I = 1..L); after --up-after the listen socket and "DN-VICTIM-UP";
 * then sleep and exit.  The forked child sleeps 300 ms longer (or
 * --orphan-sleep MS) and exits 0.  --clock-every: a thread reads the
 * wall clock (clock_gettime, gettimeofday, time) every MS from the start
 * (a clock_skew's witness needs reads) and prints "DN-VICTIM-CLOCK S"
 * (its seconds) once a second.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>

#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
msleep(long ms)
{
	struct timespec	ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) == -1)
		;
}

static void *
idle(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return (NULL);
}

static long clock_every;

static void *
clock_reader(void *arg)
{
	struct timespec	 ts;
	struct timeval	 tv;
	time_t		 last = 0;

	(void)arg;
	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		gettimeofday(&tv, NULL);
		if (time(NULL) != last) {
			last = time(NULL);
			printf("DN-VICTIM-CLOCK %lld\n", (long long)ts.tv_sec);
		}
		msleep(clock_every);
	}
	return (NULL);
}

int
main(int argc, char **argv)
{
	long	 threads = 0, allocs = 0, size = 100, lines = 0;
	long	 up_after = -1, port = 0, sleep_ms = 0, code = 0;
	long	 orphan_ms = -1;
	int	 do_fork = 0, ignore_term = 0, i;
	void	**blocks = NULL;
	pthread_t t;

	for (i = 1; i < argc; i++) {
		const char	*a = argv[i];
		long		 v = i + 1 < argc ? atol(argv[i + 1]) : 0;

		if (strcmp(a, "--fork") == 0)
			do_fork = 1;
		else if (strcmp(a, "--ignore-term") == 0)
			ignore_term = 1;
		else if (strcmp(a, "--threads") == 0 && ++i)
			threads = v;
		else if (strcmp(a, "--allocs") == 0 && ++i)
			allocs = v;
		else if (strcmp(a, "--size") == 0 && ++i)
			size = v;
		else if (strcmp(a, "--lines") == 0 && ++i)
			lines = v;
		else if (strcmp(a, "--up-after") == 0 && ++i)
			up_after = v;
		else if (strcmp(a, "--listen") == 0 && ++i)
			port = v;
		else if (strcmp(a, "--sleep") == 0 && ++i)
			sleep_ms = v;
		else if (strcmp(a, "--exit") == 0 && ++i)
			code = v;
		else if (strcmp(a, "--orphan-sleep") == 0 && ++i)
			orphan_ms = v;
		else if (strcmp(a, "--clock-every") == 0 && ++i)
			clock_every = v;
		else {
			fprintf(stderr, "probe-victim: bad argument '%s'\n",
			    a);
			return (2);
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (ignore_term)
		signal(SIGTERM, SIG_IGN);
	if (do_fork && fork() == 0) {
		msleep(orphan_ms >= 0 ? orphan_ms : sleep_ms + 300);
		_exit(0);
	}
	for (i = 0; i < threads; i++)
		pthread_create(&t, NULL, idle, NULL);
	if (clock_every > 0)
		pthread_create(&t, NULL, clock_reader, NULL);
	msleep(300);
	if (allocs > 0) {
		blocks = calloc((size_t)allocs, sizeof(*blocks));
		for (i = 0; i < allocs; i++) {
			blocks[i] = malloc((size_t)size);
			memset(blocks[i], i, (size_t)size);
		}
		printf("DN-VICTIM-ALLOCATED n=%ld size=%ld\n", allocs, size);
	}
	for (i = 1; i <= lines; i++)
		printf("tick value=%d\n", i);
	if (up_after >= 0) {
		msleep(up_after);
		if (port > 0) {
			struct sockaddr_in	sa;
			int			fd, one = 1;

			fd = socket(AF_INET, SOCK_STREAM, 0);
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
			    sizeof(one));
			memset(&sa, 0, sizeof(sa));
			sa.sin_family = AF_INET;
			sa.sin_port = htons((uint16_t)port);
			sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			if (bind(fd, (struct sockaddr *)&sa,
			    sizeof(sa)) != 0 || listen(fd, 16) != 0) {
				perror("probe-victim: listen");
				return (1);
			}
		}
		printf("DN-VICTIM-UP\n");
	}
	msleep(sleep_ms);
	return ((int)code);
}
