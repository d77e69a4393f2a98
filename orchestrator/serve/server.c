/*
 * server.c: the HTTP server (serve.h) on libmicrohttpd: a listening
 * thread at nice 10 and a thread per connection (they inherit its nice),
 * so a long /report does not hold up /metrics; what the handlers share is
 * under the locks of serve-internal.h.
 *
 * Bounds (docs/security.md): SERVE_CONNS places, the longest idle giving
 * its place to a newcomer (conns.c), so no local process can keep
 * Prometheus out; the library's hard limit twice that; SERVE_TIMEOUT_S of
 * silence closes one; a request's line and headers must fit in SERVE_MEM
 * bytes (414/431 by the library), its URL in SERVE_URL_MAX; GET and HEAD
 * only (405 with Allow, a body never read); a Host that names this server
 * (421 otherwise: DNS rebinding); only the paths of request.c's table,
 * nothing read from the file system, so `..` has nothing to climb.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <microhttpd.h>

#include "serve/serve.h"
#include "serve/serve-internal.h"
#include "store.h"
#include "xalloc.h"

#define SERVE_TIMEOUT_S	10
#define SERVE_MEM	(32 * 1024)

/* 1 if the scraper asks for OpenMetrics (Accept names it). */
static int
wants_openmetrics(struct MHD_Connection *c)
{
	const char	*a = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
			    MHD_HTTP_HEADER_ACCEPT);

	return (a != NULL && strstr(a, "application/openmetrics-text") !=
	    NULL);
}

/* The answer to Q into R. */
static void
route(struct serve *s, struct MHD_Connection *c, const struct serve_req *q,
    struct reply *r)
{
	switch (serve_route_find(q->path)) {
	case SERVE_R_METRICS:
		serve_metrics(s, wants_openmetrics(c), r);
		return;
	case SERVE_R_LIVE:
		serve_api_live(s, r);
		return;
	case SERVE_R_SERIES:
		serve_api_series(s, q, r);
		return;
	case SERVE_R_VERDICT:
		serve_api_verdict(s, q, r);
		return;
	case SERVE_R_RUNS_JSON:
		serve_api_runs(s, r);
		return;
	case SERVE_R_CHART:
		if (s->snap != NULL) {
			serve_chart(s, q, r);
			return;
		}
		break;
	case SERVE_R_SCRIPT:
		if (s->snap != NULL) {
			serve_page_script(r);
			return;
		}
		break;
	case SERVE_R_ROOT:
		if (s->snap != NULL)
			serve_page_live(s, r);
		else
			serve_browse_index(s, r);
		return;
	case SERVE_R_RUNS:
		serve_browse_index(s, r);
		return;
	case SERVE_R_REPORT:
		serve_browse_report(s, q, r);
		return;
	}
	serve_error(r, 404, "not found");
}

/* The place of C in conns.c (its socket context), or NULL. */
static struct serve_conn *
place_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return (ci != NULL ? ci->socket_context : NULL);
}

/* The raw URI as sent, before the library splits and unescapes it: kept
 * for request.c as the request's state (freed in completed()). */
static void *
uri_seen(void *cls, const char *uri, struct MHD_Connection *c)
{
	(void)cls;
	(void)c;
	return (dn_xstrdup(uri));
}

/* The request is over: its raw URI freed, its connection idle again. */
static void
completed(void *cls, struct MHD_Connection *c, void **state,
    enum MHD_RequestTerminationCode code)
{
	struct serve	*s = cls;

	(void)code;
	free(*state);
	*state = NULL;
	serve_conns_busy(s->conns, place_of(c), 0);
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_len, void **state)
{
	struct serve		*s = cls;
	struct MHD_Response	*resp;
	struct reply		 r = { 200, "text/plain; charset=utf-8", NULL,
				    -1 };
	struct serve_req	 q;
	const char		*why;
	char			*buf = NULL;
	size_t			 len = 0;
	enum MHD_Result		 rv;
	int			 st;

	(void)url;
	(void)version;
	(void)upload;
	(void)upload_len;
	serve_conns_busy(s->conns, place_of(c), 1);
	/* answered at once, on the headers: a body is never read (the
	 * library closes the connection after the answer) */
	r.body = open_memstream(&buf, &len);
	if (r.body == NULL)
		return (MHD_NO);
	st = serve_req_parse(&q, method, *state, MHD_lookup_connection_value(
	    c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST), &s->hosts, &why);
	if (st != 0)
		serve_error(&r, st, "%s", why);
	else {
		route(s, c, &q, &r);
		serve_req_release(&q);
	}
	serve_store_release(s, &r);
	fclose(r.body);
	resp = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(buf);
		return (MHD_NO);
	}
	MHD_add_response_header(resp, "Content-Type", r.type);
	MHD_add_response_header(resp, "Cache-Control", "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Content-Security-Policy",
	    "default-src 'self'; script-src 'self'; "
	    "style-src 'unsafe-inline'; img-src 'self' data:");
	if (r.status == 405)
		MHD_add_response_header(resp, "Allow", "GET, HEAD");
	if (r.status == 503)
		MHD_add_response_header(resp, "Retry-After", "1");
	rv = MHD_queue_response(c, (unsigned)r.status, resp);
	MHD_destroy_response(resp);
	return (rv);
}

/* ADDR ("PORT", "HOST:PORT", "[V6]:PORT") into *SA. */
static int
parse_addr(const char *addr, struct sockaddr_storage *sa, socklen_t *salen,
    char *host, size_t hostlen, char **cause)
{
	struct addrinfo	 hints = { .ai_socktype = SOCK_STREAM,
			    .ai_flags = AI_NUMERICSERV }, *res = NULL;
	const char	*colon = strrchr(addr, ':'), *port = addr;
	char		 h[256] = "127.0.0.1";
	int		 rv;

	if (colon != NULL) {
		const char	*b = addr, *e = colon;

		if (*b == '[' && e > b && e[-1] == ']') {
			b++;
			e--;
		}
		snprintf(h, sizeof(h), "%.*s", (int)(e - b), b);
		port = colon + 1;
	}
	if (*port == '\0' || strspn(port, "0123456789") != strlen(port) ||
	    strlen(port) > 5 || atoi(port) > 65535 || h[0] == '\0') {
		*cause = dn_xasprintf("--serve takes [ADDR:]PORT, not '%s'",
		    addr);
		return (-1);
	}
	if ((rv = getaddrinfo(h, port, &hints, &res)) != 0) {
		*cause = dn_xasprintf("--serve %s: %s", addr,
		    gai_strerror(rv));
		return (-1);
	}
	memcpy(sa, res->ai_addr, res->ai_addrlen);
	*salen = res->ai_addrlen;
	freeaddrinfo(res);
	snprintf(host, hostlen, "%s%s%s", sa->ss_family == AF_INET6 ? "[" :
	    "", h, sa->ss_family == AF_INET6 ? "]" : "");
	return (0);
}

/*
 * A connection opens (in the listening thread, before the library makes
 * the connection's thread): it takes a place (conns.c); the first also
 * lowers the listening thread's priority to nice 10, which the threads it
 * makes inherit.  It closes (before its descriptor is): the place is let
 * go.
 */
static void
notify(void *cls, struct MHD_Connection *c, void **sock,
    enum MHD_ConnectionNotificationCode code)
{
	struct serve			*s = cls;
	const union MHD_ConnectionInfo	*ci;
	static int			 done;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		if (!done) {
			done = 1;
			setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid),
			    10);
		}
		ci = MHD_get_connection_info(c,
		    MHD_CONNECTION_INFO_CONNECTION_FD);
		if (ci != NULL)
			*sock = serve_conns_add(s->conns, ci->connect_fd);
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		serve_conns_remove(s->conns, *sock);
		*sock = NULL;
	}
}

/* The names a Host may say (serve-internal.h) for ADDR's host part H,
 * listening on SA. */
static void
hosts_init(struct serve_hosts *hs, const char *h,
    const struct sockaddr_storage *sa)
{
	const struct sockaddr_in	*v4 = (const void *)sa;
	const struct sockaddr_in6	*v6 = (const void *)sa;

	size_t				 n = strlen(h);

	memset(hs, 0, sizeof(*hs));
	if (h[0] == '[' && n > 1 && h[n - 1] == ']')	/* "[::1]" */
		snprintf(hs->names[0], sizeof(hs->names[0]), "%.*s",
		    (int)(n - 2), h + 1);
	else
		snprintf(hs->names[0], sizeof(hs->names[0]), "%s", h);
	hs->any_addr = sa->ss_family == AF_INET ? v4->sin_addr.s_addr ==
	    htonl(INADDR_ANY) : IN6_IS_ADDR_UNSPECIFIED(&v6->sin6_addr);
	if (hs->any_addr && gethostname(hs->names[1],
	    sizeof(hs->names[1]) - 1) != 0)
		hs->names[1][0] = '\0';
}

int
serve_start(struct serve **sp, const char *addr, struct snapshot *snap,
    const char *db, char **cause)
{
	struct sockaddr_storage	 sa;
	socklen_t		 salen;
	struct serve		*s;
	const union MHD_DaemonInfo *di;
	char			 host[300];
	unsigned		 flags = MHD_USE_INTERNAL_POLLING_THREAD |
				    MHD_USE_THREAD_PER_CONNECTION |
				    MHD_USE_POLL;

	*sp = NULL;
	if (parse_addr(addr, &sa, &salen, host, sizeof(host), cause) != 0)
		return (-1);
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s = dn_xcalloc(1, sizeof(*s));
	s->snap = snap;
	s->db = db != NULL ? dn_xstrdup(db) : NULL;
	s->verdict_ended = -1;
	hosts_init(&s->hosts, host, &sa);
	s->conns = serve_conns_new(SERVE_CONNS);
	pthread_mutex_init(&s->store_mu, NULL);
	pthread_cond_init(&s->store_cv, NULL);
	pthread_mutex_init(&s->verdict_mu, NULL);
	s->d = MHD_start_daemon(flags, 0, NULL, NULL, answer, s,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)(2 * SERVE_CONNS),
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_MEM,
	    MHD_OPTION_NOTIFY_CONNECTION, notify, s,
	    MHD_OPTION_URI_LOG_CALLBACK, uri_seen, NULL,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, s,
	    MHD_OPTION_END);
	if (s->d == NULL) {
		*cause = dn_xasprintf("--serve %s: cannot listen there (in "
		    "use, or not an address of this host)", addr);
		serve_stop(s);
		return (-1);
	}
	di = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	snprintf(s->url, sizeof(s->url), "http://%s:%u/", host,
	    di != NULL ? (unsigned)di->port : 0);
	*sp = s;
	(void)salen;
	return (0);
}

const char *
serve_url(const struct serve *s)
{
	return (s->url);
}

void
serve_stop(struct serve *s)
{
	int	i;

	if (s == NULL)
		return;
	if (s->d != NULL)
		MHD_stop_daemon(s->d);
	for (i = 0; i < SERVE_STORES; i++)
		dn_store_close(s->stores[i]);
	serve_conns_free(s->conns);
	pthread_cond_destroy(&s->store_cv);
	pthread_mutex_destroy(&s->store_mu);
	pthread_mutex_destroy(&s->verdict_mu);
	free(s->verdict_json);
	free(s->db);
	free(s);
}
