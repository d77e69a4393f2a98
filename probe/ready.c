/*
 * ready.c: the ready checks of --ready (tcp, http, delay; log checks are
 * marked by logpump.c as lines arrive).  Each poll tries every pending
 * check once, with short timeouts, from the event loop.
 */
#include <sys/socket.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "http.h"
#include "probe.h"
#include "clock.h"

#define CONNECT_TIMEOUT_MS	200
#define HTTP_TIMEOUT_MS		1000

/* 1 if HOST:PORT accepts a TCP connection within the timeout. */
static int
tcp_accepts(const char *host, const char *port)
{
	struct addrinfo	 hints, *res = NULL, *ai;
	int		 ok = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return (0);
	for (ai = res; ai != NULL && !ok; ai = ai->ai_next) {
		struct pollfd	pfd;
		int		fd, err = 0;
		socklen_t	elen = sizeof(err);

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, ai->ai_protocol);
		if (fd == -1)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			ok = 1;
		else if (errno == EINPROGRESS) {
			pfd.fd = fd;
			pfd.events = POLLOUT;
			if (poll(&pfd, 1, CONNECT_TIMEOUT_MS) == 1 &&
			    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err,
			    &elen) == 0 && err == 0)
				ok = 1;
		}
		close(fd);
	}
	freeaddrinfo(res);
	return (ok);
}

int
ready_poll(struct probe_opts *o, struct dn_http *http, uint64_t start_ns)
{
	size_t	i;
	int	all = 1;

	for (i = 0; i < o->nready; i++) {
		struct probe_ready	*r = &o->ready[i];
		char			*cause = NULL;
		long			 status;

		if (r->done)
			continue;
		switch (r->kind) {
		case READY_TCP:
			r->done = tcp_accepts(r->host, r->port);
			break;
		case READY_HTTP:
			if (http != NULL && dn_http_get(http, r->url,
			    HTTP_TIMEOUT_MS, &status, NULL, &cause) == 0 &&
			    status >= 200 && status < 300)
				r->done = 1;
			free(cause);
			break;
		case READY_DELAY:
			r->done = dn_now_ns() - start_ns >=
			    (uint64_t)r->ms * 1000000u;
			break;
		case READY_LOG:
			break;
		}
		if (!r->done)
			all = 0;
	}
	return (all);
}

const char *
ready_pending(const struct probe_opts *o)
{
	size_t	i;

	for (i = 0; i < o->nready; i++) {
		if (!o->ready[i].done)
			return (o->ready[i].spec);
	}
	return ("none");
}
