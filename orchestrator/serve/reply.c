/*
 * reply.c: what every handler of the server uses (serve-internal.h): an
 * error reply, the read-only database, numbers as text.  Called by the
 * handlers, never calling them.
 *
 * The database: SERVE_STORES read-only connections, one per request that
 * asks, so a long /report does not hold up /api/runs; a request that
 * finds both busy waits a second at most, and past SERVE_STORE_WAITERS
 * waiting is told 503 at once: requests waiting on the database cannot
 * fill the server's places (conns.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "serve/serve-internal.h"
#include "store.h"

void
serve_error(struct reply *r, int status, const char *fmt, ...)
{
	va_list	ap;

	r->status = status;
	r->type = "text/plain; charset=utf-8";
	va_start(ap, fmt);
	vfprintf(r->body, fmt, ap);
	va_end(ap);
	fputc('\n', r->body);
}

/* A free slot of S's stores, waiting a second at most; -1 if none. */
static int
take_slot(struct serve *s)
{
	struct timespec	until;
	int		i, rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	pthread_mutex_lock(&s->store_mu);
	for (;;) {
		for (i = 0; i < SERVE_STORES && s->store_busy[i]; i++)
			continue;
		if (i < SERVE_STORES) {
			s->store_busy[i] = 1;
			break;
		}
		if (rc == ETIMEDOUT ||
		    s->store_waiting >= SERVE_STORE_WAITERS) {
			i = -1;
			break;
		}
		s->store_waiting++;
		rc = pthread_cond_timedwait(&s->store_cv, &s->store_mu,
		    &until);
		s->store_waiting--;
	}
	pthread_mutex_unlock(&s->store_mu);
	return (i);
}

struct dn_store *
serve_store(struct serve *s, struct reply *r)
{
	char	*cause = NULL;
	int	 i;

	if (r->store >= 0)
		return (s->stores[r->store]);
	if (s->db == NULL) {
		serve_error(r, 404, "no database");
		return (NULL);
	}
	if ((i = take_slot(s)) < 0) {
		serve_error(r, 503, "busy: every database connection is in "
		    "use; try again in a second");
		return (NULL);
	}
	r->store = i;
	/* the slot is this request's alone: open it without the lock */
	if (s->stores[i] == NULL && dn_store_open(&s->stores[i], s->db,
	    DN_STORE_RDONLY, &cause) != 0) {
		serve_error(r, 503, "database: %s", cause);
		free(cause);
		s->stores[i] = NULL;
		serve_store_release(s, r);
		return (NULL);
	}
	return (s->stores[i]);
}

void
serve_store_release(struct serve *s, struct reply *r)
{
	if (r->store < 0)
		return;
	pthread_mutex_lock(&s->store_mu);
	s->store_busy[r->store] = 0;
	pthread_cond_signal(&s->store_cv);
	pthread_mutex_unlock(&s->store_mu);
	r->store = -1;
}

