/*
 * probe-sink.c: a stand-in collector for devnet-probe's tests.  Listens
 * on URL (nng PULL), checks every message with protocol.h's decoders and
 * prints one line per message:
 *
 *   HELLO node=K pid=P flags=F
 *   SAMPLE node=K seq=S final=0|1 rss_bytes=V ... allocs=- ...  (- absent)
 *   NAMED node=K final=0|1 NAME=V ...
 *   REJECT why
 *
 * Stops after the first final SAMPLE (exit 0) or after TIMEOUT_MS
 * without one (exit 1).  Not a collector: stores nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "metric-table.h"
#include "protocol.h"
#include "transport.h"
#include "clock.h"
#include "units.h"

static int
handle(const uint8_t *buf, size_t len)
{
	static struct dn_named	named[DN_NAMED_MAX];
	struct dn_hdr		h;
	struct dn_sample	s;
	uint16_t		flags;
	size_t			n, i;
	int			rv;

	if ((rv = dn_hdr_check(buf, len, 0, 0, 1, &h)) != 0) {
		printf("REJECT %s\n", dn_reject_name(rv));
		return (0);
	}
	switch (h.kind) {
	case DN_MSG_HELLO:
		if (h.len != DN_HELLO_SIZE) {
			printf("REJECT hello size %u\n", h.len);
			return (0);
		}
		printf("HELLO node=%u pid=%u flags=%u\n", h.node,
		    dn_get_u32(buf + DN_HDR_SIZE),
		    dn_get_u32(buf + DN_HDR_SIZE + 4));
		return (0);
	case DN_MSG_SAMPLE:
		if ((rv = dn_sample_decode(buf + DN_HDR_SIZE, h.len,
		    &s)) != 0) {
			printf("REJECT %s\n", dn_reject_name(rv));
			return (0);
		}
		printf("SAMPLE node=%u seq=%" PRIu64 " final=%d", h.node,
		    h.seq, (s.flags & DN_SAMPLE_FINAL) != 0);
		for (i = 0; i < s.count && i < DN_METRIC_COUNT; i++) {
			if (dn_sample_absent(&s, (int)i))
				printf(" %s=-", dn_metric_defs[i].name);
			else
				printf(" %s=%.17g", dn_metric_defs[i].name,
				    s.values[i]);
		}
		printf("\n");
		return ((s.flags & DN_SAMPLE_FINAL) != 0);
	case DN_MSG_NAMED:
		if ((rv = dn_named_decode(buf + DN_HDR_SIZE, h.len, &flags,
		    named, DN_NAMED_MAX, &n)) != 0) {
			printf("REJECT %s\n", dn_reject_name(rv));
			return (0);
		}
		printf("NAMED node=%u final=%d", h.node,
		    (flags & DN_SAMPLE_FINAL) != 0);
		for (i = 0; i < n; i++)
			printf(" %s=%.17g", named[i].name, named[i].value);
		printf("\n");
		return (0);
	default:
		printf("OTHER kind=%u\n", h.kind);
		return (0);
	}
}

int
main(int argc, char **argv)
{
	struct dn_sock	*s = NULL;
	char		*cause = NULL;
	uint64_t	 deadline;
	int64_t		 timeout_ms;
	void		*buf;
	size_t		 len;
	int		 done = 0, extra = 0;

	if (argc != 3 || dn_parse_i64(argv[2], &timeout_ms) != 0) {
		fprintf(stderr, "usage: probe-sink URL TIMEOUT_MS\n");
		return (2);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (dn_sock_open(&s, DN_SOCK_PULL, &cause) != 0 ||
	    dn_sock_listen(s, argv[1], &cause) != 0) {
		fprintf(stderr, "probe-sink: %s\n", cause);
		return (1);
	}
	deadline = dn_now_ns() + (uint64_t)timeout_ms * 1000000u;
	/* after the final sample, 200 ms more for a final NAMED */
	while (dn_now_ns() < deadline && extra < 10) {
		if (dn_sock_recv(s, &buf, &len, 20) != 0) {
			if (done)
				extra++;
			continue;
		}
		done |= handle(buf, len);
		dn_msg_free(buf, len);
	}
	dn_sock_close(s);
	return (done ? 0 : 1);
}
