/*
 * loadgen-tcp.c: the transfer load's own connections to devnet-nodes in
 * an emulated network (issue 20), so that the load crosses the hub and
 * feels the conditions as the nodes' traffic does.
 *
 * nng cannot carry it: its TCP dialer resolves and connects in nng's own
 * threads, made when nng started, in the host's network namespace, where
 * the nodes' addresses do not exist (and must not: nothing is added to
 * the host's namespace).  So the load thread makes each connection itself
 * from inside the load generator's namespace (trial_load_ns; a socket
 * stays in the namespace it was made in) and speaks what nng's TCP
 * transport speaks to the node's PULL socket: the 8-byte SP header, then
 * each message as a 64-bit big-endian length and the bytes (the framing
 * sp-push.h writes for the node's agent too).  The node cannot tell it
 * from an nng PUSH.
 *
 * Never blocks the load thread: connect and writes are non-blocking; what
 * the socket does not take waits in a per-node buffer (LG_TCP_PEND at
 * most: beyond it a send fails, as a full nng queue does) and goes out at
 * the next send or pump; a broken connection (the node restarted) is
 * made again at most every RETRY_NS.  At the end each connection's RTT
 * and retransmissions, as the kernel saw them, are the node's facts
 * load_tcp_rtt_ms and load_tcp_retransmits.  Not here: what is sent
 * (loadgen.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/topo.h"
#include "trial/loadgen-internal.h"
#include "clock.h"
#include "sp-push.h"
#include "xalloc.h"

#define LG_TCP_PEND	(4u << 20)	/* bytes waiting per node, at most */
#define RETRY_NS	100000000ull	/* between two connects to a node */

struct lg_tcp {
	int		 fd;		/* -1: not connected */
	struct sockaddr_in sa;
	uint8_t		*pend;		/* framed bytes not yet written */
	size_t		 npend;
	uint64_t	 tried_ns;	/* last connect */
};

/* Parse "tcp://A.B.C.D:PORT" into SA; -1 when it is not one. */
static int
parse_url(const char *url, struct sockaddr_in *sa)
{
	char		 host[64];
	const char	*p, *colon;
	char		*end;
	long		 port;

	if (strncmp(url, "tcp://", 6) != 0)
		return (-1);
	p = url + 6;
	if ((colon = strrchr(p, ':')) == NULL || (size_t)(colon - p) >=
	    sizeof(host))
		return (-1);
	memcpy(host, p, (size_t)(colon - p));
	host[colon - p] = '\0';
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno != 0 || *end != '\0' || port < 1 || port > 65535)
		return (-1);
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return (inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1);
}

/* In the load namespace (dn_net_in_ns): a non-blocking socket, its
 * connect started.  Returns the fd or -1. */
static int
connect_cb(void *arg)
{
	const struct sockaddr_in	*sa = arg;
	int				 fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return (-1);
	/* small messages, sent as they are made, as nng does */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) != 0 &&
	    errno != EINPROGRESS) {
		close(fd);
		return (-1);
	}
	return (fd);
}

static void
drop(struct lg_tcp *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->npend = 0;
}

/* Start a connection to node K (its SP header first in line); nothing
 * when one was tried less than RETRY_NS ago. */
static void
dial(struct loadgen *l, int k)
{
	struct lg_tcp		*c = &l->tcp[k];
	uint64_t		 now = dn_now_ns();

	if (c->tried_ns != 0 && now - c->tried_ns < RETRY_NS)
		return;
	c->tried_ns = now;
	c->fd = dn_net_in_ns(trial_load_ns(l->t), connect_cb, &c->sa);
	if (c->fd < 0)
		return;
	memcpy(c->pend, dn_sp_push0_hdr, sizeof(dn_sp_push0_hdr));
	c->npend = sizeof(dn_sp_push0_hdr);
}

/* Write what waits for node K, as much as its socket takes now. */
static void
pump_one(struct loadgen *l, int k)
{
	struct lg_tcp	*c = &l->tcp[k];
	ssize_t		 w;
	size_t		 done = 0;

	if (c->fd < 0 || c->npend == 0)
		return;
	while (done < c->npend) {
		w = send(c->fd, c->pend + done, c->npend - done,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			done += (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		/* EAGAIN: full, or still connecting; the rest later */
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		drop(c);	/* refused, reset, gone: dial again */
		return;
	}
	memmove(c->pend, c->pend + done, c->npend - done);
	c->npend -= done;
}

int
loadgen_tcp_create(struct loadgen *l, char **cause)
{
	int	k;

	l->tcp = dn_xcalloc((size_t)l->n, sizeof(*l->tcp));
	for (k = 0; k < l->n; k++) {
		l->tcp[k].fd = -1;
		l->tcp[k].pend = dn_xmalloc(LG_TCP_PEND);
		if (parse_url(l->t->nodes[k].in_url, &l->tcp[k].sa) != 0) {
			*cause = dn_xasprintf("node %d: '%s' is not a "
			    "tcp://ADDRESS:PORT the load can reach through "
			    "the emulated network", k, l->t->nodes[k].in_url);
			return (-1);
		}
		dial(l, k);
	}
	return (0);
}

int
loadgen_tcp_send(struct loadgen *l, int k, const uint8_t *msg, size_t len)
{
	struct lg_tcp	*c = &l->tcp[k];

	if (c->fd < 0)
		dial(l, k);
	if (c->fd < 0)
		return (-1);
	pump_one(l, k);
	if (c->fd < 0 || c->npend + 8 + len > LG_TCP_PEND)
		return (-1);
	c->npend += dn_sp_frame_hdr(c->pend + c->npend, len, 0);
	memcpy(c->pend + c->npend, msg, len);
	c->npend += len;
	pump_one(l, k);
	return (0);
}

void
loadgen_tcp_pump(struct loadgen *l)
{
	int	k;

	for (k = 0; l->tcp != NULL && k < l->n; k++)
		pump_one(l, k);
}

/* The proof that the load took the emulated path: each connection's own
 * RTT as the kernel measured it (smoothed, TCP_INFO) and its
 * retransmissions, as facts of node K. */
static void
tcp_facts(struct loadgen *l, int k)
{
	struct tcp_info	ti;
	socklen_t	len = sizeof(ti);

	if (l->tcp[k].fd < 0 || getsockopt(l->tcp[k].fd, IPPROTO_TCP,
	    TCP_INFO, &ti, &len) != 0 || ti.tcpi_state != TCP_ESTABLISHED)
		return;
	trial_fact(l->t, k, "load_tcp_rtt_ms", "%.3f", ti.tcpi_rtt / 1e3);
	trial_fact(l->t, k, "load_tcp_retransmits", "%u",
	    ti.tcpi_total_retrans);
}

void
loadgen_tcp_free(struct loadgen *l)
{
	int	k;

	for (k = 0; l->tcp != NULL && k < l->n; k++) {
		tcp_facts(l, k);
		drop(&l->tcp[k]);
		free(l->tcp[k].pend);
	}
	free(l->tcp);
	l->tcp = NULL;
}
