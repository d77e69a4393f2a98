/*
 * sp-push.c: nng's SP framing over a plain socket (see sp-push.h).  What
 * nng's ipc and tcp transports put on the wire, written here; nothing
 * here calls nng (transport.c stays the only door to it).  Not a
 * receiver: what the peer sends (its SP header) is read and thrown away.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "sp-push.h"
#include "transport.h"
#include "xalloc.h"

#define RETRY_NS	10000000ull	/* between two connects: nng's 10 ms */
#define WAIT_STEP_MS	10		/* a timed wait looks up this often */

enum { DOWN, CONNECTING, UP };

/* push0 (protocol 0x50) as nng's transports open a connection with */
const uint8_t	dn_sp_push0_hdr[8] = { 0, 'S', 'P', 0, 0x00, 0x50, 0, 0 };

size_t
dn_sp_frame_hdr(uint8_t *out, size_t len, int ipc)
{
	size_t	i, o = ipc ? 1 : 0;

	out[0] = 1;	/* ipc: message type 1; tcp: overwritten below */
	for (i = 0; i < 8; i++)
		out[o + i] = (uint8_t)((uint64_t)len >> (56 - 8 * i));
	return (o + 8);
}

struct dn_sppush {
	pthread_mutex_t		 mu;
	int			 ipc;	/* framing: type byte + length */
	struct sockaddr_storage	 sa;
	socklen_t		 salen;
	int			 fd;	/* -1: no connection */
	int			 state;
	uint64_t		 tried_ns;
	size_t			 hdr_left; /* of dn_sp_push0_hdr, this connection */
	/* framed messages not yet written, whole: buf starts a frame, of
	 * which head_done bytes went out on this connection */
	uint8_t			*buf;
	size_t			 cap, n, head_done;
	uint64_t		 lost;
	/* ipc: the socket took bytes since the last dn_sppush_connected,
	 * so the peer was there (a unix socket refuses a send to a closed
	 * peer with EPIPE) */
	int			 took;
};

static size_t
frame_hdr(const struct dn_sppush *p)
{
	return (p->ipc ? 9 : 8);
}

/* The whole length of the frame at AT (its header read back). */
static size_t
frame_len(const struct dn_sppush *p, const uint8_t *at)
{
	uint64_t	v = 0;
	size_t		i, o = p->ipc ? 1 : 0;

	for (i = 0; i < 8; i++)
		v = v << 8 | at[o + i];
	return ((size_t)v + frame_hdr(p));
}

/* The connection is gone: a message half written is lost with it (its
 * start is on the old connection only); whole ones wait for the next. */
static void
conn_lost(struct dn_sppush *p)
{
	size_t	len;

	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->state = DOWN;
	if (p->head_done > 0) {
		len = frame_len(p, p->buf);
		memmove(p->buf, p->buf + len, p->n - len);
		p->n -= len;
		p->head_done = 0;
		p->lost++;
	}
}

/* A new connection, not waited for; none while one was tried less than
 * RETRY_NS ago. */
static void
dial(struct dn_sppush *p)
{
	uint64_t	now = dn_now_ns();
	int		fd, one = 1;

	if (p->fd >= 0 || (p->tried_ns != 0 && now - p->tried_ns < RETRY_NS))
		return;
	p->tried_ns = now;
	fd = socket(p->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	/* small messages sent as they are made, as nng does */
	if (!p->ipc)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one,
		    sizeof(one));
	if (connect(fd, (struct sockaddr *)&p->sa, p->salen) == 0)
		p->state = UP;
	else if (errno == EINPROGRESS)
		p->state = CONNECTING;
	else {
		/* refused, no such socket yet, backlog full: later */
		close(fd);
		return;
	}
	p->fd = fd;
	p->hdr_left = sizeof(dn_sp_push0_hdr);
}

/* A TCP connect under way: UP once done, gone if it failed. */
static void
connect_done(struct dn_sppush *p)
{
	struct pollfd	pfd = { .fd = p->fd, .events = POLLOUT };
	socklen_t	len = sizeof(int);
	int		err = 0;

	if (poll(&pfd, 1, 0) != 1)
		return;
	if (getsockopt(p->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 ||
	    err != 0 || (pfd.revents & (POLLERR | POLLHUP)))
		conn_lost(p);
	else
		p->state = UP;
}

/* W more bytes of buf went out: drop the frames now whole written. */
static void
consume(struct dn_sppush *p, size_t w)
{
	size_t	pos = 0;

	p->head_done += w;
	if (p->head_done == p->n) {
		p->n = p->head_done = 0;
		return;
	}
	while (pos + frame_len(p, p->buf + pos) <= p->head_done)
		pos += frame_len(p, p->buf + pos);
	memmove(p->buf, p->buf + pos, p->n - pos);
	p->n -= pos;
	p->head_done -= pos;
}

/* Write SRC (LEN bytes) as far as the socket takes it now: the bytes
 * written, or -1 when the connection is gone. */
static ssize_t
put(struct dn_sppush *p, const uint8_t *src, size_t len)
{
	ssize_t	w;

	for (;;) {
		w = send(p->fd, src, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w >= 0)
			return (w);
		if (errno == EINTR)
			continue;
		/* full, or (tcp) not connected yet: the rest later */
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return (0);
		conn_lost(p);
		return (-1);
	}
}

/* Write what is held, as much as the socket takes now. */
static void
pump(struct dn_sppush *p)
{
	ssize_t	w;

	if (p->fd < 0)
		dial(p);
	if (p->fd >= 0 && p->state == CONNECTING)
		connect_done(p);
	if (p->fd < 0 || p->state != UP)
		return;
	if (p->hdr_left > 0) {
		if ((w = put(p, dn_sp_push0_hdr + sizeof(dn_sp_push0_hdr) - p->hdr_left,
		    p->hdr_left)) < 0)
			return;
		p->hdr_left -= (size_t)w;
		if (p->hdr_left > 0)
			return;
	}
	while (p->n > p->head_done) {
		if ((w = put(p, p->buf + p->head_done,
		    p->n - p->head_done)) <= 0)
			return;
		p->took = 1;
		consume(p, (size_t)w);
	}
}

/* Read what the peer sent (its header: nothing else comes); its close
 * or a reset ends the connection.  Unread bytes would also make the
 * kernel reset a tcp connection at close instead of sending the rest. */
static void
drain(struct dn_sppush *p)
{
	uint8_t	junk[64];
	ssize_t	r;

	while (p->fd >= 0 && p->state == UP) {
		r = recv(p->fd, junk, sizeof(junk), MSG_DONTWAIT);
		if (r > 0)
			continue;
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			conn_lost(p);
		return;
	}
}

/* Wait up to MS for the socket to take more (or, with none, for the
 * next connect's turn).  Called with the lock held: a timed send holds
 * up the others, as a send with a timeout held nng's socket. */
static void
wait_room(struct dn_sppush *p, int ms)
{
	struct pollfd	pfd = { .fd = p->fd, .events = POLLOUT };

	if (ms > WAIT_STEP_MS)
		ms = WAIT_STEP_MS;
	if (p->fd >= 0)
		(void)poll(&pfd, 1, ms);
	else
		(void)poll(NULL, 0, ms);
}

static int
ms_left(uint64_t deadline)
{
	uint64_t	now = dn_now_ns();

	return (now >= deadline ? 0 :
	    (int)((deadline - now + 999999) / 1000000));
}

/* Fill SA from URL's address; -1 with *CAUSE when it is none. */
static int
parse_url(struct dn_sppush *p, const char *url, char **cause)
{
	struct sockaddr_un	*sun = (struct sockaddr_un *)&p->sa;
	struct addrinfo		 hints, *ai = NULL;
	char			 host[256];
	const char		*h, *colon;
	size_t			 hl;
	int			 rv;

	if (strncmp(url, "ipc://", 6) == 0) {
		if (strlen(url + 6) >= sizeof(sun->sun_path)) {
			*cause = dn_xasprintf("ipc path too long (%zu bytes, "
			    "limit %zu): '%s'; use a shorter run directory",
			    strlen(url + 6), sizeof(sun->sun_path) - 1,
			    url + 6);
			return (-1);
		}
		sun->sun_family = AF_UNIX;
		memcpy(sun->sun_path, url + 6, strlen(url + 6) + 1);
		p->salen = sizeof(*sun);
		p->ipc = 1;
		return (0);
	}
	if (strncmp(url, "tcp://", 6) != 0 ||
	    (colon = strrchr(url + 6, ':')) == NULL || colon[1] == '\0')
		goto bad;
	h = url + 6;
	hl = (size_t)(colon - h);
	if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']') {	/* [v6] */
		h++;
		hl -= 2;
	}
	if (hl == 0 || hl >= sizeof(host))
		goto bad;
	memcpy(host, h, hl);
	host[hl] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if ((rv = getaddrinfo(host, colon + 1, &hints, &ai)) != 0) {
		*cause = dn_xasprintf("cannot resolve '%s' of '%s': %s", host,
		    url, gai_strerror(rv));
		return (-1);
	}
	memcpy(&p->sa, ai->ai_addr, ai->ai_addrlen);
	p->salen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return (0);
bad:
	*cause = dn_xasprintf("cannot push to '%s': say ipc:///PATH or "
	    "tcp://HOST:PORT", url);
	return (-1);
}

int
dn_sppush_open(struct dn_sppush **pp, const char *url, size_t cap_bytes,
    char **cause)
{
	struct dn_sppush	*p;

	p = dn_xcalloc(1, sizeof(*p));
	p->fd = -1;
	if (parse_url(p, url, cause) != 0) {
		free(p);
		return (-1);
	}
	pthread_mutex_init(&p->mu, NULL);
	p->cap = cap_bytes;
	p->buf = dn_xmalloc(cap_bytes > 0 ? cap_bytes : 1);
	dial(p);
	*pp = p;
	return (0);
}

void
dn_sppush_close(struct dn_sppush *p)
{
	if (p == NULL)
		return;
	drain(p);
	if (p->fd >= 0)
		close(p->fd);
	pthread_mutex_destroy(&p->mu);
	free(p->buf);
	free(p);
}

int
dn_sppush_send(struct dn_sppush *p, const void *buf, size_t len,
    int timeout_ms)
{
	uint64_t	deadline = dn_now_ns() + (uint64_t)(timeout_ms > 0 ?
			    timeout_ms : 0) * 1000000u;
	size_t		need = frame_hdr(p) + len;
	uint8_t		*f;
	int		rv = 0, left;

	pthread_mutex_lock(&p->mu);
	pump(p);
	while (p->n + need > p->cap) {
		if ((left = ms_left(deadline)) == 0) {
			rv = DN_EAGAIN;
			goto out;
		}
		wait_room(p, left);
		pump(p);
	}
	f = p->buf + p->n;
	memcpy(f + dn_sp_frame_hdr(f, len, p->ipc), buf, len);
	p->n += need;
	pump(p);
out:
	pthread_mutex_unlock(&p->mu);
	return (rv);
}

int
dn_sppush_flush(struct dn_sppush *p, int max_ms)
{
	uint64_t	deadline = dn_now_ns() + (uint64_t)max_ms * 1000000u;
	int		rv = 0, left;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		pump(p);
		if (p->n == 0)
			break;
		if ((left = ms_left(deadline)) == 0) {
			rv = DN_EAGAIN;
			break;
		}
		wait_room(p, left);
	}
	pthread_mutex_unlock(&p->mu);
	return (rv);
}

int
dn_sppush_connected(struct dn_sppush *p)
{
	int	up;

	pthread_mutex_lock(&p->mu);
	pump(p);
	/* The read is a system call on every turn of the caller's loop
	 * (devnet-node asks each turn): ~12 us cold, 0.0012 % of a core.
	 * Over ipc a send that went through since the last turn says the
	 * same, so the peer's close is seen at the next send instead (one
	 * sample interval later at most).  Over tcp a send to a closed peer
	 * goes through once, so tcp always reads. */
	if (!(p->ipc && p->took))
		drain(p);
	p->took = 0;
	up = p->fd >= 0 && p->state == UP;
	pthread_mutex_unlock(&p->mu);
	return (up);
}

uint64_t
dn_sppush_lost(struct dn_sppush *p)
{
	uint64_t	n;

	pthread_mutex_lock(&p->mu);
	n = p->lost;
	pthread_mutex_unlock(&p->mu);
	return (n);
}
