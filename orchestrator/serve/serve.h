/*
 * serve.h: the HTTP server of `devnet run|ab --serve [ADDR:]PORT` and
 * `devnet serve --db FILE` (docs/live.md): a live page, /metrics for
 * Prometheus, /api/... JSON; for stored runs a list, the report of two
 * sides, their verdict.  libmicrohttpd, read-only, bounded connections and
 * timeouts; it reads the run's snapshot (trial/snapshot.h), never the
 * trial, and the database through a read-only connection of its own.
 */
#ifndef DN_SERVE_H
#define DN_SERVE_H

struct snapshot;
struct serve;

/*
 * Listen on ADDR ("PORT", "HOST:PORT", "[V6]:PORT"; a bare port is
 * 127.0.0.1) and serve SNAP (NULL: stored runs only) and the database DB
 * (read-only; NULL: none).  Prints nothing.  0, or -1 with *CAUSE.
 */
int	 serve_start(struct serve **sp, const char *addr, struct snapshot *snap,
	    const char *db, char **cause);
/* "http://HOST:PORT/" the server listens on (owned by it). */
const char *serve_url(const struct serve *);
/* Stop and free; accepts NULL. */
void	 serve_stop(struct serve *);

#endif
