/*
 * api.c: the JSON of /api/... (docs/live.md has every field; they are a
 * contract): /api/live (the plan, each trial's clock, nodes with their
 * latest values, events), /api/series (one metric of one run: from the
 * snapshot while the run is live, else from the store), /api/verdict
 * (the comparison of the group's first two variants once both have a
 * trial that ended, redone after each trial; or of ?a=&b= sides of
 * stored runs), /api/runs (the stored runs, as `devnet runs`).
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve-internal.h"
#include "trial/snapshot.h"
#include "verdict/compare.h"
#include "store.h"
#include "units.h"
#include "xalloc.h"
#include "json-write.h"

static const char *const state_names[] = {
	"planned", "starting", "running", "ended"
};
static const char *const node_state_names[] = {
	"up", "down", "paused", "crashed", "done"
};

static const char *
serve_state_name(int state)
{
	return (state >= 0 && state < 4 ? state_names[state] : "?");
}

static const char *
serve_node_state_name(int state)
{
	return (state >= 0 && state < 5 ? node_state_names[state] : "?");
}

#define JSON	"application/json; charset=utf-8"

static void
node_json(FILE *out, const struct snap_node *n)
{
	int	i, first = 1;

	fprintf(out, "{\"node\":%d,\"host\":", n->node);
	dn_json_str(out, n->host);
	fprintf(out, ",\"state\":\"%s\",\"samples\":%lld,\"t_ms\":%lld,"
	    "\"last\":{", n->node < 0 ? "up" : serve_node_state_name(n->state),
	    (long long)n->samples, (long long)n->t_ms);
	for (i = 0; i < DN_METRIC_COUNT; i++) {
		if (!(n->have >> i & 1))
			continue;
		fprintf(out, "%s\"%s\":", first ? "" : ",",
		    dn_metric_defs[i].name);
		dn_json_num(out, n->last[i]);
		first = 0;
	}
	fputs("}}", out);
}

static void
trial_json(FILE *out, const struct snap_trial_view *tv)
{
	size_t	e;
	int	k;

	fprintf(out, "{\"trial\":%d,\"slot\":%d,\"run\":%lld,\"variant\":",
	    tv->index + 1, tv->slot, (long long)tv->run_id);
	dn_json_str(out, tv->variant);
	fputs(",\"cpus\":", out);
	dn_json_optstr(out, tv->cpus);
	fprintf(out, ",\"state\":\"%s\",\"status\":",
	    serve_state_name(tv->state));
	if (tv->status != NULL)
		dn_json_str(out, tv->status);
	else
		fputs("null", out);
	fprintf(out, ",\"t_ms\":%lld,\"duration_ms\":%lld,\"warmup_ms\":%lld,"
	    "\"interval_ms\":%lld,\"nodes\":[", (long long)tv->t_ms,
	    (long long)tv->duration_ms, (long long)tv->warmup_ms,
	    (long long)tv->interval_ms);
	for (k = 0; tv->nodes != NULL && k < tv->nnodes; k++) {
		if (k > 0)
			fputc(',', out);
		node_json(out, &tv->nodes[k]);
	}
	fputs("],\"loadgen\":", out);
	if (tv->nodes != NULL && tv->nodes[tv->nnodes].samples > 0)
		node_json(out, &tv->nodes[tv->nnodes]);
	else
		fputs("null", out);
	fprintf(out, ",\"events_total\":%lld,\"events\":[",
	    (long long)tv->events_total);
	for (e = 0; e < tv->nevents; e++) {
		fprintf(out, "%s{\"t_ms\":%lld,\"node\":%d,\"kind\":",
		    e ? "," : "", (long long)tv->events[e].t_ms,
		    tv->events[e].node);
		dn_json_str(out, tv->events[e].kind);
		fputs(",\"detail\":", out);
		dn_json_str(out, tv->events[e].detail);
		fputc('}', out);
	}
	fputs("]}", out);
}

void
serve_api_live(struct serve *s, struct reply *r)
{
	struct snap_view	*v;
	int			 i;

	r->type = JSON;
	if (s->snap == NULL) {
		fputs("{\"live\":false}\n", r->body);
		return;
	}
	v = snapshot_view(s->snap);
	fputs("{\"live\":true,\"scenario\":", r->body);
	dn_json_str(r->body, v->scenario);
	fprintf(r->body, ",\"group\":%lld,\"now_ms\":%llu,\"trials_planned\":"
	    "%d,\"trials_ended\":%d,\"trials\":[", (long long)v->group_id,
	    (unsigned long long)v->now_ms, v->ntrials, v->ended);
	for (i = 0; i < v->ntrials; i++) {
		if (i > 0)
			fputc(',', r->body);
		trial_json(r->body, &v->trials[i]);
	}
	fputs("]}\n", r->body);
	snapshot_view_free(v);
}

/* The points of one node's series as "t_ms":[..],"v":[..]. */
static void
points_json(FILE *out, int node, const int64_t *t, const double *v,
    size_t n, int first)
{
	size_t	i;

	fprintf(out, "%s{\"node\":%d,\"t_ms\":[", first ? "" : ",", node);
	for (i = 0; i < n; i++)
		fprintf(out, "%s%lld", i ? "," : "", (long long)t[i]);
	fputs("],\"v\":[", out);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		dn_json_num(out, v[i]);
	}
	fputs("]}", out);
}

/* /api/series from the store: RUN's METRIC (a name, table or named). */
static void
series_stored(struct serve *s, int64_t run, const char *metric,
    struct reply *r)
{
	struct dn_store		*st = serve_store(s, r);
	struct dn_series	*v = NULL;
	char			*cause = NULL;
	size_t			 n = 0, i;
	int			 id;

	if (st == NULL)
		return;
	if ((id = dn_metric_lookup(metric)) < 0 &&
	    (dn_store_metric_find(st, metric, &id, NULL, &cause) != 0 ||
	    id < 0)) {
		serve_error(r, 404, "no metric '%s'%s%s", metric,
		    cause ? ": " : "", cause ? cause : "");
		free(cause);
		return;
	}
	if (dn_store_series(st, run, id, 0, &v, &n, &cause) != 0) {
		serve_error(r, 500, "%s", cause);
		free(cause);
		return;
	}
	fprintf(r->body, "{\"run\":%lld,\"metric\":", (long long)run);
	dn_json_str(r->body, metric);
	fputs(",\"source\":\"store\",\"nodes\":[", r->body);
	for (i = 0; i < n; i++)
		points_json(r->body, v[i].node, v[i].t_ms, v[i].v, v[i].n,
		    i == 0);
	fputs("]}\n", r->body);
	dn_series_free(v, n);
}

void
serve_api_series(struct serve *s, const struct serve_req *q,
    struct reply *r)
{
	const char		*run_s = serve_req_arg(q, "run");
	const char		*metric = serve_req_arg(q, "metric");
	struct snap_series	*v = NULL;
	size_t			 n = 0, i;
	int64_t			 run;
	int			 id;

	r->type = JSON;
	if (run_s == NULL || metric == NULL || dn_parse_i64(run_s, &run) != 0
	    || run < 1) {
		serve_error(r, 400, "want ?run=ID&metric=NAME");
		return;
	}
	id = dn_metric_lookup(metric);
	if (s->snap == NULL || id < 0 ||
	    snapshot_series(s->snap, run, id, &v, &n) != 0) {
		r->type = JSON;
		series_stored(s, run, metric, r);
		return;
	}
	fprintf(r->body, "{\"run\":%lld,\"metric\":", (long long)run);
	dn_json_str(r->body, metric);
	fprintf(r->body, ",\"unit\":\"%s\",\"kind\":\"%s\",\"source\":\"live\","
	    "\"nodes\":[", dn_metric_defs[id].unit, dn_metric_defs[id].kind ==
	    DN_KIND_C ? "counter" : "gauge");
	for (i = 0; i < n; i++)
		points_json(r->body, v[i].node, v[i].t_ms, v[i].v, v[i].n,
		    i == 0);
	fputs("]}\n", r->body);
	snapshot_series_free(v, n);
}

/* The verdict of A against B as compare's JSON onto R (or an error). */
static char *
verdict_of(struct serve *s, const char *a, const char *b, struct reply *r)
{
	struct dn_store		*st = serve_store(s, r);
	struct compare_opts	 o = { .format = COMPARE_JSON, .named = 1 };
	struct compare_result	*res = NULL;
	char			*cause = NULL, *buf = NULL;
	size_t			 len = 0;
	FILE			*f;

	if (st == NULL)
		return (NULL);
	if (compare_analyze(st, a, b, &o, &res, &cause) != 0) {
		f = open_memstream(&buf, &len);
		fputs("{\"verdict\":null,\"headline\":", f);
		dn_json_str(f, cause);
		fputs(",\"why\":", f);
		dn_json_str(f, cause);
		fputs("}\n", f);
		fclose(f);
		free(cause);
		return (buf);
	}
	f = open_memstream(&buf, &len);
	compare_render(res, COMPARE_JSON, f);
	fclose(f);
	compare_result_free(res);
	return (buf);
}

/* The live run's verdict: its first two variants, once each has a trial
 * that ended; kept until the next trial ends. */
static void
verdict_live(struct serve *s, struct reply *r)
{
	struct snap_view	*v = snapshot_view(s->snap);
	const char		*va = NULL, *vb = NULL;
	int			 i, enda = 0, endb = 0;
	char			 a[300], b[300];

	for (i = 0; i < v->ntrials; i++) {
		const struct snap_trial_view *tv = &v->trials[i];

		if (va == NULL)
			va = tv->variant;
		else if (vb == NULL && strcmp(tv->variant, va) != 0)
			vb = tv->variant;
		if (tv->state == SNAP_ENDED && strcmp(tv->variant, va) == 0)
			enda++;
		if (tv->state == SNAP_ENDED && vb != NULL &&
		    strcmp(tv->variant, vb) == 0)
			endb++;
	}
	if (enda == 0 || endb == 0) {
		const char *why = vb == NULL ? "one variant: nothing to "
		    "compare" : "waiting for a trial of each variant to end";

		fprintf(r->body, "{\"verdict\":null,\"headline\":\"%s\","
		    "\"why\":\"%s\"}\n", why, why);
		snapshot_view_free(v);
		return;
	}
	if (s->verdict_json == NULL || s->verdict_ended != v->ended) {
		snprintf(a, sizeof(a), "%lld:%s", (long long)v->group_id, va);
		snprintf(b, sizeof(b), "%lld:%s", (long long)v->group_id, vb);
		free(s->verdict_json);
		s->verdict_json = verdict_of(s, a, b, r);
		s->verdict_ended = v->ended;
	}
	if (s->verdict_json != NULL)
		fputs(s->verdict_json, r->body);
	snapshot_view_free(v);
}

void
serve_api_verdict(struct serve *s, const struct serve_req *q,
    struct reply *r)
{
	const char	*a, *b, *why;
	char		*j;
	int		 st;

	r->type = JSON;
	if (serve_req_arg(q, "a") != NULL || serve_req_arg(q, "b") != NULL) {
		if ((st = serve_req_sides(q, &a, &b, &why)) != 0) {
			serve_error(r, st, "%s", why);
			return;
		}
		if ((j = verdict_of(s, a, b, r)) != NULL)
			fputs(j, r->body);
		free(j);
		return;
	}
	if (s->snap == NULL) {
		serve_error(r, 400, "want ?a=SIDE&b=SIDE (as devnet compare)");
		return;
	}
	/* one verdict at a time: the cache is shared by every request */
	pthread_mutex_lock(&s->verdict_mu);
	verdict_live(s, r);
	pthread_mutex_unlock(&s->verdict_mu);
}

struct rows {
	FILE	*out;
	int	 n;
};

static int
run_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct rows	*rw = arg;
	int		 i;

	fputs(rw->n++ ? ",{" : "{", rw->out);
	for (i = 0; i < ncols; i++) {
		fprintf(rw->out, "%s\"%s\":", i ? "," : "", names[i]);
		if (values[i] == NULL)
			fputs("null", rw->out);
		else if (types[i] == 1)
			fputs(values[i], rw->out);
		else if (types[i] == 2)		/* never a bare Inf */
			dn_json_numtext(rw->out, values[i]);
		else
			dn_json_str(rw->out, values[i]);
	}
	fputc('}', rw->out);
	return (0);
}

void
serve_api_runs(struct serve *s, struct reply *r)
{
	struct dn_store	*st = serve_store(s, r);
	struct rows	 rw = { NULL, 0 };
	char		*buf = NULL, *cause = NULL;
	size_t		 len = 0;

	if (st == NULL)
		return;
	rw.out = open_memstream(&buf, &len);
	fputs("{\"runs\":[", rw.out);
	if (dn_store_read(st, DN_READ_RUNS, 0, run_row, &rw, &cause) != 0) {
		fclose(rw.out);
		free(buf);
		serve_error(r, 500, "%s", cause);
		free(cause);
		return;
	}
	fputs("]}\n", rw.out);
	fclose(rw.out);
	r->type = JSON;
	fwrite(buf, 1, len, r->body);
	free(buf);
}
