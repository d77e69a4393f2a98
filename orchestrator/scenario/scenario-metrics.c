/*
 * scenario-metrics.c: node.metrics, what a foreign node's own output says
 * about it beyond its process tree: log lines (metrics.log), its
 * Prometheus page (metrics.prometheus) and its JSON page (metrics.json).
 * Log and JSON metrics share one list (struct scn_log_metric), so that
 * a name, its direction and its type are checked and declared once.
 *
 * Not here: the URLs' templates (checked with the node's others,
 * scenario-node.c), the probe's flags (plan/plan-foreign.c).
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-path.h"
#include "metric-table.h"
#include "protocol.h"
#include "scenario/scenario-internal.h"
#include "xalloc.h"

static const char *const metrics_keys[] = { "log", "prometheus", "json",
	NULL };
static const char *const logm_keys[] = { "regex", "better", "type", NULL };
static const char *const json_keys[] = { "url", "fields", "every", NULL };
static const char *const jsonf_keys[] = { "path", "type", "better", NULL };
static const char *const type_names[] = { "gauge", "counter", NULL };
static const char *const better_names[] = { "higher", "lower", "neutral",
	NULL };
static const char *const prom_keys[] = { "url", "map", "keep", "every",
	NULL };

/* devnet-probe sends its own count of failed scrapes under this name. */
#define RESERVED	"node.metrics.%s: '%s' is reserved (devnet-probe's " \
			"count of failed Prometheus scrapes); choose another " \
			"name"

/* Drop O's metrics of one source (JSON fields when JSON, else log
 * extractors): a variant's metrics.log or metrics.json replaces the top
 * level's, the other stays. */
static void
drop_logm(struct scn_node *o, int json)
{
	size_t	i, n = 0;

	for (i = 0; i < o->nlogm; i++) {
		struct scn_log_metric	*m = &o->logm[i];

		if ((m->path != NULL) != json) {
			o->logm[n++] = *m;
			continue;
		}
		free(m->name);
		free(m->regex);
		free(m->path);
		free(m->better);
	}
	o->nlogm = n;
}

/* The name K of a log or JSON metric into a new entry of O (WHAT:
 * "log" or "json.fields"). */
static int
new_logm(struct ctx *c, const struct ynode *k, struct scn_node *o,
    const char *what, struct scn_log_metric **mp, int *idp)
{
	struct scn_log_metric	*m;
	size_t			 j;
	int			 id;

	id = dn_metric_lookup(k->value);
	if (id >= 0 && dn_metric_defs[id].source != DN_SOURCE_N)
		return (scn_fail(c, k, "node.metrics.%s: '%s' comes from the "
		    "load generator, not a node", what, k->value));
	if (id < 0 && !dn_named_name_ok(k->value))
		return (scn_fail(c, k, "node.metrics.%s: bad metric name '%s' "
		    "(letters, digits, _ : ., not starting with a digit or "
		    "'.')", what, k->value));
	if (strcmp(k->value, DN_NAME_SCRAPE_FAILURES) == 0)
		return (scn_fail(c, k, RESERVED, what, k->value));
	for (j = 0; j < o->nlogm; j++)
		if (strcmp(o->logm[j].name, k->value) == 0)
			return (scn_fail(c, k, "node.metrics.%s: '%s' twice "
			    "(metrics.log and metrics.json share one list of "
			    "names)", what, k->value));
	o->logm = dn_xreallocarray(o->logm, o->nlogm + 1, sizeof(*o->logm));
	m = &o->logm[o->nlogm++];
	memset(m, 0, sizeof(*m));
	m->name = dn_xstrdup(k->value);
	*mp = m;
	*idp = id;
	return (0);
}

/* better: and type: of a log or JSON metric V (a mapping) into M; W
 * names it for messages. */
static int
logm_opts(struct ctx *c, const struct ynode *v, struct scn_log_metric *m,
    int id, const char *w)
{
	const struct ynode	*b;
	int			 bi;

	if ((b = ymap_get(v, "better")) != NULL) {
		if (id >= 0)
			return (scn_fail(c, b, "%s: a table metric's direction "
			    "is fixed", w));
		if (scn_get_enum(c, b, "better", better_names, &bi) != 0)
			return (-1);
		m->better = dn_xstrdup(better_names[bi]);
	}
	if ((b = ymap_get(v, "type")) != NULL) {
		if (scn_get_enum(c, b, "type", type_names, &bi) != 0)
			return (-1);
		if (id >= 0 && bi == 1)
			return (scn_fail(c, b, "%s: a table metric's kind is "
			    "fixed", w));
		m->counter = bi == 1;
	}
	return (0);
}

static int
load_logm(struct ctx *c, const struct ynode *n, struct scn_node *o)
{
	size_t	i;

	if (n->type != Y_MAP || n->nkids == 0)
		return (scn_fail(c, n, "node.metrics.log must be a mapping of "
		    "NAME: 'regex with one capture', not a %s",
		    ynode_type_name(n)));
	drop_logm(o, 0);
	for (i = 0; i + 1 < n->nkids; i += 2) {
		const struct ynode	*k = n->kids[i], *v = n->kids[i + 1];
		const struct ynode	*re = v;
		struct scn_log_metric	*m;
		char			*w;
		int			 id, rc;

		if (new_logm(c, k, o, "log", &m, &id) != 0)
			return (-1);
		w = dn_xasprintf("node.metrics.log.%s", k->value);
		if (v->type == Y_MAP) {
			if (scn_check_map(c, v, w, logm_keys) != 0 ||
			    (re = ymap_get(v, "regex")) == NULL) {
				rc = re == NULL && c->cause == NULL ?
				    scn_fail(c, v, "%s needs 'regex'", w) : -1;
				free(w);
				return (rc);
			}
			if (logm_opts(c, v, m, id, w) != 0) {
				free(w);
				return (-1);
			}
		}
		rc = scn_get_str(c, re, w, &m->regex) != 0 ||
		    scn_check_regex(c, re, w, 1) != 0 ? -1 : 0;
		free(w);
		if (rc != 0)
			return (-1);
	}
	return (0);
}

/* metrics.json: {url, every, fields: {NAME: PATH | {path, type,
 * better}}} (issue 37). */
static int
load_json(struct ctx *c, const struct ynode *n, struct scn_node *o,
    const struct ynode **url)
{
	const struct ynode	*v, *f;
	const char		*why;
	size_t			 i;

	if (scn_check_map(c, n, "node.metrics.json", json_keys) != 0)
		return (-1);
	if ((v = ymap_get(n, "url")) == NULL ||
	    (f = ymap_get(n, "fields")) == NULL)
		return (scn_fail(c, n, "node.metrics.json needs 'url' and "
		    "'fields' (e.g. url: 'http://127.0.0.1:{port}/stats', "
		    "fields: {served: {path: 'requests.total', type: "
		    "counter}})"));
	free(o->json_url);
	o->json_url = NULL;
	if (scn_get_str(c, v, "node.metrics.json.url", &o->json_url) != 0)
		return (-1);
	if (strncmp(o->json_url, "http://", 7) != 0 &&
	    strncmp(o->json_url, "https://", 8) != 0)
		return (scn_fail(c, v, "node.metrics.json.url must be an "
		    "http:// URL"));
	*url = v;
	o->json_every = 0;
	if ((v = ymap_get(n, "every")) != NULL &&
	    scn_get_int32(c, v, "node.metrics.json.every", 1, 1000,
	    &o->json_every) != 0)
		return (-1);
	if (f->type != Y_MAP || f->nkids == 0)
		return (scn_fail(c, f, "node.metrics.json.fields must be a "
		    "mapping of NAME: 'path' or NAME: {path: ..., type: "
		    "gauge|counter, better: lower|higher}, not a %s",
		    ynode_type_name(f)));
	drop_logm(o, 1);
	for (i = 0; i + 1 < f->nkids; i += 2) {
		const struct ynode	*k = f->kids[i], *fv = f->kids[i + 1];
		const struct ynode	*p = fv;
		struct scn_log_metric	*m;
		char			*w;
		int			 id, rc = -1;

		if (new_logm(c, k, o, "json.fields", &m, &id) != 0)
			return (-1);
		w = dn_xasprintf("node.metrics.json.fields.%s", k->value);
		if (fv->type == Y_MAP && (scn_check_map(c, fv, w,
		    jsonf_keys) != 0 || logm_opts(c, fv, m, id, w) != 0))
			goto next;
		if (fv->type == Y_MAP && (p = ymap_get(fv, "path")) == NULL) {
			rc = scn_fail(c, fv, "%s needs 'path' (e.g. 'a.b[0]')",
			    w);
			goto next;
		}
		if (scn_get_str(c, p, w, &m->path) != 0)
			goto next;
		if (dn_json_path_check(m->path, &why) != 0) {
			rc = scn_fail(c, p, "%s: bad path '%s': %s (steps: "
			    "name, .name, [N], [\"odd.name\"])", w, m->path,
			    why);
			goto next;
		}
		rc = 0;
next:
		free(w);
		if (rc != 0)
			return (-1);
	}
	return (0);
}

static int
load_prom(struct ctx *c, const struct ynode *n, struct scn_node *o,
    const struct ynode **url)
{
	const struct ynode	*v;
	size_t			 i;

	if (scn_check_map(c, n, "node.metrics.prometheus", prom_keys) != 0)
		return (-1);
	if ((v = ymap_get(n, "url")) == NULL)
		return (scn_fail(c, n, "node.metrics.prometheus needs 'url' "
		    "(e.g. 'http://127.0.0.1:{port}/metrics')"));
	if (scn_get_str(c, v, "node.metrics.prometheus.url", &o->prom_url) !=
	    0)
		return (-1);
	if (strncmp(o->prom_url, "http://", 7) != 0 &&
	    strncmp(o->prom_url, "https://", 8) != 0)
		return (scn_fail(c, v, "node.metrics.prometheus.url must be "
		    "an http:// URL"));
	*url = v;
	o->prom_every = 0;
	if ((v = ymap_get(n, "every")) != NULL &&
	    scn_get_int32(c, v, "node.metrics.prometheus.every", 1, 1000,
	    &o->prom_every) != 0)
		return (-1);
	scn_strv_free(o->prom_map, o->nprom_map);
	o->prom_map = NULL;
	o->nprom_map = 0;
	if ((v = ymap_get(n, "map")) != NULL) {
		if (v->type != Y_MAP)
			return (scn_fail(c, v, "node.metrics.prometheus.map "
			    "must be a mapping of DEVNET_NAME: "
			    "exposition_name, not a %s", ynode_type_name(v)));
		o->prom_map = dn_xcalloc(v->nkids / 2 + 1,
		    sizeof(*o->prom_map));
		for (i = 0; i + 1 < v->nkids; i += 2) {
			const struct ynode *k = v->kids[i];

			if (dn_metric_lookup(k->value) < 0 &&
			    !dn_named_name_ok(k->value))
				return (scn_fail(c, k, "node.metrics."
				    "prometheus.map: bad metric name '%s'",
				    k->value));
			if (strcmp(k->value, DN_NAME_SCRAPE_FAILURES) == 0)
				return (scn_fail(c, k, RESERVED,
				    "prometheus.map", k->value));
			if (scn_want_scalar(c, v->kids[i + 1],
			    "node.metrics.prometheus.map") != 0)
				return (-1);
			o->prom_map[o->nprom_map++] = dn_xasprintf("%s=%s",
			    k->value, v->kids[i + 1]->value);
		}
	}
	scn_strv_free(o->prom_keep, o->nprom_keep);
	o->prom_keep = NULL;
	o->nprom_keep = 0;
	if ((v = ymap_get(n, "keep")) != NULL &&
	    scn_get_strv(c, v, "node.metrics.prometheus.keep", &o->prom_keep,
	    &o->nprom_keep, 1) != 0)
		return (-1);
	for (i = 0; i < o->nprom_keep; i++)
		if (!dn_named_name_ok(o->prom_keep[i]))
			return (scn_fail(c, v->kids[i], "node.metrics."
			    "prometheus.keep: '%s' cannot be stored under "
			    "that name", o->prom_keep[i]));
		else if (strcmp(o->prom_keep[i], DN_NAME_SCRAPE_FAILURES) == 0)
			return (scn_fail(c, v->kids[i], RESERVED,
			    "prometheus.keep", o->prom_keep[i]));
	return (0);
}

int
scn_load_metrics(struct ctx *c, const struct ynode *n, struct scn_node *o,
    const struct ynode **urls)
{
	const struct ynode	*m;

	urls[0] = urls[1] = NULL;
	if (scn_check_map(c, n, "node.metrics", metrics_keys) != 0)
		return (-1);
	if ((m = ymap_get(n, "log")) != NULL && load_logm(c, m, o) != 0)
		return (-1);
	if ((m = ymap_get(n, "json")) != NULL &&
	    load_json(c, m, o, &urls[1]) != 0)
		return (-1);
	if ((m = ymap_get(n, "prometheus")) != NULL &&
	    load_prom(c, m, o, &urls[0]) != 0)
		return (-1);
	return (0);
}

void
scn_metrics_release(struct scn_node *o)
{
	drop_logm(o, 0);
	drop_logm(o, 1);
	free(o->logm);
	free(o->prom_url);
	free(o->json_url);
	scn_strv_free(o->prom_map, o->nprom_map);
	scn_strv_free(o->prom_keep, o->nprom_keep);
}
