/*
 * trial.c: the helpers over one trial's data (trial.h) that the runner,
 * the collector and the load generator share: the trial's clock, its
 * events and facts in the store, its failure reason, and taking the load
 * generator's send lags; and the providers' door into it (trial_ref,
 * trial-node.h).
 *
 * Not here: anything that starts, watches or stops a trial (runner), nor
 * the collector's or the load generator's threads.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/topo.h"
#include "store.h"
#include "trial/trial.h"
#include "trial/trial-store.h"
#include "trial/snapshot.h"
#include "clock.h"
#include "buf.h"
#include "xalloc.h"

int
trial_ready_timeout_ms(int set_ms, int nodes)
{
	return (set_ms ? set_ms : 10000 + 200 * nodes);
}

int64_t
trial_t_ms(struct trial *t, uint64_t ns)
{
	uint64_t	t0 = atomic_load(&t->t0_ns);

	if (t0 == 0)
		return (INT64_MIN);
	return (((int64_t)ns - (int64_t)t0) / 1000000);
}

/* Per thread: only the runner's own rows, never a collector's stored
 * at the same moment, answer trial_event_capture. */
static _Thread_local int64_t *capture_ms;
static _Thread_local const char *capture_kind;

void
trial_event_capture(int64_t *ms, const char *kind)
{
	capture_ms = ms;
	capture_kind = kind;
}

/* trial_event and trial_ref_event: FMT (NULL: no detail) with AP. */
static void
event_v(struct trial *t, int node, const char *kind, const char *fmt,
    va_list ap)
{
	char	*detail = NULL;
	int64_t	 tm = trial_t_ms(t, dn_now_ns());

	if (fmt != NULL && vasprintf(&detail, fmt, ap) < 0)
		detail = NULL;
	if (tm == INT64_MIN)
		tm = -(int64_t)((dn_now_ns() - t->spawn_ns) / 1000000);
	if (capture_ms != NULL && *capture_ms < 0 && capture_kind != NULL &&
	    strcmp(kind, capture_kind) == 0)
		*capture_ms = tm;
	snapshot_event(t, node, tm, kind, detail);
	trial_store_event(t, node, tm, kind, detail);
	free(detail);
}

void
trial_event(struct trial *t, int node, const char *kind, const char *fmt,
    ...)
{
	va_list	ap;

	va_start(ap, fmt);
	event_v(t, node, kind, fmt, ap);
	va_end(ap);
}

void
trial_crash_event(struct trial *t, int k, const char *st)
{
	struct trial_node	*n = &t->nodes[k];

	trial_event(t, k, "crash", "%s%s%s", st, n->exit_note != NULL ?
	    ": " : "", n->exit_note != NULL ? n->exit_note : "");
	free(n->exit_note);
	n->exit_note = NULL;
}

void
trial_fail(struct trial *t, const char *fmt, ...)
{
	va_list	ap;
	char	*msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!t->failed) {
		t->failed = 1;
		t->fail_reason = msg;
	} else
		free(msg);
}

/* trial_fact and trial_ref_fact. */
static void
fact_v(struct trial *t, int node, const char *key, const char *fmt,
    va_list ap)
{
	char	*v;

	if (vasprintf(&v, fmt, ap) < 0)
		v = NULL;
	if (v != NULL)
		trial_store_fact(t, node, key, v);
	free(v);
}

void
trial_fact(struct trial *t, int node, const char *key, const char *fmt,
    ...)
{
	va_list	ap;

	va_start(ap, fmt);
	fact_v(t, node, key, fmt, ap);
	va_end(ap);
}

void
trial_load_take_lags(struct trial_load *l, double **lags, size_t *n)
{
	pthread_mutex_lock(&l->mu);
	*lags = l->lags;
	*n = l->nlags;
	l->lags = NULL;
	l->nlags = l->caplags = 0;
	pthread_mutex_unlock(&l->mu);
}

void
trial_load_take_lat(struct trial_load *l, double **lat, size_t *n)
{
	pthread_mutex_lock(&l->mu);
	*lat = l->lat;
	*n = l->nlat;
	l->lat = NULL;
	l->nlat = l->caplat = 0;
	pthread_mutex_unlock(&l->mu);
}

void
trial_load_add_lat(struct trial_load *l, double ms)
{
	pthread_mutex_lock(&l->mu);
	l->lat = dn_xgrow(l->lat, &l->caplat, l->nlat + 1, sizeof(double));
	l->lat[l->nlat++] = ms;
	pthread_mutex_unlock(&l->mu);
}

const char *
trial_node_addr(const struct trial *t, int k, char *buf, size_t cap)
{
	if (t->net == NULL)
		return (t->nodes[k].addr);
	dn_net_addr_str(k, buf, cap);
	return (buf);
}

int
trial_load_ns(const struct trial *t)
{
	return (t->net != NULL ? dn_net_ns_fd(t->net, t->nnodes) : -1);
}

struct trial_ref *
trial_ref(struct trial *t)
{
	t->ref.t = t;
	return (&t->ref);
}

void
trial_ref_event(struct trial_ref *r, int node, const char *kind,
    const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	event_v(r->t, node, kind, fmt, ap);
	va_end(ap);
}

void
trial_ref_fact(struct trial_ref *r, int node, const char *key,
    const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	fact_v(r->t, node, key, fmt, ap);
	va_end(ap);
}

int
trial_ref_node_host(struct trial_ref *r, int k, const char *host,
    char **cause)
{
	return (trial_store_node_host(r->t, k, host, cause));
}

int
trial_ref_final_seen(struct trial_ref *r, int k)
{
	int	final;

	pthread_mutex_lock(&r->t->mu);
	final = r->t->nodes[k].final_seen;
	pthread_mutex_unlock(&r->t->mu);
	return (final);
}
