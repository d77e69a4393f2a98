/*
 * serve-internal.h: what the files of the server share (server.c reads
 * requests and answers; request.c what a request asks; conns.c who holds
 * a place; prom.c /metrics; api.c /api/...; page.c the live page and its
 * charts; browse.c stored runs).  Each handler writes its body on a
 * memory stream and says its status and type; nothing here writes.
 *
 * Handlers run on the connections' own threads, several at once: what
 * they share (the stores, the verdict cache) is under the locks below.
 */
#ifndef DN_SERVE_INTERNAL_H
#define DN_SERVE_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "metric-table.h"

struct snapshot;
struct dn_store;

/* Limits of one request and of the server (docs/security.md). */
#define SERVE_CONNS	64	/* places; past them the longest idle goes */
#define SERVE_SLOW_S	5	/* an answer not read by then can go too */
#define SERVE_URL_MAX	4096	/* a request's URL, path and query */
#define SERVE_ARGS_MAX	16	/* arguments of a query */
#define SERVE_SIDE_RUNS	100	/* run ids of one side of /report */
#define SERVE_STORES	2	/* database connections, one per request */
#define SERVE_STORE_WAITERS 8	/* requests waiting for one; more: 503 */
#define SERVE_HOST_NAMES 2

/* The names a request's Host may say, besides localhost and loopback
 * addresses: the address it listens on as given, this host's name when
 * it listens on all addresses (ANY_ADDR: then any address literal). */
struct serve_hosts {
	int	any_addr;
	char	names[SERVE_HOST_NAMES][300];
};

struct serve_conns;
struct serve_conn;

struct serve {
	struct MHD_Daemon	*d;
	struct snapshot		*snap;
	char			*db;
	char			 url[340];
	struct serve_hosts	 hosts;
	struct serve_conns	*conns;
	/* read-only connections to DB, opened when first asked; a request
	 * holds one (busy) from serve_store until its answer is made */
	pthread_mutex_t		 store_mu;
	pthread_cond_t		 store_cv;
	struct dn_store		*stores[SERVE_STORES];
	int			 store_busy[SERVE_STORES];
	int			 store_waiting;
	/* the live verdict, redone when another trial ended */
	pthread_mutex_t		 verdict_mu;
	int			 verdict_ended;
	char			*verdict_json;
};

/* The routes (request.c's table). */
enum serve_route {
	SERVE_R_METRICS, SERVE_R_LIVE, SERVE_R_SERIES, SERVE_R_VERDICT,
	SERVE_R_RUNS_JSON, SERVE_R_CHART, SERVE_R_SCRIPT, SERVE_R_ROOT,
	SERVE_R_RUNS, SERVE_R_REPORT, SERVE_R_COUNT
};

/* A request taken apart: its path and arguments, percent-decoded. */
struct serve_req {
	int	 head;
	char	*path;
	int	 nargs;
	char	*keys[SERVE_ARGS_MAX], *vals[SERVE_ARGS_MAX];
	char	*buf;
};

/* One answer: the handler fills status, type and writes on body. */
struct reply {
	int		 status;
	const char	*type;
	FILE		*body;
	int		 store;		/* the slot it holds, or -1 */
};

/* --- request.c: what a request asks ---------------------------------- */

/*
 * METHOD, the raw URI (path and query as sent) and HOST (the header, or
 * NULL) into *R: 0, or the status of the refusal with *WHY (static text):
 * 414 a URL over SERVE_URL_MAX, 405 a method but GET and HEAD, 421 a Host
 * that is not this server's, 400 a path not from '/', an
 * escape not %XX, a %00, more than SERVE_ARGS_MAX arguments.  On 0 the
 * caller releases *R with serve_req_release.
 */
int	 serve_req_parse(struct serve_req *r, const char *method,
	    const char *uri, const char *host, const struct serve_hosts *h,
	    const char **why);
/* The argument NAME of R (the first of that name), or NULL. */
const char *serve_req_arg(const struct serve_req *r, const char *name);
void	 serve_req_release(struct serve_req *r);
/* The route of the decoded PATH, or -1. */
int	 serve_route_find(const char *path);
/* The sides ?a=&b= of R: 0, or 400 with *WHY when one is missing or
 * names more than SERVE_SIDE_RUNS runs (a request's cost is bounded). */
int	 serve_req_sides(const struct serve_req *r, const char **a,
	    const char **b, const char **why);

/* --- conns.c: who holds a place --------------------------------------- */

struct serve_conns *serve_conns_new(int cap);
void	 serve_conns_free(struct serve_conns *cs);
/* A new connection on socket FD, idle: its record.  When CAP already
 * hold a place, the one idle longest loses it (its socket shut down). */
struct serve_conn *serve_conns_add(struct serve_conns *cs, int fd);
/* C's request is being answered (BUSY 1) or was (0). */
void	 serve_conns_busy(struct serve_conns *cs, struct serve_conn *c,
	    int busy);
/* C is closed (before its descriptor is): frees C; accepts NULL. */
void	 serve_conns_remove(struct serve_conns *cs, struct serve_conn *c);

/* --- reply.c: what every handler uses -------------------------------- */

/* A read-only connection to the database for this request (held in R
 * until serve_store_release), opened on first use; NULL (and a 404 or
 * 503 reply) when there is none, it cannot be opened, or all are busy
 * for a second with SERVE_STORE_WAITERS waiting already. */
struct dn_store *serve_store(struct serve *s, struct reply *r);
/* Give back the connection R holds, if any. */
void	 serve_store_release(struct serve *s, struct reply *r);
/* A plain-text error reply. */
void	 serve_error(struct reply *r, int status, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* --- prom.c --------------------------------------------------------- */

/* /metrics; OPENMETRICS: the OpenMetrics text, else 0.0.4. */
void	 serve_metrics(struct serve *s, int openmetrics, struct reply *r);

/* --- api.c ---------------------------------------------------------- */

void	 serve_api_live(struct serve *s, struct reply *r);
void	 serve_api_series(struct serve *s, const struct serve_req *q,
	    struct reply *r);
void	 serve_api_verdict(struct serve *s, const struct serve_req *q,
	    struct reply *r);
void	 serve_api_runs(struct serve *s, struct reply *r);

/* --- page.c --------------------------------------------------------- */

/* The live page (/), its script (/live.js: no inline script, so the
 * CSP's script-src is 'self' only) and one of its charts
 * (/chart.svg?metric=NAME). */
void	 serve_page_live(struct serve *s, struct reply *r);
void	 serve_page_script(struct reply *r);
void	 serve_chart(struct serve *s, const struct serve_req *q,
	    struct reply *r);

/* --- browse.c ------------------------------------------------------- */

/* Stored runs (/ without a run, /runs) and the report of two sides
 * (/report?a=A&b=B). */
void	 serve_browse_index(struct serve *s, struct reply *r);
void	 serve_browse_report(struct serve *s, const struct serve_req *q,
	    struct reply *r);

#endif
