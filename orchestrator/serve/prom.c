/*
 * prom.c: /metrics (serve-internal.h).  Every node's latest sample of the
 * trials running, as `devnet_` + the metric table's name in base units
 * (ms and µs as seconds: devnet_lag_seconds), counters with `_total`,
 * labelled run, variant, trial, node, host (node "loadgen" for the load
 * generator); HELP and TYPE (and, for OpenMetrics, UNIT) from the metric
 * table.  The Prometheus text format 0.0.4, or OpenMetrics 1.0.0 when the
 * scraper asks for it (server.c reads Accept).  Formatted from a copy of
 * the snapshot: no lock is held here.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "serve/serve-internal.h"
#include "trial/snapshot.h"
#include "json-write.h"

static double
serve_prom_name(int i, char *buf, size_t len)
{
	const struct dn_metric_def	*d = &dn_metric_defs[i];
	size_t				 n = strlen(d->name);
	double				 f = 1;
	int				 cut = 0;

	if (strcmp(d->unit, "ms") == 0 && n > 3 &&
	    strcmp(d->name + n - 3, "_ms") == 0) {
		f = 1e-3;
		cut = 3;
	} else if (strcmp(d->unit, "us") == 0 && n > 3 &&
	    strcmp(d->name + n - 3, "_us") == 0) {
		f = 1e-6;
		cut = 3;
	} else if (strcmp(d->unit, "s") == 0 && n > 2 &&
	    strcmp(d->name + n - 2, "_s") == 0)
		cut = 2;
	snprintf(buf, len, "devnet_%.*s%s", (int)(n - (size_t)cut), d->name,
	    cut ? "_seconds" : "");
	return (f);
}

/* The label value V, escaped as both formats want (\\, \", \n). */
static void
label(FILE *out, const char *k, const char *v, int first)
{
	fprintf(out, "%s%s=\"", first ? "" : ",", k);
	for (; *v != '\0'; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(out, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
	fputc('"', out);
}

static void
trial_labels(FILE *out, const struct snap_trial_view *tv)
{
	char	b[32];

	snprintf(b, sizeof(b), "%lld", (long long)tv->run_id);
	label(out, "run", b, 1);
	label(out, "variant", tv->variant, 0);
	snprintf(b, sizeof(b), "%d", tv->index + 1);
	label(out, "trial", b, 0);
}

static void
node_labels(FILE *out, const struct snap_trial_view *tv,
    const struct snap_node *n)
{
	char	b[32];

	fputc('{', out);
	trial_labels(out, tv);
	if (n->node < 0)
		snprintf(b, sizeof(b), "loadgen");
	else
		snprintf(b, sizeof(b), "%d", n->node);
	label(out, "node", b, 0);
	label(out, "host", n->host, 0);
	fputc('}', out);
}

static void
value(FILE *out, double v)
{
	char	b[DN_NUM_MAX];

	if (isnan(v))
		fputs(" NaN\n", out);
	else if (isinf(v))
		fputs(v > 0 ? " +Inf\n" : " -Inf\n", out);
	else
		fprintf(out, " %s\n", dn_num_fmt(v, b, sizeof(b)));
}

/* The family header: HELP, TYPE, and for OpenMetrics UNIT. */
static void
family(FILE *out, const char *name, const char *type, const char *unit,
    const char *help, int om)
{
	char	fam[128];
	size_t	n = strlen(name);

	/* OpenMetrics names a counter's family without _total */
	snprintf(fam, sizeof(fam), "%.*s", (int)(om && strcmp(type,
	    "counter") == 0 && n > 6 ? n - 6 : n), name);
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", fam, help, fam, type);
	if (om && unit != NULL)
		fprintf(out, "# UNIT %s %s\n", fam, unit);
}

/* The unit of name NAME for OpenMetrics' UNIT line: only base units the
 * name ends with (before _total), else none. */
static const char *
om_unit(const char *name, int counter)
{
	size_t	n = strlen(name) - (counter ? 6 : 0);

	if (n > 6 && strncmp(name + n - 6, "_bytes", 6) == 0)
		return ("bytes");
	if (n > 8 && strncmp(name + n - 8, "_seconds", 8) == 0)
		return ("seconds");
	return (NULL);
}

/* 1 if TV's series are shown: a trial running (or starting). */
static int
live(const struct snap_trial_view *tv)
{
	return ((tv->state == SNAP_RUNNING || tv->state == SNAP_STARTING) &&
	    tv->nodes != NULL);
}

static void
table_metrics(FILE *out, const struct snap_view *v, int om)
{
	char	name[128];
	int	i, j, k;

	for (i = 0; i < DN_METRIC_COUNT; i++) {
		const struct dn_metric_def	*d = &dn_metric_defs[i];
		int				 c = d->kind == DN_KIND_C, any = 0;
		double				 f = serve_prom_name(i, name,
						    sizeof(name) - 8);

		/* sizeof(name) - 8 above keeps room for the suffix */
		if (c)
			memcpy(name + strlen(name), "_total", sizeof("_total"));
		for (j = 0; j < v->ntrials; j++) {
			const struct snap_trial_view *tv = &v->trials[j];

			if (!live(tv))
				continue;
			for (k = 0; k <= tv->nnodes; k++) {
				const struct snap_node *n = &tv->nodes[k];

				if (!(n->have >> i & 1))
					continue;
				if (!any++)
					family(out, name, c ? "counter" :
					    "gauge", om_unit(name, c),
					    d->desc, om);
				fputs(name, out);
				node_labels(out, tv, n);
				value(out, n->last[i] * f);
			}
		}
	}
}

/* devnet's own series: node up, fault active, samples, events, clock. */
static void
own_metrics(FILE *out, const struct snap_view *v, int om)
{
	/* devnet_event is devnet_fault_active under the name issue 24
	 * gave it ("a devnet_event / fault-active gauge"): both kept. */
	static const char *const names[] = {
		"devnet_node_up", "devnet_fault_active",
		"devnet_samples_received_total", "devnet_event"
	};
	static const char *const help[] = {
		"1 while the node runs as planned",
		"1 while an event or a crash has the node down or paused",
		"SAMPLE messages the collector took from the node",
		"1 while an event or a crash has the node down or paused "
		"(devnet_fault_active)"
	};
	int	m, j, k;

	for (m = 0; m < 4; m++) {
		family(out, names[m], m == 2 ? "counter" : "gauge", NULL,
		    help[m], om);
		for (j = 0; j < v->ntrials; j++) {
			const struct snap_trial_view *tv = &v->trials[j];

			for (k = 0; live(tv) && k <= tv->nnodes; k++) {
				const struct snap_node *n = &tv->nodes[k];

				if (n->node < 0 && m != 2)
					continue;
				fputs(names[m], out);
				node_labels(out, tv, n);
				value(out, m == 0 ? n->state == SNAP_NODE_UP :
				    m == 2 ? (double)n->samples :
				    (n->state != SNAP_NODE_UP &&
				    n->state != SNAP_NODE_DONE));
			}
		}
	}
	family(out, "devnet_events_total", "counter", NULL,
	    "events recorded in the trial (devnet show)", om);
	for (j = 0; j < v->ntrials; j++) {
		if (!live(&v->trials[j]))
			continue;
		fputs("devnet_events_total{", out);
		trial_labels(out, &v->trials[j]);
		fputc('}', out);
		value(out, (double)v->trials[j].events_total);
	}
	family(out, "devnet_trial_elapsed_seconds", "gauge", om ? "seconds" :
	    NULL, "time since the trial's t=0", om);
	for (j = 0; j < v->ntrials; j++) {
		if (!live(&v->trials[j]))
			continue;
		fputs("devnet_trial_elapsed_seconds{", out);
		trial_labels(out, &v->trials[j]);
		fputc('}', out);
		value(out, (double)v->trials[j].t_ms / 1000.0);
	}
	family(out, "devnet_trials_ended", "gauge", NULL,
	    "trials of the plan that have ended", om);
	fprintf(out, "devnet_trials_ended %d\n", v->ended);
	family(out, "devnet_trials_planned", "gauge", NULL,
	    "trials in the plan", om);
	fprintf(out, "devnet_trials_planned %d\n", v->ntrials);
}

void
serve_metrics(struct serve *s, int om, struct reply *r)
{
	struct snap_view	*v;

	r->type = om ? "application/openmetrics-text; version=1.0.0; "
	    "charset=utf-8" : "text/plain; version=0.0.4; charset=utf-8";
	if (s->snap == NULL) {
		if (om)
			fputs("# EOF\n", r->body);
		return;
	}
	v = snapshot_view(s->snap);
	table_metrics(r->body, v, om);
	own_metrics(r->body, v, om);
	if (om)
		fputs("# EOF\n", r->body);
	snapshot_view_free(v);
}
