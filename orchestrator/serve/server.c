/*
 * server.c: the HTTP server (serve.h) on libmicrohttpd: one internal
 * thread polling with epoll, so the handlers never run two at a time and
 * share the read-only store and the verdict cache without a lock.
 *
 * Bounds: at most SERVE_CONNS connections, SERVE_PER_IP from one address
 * (more are closed at accept),
 * SERVE_TIMEOUT_S of silence closes one (a slowloris gets no further), a
 * request's line and headers must fit in SERVE_MEM bytes (a huge URL is
 * answered 414 by the library), only GET and HEAD, and only the paths of
 * the table below: nothing is read from the file system, so `..` has
 * nothing to climb.  The thread runs at nice 10: a busy scraper takes CPU
 * from devnet's page before it takes any from the trial.
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

#define SERVE_CONNS	256
#define SERVE_PER_IP	128	/* one address cannot take them all */
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

/* The answer to PATH into R. */
static void
route(struct serve *s, struct MHD_Connection *c, const char *path,
    struct reply *r)
{
	if (strcmp(path, "/metrics") == 0)
		serve_metrics(s, wants_openmetrics(c), r);
	else if (strcmp(path, "/api/live") == 0)
		serve_api_live(s, r);
	else if (strcmp(path, "/api/series") == 0)
		serve_api_series(s, c, r);
	else if (strcmp(path, "/api/verdict") == 0)
		serve_api_verdict(s, c, r);
	else if (strcmp(path, "/api/runs") == 0)
		serve_api_runs(s, r);
	else if (strcmp(path, "/chart.svg") == 0 && s->snap != NULL)
		serve_chart(s, c, r);
	else if (strcmp(path, "/") == 0 && s->snap != NULL)
		serve_page_live(s, r);
	else if (strcmp(path, "/") == 0 || strcmp(path, "/runs") == 0)
		serve_browse_index(s, r);
	else if (strcmp(path, "/report") == 0)
		serve_browse_report(s, c, r);
	else
		serve_error(r, 404, "not found");
}

static enum MHD_Result
answer(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_len, void **state)
{
	struct serve		*s = cls;
	struct MHD_Response	*resp;
	struct reply		 r = { 200, "text/plain; charset=utf-8", NULL };
	char			*buf = NULL;
	size_t			 len = 0;
	enum MHD_Result		 rv;
	static int		 first;

	(void)version;
	(void)upload;
	if (*state == NULL) {
		/* the headers only: wait for the (empty) body */
		*state = &first;
		return (MHD_YES);
	}
	if (*upload_len != 0)
		return (MHD_NO);	/* a body: not ours to read */
	r.body = open_memstream(&buf, &len);
	if (r.body == NULL)
		return (MHD_NO);
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		serve_error(&r, 405, "read-only: GET and HEAD only");
	else
		route(s, c, url, &r);
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
	    "default-src 'self'; script-src 'self' 'unsafe-inline'; "
	    "style-src 'unsafe-inline'; img-src 'self' data:");
	if (r.status == 405)
		MHD_add_response_header(resp, "Allow", "GET, HEAD");
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

/* The server thread's first connection lowers its priority (nice 10). */
static void
lower_priority(void *cls, struct MHD_Connection *c, void **sock,
    enum MHD_ConnectionNotificationCode code)
{
	static int	done;

	(void)cls;
	(void)c;
	(void)sock;
	if (code == MHD_CONNECTION_NOTIFY_STARTED && !done) {
		done = 1;
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	}
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
				    MHD_USE_EPOLL;

	*sp = NULL;
	if (parse_addr(addr, &sa, &salen, host, sizeof(host), cause) != 0)
		return (-1);
	if (sa.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	s = dn_xcalloc(1, sizeof(*s));
	s->snap = snap;
	s->db = db != NULL ? dn_xstrdup(db) : NULL;
	s->verdict_ended = -1;
	s->d = MHD_start_daemon(flags, 0, NULL, NULL, answer, s,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)SERVE_CONNS,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)SERVE_PER_IP,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_MEM,
	    MHD_OPTION_NOTIFY_CONNECTION, lower_priority, NULL,
	    MHD_OPTION_END);
	if (s->d == NULL) {
		*cause = dn_xasprintf("--serve %s: cannot listen there (in "
		    "use, or not an address of this host)", addr);
		free(s->db);
		free(s);
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
	if (s == NULL)
		return;
	MHD_stop_daemon(s->d);
	dn_store_close(s->store);
	free(s->verdict_json);
	free(s->db);
	free(s);
}
