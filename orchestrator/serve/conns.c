/*
 * conns.c: who holds a place on the server (serve-internal.h).  Every
 * local client comes from 127.0.0.1, so a per-address limit cannot tell
 * Prometheus from a process that opens 128 sockets and says nothing;
 * instead, past SERVE_CONNS connections a new one takes the place of the
 * one idle the longest: waiting for its first request (or still
 * trickling its headers, a slowloris), or between two requests.  A
 * connection whose request is being answered keeps its place, unless it
 * has been at it longer than SERVE_SLOW_S (a client that does not read
 * its answer) and nothing is idle.  A place is taken back by shutting the
 * socket down: its thread in the library sees the end and closes it; the
 * library calls serve_conns_remove before it closes the descriptor, and
 * both run under the one mutex here, so a descriptor is never shut down
 * after it was closed and reused.
 *
 * Not here: the library's own hard limit (server.c, twice SERVE_CONNS,
 * for the moments between a shutdown and the close).
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "serve/serve-internal.h"
#include "xalloc.h"

struct serve_conn {
	int			 fd;
	int			 busy;
	int			 evicted;
	int64_t			 since_ms;	/* idle or busy since */
	struct serve_conn	*prev, *next;	/* in its list, oldest first */
};

struct list {
	struct serve_conn	*head, *tail;
};

struct serve_conns {
	pthread_mutex_t		 mu;
	struct list		 idle, busy;
	int			 n;		/* holding a place */
	int			 cap;
};

static int64_t
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}

static void
unlink_conn(struct list *l, struct serve_conn *c)
{
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		l->head = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	else
		l->tail = c->prev;
	c->prev = c->next = NULL;
}

static void
append(struct list *l, struct serve_conn *c)
{
	c->prev = l->tail;
	c->next = NULL;
	if (l->tail != NULL)
		l->tail->next = c;
	else
		l->head = c;
	l->tail = c;
}

struct serve_conns *
serve_conns_new(int cap)
{
	struct serve_conns	*cs = dn_xcalloc(1, sizeof(*cs));

	pthread_mutex_init(&cs->mu, NULL);
	cs->cap = cap;
	return (cs);
}

void
serve_conns_free(struct serve_conns *cs)
{
	struct serve_conn	*c;

	if (cs == NULL)
		return;
	while ((c = cs->idle.head) != NULL) {
		unlink_conn(&cs->idle, c);
		free(c);
	}
	while ((c = cs->busy.head) != NULL) {
		unlink_conn(&cs->busy, c);
		free(c);
	}
	pthread_mutex_destroy(&cs->mu);
	free(cs);
}

/* Take back the place of the one idle longest (or busy far too long). */
static void
evict_one(struct serve_conns *cs, int64_t now)
{
	struct serve_conn	*c = NULL;

	for (c = cs->idle.head; c != NULL && c->evicted; c = c->next)
		continue;
	if (c == NULL) {
		for (c = cs->busy.head; c != NULL && c->evicted; c = c->next)
			continue;
		if (c != NULL && now - c->since_ms < SERVE_SLOW_S * 1000)
			c = NULL;
	}
	if (c == NULL)
		return;
	c->evicted = 1;
	cs->n--;
	shutdown(c->fd, SHUT_RDWR);
}

struct serve_conn *
serve_conns_add(struct serve_conns *cs, int fd)
{
	struct serve_conn	*c = dn_xcalloc(1, sizeof(*c));
	int64_t			 now = now_ms();

	c->fd = fd;
	c->since_ms = now;
	pthread_mutex_lock(&cs->mu);
	if (cs->n >= cs->cap)
		evict_one(cs, now);
	append(&cs->idle, c);
	cs->n++;
	pthread_mutex_unlock(&cs->mu);
	return (c);
}

void
serve_conns_busy(struct serve_conns *cs, struct serve_conn *c, int busy)
{
	if (c == NULL || c->busy == busy)
		return;
	pthread_mutex_lock(&cs->mu);
	unlink_conn(busy ? &cs->idle : &cs->busy, c);
	c->busy = busy;
	c->since_ms = now_ms();
	append(busy ? &cs->busy : &cs->idle, c);
	pthread_mutex_unlock(&cs->mu);
}

void
serve_conns_remove(struct serve_conns *cs, struct serve_conn *c)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&cs->mu);
	unlink_conn(c->busy ? &cs->busy : &cs->idle, c);
	if (!c->evicted)
		cs->n--;
	pthread_mutex_unlock(&cs->mu);
	free(c);
}
