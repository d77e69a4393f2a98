/*
 * listen-watch.h: an ipc listener that stops taking connections (nng
 * 1.5.2) is seen and opened again; see listen-watch.c.
 */
#ifndef DN_LISTEN_WATCH_H
#define DN_LISTEN_WATCH_H

#include <stdint.h>

#include <nng/nng.h>

/* The SP protocol of the watch's probe: no socket speaks it, so a
 * listener that takes the probe has its socket refuse it at once. */
#define DN_WATCH_PROTO	0xd5e7

struct dn_lwatch {
	nng_socket	 sock;
	nng_listener	 l;
	char		*url;		/* NULL: not watched (not ipc) */
	int		 fd;		/* the probe in flight, or -1 */
	uint64_t	 t0, next;
	unsigned	 relistens;
};

void	 dn_lwatch_init(struct dn_lwatch *);
/* nng_listen, and the listener watched if it is ipc; nng's error. */
int	 dn_lwatch_listen(struct dn_lwatch *, nng_socket, const char *);
/* From the socket's receiver, as often as it likes: a probe sent, looked
 * at, or the listener opened again. */
void	 dn_lwatch_tick(struct dn_lwatch *);
void	 dn_lwatch_fini(struct dn_lwatch *);

#endif
