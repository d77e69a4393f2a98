/*
 * preflight.c: `devnet-probe --preflight-bind ADDR:PORT[,...]
 * --preflight-dial ADDR:PORT[,...]`, the check devnet runs once per run
 * on every other host of a swarm before any trial (provider swarm,
 * swarm-preflight.c): can this host's nodes bind their ports, and can
 * they reach the collector?  Each problem is one line on stderr
 * ("port ADDR:PORT is taken (...)", "cannot reach the collector at
 * ADDR:PORT (...)"); exits 0 when there is none, PREFLIGHT_EXIT_FAILED
 * when there is, PROBE_EXIT_ERROR on bad arguments.  A dial that works
 * is then timed: RTT_DIALS more handshakes, one line on stdout ("rtt
 * ADDR:PORT min MS median MS max MS n N"), the real network between this
 * host and devnet's as devnet states it before any trial (issue 39).
 *
 * Also `devnet-probe --hold`: a container's first process that does
 * nothing until SIGTERM, SIGINT or SIGKILL, so that the container's
 * network namespace lives for a trial (provider docker under network
 * conditions: the node's container joins it, provider-docker.c).
 *
 * Not here: running a node (loop.c); what devnet makes of the lines.
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

/* How long a dial may take. */
#define DIAL_MS	3000
/* Handshakes timed after a dial that works, and the pause between
 * them (a burst would meet its own queue, not the network). */
#define RTT_DIALS	20
#define RTT_GAP_NS	20000000L

/* "ADDR:PORT" into SA; -1 when it is not an IPv4 address and port. */
static int
parse_ep(const char *s, size_t len, struct sockaddr_in *sa)
{
	char	 buf[64], *colon, *end;
	long	 port;

	if (len == 0 || len >= sizeof(buf))
		return (-1);
	memcpy(buf, s, len);
	buf[len] = '\0';
	if ((colon = strrchr(buf, ':')) == NULL)
		return (-1);
	*colon = '\0';
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || end == colon + 1 || port < 1 || port > 65535)
		return (-1);
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return (inet_pton(AF_INET, buf, &sa->sin_addr) == 1 ? 0 : -1);
}

/* 0 when SA can be bound (as nng's listeners bind: SO_REUSEADDR), else
 * errno. */
static int
try_bind(const struct sockaddr_in *sa)
{
	int	fd, one = 1, err = 0;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return (errno);
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)sa, sizeof(*sa)) == -1)
		err = errno;
	close(fd);
	return (err);
}

/* 0 when a TCP connection to SA is made within DIAL_MS, else errno
 * (ETIMEDOUT after DIAL_MS). */
static int
try_dial(const struct sockaddr_in *sa)
{
	struct pollfd	 pfd;
	socklen_t	 len = sizeof(int);
	int		 fd, err = 0;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1)
		return (errno);
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == -1) {
		if (errno != EINPROGRESS)
			err = errno;
		else {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, DIAL_MS) <= 0)
				err = ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err,
			    &len) == -1)
				err = errno;
		}
	}
	close(fd);
	return (err);
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

/* Time RTT_DIALS TCP handshakes with SA (the SYN out, the SYN-ACK back:
 * one round trip, as the kernel sees it) and print them on stdout as
 * "rtt EP min MS median MS max MS n N"; nothing when none worked. */
static void
time_dials(const struct sockaddr_in *sa, const char *ep, int eplen)
{
	struct timespec	a, b;
	double		v[RTT_DIALS];
	int		i, n = 0;

	for (i = 0; i < RTT_DIALS; i++) {
		nanosleep(&(struct timespec){ 0, RTT_GAP_NS }, NULL);
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (try_dial(sa) != 0)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &b);
		v[n++] = (double)(b.tv_sec - a.tv_sec) * 1e3 +
		    (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	}
	if (n == 0)
		return;
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	printf("rtt %.*s min %.3f median %.3f max %.3f n %d\n", eplen, ep,
	    v[0], v[n / 2], v[n - 1], n);
}

/* Check every endpoint of LIST (comma-separated) with DIAL or bind;
 * how many failed, or -1 when LIST is malformed. */
static int
check_list(const char *list, int dial)
{
	struct sockaddr_in	 sa;
	const char		*p = list, *comma;
	size_t			 len;
	int			 failed = 0, err;

	while (*p != '\0') {
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (parse_ep(p, len, &sa) != 0) {
			fprintf(stderr, "devnet-probe: bad endpoint '%.*s': "
			    "want IPV4:PORT\n", (int)len, p);
			return (-1);
		}
		err = dial ? try_dial(&sa) : try_bind(&sa);
		if (err == 0 && dial)
			time_dials(&sa, p, (int)len);
		if (err != 0) {
			if (dial)
				fprintf(stderr, "cannot reach the collector "
				    "at %.*s (%s)\n", (int)len, p,
				    strerror(err));
			else
				fprintf(stderr, "port %.*s is taken (%s)\n",
				    (int)len, p, strerror(err));
			failed++;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return (failed);
}

int
probe_preflight(int argc, char **argv)
{
	int	i, n, failed = 0;

	for (i = 1; i < argc; i += 2) {
		int	dial = strcmp(argv[i], "--preflight-dial") == 0;

		if ((!dial && strcmp(argv[i], "--preflight-bind") != 0) ||
		    i + 1 >= argc) {
			fprintf(stderr, "devnet-probe: usage: devnet-probe "
			    "--preflight-bind ADDR:PORT[,...] "
			    "--preflight-dial ADDR:PORT[,...]\n");
			return (PROBE_EXIT_ERROR);
		}
		if ((n = check_list(argv[i + 1], dial)) < 0)
			return (PROBE_EXIT_ERROR);
		failed += n;
	}
	if (failed == 0)
		puts("devnet-probe: preflight ok");
	return (failed == 0 ? 0 : PREFLIGHT_EXIT_FAILED);
}

int
probe_hold(void)
{
	sigset_t	set;
	int		sig;

	/* As PID 1 of a container the kernel drops any signal without a
	 * handler, so wait for them explicitly. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 ||
	    sigwait(&set, &sig) != 0) {
		fprintf(stderr, "devnet-probe: --hold: %s\n",
		    strerror(errno));
		return (PROBE_EXIT_ERROR);
	}
	return (0);
}
