/*
 * wire-poke.c: send hostile messages to a collector, for tests/e2e.
 *
 *   wire-poke URL TOKEN_HEX NNODES
 *
 * Sends, in order: random bytes, a truncated header, a wrong magic, a
 * wrong version, a wrong token, a node index out of range, a SAMPLE with a
 * length that disagrees, a SAMPLE with a NaN, an unknown kind, an
 * oversized message, and two well-formed INCLUDED messages from node 0
 * naming transaction ids the load generator never submitted (one just
 * below 2^40, which once made the collector allocate 128 GiB, and one
 * near 2^64); each one a message of its own, the first of a connection
 * of its own (the collector closes a connection whose first message has
 * no token, issue 38).  Prints how many it sent.  Exit 0 when all went
 * out.
 *
 *   wire-poke URL TOKEN_HEX NODE hello PID
 *	one HELLO from NODE naming PID (a forged one: hostile.sh)
 *   wire-poke URL TOKEN_HEX NODE named COUNT
 *	COUNT distinct NAMED names (poke_0..), 256 a message, from NODE
 *   wire-poke URL TOKEN_HEX NODE gap SEQ
 *	a HELLO (pid 0) and right after it a SAMPLE from NODE with sequence
 *	number SEQ: the gap must still count as lost samples
 *   wire-poke URL TOKEN_HEX NODE future SEC
 *	a SAMPLE from NODE stamped SEC seconds ahead of now
 *   wire-poke URL TOKEN_HEX NODE flood SEC
 *	SAMPLEs from NODE with the token, as fast as the collector's queue
 *	takes them, for SEC seconds or until the collector is gone (a
 *	sender that never stops; NODE has a connection of its own, so each
 *	one is refused, and the connection stays)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "metric-table.h"
#include "protocol.h"
#include "sp-push.h"
#include "transport.h"
#include "clock.h"
#include "rng.h"

static size_t
sample(uint8_t *buf, size_t cap, uint64_t token, uint32_t node)
{
	struct dn_hdr		h = { .token = token, .node = node, .seq = 1 };
	struct dn_sample	s = { .count = DN_METRIC_COUNT };

	h.t_ns = dn_now_ns();
	return (dn_sample_encode(buf, cap, &h, &s));
}

/* An INCLUDED of one transaction ID in block 1, from node 0. */
static size_t
included(uint8_t *buf, uint64_t token, uint64_t id)
{
	struct dn_hdr	h = { .kind = DN_MSG_INCLUDED, .token = token,
			    .node = 0, .seq = 1 };
	uint8_t		*p = buf + DN_HDR_SIZE;

	h.t_ns = dn_now_ns();
	h.len = 24 + DN_INCL_ENTRY;
	memset(p, 0, h.len);
	dn_put_u64(p, 1);			/* height */
	dn_put_u64(p + 8, h.t_ns);		/* proposed */
	dn_put_u32(p + 16, 1);			/* count */
	dn_put_u64(p + 24, id);
	dn_put_u64(p + 32, h.t_ns - 1000000);	/* intended */
	dn_put_u32(p + 40, DN_TX_OK);
	dn_hdr_put(buf, &h);
	return (DN_HDR_SIZE + h.len);
}

static int
poke_one(struct dn_sock *s, uint64_t token, uint32_t node, const char *what,
    uint64_t arg)
{
	static uint8_t		 buf[DN_MSG_MAX + 64];
	static struct dn_named	 v[DN_NAMED_MAX];
	struct dn_hdr		 h = { .token = token, .node = node,
				    .seq = 1 };
	uint64_t		 i, j;
	size_t			 n;
	int			 sent = 0, want = 1;

	h.t_ns = dn_now_ns();
	if (strcmp(what, "hello") == 0) {
		h.kind = DN_MSG_HELLO;
		h.len = DN_HELLO_SIZE;
		dn_hdr_put(buf, &h);
		dn_put_u32(buf + DN_HDR_SIZE, (uint32_t)arg);
		dn_put_u32(buf + DN_HDR_SIZE + 4, 0);
		sent += dn_sock_send(s, buf, DN_HDR_SIZE + DN_HELLO_SIZE,
		    0) == 0;
	} else if (strcmp(what, "named") == 0) {
		want = 0;
		for (i = 0; i < arg; i += DN_NAMED_MAX) {
			for (j = 0; j < DN_NAMED_MAX && i + j < arg; j++) {
				snprintf(v[j].name, sizeof(v[j].name),
				    "poke_%llu", (unsigned long long)(i + j));
				v[j].kind = DN_NAMED_GAUGE;
				v[j].value = 1;
			}
			h.seq = 1000000 + i;
			h.t_ns = dn_now_ns();
			n = dn_named_encode(buf, sizeof(buf), &h, 0, v, j);
			want++;
			sent += n > 0 && dn_sock_send(s, buf, n, 0) == 0;
		}
	} else if (strcmp(what, "gap") == 0 || strcmp(what, "future") == 0) {
		if (what[0] == 'g') {
			h.kind = DN_MSG_HELLO;
			h.len = DN_HELLO_SIZE;
			dn_hdr_put(buf, &h);
			dn_put_u32(buf + DN_HDR_SIZE, 0);
			dn_put_u32(buf + DN_HDR_SIZE + 4, 0);
			if (dn_sock_send(s, buf, DN_HDR_SIZE + DN_HELLO_SIZE,
			    0) != 0)
				want++;
		}
		n = sample(buf, sizeof(buf), token, node);
		if (what[0] == 'g')
			h.seq = arg;
		else
			h.t_ns += arg * 1000000000ULL;
		if (what[0] == 'f')
			h.seq = 1;
		h.kind = DN_MSG_SAMPLE;
		h.len = (uint32_t)(n - DN_HDR_SIZE);
		dn_hdr_put(buf, &h);
		sent += dn_sock_send(s, buf, n, 0) == 0;
	} else if (strcmp(what, "flood") == 0) {
		uint64_t	end = dn_now_ns() + arg * 1000000000ULL;

		want = 0;
		/* a deep send queue: the collector, not this sender, is
		 * the bottleneck, so its queue never empties */
		dn_sock_set_bufs(s, 8192, 0);
		n = sample(buf, sizeof(buf), token, node);
		while (dn_now_ns() < end) {
			int	rv = dn_sock_send(s, buf, n, 1);

			if (rv == 0) {
				sent++;
				continue;
			}
			if (sent > 0 && dn_sock_npipes(s) == 0)
				break;	/* the collector is gone */
			dn_msleep(1);	/* its queue is full: keep it so */
		}
		want = sent;
	} else {
		fprintf(stderr, "wire-poke: unknown '%s'\n", what);
		return (2);
	}
	dn_msleep(200);	/* let the pipe drain before closing */
	dn_sock_close(s);
	printf("%d\n", sent);
	return (sent == want ? 0 : 1);
}

/* LEN bytes of BUF through a connection of their own, which is not
 * made again once the collector closes it (devnet's own SP framing,
 * sp-push.h: it reconnects only when called): 1 if sent. */
static int
send_fresh(const char *url, const void *buf, size_t len)
{
	struct dn_sppush	*p;
	char			*cause = NULL;
	int			 i, ok;

	if (dn_sppush_open(&p, url, len + 64, &cause) != 0) {
		fprintf(stderr, "wire-poke: %s\n", cause);
		free(cause);
		return (0);
	}
	for (i = 0; i < 100 && !dn_sppush_connected(p); i++)
		dn_msleep(10);
	ok = dn_sppush_send(p, buf, len, 1000) == 0 &&
	    dn_sppush_flush(p, 1000) == 0;
	dn_msleep(100);	/* read before the close */
	dn_sppush_close(p);
	return (ok);
}

/*
 * LEN bytes of BUF as one frame over a plain connection to the ipc path
 * of URL (nng's SP handshake, then the frame), closed after: what a frame
 * over the collector's limit needs, since devnet's own framing would
 * connect again once the collector closed the first (1 if sent, or
 * refused mid-way as it should be).
 */
static int
send_raw_ipc(const char *url, const void *buf, size_t len)
{
	struct sockaddr_un	sa = { .sun_family = AF_UNIX };
	uint8_t			hdr[16], peer[8];
	size_t			n;
	int			fd, ok = 0;

	if (strncmp(url, "ipc://", 6) != 0 ||
	    strlen(url + 6) >= sizeof(sa.sun_path))
		return (0);
	memcpy(sa.sun_path, url + 6, strlen(url + 6) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		return (0);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    send(fd, dn_sp_push0_hdr, 8, MSG_NOSIGNAL) != 8 ||
	    recv(fd, peer, sizeof(peer), MSG_WAITALL) != 8)
		goto out;
	n = dn_sp_frame_hdr(hdr, len, 1);
	if (send(fd, hdr, n, MSG_NOSIGNAL) != (ssize_t)n)
		goto out;
	ok = 1;
	(void)send(fd, buf, len, MSG_NOSIGNAL);	/* cut short: fine */
	dn_msleep(100);
out:
	close(fd);
	return (ok);
}

int
main(int argc, char **argv)
{
	struct dn_sock	*s;
	static uint8_t	 buf[DN_MSG_MAX + 64];
	uint64_t	 token, rng = 42;
	uint32_t	 nnodes;
	char		*cause = NULL, *end;
	size_t		 n, i;
	int		 sent = 0;

	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: wire-poke URL TOKEN_HEX NNODES\n"
		    "       wire-poke URL TOKEN_HEX NODE hello|named|gap|"
		    "future|flood N\n");
		return (2);
	}
	token = strtoull(argv[2], &end, 16);
	nnodes = (uint32_t)strtoul(argv[3], NULL, 10);
	if (argc == 6) {
		if (dn_sock_open(&s, DN_SOCK_PUSH, &cause) != 0 ||
		    dn_sock_dial(s, argv[1], &cause) != 0) {
			fprintf(stderr, "wire-poke: %s\n", cause);
			return (1);
		}
		for (i = 0; i < 100 && dn_sock_npipes(s) == 0; i++)
			dn_msleep(10);
		return (poke_one(s, token, nnodes, argv[4],
		    strtoull(argv[5], NULL, 10)));
	}
#define SEND(p, len)	do {						\
	sent += send_fresh(argv[1], (p), (len));			\
} while (0)
	for (i = 0; i < 256; i++)
		buf[i] = (uint8_t)dn_rand64(&rng);
	SEND(buf, 256);					/* random bytes */
	n = sample(buf, sizeof(buf), token, 0);
	SEND(buf, 20);					/* truncated */
	buf[0] ^= 0xff;
	SEND(buf, n);					/* magic */
	n = sample(buf, sizeof(buf), token, 0);
	dn_put_u16(buf + 4, DN_PROTOCOL_VERSION + 7);
	SEND(buf, n);					/* version */
	n = sample(buf, sizeof(buf), token ^ 1, 0);
	SEND(buf, n);					/* token */
	n = sample(buf, sizeof(buf), token, nnodes + 3);
	SEND(buf, n);					/* node index */
	n = sample(buf, sizeof(buf), token, 0);
	SEND(buf, n - 8);				/* length */
	n = sample(buf, sizeof(buf), token, 0);
	dn_put_f64(buf + DN_HDR_SIZE + 8, 0.0 / 0.0);
	SEND(buf, n);					/* NaN */
	n = sample(buf, sizeof(buf), token, 0);
	dn_put_u16(buf + 6, 999);
	SEND(buf, n);					/* kind */
	memset(buf, 0, sizeof(buf));
	n = sample(buf, sizeof(buf), token, 0);
	dn_put_u32(buf + 20, (uint32_t)(sizeof(buf) - DN_HDR_SIZE));
	sent += send_raw_ipc(argv[1], buf, sizeof(buf));	/* oversized */
	n = included(buf, token, ((uint64_t)1 << 40) - 8);
	SEND(buf, n);					/* tx id 2^40 */
	n = included(buf, token, UINT64_MAX - 7);
	SEND(buf, n);					/* tx id 2^64 */
	printf("%d\n", sent);
	return (sent == 12 ? 0 : 1);
}
