/*
 * request.c: what a request asks, decided before any handler runs
 * (serve-internal.h): its method, its Host, its URL taken apart (the path
 * and the query's arguments, percent-decoded here from the raw URL the
 * library saw), which route of the table it names, and the sides of a
 * comparison.  Plain strings in, a status out: no socket and no library,
 * so tools/fuzz/fuzz-http.c runs it as it is.
 *
 * Not here: reading the request off the socket and answering it
 * (server.c, libmicrohttpd); what each route answers (the handlers).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve/serve-internal.h"
#include "xalloc.h"

/* The paths served; anything else is 404. */
static const char *const route_paths[SERVE_R_COUNT] = {
	[SERVE_R_METRICS] = "/metrics",
	[SERVE_R_LIVE] = "/api/live",
	[SERVE_R_SERIES] = "/api/series",
	[SERVE_R_VERDICT] = "/api/verdict",
	[SERVE_R_RUNS_JSON] = "/api/runs",
	[SERVE_R_CHART] = "/chart.svg",
	[SERVE_R_SCRIPT] = "/live.js",
	[SERVE_R_ROOT] = "/",
	[SERVE_R_RUNS] = "/runs",
	[SERVE_R_REPORT] = "/report",
};

int
serve_route_find(const char *path)
{
	int	i;

	for (i = 0; i < SERVE_R_COUNT; i++)
		if (strcmp(path, route_paths[i]) == 0)
			return (i);
	return (-1);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	c = tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	return (-1);
}

/*
 * The LEN bytes at S percent-decoded into OUT (room for LEN + 1), '+' as
 * a space when PLUS (a query's form encoding).  -1 for an escape that is
 * not two hex digits, or one that makes a NUL: "/api/runs%00x" would
 * otherwise be routed as "/api/runs" by every C string compare after.
 */
static int
decode(const char *s, size_t len, int plus, char *out)
{
	size_t	i;
	int	hi, lo;

	for (i = 0; i < len; i++) {
		if (s[i] == '%') {
			if (i + 2 >= len)
				return (-1);
			if ((hi = hexval(s[i + 1])) < 0 ||
			    (lo = hexval(s[i + 2])) < 0 || (hi | lo) == 0)
				return (-1);
			*out++ = (char)(hi << 4 | lo);
			i += 2;
		} else if (s[i] == '+' && plus)
			*out++ = ' ';
		else
			*out++ = s[i];
	}
	*out = '\0';
	return (0);
}

/* 1 if the address text A (no brackets, no port) is the loopback. */
static int
loopback(const char *a)
{
	struct in_addr	v4;
	struct in6_addr	v6;

	if (inet_pton(AF_INET, a, &v4) == 1)
		return ((ntohl(v4.s_addr) >> 24) == 127);
	if (inet_pton(AF_INET6, a, &v6) == 1)
		return (IN6_IS_ADDR_LOOPBACK(&v6));
	return (0);
}

/* 1 if A and B are the same address (both literals) or name. */
static int
same_host(const char *a, const char *b)
{
	unsigned char	x[16], y[16];

	if (inet_pton(AF_INET, a, x) == 1)
		return (inet_pton(AF_INET, b, y) == 1 && memcmp(x, y, 4) == 0);
	if (inet_pton(AF_INET6, a, x) == 1)
		return (inet_pton(AF_INET6, b, y) == 1 &&
		    memcmp(x, y, 16) == 0);
	return (strcasecmp(a, b) == 0);
}

/*
 * 1 if HOST ("NAME[:PORT]", "[V6][:PORT]"; NULL: none sent) names this
 * server: localhost, a loopback address, or one of H's.  The guard
 * against DNS rebinding: a page of another site that gets its name to
 * resolve to 127.0.0.1 still sends that name.
 */
static int
host_ok(const char *host, const struct serve_hosts *h)
{
	char		 name[300];
	const char	*end, *port;
	size_t		 n, i;
	struct in_addr	 v4;
	struct in6_addr	 v6;

	if (host == NULL)
		return (1);	/* HTTP/1.0 without one: not a browser */
	if (host[0] == '[') {
		if ((end = strchr(host, ']')) == NULL)
			return (0);
		n = (size_t)(end - host - 1);
		port = end + 1;
		host++;
	} else {
		end = strchr(host, ':');
		n = end != NULL ? (size_t)(end - host) : strlen(host);
		port = host + n;
	}
	if (*port == ':' && (port[1] == '\0' || strspn(port + 1,
	    "0123456789") != strlen(port + 1) || strlen(port + 1) > 5))
		return (0);
	if ((*port != ':' && *port != '\0') || n == 0 || n >= sizeof(name))
		return (0);
	memcpy(name, host, n);
	name[n] = '\0';
	if (strcasecmp(name, "localhost") == 0 || loopback(name))
		return (1);
	/* a literal address cannot be rebound by DNS: listening on all of
	 * them, any of this host's addresses is fine */
	if (h->any_addr && (inet_pton(AF_INET, name, &v4) == 1 ||
	    inet_pton(AF_INET6, name, &v6) == 1))
		return (1);
	for (i = 0; i < SERVE_HOST_NAMES && h->names[i][0] != '\0'; i++)
		if (same_host(name, h->names[i]))
			return (1);
	return (0);
}

/* The query Q (LEN bytes, no '?') into R's arguments. */
static int
parse_query(struct serve_req *r, const char *q, size_t len, char *buf)
{
	const char	*p = q, *end = q + len, *amp, *eq;

	while (p < end) {
		if ((amp = memchr(p, '&', (size_t)(end - p))) == NULL)
			amp = end;
		if (amp == p) {
			p++;
			continue;
		}
		if (r->nargs == SERVE_ARGS_MAX)
			return (-1);
		if ((eq = memchr(p, '=', (size_t)(amp - p))) == NULL)
			eq = amp;
		r->keys[r->nargs] = buf;
		if (decode(p, (size_t)(eq - p), 1, buf) != 0)
			return (-1);
		buf += strlen(buf) + 1;
		r->vals[r->nargs] = buf;
		if (decode(eq < amp ? eq + 1 : eq, (size_t)(amp - (eq < amp ?
		    eq + 1 : eq)), 1, buf) != 0)
			return (-1);
		buf += strlen(buf) + 1;
		r->nargs++;
		p = amp;
	}
	return (0);
}

int
serve_req_parse(struct serve_req *r, const char *method, const char *uri,
    const char *host, const struct serve_hosts *hosts, const char **why)
{
	const char	*q;
	size_t		 len, plen;

	memset(r, 0, sizeof(*r));
	r->head = method != NULL && strcmp(method, "HEAD") == 0;
	if (uri == NULL) {
		*why = "bad request: no URL";
		return (400);
	}
	if ((len = strlen(uri)) > SERVE_URL_MAX) {
		*why = "URL too long (at most 4096 bytes)";
		return (414);
	}
	if (method == NULL || (strcmp(method, "GET") != 0 && !r->head)) {
		*why = "read-only: GET and HEAD only";
		return (405);
	}
	if (!host_ok(host, hosts)) {
		*why = "not this server's name: use http://127.0.0.1:PORT/ "
		    "or http://localhost:PORT/ (docs/security.md)";
		return (421);
	}
	q = strchr(uri, '?');
	plen = q != NULL ? (size_t)(q - uri) : len;
	/* every decoded string is no longer than its text: one buffer for
	 * the path and each key and value with its NUL */
	r->buf = dn_xmalloc(len + 2 * SERVE_ARGS_MAX + 2);
	r->path = r->buf;
	if (uri[0] != '/' || decode(uri, plen, 0, r->path) != 0) {
		*why = "bad URL: a path from /, escapes as %XX, no %00";
		goto bad;
	}
	if (q != NULL && parse_query(r, q + 1, len - plen - 1,
	    r->path + strlen(r->path) + 1) != 0) {
		*why = "bad query: at most 16 arguments, escapes as %XX, no "
		    "%00";
		goto bad;
	}
	return (0);
bad:
	serve_req_release(r);
	return (400);
}

const char *
serve_req_arg(const struct serve_req *r, const char *name)
{
	int	i;

	for (i = 0; i < r->nargs; i++)
		if (strcmp(r->keys[i], name) == 0)
			return (r->vals[i]);
	return (NULL);
}

void
serve_req_release(struct serve_req *r)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
}

/* Runs named by one side: GROUP:VARIANT is one, else the commas + 1. */
static size_t
side_items(const char *side)
{
	size_t	n = 1;

	if (strchr(side, ':') != NULL)
		return (1);
	for (; *side != '\0'; side++)
		n += *side == ',';
	return (n);
}

int
serve_req_sides(const struct serve_req *r, const char **a, const char **b,
    const char **why)
{
	*a = serve_req_arg(r, "a");
	*b = serve_req_arg(r, "b");
	if (*a == NULL || *b == NULL || **a == '\0' || **b == '\0') {
		*why = "want ?a=SIDE&b=SIDE (as devnet compare)";
		return (400);
	}
	if (side_items(*a) > SERVE_SIDE_RUNS ||
	    side_items(*b) > SERVE_SIDE_RUNS) {
		*why = "at most 100 run ids a side (or GROUP:VARIANT)";
		return (400);
	}
	return (0);
}
