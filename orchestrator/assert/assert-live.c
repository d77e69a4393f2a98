/*
 * assert-live.c: the live forms while a trial runs.  Once per sample
 * interval (from the runner's 20 ms tick) the nodes' and the load
 * generator's last samples are read; each pending `eventually` passes at
 * the first sample where it holds (fails once its window is over), each
 * pending `always` fails at the first sample that breaks it (for
 * `sustained`: once broken that long) and passes when its window is
 * over.  abort_on_fail sets the time the runner ends the trial.
 * Not here: the end of the trial and the value forms (assert-end.c).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assert/assert-internal.h"
#include "metric-table.h"
#include "clock.h"
#include "xalloc.h"

/* One node's (or the load generator's) current value of a metric. */
struct snap {
	int	 ok;		/* running, has the metric, recent */
	int	 fresh;		/* a sample since the last evaluation */
	int	 running;	/* not down, stopped or exited */
	double	 v;
	int64_t	 t;		/* its trial time */
};

void
assert_begin(struct trial *t)
{
	const struct scenario	*s = t->scn;
	struct assert_state	*st;
	size_t			 i;
	int			 nn = t->nnodes + 1;

	if (s->nasserts == 0)
		return;
	st = dn_xcalloc(1, sizeof(*st));
	st->v = dn_xcalloc(s->nasserts, sizeof(*st->v));
	st->event_ms = dn_xcalloc(s->nevents + 1, sizeof(*st->event_ms));
	st->seen_samples = dn_xcalloc((size_t)nn, sizeof(int64_t));
	st->abort_at_ms = -1;
	/* no event has fired yet (assert_event_fired) */
	memset(st->event_ms, 0xff, (s->nevents + 1) * sizeof(int64_t));
	for (i = 0; i < s->nasserts; i++) {
		struct ast *x = &st->v[st->n++];

		x->a = &s->asserts[i];
		x->t_ms = -1;
		x->node = INT_MIN;
		x->observed = NAN;
		x->bad_since = dn_xcalloc((size_t)nn, sizeof(int64_t));
		x->bad_run = dn_xcalloc((size_t)nn, sizeof(int));
		x->bad_first = dn_xcalloc((size_t)nn, sizeof(double));
		x->held = dn_xcalloc((size_t)nn, 1);
		memset(x->bad_since, 0xff, (size_t)nn * sizeof(int64_t));
	}
	t->asserts = st;
}

void
assert_event_fired(struct trial *t, size_t e, int64_t t_ms)
{
	if (t->asserts != NULL && e < t->scn->nevents)
		t->asserts->event_ms[e] = t_ms;
}

int
assert_should_end(const struct trial *t)
{
	const struct assert_state *st = t->asserts;

	return (st != NULL && st->abort_at_ms >= 0 &&
	    trial_t_ms((struct trial *)t, dn_now_ns()) >= st->abort_at_ms);
}

const char *
assert_ended_by(const struct trial *t)
{
	const struct assert_state *st = t->asserts;

	return (st != NULL && st->abort_at_ms >= 0 && trial_t_ms((struct
	    trial *)t, dn_now_ns()) >= st->abort_at_ms ? st->abort_by :
	    NULL);
}

/* The named column of NAME in T, or -1. */
static int
ncol_of(const struct trial *t, const char *name)
{
	size_t	j;

	for (j = 0; j < t->nncols; j++)
		if (strcmp(t->ncols[j], name) == 0)
			return ((int)j);
	return (-1);
}

/* What one evaluation reads, copied at once under the trial's lock. */
struct frame_node {
	double		 last[DN_METRIC_COUNT];
	uint64_t	 have;
	double		 nlast[TRIAL_NCOLS];
	uint64_t	 nhave;
	int64_t		 samples, tm;
	int		 running;
};

static struct frame_node *
frame_take(struct trial *t)
{
	struct frame_node	*f;
	int			 k;

	f = dn_xcalloc((size_t)t->nnodes + 1, sizeof(*f));
	pthread_mutex_lock(&t->mu);
	for (k = 0; k < t->nnodes; k++) {
		struct trial_node *n = &t->nodes[k];

		memcpy(f[k].last, n->last, sizeof(f[k].last));
		f[k].have = n->have_last;
		if (n->nlast != NULL && t->nncols > 0)
			memcpy(f[k].nlast, n->nlast, t->nncols *
			    sizeof(double));
		f[k].nhave = n->nhave;
		f[k].samples = n->samples;
		f[k].tm = n->last_tm;
		f[k].running = !n->down && !n->stopped && !n->proc.exited;
	}
	memcpy(f[k].last, t->load_last, sizeof(f[k].last));
	f[k].have = t->load_have;
	f[k].samples = t->load_samples;
	f[k].tm = t->load_tm;
	f[k].running = 1;
	pthread_mutex_unlock(&t->mu);
	return (f);
}

/* Every node's (and, at index nnodes, the load's) value of A's metric
 * in frame F, at trial time NOW. */
static void
snapshot(const struct trial *t, const struct frame_node *f,
    const struct scn_assert *a, int64_t now, struct snap *sn)
{
	const struct assert_state *st = t->asserts;
	/* a value older than two intervals is a node's from before a
	 * pause: not its current one */
	int64_t	recent = 2 * t->scn->sample_interval_ms + 200;
	int	k, col = a->named ? ncol_of(t, a->named) : -1, have;

	for (k = 0; k <= t->nnodes; k++) {
		if (a->named != NULL) {
			have = k < t->nnodes && col >= 0 &&
			    (f[k].nhave >> col & 1);
			sn[k].v = have ? f[k].nlast[col] : NAN;
		} else {
			have = f[k].have >> a->metric_id & 1;
			sn[k].v = f[k].last[a->metric_id];
		}
		sn[k].t = f[k].tm;
		sn[k].fresh = f[k].samples != st->seen_samples[k];
		sn[k].running = f[k].running;
		sn[k].ok = have && f[k].running && now - f[k].tm <= recent;
	}
}

static int
in_window(const struct trial *t, const struct scn_assert *a, int64_t from,
    int64_t to, int64_t tm)
{
	return (tm >= from && tm <= to && !(a->except_events &&
	    ast_in_event(t, tm)));
}

/* Record the deciding sample and the message. */
static void
decide(struct trial *t, struct ast *x, enum ast_status status, int node,
    double v, int64_t tm, const char *what)
{
	char	cond[160], num[48], *ev, *log;

	x->status = status;
	x->node = node;
	x->observed = v;
	x->t_ms = tm;
	ast_cond(cond, sizeof(cond), x->a);
	ast_fmt_num(num, sizeof(num), v);
	if (status == AST_PASS) {
		x->message = dn_xasprintf("%s: %s held at t=%.1f s (%s%s %s)",
		    x->a->name, cond, (double)tm / 1000.0, x->a->scope ==
		    SCN_AS_MAX_SPREAD ? "spread of " : "", x->a->metric, num);
		return;
	}
	ev = ast_events_active(t, tm);
	log = ast_log_tail(t, node);
	x->message = dn_xasprintf("%s: %s%s%s", x->a->name, what, ev, log);
	free(ev);
	free(log);
}

/* "node 3 had lag_ms 812 at t=74.2 s (limit < 500 ms)" into BUF; the
 * spread and the load generator are named as such. */
static void
had(char *buf, size_t cap, const struct scn_assert *a, int node, double v,
    int64_t tm)
{
	char	num[48], lim[48], who[96];

	ast_fmt_num(num, sizeof(num), v);
	ast_fmt_num(lim, sizeof(lim), a->limit);
	if (a->scope == SCN_AS_MAX_SPREAD)
		snprintf(who, sizeof(who), "the spread of %s over the nodes "
		    "was", a->metric);
	else if (a->scope == SCN_AS_LOAD || node < 0)
		snprintf(who, sizeof(who), "the load generator had %s",
		    a->metric);
	else
		snprintf(who, sizeof(who), "%snode %d had %s", a->scope ==
		    SCN_AS_ANY_NODE ? "no node held it: " : "", node,
		    a->metric);
	snprintf(buf, cap, "%s %s at t=%.1f s (limit %s %s%s%s)", who, num,
	    (double)tm / 1000.0, scn_cmp_text(a->cmp), lim,
	    a->unit[0] ? " " : "", a->unit);
}

/*
 * The aggregate of SN over the running nodes for A's scope: *V the value
 * compared (all_nodes: the worst node's; any_node: the best's; spread:
 * max - min), *NODE the node it is (-1: none, the spread, the load).
 * 0 when there is nothing fresh to judge.
 */
static int
aggregate(const struct trial *t, const struct scn_assert *a,
    const struct snap *sn, double *v, int *node, int64_t *tm, int *holds)
{
	double	lo = INFINITY, hi = -INFINITY;
	int	k, fresh = 0, n = 0, nrun = 0, good = 0, bad = -1, best = -1;

	if (a->scope == SCN_AS_LOAD) {
		k = t->nnodes;
		if (!sn[k].fresh || !sn[k].ok)
			return (0);
		*v = sn[k].v;
		*node = -1;
		*tm = sn[k].t;
		*holds = scn_cmp_holds(a->cmp, *v, a->limit);
		return (1);
	}
	*tm = 0;
	for (k = 0; k < t->nnodes; k++) {
		nrun += sn[k].running;
		if (!sn[k].ok)
			continue;
		n++;
		fresh |= sn[k].fresh;
		if (sn[k].t > *tm)
			*tm = sn[k].t;
		lo = fmin(lo, sn[k].v);
		hi = fmax(hi, sn[k].v);
		if (scn_cmp_holds(a->cmp, sn[k].v, a->limit)) {
			good++;
			best = best < 0 ? k : best;
		} else if (bad < 0)
			bad = k;
	}
	/* all nodes and the spread: every running node has a current
	 * value, else a node catching up would be left out */
	if (!fresh || n == 0 || (a->scope != SCN_AS_ANY_NODE && n < nrun))
		return (0);
	if (a->scope == SCN_AS_MAX_SPREAD) {
		*v = hi - lo;
		*node = -1;
		*holds = scn_cmp_holds(a->cmp, *v, a->limit);
	} else if (a->scope == SCN_AS_ANY_NODE) {
		*holds = good > 0;
		*node = good > 0 ? best : 0;
		*v = sn[*node].v;
	} else {
		*holds = good == n;
		*node = good == n ? 0 : bad;
		*v = sn[*node].v;
	}
	return (1);
}

static void
fail_always(struct trial *t, struct ast *x, int node, double v,
    int64_t since, int64_t now_t, int run)
{
	const struct scn_assert	*a = x->a;
	char			 buf[512], what[640];

	had(buf, sizeof(buf), a, node, v, since);
	if (a->sustained_ms > 0)
		snprintf(what, sizeof(what), "%s, %d sample%s in a row (%.1f s, "
		    "sustained limit %.1f s)", buf, run, run == 1 ? "" : "s",
		    (double)(now_t - since + t->scn->sample_interval_ms) /
		    1000.0, (double)a->sustained_ms / 1000.0);
	else
		snprintf(what, sizeof(what), "%s, %d sample%s in a row", buf,
		    run, run == 1 ? "" : "s");
	decide(t, x, AST_FAIL, a->scope == SCN_AS_MAX_SPREAD ? INT_MIN :
	    node, v, since, what);
	x->run = run;
	if (a->abort_on_fail && t->asserts->abort_at_ms < 0) {
		t->asserts->abort_at_ms = now_t + a->grace_ms;
		t->asserts->abort_by = a->name;
		trial_event(t, node >= 0 ? node : -1, "assert_abort",
		    "'%s' failed: the trial ends at t=%.1f s (abort_on_fail, "
		    "grace %.1f s)", a->name,
		    (double)t->asserts->abort_at_ms / 1000.0,
		    (double)a->grace_ms / 1000.0);
	}
}

/* One sample of slot K (a node, or nnodes for the aggregate): broken
 * (HOLDS 0) or not; fail once broken long enough. */
static void
always_step(struct trial *t, struct ast *x, int k, int holds, int node,
    double v, int64_t tm)
{
	x->seen++;
	if (holds) {
		x->bad_since[k] = -1;
		x->bad_run[k] = 0;
		return;
	}
	if (x->bad_since[k] < 0) {
		x->bad_since[k] = tm;
		x->bad_first[k] = v;
	}
	x->bad_run[k]++;
	if (tm - x->bad_since[k] + t->scn->sample_interval_ms >
	    x->a->sustained_ms || x->a->sustained_ms == 0)
		fail_always(t, x, node, x->bad_first[k], x->bad_since[k], tm,
		    x->bad_run[k]);
}

static void
judge_always(struct trial *t, struct ast *x, const struct snap *sn,
    int64_t from, int64_t to)
{
	const struct scn_assert	*a = x->a;
	double			 v;
	int64_t			 tm;
	int			 k, node, holds;

	if (a->scope == SCN_AS_EACH_NODE) {
		for (k = 0; k < t->nnodes && x->status == AST_PENDING; k++) {
			if (!sn[k].ok || !sn[k].fresh ||
			    !in_window(t, a, from, to, sn[k].t))
				continue;
			always_step(t, x, k, scn_cmp_holds(a->cmp, sn[k].v,
			    a->limit), k, sn[k].v, sn[k].t);
		}
		return;
	}
	if (aggregate(t, a, sn, &v, &node, &tm, &holds) &&
	    in_window(t, a, from, to, tm))
		always_step(t, x, t->nnodes, holds, node, v, tm);
}

static void
judge_eventually(struct trial *t, struct ast *x, const struct snap *sn,
    int64_t from, int64_t to)
{
	const struct scn_assert	*a = x->a;
	double			 v;
	int64_t			 tm, last = 0;
	int			 k, node, holds, all = 1, any = 0;

	if (a->scope == SCN_AS_EACH_NODE) {
		for (k = 0; k < t->nnodes; k++) {
			if (sn[k].ok && sn[k].fresh &&
			    in_window(t, a, from, to, sn[k].t)) {
				x->seen++;
				if (scn_cmp_holds(a->cmp, sn[k].v, a->limit))
					x->held[k] = 1;
				else {
					x->observed = sn[k].v;
					x->node = k;
					x->t_ms = sn[k].t;
				}
				last = sn[k].t > last ? sn[k].t : last;
			}
			if (sn[k].running && !x->held[k])
				all = 0;
			any |= x->held[k];
		}
		if (all && any)
			decide(t, x, AST_PASS, -1, x->observed, last, NULL);
		return;
	}
	if (!aggregate(t, a, sn, &v, &node, &tm, &holds) ||
	    !in_window(t, a, from, to, tm))
		return;
	x->seen++;
	if (holds) {
		decide(t, x, AST_PASS, a->scope == SCN_AS_MAX_SPREAD ?
		    INT_MIN : node, v, tm, NULL);
		return;
	}
	x->observed = v;
	x->node = a->scope == SCN_AS_MAX_SPREAD ? INT_MIN : node;
	x->t_ms = tm;
}

/* An eventually whose window is over without it holding. */
static void
eventually_missed(struct trial *t, struct ast *x, int64_t from, int64_t to)
{
	char	what[640], buf[512];

	if (x->seen == 0) {
		x->status = AST_INCONCLUSIVE;
		x->message = dn_xasprintf("%s: no sample in the window t=%.1f"
		    "..%.1f s", x->a->name, (double)from / 1000.0,
		    (double)to / 1000.0);
		return;
	}
	had(buf, sizeof(buf), x->a, x->node, x->observed, x->t_ms);
	snprintf(what, sizeof(what), "did not hold from t=%.1f s to t=%.1f "
	    "s; the last sample: %s", (double)from / 1000.0,
	    (double)to / 1000.0, buf);
	decide(t, x, AST_FAIL, x->node, x->observed, x->t_ms, what);
}

void
ast_judge(struct trial *t, struct ast *x, const struct snap *sn,
    int64_t now, int end)
{
	int64_t	from, to, late = t->scn->sample_interval_ms + 500;

	if (x->status != AST_PENDING || ast_window(t, x->a, &from, &to) != 0)
		return;
	if (sn != NULL && now >= from) {
		if (x->a->form == SCN_AF_ALWAYS)
			judge_always(t, x, sn, from, to);
		else
			judge_eventually(t, x, sn, from, to);
	}
	if (x->status != AST_PENDING || (!end && now <= to + late))
		return;
	if (x->a->form == SCN_AF_EVENTUALLY)
		eventually_missed(t, x, from, to);
	else if (x->seen > 0) {
		char cond[160];

		ast_cond(cond, sizeof(cond), x->a);
		x->status = AST_PASS;
		x->message = dn_xasprintf("%s: %s held at every one of %d "
		    "sample%s from t=%.1f s to t=%.1f s", x->a->name, cond,
		    x->seen, x->seen == 1 ? "" : "s", (double)from / 1000.0,
		    (double)to / 1000.0);
	}
}

void
assert_tick(struct trial *t)
{
	struct assert_state	*st = t->asserts;
	struct frame_node	*f;
	struct snap		*sn;
	int64_t			 now;
	size_t			 i;
	int			 k;

	if (st == NULL)
		return;
	now = trial_t_ms(t, dn_now_ns());
	if (now < st->next_ms)
		return;
	st->next_ms = now + t->scn->sample_interval_ms / 4;
	f = frame_take(t);
	sn = dn_xcalloc((size_t)t->nnodes + 1, sizeof(*sn));
	for (i = 0; i < st->n; i++) {
		struct ast *x = &st->v[i];

		if (x->a->form != SCN_AF_ALWAYS &&
		    x->a->form != SCN_AF_EVENTUALLY)
			continue;
		snapshot(t, f, x->a, now, sn);
		ast_judge(t, x, sn, now, 0);
	}
	/* What counts as fresh next time: the samples judged now. */
	for (k = 0; k <= t->nnodes; k++)
		st->seen_samples[k] = f[k].samples;
	free(sn);
	free(f);
}
