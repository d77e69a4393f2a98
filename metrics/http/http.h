/*
 * http.h: devnet's one door to libcurl (dn_http).  Two users share it:
 * devnet-probe (ready checks, the Prometheus scrape) and the
 * orchestrator's HTTP load generator (loadgen-http.c).  Nothing else in
 * the tree calls curl_*.
 *
 * Two shapes:
 *   - struct dn_http: one GET at a time on one easy handle, reused so
 *     that connections and DNS answers are kept between calls, with a
 *     body buffer reused between calls (a scrape every second allocates
 *     nothing once the buffer has grown).  Blocking (dn_http_get), or
 *     started and driven by the caller's own event loop
 *     (dn_http_get_start, dn_http_get_poll), so that the caller can let
 *     a page arrive whole before reading it instead of waking for every
 *     write of the server (docs/benchmarks.md, probe cost).
 *   - struct dn_http_multi: many requests in flight at once through
 *     libcurl's multi interface, for open-loop load: requests are added
 *     without waiting, and dn_http_multi_run reports each completion.
 *
 * Not here: what a request means (templates, success by status: the load
 * generator), the Prometheus text format (prom.h).  No thread is started;
 * every handle belongs to the thread that uses it.  Only http:// and
 * https:// URLs are followed; redirects are not.
 */
#ifndef DN_HTTP_H
#define DN_HTTP_H

#include <stddef.h>
#include <stdint.h>

/* A growing byte buffer; the body of a dn_http_get, NUL-terminated. */
struct dn_http_buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
	size_t	 max;		/* refuse bodies longer than this; 0 = 64 MB */
};

/* Free BUF's memory and zero it. */
void	 dn_http_buf_free(struct dn_http_buf *buf);

struct dn_http;

/*
 * One easy handle (initialises libcurl once per process, thread-safely).
 * Returns 0, or -1 with *CAUSE (caller frees).
 */
int	 dn_http_open(struct dn_http **hp, char **cause);
/* Accepts NULL. */
void	 dn_http_close(struct dn_http *h);

/*
 * GET URL within TIMEOUT_MS; *STATUS is the HTTP status.  The body goes
 * into BODY (replacing what it held; NUL-terminated) or is discarded
 * when BODY is NULL.  Returns 0 when an answer came (any status), or -1
 * with *CAUSE ("URL: reason") when none did: refused, timed out, body
 * over BODY->max.
 */
int	 dn_http_get(struct dn_http *h, const char *url, int timeout_ms,
	    long *status, struct dn_http_buf *body, char **cause);

/*
 * The same GET in two steps, for a caller with its own event loop.
 * dn_http_get_start sends the request (a GET still in flight is aborted
 * first) and returns at once: 0, or -1 with *CAUSE.  The answer is read
 * only by dn_http_get_poll: after waiting at most WAIT_MS for the
 * socket (0: not at all) it reads what has arrived; returns 1 while the
 * GET is in flight, else what dn_http_get returns (*STATUS, *CAUSE).
 * TIMEOUT_MS is enforced by dn_http_get_poll, so call it at least that
 * often.  dn_http_get_abort drops a GET in flight (none: no-op).
 */
int	 dn_http_get_start(struct dn_http *h, const char *url,
	    int timeout_ms, struct dn_http_buf *body, char **cause);
int	 dn_http_get_poll(struct dn_http *h, int wait_ms, long *status,
	    char **cause);
void	 dn_http_get_abort(struct dn_http *h);

/* --- many requests in flight (libcurl's multi interface) ------------- */

struct dn_http_multi;

/* One request.  Every string is copied by dn_http_multi_add. */
struct dn_http_req {
	const char	*method;	/* "GET", "POST", "PUT", ... */
	const char	*url;
	const char	*body;		/* NULL: none */
	size_t		 body_len;
	uint64_t	 tag;		/* handed back on completion */
};

/* How one request ended. */
struct dn_http_done {
	uint64_t	 tag;
	long		 status;	/* HTTP status; 0 when no answer */
	const char	*error;		/* NULL when an answer came */
};

/*
 * A multi handle.  HEADERS ("Name: value", NULL-terminated, may be NULL)
 * go with every request; TIMEOUT_MS bounds each request from the moment
 * it is added; at most MAX_CONNS connections per host are opened (more
 * requests wait inside libcurl, in order).  Returns 0 or -1 with *CAUSE.
 */
int	 dn_http_multi_open(struct dn_http_multi **mp,
	    const char *const *headers, int timeout_ms, int max_conns,
	    char **cause);
/* Abort whatever is in flight and free everything; accepts NULL. */
void	 dn_http_multi_close(struct dn_http_multi *m);

/*
 * Start R (copied; returns at once, nothing is sent until the next
 * dn_http_multi_run).  Returns 0 or -1 with *CAUSE.
 */
int	 dn_http_multi_add(struct dn_http_multi *m,
	    const struct dn_http_req *r, char **cause);

/*
 * Drive the transfers: wait at most WAIT_MS for network activity (0: do
 * what can be done now), then call DONE(ARG, d) once per request that
 * ended.  Returns the number of requests still in flight.
 */
size_t	 dn_http_multi_run(struct dn_http_multi *m, int wait_ms,
	    void (*done)(void *arg, const struct dn_http_done *d),
	    void *arg);

/* Requests added and not yet reported done. */
size_t	 dn_http_multi_inflight(const struct dn_http_multi *m);

#endif
