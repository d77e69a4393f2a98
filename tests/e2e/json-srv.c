/*
 * json-srv.c: a node whose numbers are JSON only, with counters of known
 * rates (foreign-json.sh, issue 37).  In C rather than python3: it must
 * start in milliseconds on a loaded machine, where a python3 http.server
 * took 10 s to import.
 *
 *   dn-json-srv PORT RATE [RESET_AT_S [SLOW_START_S]]
 *
 * After SLOW_START_S seconds asleep it listens on 127.0.0.1:PORT.  GET
 * /stats answers {"requests": {"served": N}, "up": true, "odd.name":
 * {"v": [5, 7]}, "name": "srv"}, N = RATE x seconds since it listens
 * (from 0 again at RESET_AT_S); any other path: 404 "no such page: PATH".
 * Prints "tick K" every 100 ms on a fixed schedule (a log counter of
 * 10/s).  One connection at a time, closed after each answer.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
}

static void
answer(int fd, double t0, double rate, double reset)
{
	char	req[4096], body[256], head[256], path[128] = "";
	double	t = now_s() - t0;
	size_t	n = 0;
	ssize_t	r;
	int	hl, bl;

	while (n < sizeof(req) - 1 && (r = read(fd, req + n,
	    sizeof(req) - 1 - n)) > 0) {
		n += (size_t)r;
		req[n] = '\0';
		if (strstr(req, "\r\n\r\n") != NULL)
			break;
	}
	req[n] = '\0';
	(void)sscanf(req, "GET %127s", path);
	if (reset > 0 && t >= reset)
		t -= reset;
	if (strcmp(path, "/stats") == 0)
		bl = snprintf(body, sizeof(body), "{\"requests\": {\"served\": "
		    "%lld}, \"up\": true, \"odd.name\": {\"v\": [5, 7]}, "
		    "\"name\": \"srv\"}", (long long)(rate * t));
	else
		bl = snprintf(body, sizeof(body), "no such page: %s\n", path);
	hl = snprintf(head, sizeof(head), "HTTP/1.1 %s\r\nContent-Type: "
	    "%s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n",
	    strcmp(path, "/stats") == 0 ? "200 OK" : "404 Not Found",
	    strcmp(path, "/stats") == 0 ? "application/json" : "text/plain",
	    bl);
	if (write(fd, head, (size_t)hl) != hl ||
	    write(fd, body, (size_t)bl) != bl)
		perror("json-srv: write");
}

int
main(int argc, char **argv)
{
	struct sockaddr_in	sin;
	struct timespec		slow;
	double			rate, reset, s, t0;
	long			k = 0;
	int			lfd, one = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: dn-json-srv PORT RATE [RESET_AT_S "
		    "[SLOW_START_S]]\n");
		return (2);
	}
	signal(SIGPIPE, SIG_IGN);	/* a client that gave up: go on */
	rate = atof(argv[2]);
	reset = argc > 3 ? atof(argv[3]) : 0;
	s = argc > 4 ? atof(argv[4]) : 0;
	slow.tv_sec = (time_t)s;
	slow.tv_nsec = (long)((s - (double)slow.tv_sec) * 1e9);
	nanosleep(&slow, NULL);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)atoi(argv[1]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)) != 0 ||
	    bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(lfd, 16) != 0) {
		perror("json-srv: listen");
		return (1);
	}
	t0 = now_s();
	for (;;) {
		struct pollfd	pfd = { lfd, POLLIN, 0 };
		double		next = t0 + (double)k * 0.1, left = next - now_s();
		int		fd;

		if (left <= 0) {
			printf("tick %ld\n", k++);
			fflush(stdout);
			continue;
		}
		if (poll(&pfd, 1, (int)(left * 1000) + 1) == 1 &&
		    (fd = accept(lfd, NULL, NULL)) != -1) {
			answer(fd, t0, rate, reset);
			close(fd);
		}
	}
}
