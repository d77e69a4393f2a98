/*
 * ready.c: the ready checks of --ready (tcp, http, delay; log checks are
 * marked by logpump.c as lines arrive).  Each poll tries every pending
 * check that is due once, with short timeouts, from the event loop.  A
 * check that failed waits before its next try: READY_GAP_FIRST_MS, then
 * twice that, up to READY_GAP_MAX_MS (probe.h), so that a wrong URL is
 * asked ~50 times in 10 s, not once per wake-up of the loop (every line
 * the node logs: 6,430 tries in 9.6 s once, issue 37).  Each try keeps
 * what came back (a status and the body's first line, "connection
 * refused"), for DN-PROBE-READY-TIMEOUT.
 */
#include <sys/socket.h>

#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "http.h"
#include "probe.h"
#include "clock.h"

#define CONNECT_TIMEOUT_MS	200
#define HTTP_TIMEOUT_MS		1000

/* 1 if HOST:PORT accepts a TCP connection within the timeout; else why
 * not into WHY. */
static int
tcp_accepts(const char *host, const char *port, char *why, size_t len)
{
	struct addrinfo	 hints, *res = NULL, *ai;
	int		 ok = 0, rv;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if ((rv = getaddrinfo(host, port, &hints, &res)) != 0) {
		snprintf(why, len, "cannot resolve '%s': %s", host,
		    gai_strerror(rv));
		return (0);
	}
	snprintf(why, len, "no address");
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
			if (poll(&pfd, 1, CONNECT_TIMEOUT_MS) != 1)
				snprintf(why, len, "no answer within %d ms",
				    CONNECT_TIMEOUT_MS);
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err,
			    &elen) == 0 && err == 0)
				ok = 1;
			else
				snprintf(why, len, "%s", strerror(err));
		} else
			snprintf(why, len, "%s", strerror(errno));
		close(fd);
	}
	freeaddrinfo(res);
	return (ok);
}

/* "status 404: first line of the body" into R->last (control bytes
 * shown as '?'). */
static void
http_answer(struct probe_ready *r, long status, const struct dn_http_buf *b)
{
	char	line[96];
	size_t	i, n = 0;

	for (i = 0; b->data != NULL && i < b->len && n + 1 < sizeof(line) &&
	    b->data[i] != '\n'; i++)
		line[n++] = isprint((unsigned char)b->data[i]) ? b->data[i] :
		    '?';
	line[n] = '\0';
	snprintf(r->last, sizeof(r->last), "status %ld%s%s%s", status,
	    n > 0 ? " (body: '" : "", line, n > 0 ? "')" : "");
}

/* Try check R once. */
static void
try_one(struct probe_ready *r, struct dn_http *http, uint64_t start_ns)
{
	struct dn_http_buf	 body = { .max = 65536 };
	char			*cause = NULL;
	long			 status;

	switch (r->kind) {
	case READY_TCP:
		r->done = tcp_accepts(r->host, r->port, r->last,
		    sizeof(r->last));
		break;
	case READY_HTTP:
		if (http == NULL)
			break;
		if (dn_http_get(http, r->url, HTTP_TIMEOUT_MS, &status, &body,
		    &cause) != 0)
			snprintf(r->last, sizeof(r->last), "%s", cause);
		else if (status >= 200 && status < 300)
			r->done = 1;
		else
			http_answer(r, status, &body);
		free(cause);
		dn_http_buf_free(&body);
		break;
	case READY_DELAY:
		r->done = dn_now_ns() - start_ns >=
		    (uint64_t)r->ms * 1000000u;
		break;
	case READY_LOG:
		snprintf(r->last, sizeof(r->last), "no line of the output "
		    "matched");
		break;
	}
}

int
ready_poll(struct probe_opts *o, struct dn_http *http, uint64_t start_ns)
{
	uint64_t	now = dn_now_ns();
	size_t		i;
	int		all = 1;

	for (i = 0; i < o->nready; i++) {
		struct probe_ready	*r = &o->ready[i];

		if (!r->done && (r->kind == READY_DELAY || r->kind ==
		    READY_LOG || now >= r->next_ns)) {
			if (r->kind != READY_DELAY && r->kind != READY_LOG)
				r->tries++;
			try_one(r, http, start_ns);
			if (!r->done && r->kind != READY_DELAY &&
			    r->kind != READY_LOG) {
				r->gap_ms = r->gap_ms == 0 ?
				    READY_GAP_FIRST_MS : r->gap_ms * 2;
				if (r->gap_ms > READY_GAP_MAX_MS)
					r->gap_ms = READY_GAP_MAX_MS;
				r->next_ns = dn_now_ns() +
				    (uint64_t)r->gap_ms * 1000000u;
			}
		}
		if (!r->done)
			all = 0;
	}
	return (all);
}

uint64_t
ready_next_ns(const struct probe_opts *o)
{
	uint64_t	next = 0;
	size_t		i;

	for (i = 0; i < o->nready; i++) {
		const struct probe_ready *r = &o->ready[i];

		if (r->done || r->kind == READY_LOG)
			continue;
		if (next == 0 || r->next_ns < next)
			next = r->next_ns;
	}
	return (next);
}

const struct probe_ready *
ready_pending(const struct probe_opts *o)
{
	size_t	i;

	for (i = 0; i < o->nready; i++) {
		if (!o->ready[i].done)
			return (&o->ready[i]);
	}
	return (NULL);
}
