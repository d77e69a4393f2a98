/*
 * snapshot.c: the live copy of a run for the server (snapshot.h).
 *
 * One mutex for the plan (taken when a trial begins or ends and by the
 * server's copy), one per trial (taken by its collector for each sample,
 * by the runner each tick, and by the server's copy).  The collector
 * holds a trial's for a memcpy of one sample and an append per metric;
 * nothing is formatted or allocated for the server under either, beyond
 * a series' first point.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trial/snapshot.h"
#include "trial/trial.h"
#include "plan/plan.h"
#include "clock.h"
#include "xalloc.h"

struct series {
	int32_t	*t;	/* ms */
	double	*v;
	size_t	 n;
	int	 stride;	/* keep every stride-th sample */
	int	 skip;		/* samples since the last kept */
};

struct snap_trial {
	pthread_mutex_t		 mu;
	struct snapshot		*snap;
	struct snap_trial_view	 v;	/* nodes, events: owned here */
	size_t			 ev_head;	/* ring: next slot */
	uint64_t		 t0_ns;
	struct series		*series;	/* (nnodes + 1) * COUNT */
};

struct snapshot {
	pthread_mutex_t		 mu;
	char			*scenario;
	int64_t			 group_id;
	int			 ntrials;
	int			 ended;
	struct snap_trial	**trials;	/* by plan index */
};

struct snapshot *
snapshot_new(void)
{
	struct snapshot	*s = dn_xcalloc(1, sizeof(*s));

	pthread_mutex_init(&s->mu, NULL);
	return (s);
}

static void
trial_free(struct snap_trial *st)
{
	size_t	i, nser;

	if (st == NULL)
		return;
	nser = (size_t)(st->v.nnodes + 1) * DN_METRIC_COUNT;
	for (i = 0; st->series != NULL && i < nser; i++) {
		free(st->series[i].t);
		free(st->series[i].v);
	}
	free(st->series);
	for (i = 0; st->v.nodes != NULL && i <= (size_t)st->v.nnodes; i++)
		free(st->v.nodes[i].host);
	free(st->v.nodes);
	free(st->v.events);
	free(st->v.variant);
	free(st->v.status);
	pthread_mutex_destroy(&st->mu);
	free(st);
}

void
snapshot_free(struct snapshot *s)
{
	int	i;

	if (s == NULL)
		return;
	for (i = 0; i < s->ntrials; i++)
		trial_free(s->trials[i]);
	free(s->trials);
	free(s->scenario);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

void
snapshot_plan(struct snapshot *s, const char *scenario, int64_t group_id,
    const struct plan_trial *plan, size_t n, int64_t duration_ms,
    int64_t warmup_ms, int64_t interval_ms)
{
	size_t	i;

	pthread_mutex_lock(&s->mu);
	s->scenario = dn_xstrdup(scenario);
	s->group_id = group_id;
	s->trials = dn_xcalloc(n, sizeof(*s->trials));
	for (i = 0; i < n; i++) {
		struct snap_trial	*st = dn_xcalloc(1, sizeof(*st));

		pthread_mutex_init(&st->mu, NULL);
		st->snap = s;
		st->v.index = (int)i;
		st->v.slot = plan[i].slot;
		st->v.variant = dn_xstrdup(plan[i].variant->name);
		st->v.duration_ms = duration_ms;
		st->v.warmup_ms = warmup_ms;
		st->v.interval_ms = interval_ms;
		st->v.state = SNAP_PLANNED;
		s->trials[i] = st;
	}
	s->ntrials = (int)n;
	pthread_mutex_unlock(&s->mu);
}

/* The host a node runs on, for the `host` label: its address when it is
 * on another host, else this machine's name. */
static char *
node_host(const struct trial_node *n)
{
	char	name[256];

	if (n->addr != NULL && strcmp(n->addr, "127.0.0.1") != 0)
		return (dn_xstrdup(n->addr));
	if (gethostname(name, sizeof(name)) != 0)
		return (dn_xstrdup("localhost"));
	name[sizeof(name) - 1] = '\0';
	return (dn_xstrdup(name));
}

void
snapshot_trial_begin(struct snapshot *s, struct trial *t)
{
	struct snap_trial	*st;
	int			 k;

	if (s == NULL || t->pt.index < 0 || t->pt.index >= s->ntrials)
		return;
	st = s->trials[t->pt.index];
	pthread_mutex_lock(&s->mu);
	pthread_mutex_lock(&st->mu);
	st->v.run_id = t->run_id;
	st->v.nnodes = t->nnodes;
	st->v.state = SNAP_STARTING;
	snprintf(st->v.cpus, sizeof(st->v.cpus), "%s", t->pin_cpus);
	st->v.nodes = dn_xcalloc((size_t)t->nnodes + 1, sizeof(*st->v.nodes));
	for (k = 0; k <= t->nnodes; k++) {
		st->v.nodes[k].node = k < t->nnodes ? k : -1;
		st->v.nodes[k].host = k < t->nnodes ?
		    node_host(&t->nodes[k]) : node_host(&(struct trial_node){
		    .addr = NULL });
	}
	st->v.events = dn_xcalloc(SNAP_EVENTS, sizeof(*st->v.events));
	st->series = dn_xcalloc(((size_t)t->nnodes + 1) * DN_METRIC_COUNT,
	    sizeof(*st->series));
	pthread_mutex_unlock(&st->mu);
	pthread_mutex_unlock(&s->mu);
	t->snap = st;
}

void
snapshot_trial_start(struct trial *t)
{
	struct snap_trial	*st = t->snap;

	if (st == NULL)
		return;
	pthread_mutex_lock(&st->mu);
	st->t0_ns = atomic_load(&t->t0_ns);
	st->v.state = SNAP_RUNNING;
	pthread_mutex_unlock(&st->mu);
}

void
snapshot_trial_watch(struct trial *t)
{
	struct snap_trial	*st = t->snap;
	int			 k;

	if (st == NULL)
		return;
	pthread_mutex_lock(&st->mu);
	for (k = 0; k < t->nnodes && k < st->v.nnodes; k++) {
		const struct trial_node	*n = &t->nodes[k];

		st->v.nodes[k].state = n->crashed ? SNAP_NODE_CRASHED :
		    n->done ? SNAP_NODE_DONE : n->stopped ? SNAP_NODE_PAUSED :
		    n->down ? SNAP_NODE_DOWN : SNAP_NODE_UP;
	}
	pthread_mutex_unlock(&st->mu);
}

void
snapshot_trial_end(struct trial *t, const char *status)
{
	struct snap_trial	*st = t->snap;

	if (st == NULL)
		return;
	snapshot_trial_watch(t);
	pthread_mutex_lock(&st->snap->mu);
	pthread_mutex_lock(&st->mu);
	if (st->v.state != SNAP_ENDED)
		st->snap->ended++;
	st->v.state = SNAP_ENDED;
	free(st->v.status);
	st->v.status = dn_xstrdup(status);
	pthread_mutex_unlock(&st->mu);
	pthread_mutex_unlock(&st->snap->mu);
}

/* Append (T_MS, V) to SE, thinning it when full. */
static void
series_add(struct series *se, int64_t t_ms, double v)
{
	size_t	i;

	if (se->t == NULL) {
		se->t = dn_xcalloc(SNAP_POINTS, sizeof(*se->t));
		se->v = dn_xcalloc(SNAP_POINTS, sizeof(*se->v));
		se->stride = 1;
	}
	if (++se->skip < se->stride)
		return;
	se->skip = 0;
	if (se->n == SNAP_POINTS) {
		/* keep the even ones: the first point stays, the spacing
		 * doubles, and so does the stride of what comes */
		for (i = 0; i < SNAP_POINTS / 2; i++) {
			se->t[i] = se->t[2 * i];
			se->v[i] = se->v[2 * i];
		}
		se->n = SNAP_POINTS / 2;
		se->stride *= 2;
	}
	se->t[se->n] = (int32_t)t_ms;
	se->v[se->n++] = v;
}

void
snapshot_sample(struct trial *t, int node, int64_t t_ms,
    const double *values, uint64_t present)
{
	struct snap_trial	*st = t->snap;
	struct snap_node	*sn;
	int			 slot, i;

	if (st == NULL || node < -1 || node >= st->v.nnodes)
		return;
	slot = node < 0 ? st->v.nnodes : node;
	/* what the store keeps: a node's metrics from nodes, the load
	 * generator's from it */
	for (i = 0; i < DN_METRIC_COUNT; i++)
		if ((dn_metric_defs[i].source == DN_SOURCE_L) != (node < 0))
			present &= ~((uint64_t)1 << i);
	pthread_mutex_lock(&st->mu);
	sn = &st->v.nodes[slot];
	sn->samples++;
	sn->t_ms = t_ms;
	for (i = 0; i < DN_METRIC_COUNT; i++) {
		if (!(present >> i & 1))
			continue;
		sn->last[i] = values[i];
		if (t_ms >= 0 && t_ms <= INT32_MAX)
			series_add(&st->series[(size_t)slot * DN_METRIC_COUNT +
			    (size_t)i], t_ms, values[i]);
	}
	sn->have |= present;
	pthread_mutex_unlock(&st->mu);
}

void
snapshot_event(struct trial *t, int node, int64_t t_ms, const char *kind,
    const char *detail)
{
	struct snap_trial	*st = t->snap;
	struct snap_event	*e;

	if (st == NULL)
		return;
	pthread_mutex_lock(&st->mu);
	e = &st->v.events[st->ev_head];
	st->ev_head = (st->ev_head + 1) % SNAP_EVENTS;
	if (st->v.nevents < SNAP_EVENTS)
		st->v.nevents++;
	st->v.events_total++;
	e->t_ms = t_ms;
	e->node = node;
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	snprintf(e->detail, sizeof(e->detail), "%s", detail ? detail : "");
	pthread_mutex_unlock(&st->mu);
}

/* A copy of ST's view into OUT (ST->mu held). */
static void
trial_copy(struct snap_trial *st, struct snap_trial_view *out)
{
	size_t	i, nn = (size_t)st->v.nnodes + 1;

	*out = st->v;
	out->variant = dn_xstrdup(st->v.variant);
	out->status = st->v.status ? dn_xstrdup(st->v.status) : NULL;
	out->nodes = NULL;
	out->events = NULL;
	if (st->v.state == SNAP_RUNNING && st->t0_ns != 0)
		out->t_ms = (int64_t)((dn_now_ns() - st->t0_ns) / 1000000);
	if (st->v.nodes == NULL) {
		out->nnodes = 0;
		out->nevents = 0;
		return;
	}
	out->nodes = dn_xcalloc(nn, sizeof(*out->nodes));
	memcpy(out->nodes, st->v.nodes, nn * sizeof(*out->nodes));
	for (i = 0; i < nn; i++)
		out->nodes[i].host = dn_xstrdup(st->v.nodes[i].host);
	out->events = dn_xcalloc(st->v.nevents + 1, sizeof(*out->events));
	for (i = 0; i < st->v.nevents; i++) {
		size_t	k = (st->ev_head + SNAP_EVENTS - st->v.nevents + i) %
		    SNAP_EVENTS;

		out->events[i] = st->v.events[k];
	}
}

struct snap_view *
snapshot_view(struct snapshot *s)
{
	struct snap_view	*v = dn_xcalloc(1, sizeof(*v));
	int			 i;

	pthread_mutex_lock(&s->mu);
	v->scenario = dn_xstrdup(s->scenario ? s->scenario : "");
	v->group_id = s->group_id;
	v->now_ms = (uint64_t)dn_wall_ms();
	v->ntrials = s->ntrials;
	v->ended = s->ended;
	v->trials = dn_xcalloc((size_t)s->ntrials + 1, sizeof(*v->trials));
	for (i = 0; i < s->ntrials; i++) {
		pthread_mutex_lock(&s->trials[i]->mu);
		trial_copy(s->trials[i], &v->trials[i]);
		pthread_mutex_unlock(&s->trials[i]->mu);
	}
	pthread_mutex_unlock(&s->mu);
	return (v);
}

void
snapshot_view_free(struct snap_view *v)
{
	int	i, k;

	if (v == NULL)
		return;
	for (i = 0; i < v->ntrials; i++) {
		struct snap_trial_view	*tv = &v->trials[i];

		for (k = 0; tv->nodes != NULL && k <= tv->nnodes; k++)
			free(tv->nodes[k].host);
		free(tv->nodes);
		free(tv->events);
		free(tv->variant);
		free(tv->status);
	}
	free(v->trials);
	free(v->scenario);
	free(v);
}

int
snapshot_series(struct snapshot *s, int64_t run_id, int metric,
    struct snap_series **out, size_t *nout)
{
	struct snap_trial	*st = NULL;
	struct snap_series	*r;
	int			 i, k;

	*out = NULL;
	*nout = 0;
	if (metric < 0 || metric >= DN_METRIC_COUNT)
		return (-1);
	pthread_mutex_lock(&s->mu);
	for (i = 0; i < s->ntrials && st == NULL; i++)
		if (s->trials[i]->v.run_id == run_id && run_id > 0)
			st = s->trials[i];
	if (st == NULL || st->series == NULL) {
		pthread_mutex_unlock(&s->mu);
		return (-1);
	}
	pthread_mutex_lock(&st->mu);
	r = dn_xcalloc((size_t)st->v.nnodes + 1, sizeof(*r));
	/* the load generator first, as dn_store_series orders them */
	for (k = 0; k <= st->v.nnodes; k++) {
		int		 slot = k == 0 ? st->v.nnodes : k - 1;
		struct series	*se = &st->series[(size_t)slot *
				    DN_METRIC_COUNT + (size_t)metric];
		struct snap_series *o = &r[*nout];
		size_t		 j;

		if (se->n == 0)
			continue;
		o->node = k == 0 ? -1 : k - 1;
		o->n = se->n;
		o->t_ms = dn_xcalloc(se->n, sizeof(*o->t_ms));
		o->v = dn_xcalloc(se->n, sizeof(*o->v));
		for (j = 0; j < se->n; j++) {
			o->t_ms[j] = se->t[j];
			o->v[j] = se->v[j];
		}
		(*nout)++;
	}
	pthread_mutex_unlock(&st->mu);
	pthread_mutex_unlock(&s->mu);
	*out = r;
	return (0);
}

void
snapshot_series_free(struct snap_series *v, size_t n)
{
	size_t	i;

	for (i = 0; v != NULL && i < n; i++) {
		free(v[i].t_ms);
		free(v[i].v);
	}
	free(v);
}
