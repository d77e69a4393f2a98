/*
 * assert-end.c: a trial's assertions at its end: what the live forms
 * left open is decided, the `value` forms are judged on the stored
 * samples of their window (a gauge's mean, max, min, p99 or growth per
 * minute, a counter's rate), one row per assertion goes into the table
 * `assertions`, and the results are printed.  Also the JUnit test cases
 * of stored results.  Not here: the live judging (assert-live.c).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assert/assert-internal.h"
#include "metric-table.h"
#include "store.h"
#include "trial/trial-store.h"
#include "clock.h"
#include "xalloc.h"

static const char *const form_names[] = { "eventually", "always", "value",
	"relative" };
static const char *const status_names[] = { "pending", "pass", "fail",
	"inconclusive" };

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return ((x > y) - (x < y));
}

/* A's fold of series SR over [FROM, TO] (less the events' spans with
 * except: events) into *OUT; *N the samples used.  -1: too few. */
static int
fold(const struct trial *t, const struct scn_assert *a,
    const struct dn_series *sr, int64_t from, int64_t to, double *out,
    size_t *n)
{
	double	*v = dn_xcalloc(sr->n + 1, sizeof(double));
	double	 sum = 0, st = 0, sv = 0, stt = 0, stv = 0, inc = 0;
	int64_t	 t0 = -1, t1 = -1;
	size_t	 i, m = 0;
	int	 rc = -1;

	for (i = 0; i < sr->n; i++) {
		int64_t	tm = sr->t_ms[i];

		if (tm < from || tm > to || (a->except_events &&
		    ast_in_event(t, tm)) || isnan(sr->v[i]))
			continue;
		if (m > 0 && sr->v[i] > v[m - 1])
			inc += sr->v[i] - v[m - 1];	/* a drop: a restart */
		v[m++] = sr->v[i];
		sum += sr->v[i];
		st += (double)tm;
		sv += sr->v[i];
		stt += (double)tm * (double)tm;
		stv += (double)tm * sr->v[i];
		t0 = t0 < 0 ? tm : t0;
		t1 = tm;
	}
	*n = m;
	if (m == 0 || ((a->fold == SCN_FOLD_GROWTH ||
	    a->fold == SCN_FOLD_RATE) && (m < 2 || t1 == t0)))
		goto out;
	switch (a->fold) {
	case SCN_FOLD_NONE:
	case SCN_FOLD_MEAN:
		*out = sum / (double)m;
		break;
	case SCN_FOLD_MAX:
	case SCN_FOLD_MIN:
	case SCN_FOLD_P99:
	case SCN_FOLD_MEDIAN:
		qsort(v, m, sizeof(double), cmp_double);
		*out = a->fold == SCN_FOLD_MAX ? v[m - 1] : a->fold ==
		    SCN_FOLD_MIN ? v[0] : a->fold == SCN_FOLD_MEDIAN ?
		    (m % 2 ? v[m / 2] : (v[m / 2 - 1] + v[m / 2]) / 2) :
		    v[(size_t)ceil(0.99 * (double)m) - 1];
		break;
	case SCN_FOLD_GROWTH: {
		double	d = (double)m * stt - st * st;

		if (d == 0)
			goto out;
		/* least-squares slope per ms, per minute */
		*out = ((double)m * stv - st * sv) / d * 60000.0;
		break;
	}
	case SCN_FOLD_RATE:
		*out = inc * 1000.0 / (double)(t1 - t0);
		break;
	}
	rc = 0;
out:
	free(v);
	return (rc);
}

/* A's fold of node NODE's series among SR2 (the second counter of a
 * verdict metric such as cpu_s_per_s) added to *V; -1 when it has none. */
static int
add_second(const struct trial *t, const struct scn_assert *a,
    const struct dn_series *sr2, size_t n2, int node, int64_t from,
    int64_t to, double *v, size_t *used)
{
	double	w;
	size_t	i, u;

	for (i = 0; i < n2; i++) {
		if (sr2[i].node != node || fold(t, a, &sr2[i], from, to, &w,
		    &u) != 0)
			continue;
		*v += w;
		*used += u;
		return (0);
	}
	return (-1);
}

/* Judge value assertion X on the stored samples. */
static void
judge_value(struct trial *t, struct ast *x)
{
	const struct scn_assert	*a = x->a;
	struct dn_series	*sr = NULL, *sr2 = NULL;
	size_t			 nsr = 0, nsr2 = 0, i, used, total = 0;
	int64_t			 from, to;
	double			 v = NAN, lo = INFINITY, hi = -INFINITY;
	double			 worst = NAN;
	int			 id = a->metric_id, nvals = 0, good = 0;
	int			 worst_node = INT_MIN, best_node = INT_MIN;
	double			 best = NAN;
	char			*cause = NULL, cond[160], num[48], what[512];
	char			*log;

	if (ast_window(t, a, &from, &to) != 0) {
		x->status = AST_INCONCLUSIVE;
		x->message = dn_xasprintf("%s: its window's event did not "
		    "fire in this trial", a->name);
		return;
	}
	if (a->named != NULL && trial_store_metric_find(t, a->named, &id,
	    &cause) != 0)
		id = -1;
	if (id >= 0 && trial_store_series(t, id, from, &sr, &nsr,
	    &cause) != 0)
		nsr = 0;
	if (nsr > 0 && a->metric_id2 >= 0 && trial_store_series(t,
	    a->metric_id2, from, &sr2, &nsr2, &cause) != 0)
		nsr2 = 0;	/* every node then "not measured" */
	free(cause);
	for (i = 0; i < nsr; i++) {
		if ((sr[i].node < 0) != (a->scope == SCN_AS_LOAD) ||
		    fold(t, a, &sr[i], from, to, &v, &used) != 0)
			continue;
		if (a->metric_id2 >= 0 && add_second(t, a, sr2, nsr2,
		    sr[i].node, from, to, &v, &used) != 0)
			continue;
		total += used;
		nvals++;
		lo = fmin(lo, v);
		hi = fmax(hi, v);
		if (scn_cmp_holds(a->cmp, v, a->limit)) {
			good++;
			if (best_node == INT_MIN || fabs(v - a->limit) >
			    fabs(best - a->limit)) {
				best = v;
				best_node = sr[i].node;
			}
		} else if (worst_node == INT_MIN || fabs(v - a->limit) >
		    fabs(worst - a->limit)) {
			worst = v;
			worst_node = sr[i].node;
		}
	}
	dn_series_free(sr, nsr);
	dn_series_free(sr2, nsr2);
	ast_cond(cond, sizeof(cond), a);
	if (nvals == 0) {
		x->status = AST_INCONCLUSIVE;
		x->message = dn_xasprintf("%s: %s: not measured (no samples "
		    "of %s from t=%.1f s to t=%.1f s)", a->name, cond,
		    a->named ? a->named : dn_metric_defs[id < 0 ? 0 :
		    id].name, (double)from / 1000.0, (double)to / 1000.0);
		return;
	}
	x->seen = (int)total;
	if (a->scope == SCN_AS_MAX_SPREAD) {
		x->observed = hi - lo;
		x->node = INT_MIN;
		x->status = scn_cmp_holds(a->cmp, x->observed, a->limit) ?
		    AST_PASS : AST_FAIL;
	} else if (a->scope == SCN_AS_ANY_NODE) {
		x->status = good > 0 ? AST_PASS : AST_FAIL;
		x->observed = good > 0 ? best : worst;
		x->node = good > 0 ? best_node : worst_node;
	} else {
		x->status = good == nvals ? AST_PASS : AST_FAIL;
		x->observed = good == nvals ? (a->cmp == SCN_CMP_GT ||
		    a->cmp == SCN_CMP_GE ? lo : hi) : worst;
		x->node = good == nvals ? INT_MIN : worst_node;
		if (a->scope == SCN_AS_LOAD)
			x->node = -1;
	}
	ast_fmt_num(num, sizeof(num), x->observed);
	if (x->node >= 0)
		snprintf(what, sizeof(what), "node %d had %s %s%s%s", x->node,
		    a->metric, num, a->unit[0] ? " " : "", a->unit);
	else
		snprintf(what, sizeof(what), "%s%s was %s%s%s", a->scope ==
		    SCN_AS_MAX_SPREAD ? "the spread over the nodes of " :
		    a->scope == SCN_AS_LOAD ? "the load generator's " : "",
		    a->metric, num, a->unit[0] ? " " : "", a->unit);
	log = x->status == AST_FAIL ? ast_log_tail(t, x->node) :
	    dn_xstrdup("");
	x->message = dn_xasprintf("%s: %s from t=%.1f s to t=%.1f s (%s%s, "
	    "%zu samples of %d series)%s", a->name, what, (double)from /
	    1000.0, (double)to / 1000.0, x->status == AST_PASS ? "holds " :
	    "limit ", x->status == AST_PASS ? cond : cond + strlen(a->metric) +
	    1, total, nvals, log);
	free(log);
}

/* The row of X, and the counts. */
static void
store_row(struct trial *t, struct ast *x)
{
	struct dn_assert_row	 r = { 0 };
	char			*cause = NULL;

	r.run_id = t->run_id;
	r.name = x->a->name;
	r.form = form_names[x->a->form];
	r.status = status_names[x->status];
	r.observed = x->observed;
	r.threshold = x->a->limit;
	r.t_ms = x->t_ms;
	r.node = x->node;
	r.message = x->message;
	r.metric = x->a->metric;
	r.op = scn_cmp_text(x->a->cmp);
	r.unit = x->a->unit;
	r.scope = scn_scope_text(x->a->scope);
	/* where the report shades it: the window as judged, from the
	 * events' rows (none when its event did not fire) */
	if (ast_window(t, x->a, &r.from_ms, &r.to_ms) != 0)
		r.from_ms = r.to_ms = -1;
	if (trial_store_assertion(t, &r, &cause) != 0) {
		fprintf(stderr, "devnet: run %lld: cannot store assertion "
		    "'%s': %s\n", (long long)t->run_id, x->a->name, cause);
		free(cause);
	}
}

/* An inconclusive X whose metric was declared but never measured in T
 * says why (node-kind/unmeasured.c found it): not the assertion's fault,
 * nor the program's. */
static void
say_unmeasured(const struct trial *t, struct ast *x)
{
	const struct scn_assert	*a = x->a;
	const char		*name;
	char			*m;
	size_t			 i;

	for (i = 0; i < t->nunmeasured; i++) {
		name = t->unmeasured[i].name;
		/* its own name, or the table metric it is read from
		 * (height_growth from height) */
		if (strcmp(a->named ? a->named : a->metric, name) != 0 &&
		    (a->named != NULL || a->metric_id < 0 || a->metric_id >=
		    DN_METRIC_COUNT || strcmp(dn_metric_defs[
		    a->metric_id].name, name) != 0))
			continue;
		m = dn_xasprintf("%s; metric '%s' was declared but never "
		    "measured: %s", x->message ? x->message : x->a->name,
		    name, t->unmeasured[i].why);
		free(x->message);
		x->message = m;
		return;
	}
}

void
assert_finish(struct trial *t, FILE *out)
{
	struct assert_state	*st = t->asserts;
	int64_t			 end, from, to;
	char			*cause = NULL;
	size_t			 i;

	if (st == NULL)
		return;
	end = trial_t_ms(t, dn_now_ns());
	if (end > t->scn->duration_ms)
		end = t->scn->duration_ms;
	if (st->abort_at_ms >= 0 && st->abort_at_ms < end)
		end = st->abort_at_ms;
	for (i = 0; i < st->n; i++) {
		struct ast *x = &st->v[i];

		if (x->a->form == SCN_AF_RELATIVE || x->status != AST_PENDING)
			continue;
		if (x->a->form == SCN_AF_VALUE) {
			judge_value(t, x);
			continue;
		}
		if (ast_window(t, x->a, &from, &to) != 0) {
			x->status = AST_INCONCLUSIVE;
			x->message = dn_xasprintf("%s: its window's event did "
			    "not fire in this trial", x->a->name);
		} else if (end < to) {
			x->status = AST_INCONCLUSIVE;
			x->message = dn_xasprintf("%s: the trial ended at "
			    "t=%.1f s, before the window's end (t=%.1f s)%s",
			    x->a->name, (double)end / 1000.0,
			    (double)to / 1000.0, t->failed ? "; the trial "
			    "failed" : "");
		} else
			ast_judge(t, x, NULL, end, 1);
		if (x->status == AST_PENDING) {
			x->status = AST_INCONCLUSIVE;
			x->message = dn_xasprintf("%s: no sample in its window "
			    "(t=%.1f..%.1f s)", x->a->name,
			    (double)from / 1000.0, (double)to / 1000.0);
		}
	}
	for (i = 0; i < st->n; i++) {
		struct ast *x = &st->v[i];

		if (x->a->form == SCN_AF_RELATIVE)
			continue;
		if (x->status == AST_INCONCLUSIVE)
			say_unmeasured(t, x);
		store_row(t, x);
		t->asserts_failed += x->status == AST_FAIL;
		t->asserts_inconclusive += x->status == AST_INCONCLUSIVE;
		if (out != NULL)
			fprintf(out, "devnet: run %lld: assert %s: %s\n",
			    (long long)t->run_id, x->status == AST_PASS ?
			    "pass" : x->status == AST_FAIL ? "FAIL" :
			    "inconclusive", x->message);
	}
	if (trial_store_commit(t, &cause) != 0) {
		fprintf(stderr, "devnet: run %lld: cannot store its "
		    "assertions: %s\n", (long long)t->run_id, cause);
		free(cause);
	}
	assert_free(t);
}

void
assert_free(struct trial *t)
{
	struct assert_state	*st = t->asserts;
	size_t			 i;

	if (st == NULL)
		return;
	for (i = 0; i < st->n; i++) {
		free(st->v[i].message);
		free(st->v[i].bad_since);
		free(st->v[i].bad_run);
		free(st->v[i].bad_first);
		free(st->v[i].held);
	}
	free(st->v);
	free(st->event_ms);
	free(st->seen_samples);
	free(st);
	t->asserts = NULL;
}
