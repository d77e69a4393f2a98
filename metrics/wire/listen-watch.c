/*
 * listen-watch.c: an ipc listener that stops taking connections is seen
 * and opened again.
 *
 * nng 1.5.2's ipc listener stops for good when a peer goes away before
 * nng has written its SP header to it: the write fails EPIPE, which nng
 * maps to NNG_ECLOSED and hands to the listener's pending accept, which
 * takes it for its own close and never accepts again
 * (src/sp/transport/ipc/ipc.c ipc_pipe_neg_cb, src/core/listener.c
 * listener_accept_cb).  The transport still completes every later
 * handshake, so a dialer sees a connection whose messages go nowhere.
 * One connect and close of a plain Unix socket does it about one time
 * in three (a dialer closed while it connects is enough: dn.wire.transport
 * saw it under ASan, and so can any local process that may open the
 * socket).  TCP maps a reset to NNG_ECONNRESET, which the listener
 * survives (measured: 30 plain and 30 reset closes).
 *
 * So a watched listener is proven every WATCH_EVERY_NS (3 s: 200 nodes
 * are 400 watched sockets), from its
 * socket's receive calls: a connection of its own sends the SP header of
 * a protocol no socket speaks (WATCH_PROTO).  A listener that takes it
 * hands it to its socket, which refuses the protocol and closes it: the
 * end of the connection proves the listener (and nothing reached the
 * socket's pipe callbacks but its REM_POST, which transport.c skips).
 * No end within WATCH_DEAD_NS and the listener is closed (its
 * connections with it: their dialers come back, including the ones left
 * waiting in the dead one) and opened again.
 *
 * Also here: dn_sock_url_present (transport.h), whether an ipc path has
 * a listening socket yet, the other question asked of an ipc path.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <nng/nng.h>

#include "clock.h"
#include "listen-watch.h"
#include "transport.h"
#include "xalloc.h"

#define WATCH_EVERY_NS	3000000000ull
#define WATCH_DEAD_NS	5000000000ull
/* A probe in flight is looked at this often, not at every receive: the
 * collector's receive calls come hundreds of thousands a second, and
 * each look is a recv(2). */
#define WATCH_LOOK_NS	50000000ull

/* The probe's SP header: 0 'S' 'P' 0, the protocol (big-endian), 0 0. */
static const uint8_t watch_hdr[8] = { 0, 'S', 'P', 0,
	DN_WATCH_PROTO >> 8, DN_WATCH_PROTO & 0xff, 0, 0 };

void
dn_lwatch_init(struct dn_lwatch *w)
{
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

int
dn_lwatch_listen(struct dn_lwatch *w, nng_socket sock, const char *url)
{
	nng_listener	l;
	int		rv;

	if ((rv = nng_listen(sock, url, &l, 0)) != 0)
		return (rv);
	/* the first ipc one (a node's second is its peers' old name) */
	if (strncmp(url, "ipc://", 6) == 0 && w->url == NULL) {
		w->url = dn_xstrdup(url);
		w->sock = sock;
		w->l = l;
		w->next = dn_now_ns() + WATCH_EVERY_NS;
	}
	return (0);
}

void
dn_lwatch_fini(struct dn_lwatch *w)
{
	if (w->fd >= 0)
		close(w->fd);
	free(w->url);
	dn_lwatch_init(w);
}

/* A probe connection to the listener, its header sent; -1 if none could
 * be made (the path gone, the backlog full). */
static int
probe_start(const char *path)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	int			fd;

	if (strlen(path) >= sizeof(sa.sun_path) ||
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) < 0)
		return (-1);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    send(fd, watch_hdr, sizeof(watch_hdr), MSG_NOSIGNAL) !=
	    (ssize_t)sizeof(watch_hdr)) {
		close(fd);
		return (-1);
	}
	return (fd);
}

/* 1 once the far end closed the probe (what the listener took and its
 * socket refused), 0 while it is open, -1 on an error. */
static int
probe_ended(int fd)
{
	uint8_t	buf[64];
	ssize_t	n;

	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		;	/* the listener's own header */
	if (n == 0)
		return (1);
	return (errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1);
}

/* Close the dead listener and open its path again. */
static void
relisten(struct dn_lwatch *w)
{
	nng_listener	l;

	(void)nng_listener_close(w->l);
	(void)unlink(w->url + 6);
	if (nng_listen(w->sock, w->url, &l, 0) == 0)
		w->l = l;
	w->relistens++;
}

void
dn_lwatch_tick(struct dn_lwatch *w)
{
	uint64_t	now;
	int		st;

	if (w->url == NULL || (now = dn_now_ns()) < w->next)
		return;
	if (w->fd < 0) {
		w->fd = probe_start(w->url + 6);
		w->t0 = now;
		/* refused or gone: not a proof, so the next in full time */
		w->next = now + (w->fd < 0 ? WATCH_EVERY_NS : WATCH_LOOK_NS);
		return;
	}
	if ((st = probe_ended(w->fd)) == 0 && now - w->t0 < WATCH_DEAD_NS) {
		w->next = now + WATCH_LOOK_NS;
		return;
	}
	if (st == 0)
		relisten(w);	/* before the close: see the top */
	close(w->fd);
	w->fd = -1;
	w->next = now + (st == 0 ? 0 : WATCH_EVERY_NS);
}

int
dn_sock_url_present(const char *url)
{
	struct stat	st;

	if (strncmp(url, "ipc://", 6) != 0)
		return (1);
	return (stat(url + 6, &st) == 0 && S_ISSOCK(st.st_mode));
}
