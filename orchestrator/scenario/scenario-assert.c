/*
 * scenario-assert.c: the assert: section, a list of {name, FORM: {...}}
 * where FORM is eventually, always, value or relative: the condition
 * ("lag_ms < 500") read against the metric table and the named metrics,
 * its unit checked against the metric's, its window anchored on t=0, the
 * warmup, the end or a named event; and the one-line description devnet
 * validate prints.  Not here: evaluating them (orchestrator/assert/).
 */
#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "metric-table.h"
#include "units.h"
#include "xalloc.h"

#define SCN_MAX_ASSERTS	1000
#define NAME_MAX_LEN	64

static const char *const entry_keys[] = { "name", "eventually", "always",
	"value", "relative", NULL };
static const char *const form_names[] = { "eventually", "always", "value",
	"relative", NULL };
static const char *const scope_names[] = { "each_node", "all_nodes",
	"any_node", "max_spread", "load", NULL };
static const char *const ev_keys[] = { "each_node", "all_nodes", "any_node",
	"max_spread", "load", "within", "after", "during", NULL };
static const char *const al_keys[] = { "each_node", "all_nodes", "any_node",
	"max_spread", "load", "after", "during", "except", "sustained",
	"abort_on_fail", "grace", NULL };
static const char *const val_keys[] = { "each_node", "all_nodes",
	"any_node", "max_spread", "load", "after", "during", "except", NULL };
static const char *const folds[] = { "", "_mean", "_max", "_min", "_p99",
	"_growth", "_per_s", NULL };

/* --- names ------------------------------------------------------------ */

/* The named metrics of every variant's node: log extractors, Prometheus
 * names (mapped or kept), NULL-terminated; free the array only. */
const char **
scn_named_metrics(const struct scenario *s, size_t *np)
{
	const char	**v = NULL;
	size_t		  n = 0, i, j;

	for (i = 0; i < s->nvariants; i++) {
		const struct scn_node *o = &s->variants[i].node;

		v = dn_xreallocarray(v, n + o->nlogm + o->nprom_map +
		    o->nprom_keep + 1, sizeof(*v));
		for (j = 0; j < o->nlogm; j++)
			v[n++] = o->logm[j].name;
		for (j = 0; j < o->nprom_keep; j++)
			v[n++] = o->prom_keep[j];
		for (j = 0; j < o->nprom_map; j++)
			v[n++] = o->prom_map[j];	/* "NAME=..." */
	}
	v = dn_xreallocarray(v, n + 1, sizeof(*v));
	v[n] = NULL;
	*np = n;
	return (v);
}

static int
is_named(const char *const *named, const char *name)
{
	size_t	i, l = strlen(name);

	for (i = 0; named[i] != NULL; i++)
		if (strncmp(named[i], name, l) == 0 &&
		    (named[i][l] == '\0' || named[i][l] == '='))
			return (1);
	return (0);
}

/* A base metric of the table: NAME, or NAME_bytes ("rss" -> rss_bytes). */
static int
lookup_base(const char *name, size_t len)
{
	char	buf[NAME_MAX_LEN + 8];
	int	id;

	if (len > NAME_MAX_LEN)
		return (-1);
	snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
	if ((id = dn_metric_lookup(buf)) >= 0)
		return (id);
	snprintf(buf, sizeof(buf), "%.*s_bytes", (int)len, name);
	return (dn_metric_lookup(buf));
}

/* "did you mean" over the table, its value forms and NAMED. */
static const char *
nearest(const char *word, const char *const *named, int value_forms,
    char *buf, size_t cap)
{
	const char	*cand[DN_METRIC_COUNT * 7 + DN_VERDICT_COUNT + 64];
	char		 pool[DN_METRIC_COUNT * 7][NAME_MAX_LEN];
	size_t		 n = 0, p = 0, i, f;

	for (i = 0; i < DN_METRIC_COUNT; i++) {
		for (f = 0; folds[f] != NULL; f++) {
			if (f > 0 && !value_forms)
				break;
			snprintf(pool[p], NAME_MAX_LEN, "%s%s",
			    dn_metric_defs[i].name, folds[f]);
			cand[n++] = pool[p++];
		}
	}
	for (i = 0; value_forms && i < DN_VERDICT_COUNT; i++)
		cand[n++] = dn_verdict_defs[i].name;
	for (i = 0; named[i] != NULL && n + 1 < sizeof(cand) /
	    sizeof(cand[0]); i++)
		cand[n++] = named[i];
	cand[n] = NULL;
	if (scn_nearest(word, cand, buf, cap) != 0)
		return (NULL);
	if (strchr(buf, '=') != NULL)
		*strchr(buf, '=') = '\0';
	return (buf);
}

/* --- units ------------------------------------------------------------ */

/* Seconds in a rate's time unit, 0 when it is none. */
static double
per_unit_s(const char *u)
{
	if (strcmp(u, "s") == 0)
		return (1);
	if (strcmp(u, "min") == 0)
		return (60);
	if (strcmp(u, "h") == 0)
		return (3600);
	return (0);
}

static double
time_unit_ms(const char *u)
{
	static const struct { const char *u; double ms; } t[] = {
		{ "ns", 1e-6 }, { "us", 1e-3 }, { "ms", 1 }, { "s", 1000 },
		{ "min", 60000 }, { "h", 3600000 }, { NULL, 0 } };
	size_t	i;

	for (i = 0; t[i].u != NULL; i++)
		if (strcmp(t[i].u, u) == 0)
			return (t[i].ms);
	return (0);
}

/*
 * The factor that takes a number written with unit SFX into UNIT (a
 * metric's: "bytes", "ms", "bytes/min", "txs/s", "blocks"); 0 when SFX is
 * not a UNIT.  A bare number is in UNIT.
 */
static double
unit_factor(const char *sfx, const char *unit)
{
	char		 sn[32], sd[32], un[32], ud[32], one[40];
	const char	*why, *q;
	uint64_t	 b;
	double		 f, tn, tu;

	if (*sfx == '\0')
		return (1);
	if (strcmp(sfx, unit) == 0)
		return (1);
	q = strchr(sfx, '/');
	snprintf(sn, sizeof(sn), "%.*s", (int)(q ? q - sfx : 31), sfx);
	snprintf(sd, sizeof(sd), "%s", q ? q + 1 : "");
	q = strchr(unit, '/');
	snprintf(un, sizeof(un), "%.*s", (int)(q ? q - unit : 31), unit);
	snprintf(ud, sizeof(ud), "%s", q ? q + 1 : "");
	if ((*sd == '\0') != (*ud == '\0'))
		return (0);
	if (*sn == '\0')	/* "1000/s": the metric's own numerator */
		snprintf(sn, sizeof(sn), "%s", un);
	f = 1;
	if (*ud != '\0') {
		if (per_unit_s(sd) == 0 || per_unit_s(ud) == 0)
			return (0);
		f = per_unit_s(ud) / per_unit_s(sd);
	}
	if (strcmp(sn, un) == 0)
		return (f);
	if (strcmp(un, "bytes") == 0) {
		snprintf(one, sizeof(one), "1%s", sn);
		if (dn_parse_size(one, &b, &why) != 0)
			return (0);
		return (f * (double)b);
	}
	tn = time_unit_ms(sn);
	tu = time_unit_ms(un);
	if (tn > 0 && tu > 0)
		return (f * tn / tu);
	return (0);
}

/* --- the condition: "METRIC OP NUMBER[UNIT]" --------------------------- */

/* The unit a FOLD of metric ID gives. */
static char *
fold_unit(int id, enum scn_afold fold)
{
	const char *u = dn_metric_defs[id].unit;

	if (fold == SCN_FOLD_GROWTH)
		return (dn_xasprintf("%s/min", u));
	if (fold == SCN_FOLD_RATE)
		return (dn_xasprintf("%s/s", u));
	return (dn_xstrdup(u));
}

/* The assertion's fold of a verdict metric's fold. */
static enum scn_afold
verdict_fold(enum dn_fold f)
{
	switch (f) {
	case DN_FOLD_MAX:
		return (SCN_FOLD_MAX);
	case DN_FOLD_P99:
		return (SCN_FOLD_P99);
	case DN_FOLD_MEDIAN:
		return (SCN_FOLD_MEDIAN);
	case DN_FOLD_SLOPE_MIN:
		return (SCN_FOLD_GROWTH);
	case DN_FOLD_RATE:
		return (SCN_FOLD_RATE);
	case DN_FOLD_MEAN:
		break;
	}
	return (SCN_FOLD_MEAN);
}

/* The verdict metric NAME stands for as a value form (rss_mean, a base
 * name with a fold suffix, is rss_avg), or -1. */
static int
verdict_of_value_form(const char *name)
{
	static const int of[] = { DN_FOLD_MEAN, DN_FOLD_MEAN,
		DN_FOLD_MAX, -1, DN_FOLD_P99, DN_FOLD_SLOPE_MIN, DN_FOLD_RATE };
	size_t	l = strlen(name), f, fl;
	int	id;

	if ((id = dn_metric_lookup(name)) >= 0)
		return (dn_verdict_of(id, dn_metric_defs[id].kind ==
		    DN_KIND_C ? DN_FOLD_RATE : DN_FOLD_MEAN));
	for (f = 1; folds[f] != NULL; f++) {
		fl = strlen(folds[f]);
		if (l <= fl || strcmp(name + l - fl, folds[f]) != 0 ||
		    of[f] < 0 || (id = lookup_base(name, l - fl)) < 0)
			continue;
		return (dn_verdict_of(id, (enum dn_fold)of[f]));
	}
	return (-1);
}

/*
 * A relative assertion is judged by the verdict (compare's rows), so its
 * metric is one of them or a node's named metric: say so, with the row
 * a value form stands for (rss_mean: rss_avg) or the nearest name.
 */
static int
relative_unknown(struct ctx *c, const struct ynode *n, const char *name,
    const char *const *named)
{
	const char	*cand[DN_VERDICT_COUNT + 1];
	char		 hint[NAME_MAX_LEN] = "", sug[128] = "";
	int		 v;
	size_t		 i;

	if ((v = verdict_of_value_form(name)) >= 0)
		snprintf(sug, sizeof(sug), " (it is the verdict's '%s')",
		    dn_verdict_defs[v].name);
	else {
		for (i = 0; i < DN_VERDICT_COUNT; i++)
			cand[i] = dn_verdict_defs[i].name;
		cand[i] = NULL;
		if (scn_nearest(name, cand, hint, sizeof(hint)) == 0 ||
		    nearest(name, named, 0, hint, sizeof(hint)) != NULL)
			snprintf(sug, sizeof(sug), " (did you mean '%s'?)",
			    hint);
	}
	return (scn_fail(c, n, "relative: '%s' is not a metric the verdict "
	    "judges%s; a relative assertion takes a verdict metric or a "
	    "node's named metric (node.metrics); 'devnet metrics' lists "
	    "them all (docs/metrics.md)", name, sug));
}

/* Fill A's metric from NAME: a metric of the table, a named metric, or
 * (value and relative) a table metric with a fold suffix. */
static int
resolve_metric(struct ctx *c, const struct ynode *n, const char *name,
    const char *const *named, struct scn_assert *a)
{
	int		 valued = a->form == SCN_AF_VALUE ||
			    a->form == SCN_AF_RELATIVE;
	size_t		 l = strlen(name), f, fl;
	char		 hint[NAME_MAX_LEN], sug[96] = "";
	int		 id;

	a->metric = dn_xstrdup(name);
	a->metric_id = -1;
	a->metric_id2 = -1;
	if (valued && (id = dn_verdict_lookup(name)) >= 0) {
		/* the verdict's own row: the same value compare judges */
		a->metric_id = dn_verdict_defs[id].m1;
		a->metric_id2 = dn_verdict_defs[id].m2;
		a->fold = verdict_fold(dn_verdict_defs[id].fold);
		a->unit = dn_xstrdup(dn_verdict_defs[id].unit);
		return (0);
	}
	if (a->form == SCN_AF_RELATIVE && !is_named(named, name))
		return (relative_unknown(c, n, name, named));
	if ((id = dn_metric_lookup(name)) >= 0) {
		a->metric_id = id;
		a->fold = SCN_FOLD_NONE;
		if (valued)
			a->fold = dn_metric_defs[id].kind == DN_KIND_C ?
			    SCN_FOLD_RATE : SCN_FOLD_MEAN;
		a->unit = fold_unit(id, a->fold);
		return (0);
	}
	if (is_named(named, name)) {
		a->named = dn_xstrdup(name);
		a->fold = valued ? SCN_FOLD_MEAN : SCN_FOLD_NONE;
		a->unit = dn_xstrdup("");
		return (0);
	}
	for (f = 1; folds[f] != NULL; f++) {
		fl = strlen(folds[f]);
		if (l <= fl || strcmp(name + l - fl, folds[f]) != 0 ||
		    (id = lookup_base(name, l - fl)) < 0)
			continue;
		if (!valued)
			return (scn_fail(c, n, "'%s' is a value over the "
			    "trial; use it in a value: assertion, or '%s' "
			    "sample by sample", name,
			    dn_metric_defs[id].name));
		a->fold = (enum scn_afold)f;
		if ((a->fold == SCN_FOLD_RATE) !=
		    (dn_metric_defs[id].kind == DN_KIND_C))
			return (scn_fail(c, n, "'%s': %s is a %s; %s", name,
			    dn_metric_defs[id].name,
			    dn_metric_defs[id].kind == DN_KIND_C ? "counter" :
			    "gauge", dn_metric_defs[id].kind == DN_KIND_C ?
			    "write its rate, NAME_per_s" : "_per_s is for "
			    "counters"));
		a->metric_id = id;
		a->unit = fold_unit(id, a->fold);
		return (0);
	}
	if (nearest(name, named, valued, hint, sizeof(hint)) != NULL)
		snprintf(sug, sizeof(sug), " (did you mean '%s'?)", hint);
	return (scn_fail(c, n, "unknown metric '%s'%s; 'devnet metrics' "
	    "lists them (docs/metrics.md), named ones come from "
	    "node.metrics", name, sug));
}

/* Parse "METRIC OP NUMBER[UNIT]" (N's text) into A. */
static int
load_cond(struct ctx *c, const struct ynode *n, const char *what,
    const char *const *named, struct scn_assert *a)
{
	const char	*p, *q;
	char		 name[NAME_MAX_LEN + 1], *end, sfx[40];
	double		 v, f = 1;
	size_t		 l;
	int		 k;

	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	for (p = n->value; *p == ' '; p++)
		continue;
	for (q = p; isalnum((unsigned char)*q) || *q == '_' || *q == '.' ||
	    *q == '-'; q++)
		continue;
	if (q == p || (size_t)(q - p) > NAME_MAX_LEN)
		return (scn_fail(c, n, "%s: write METRIC OP LIMIT, e.g. "
		    "'lag_ms < 500' (got '%s')", what, n->value));
	snprintf(name, sizeof(name), "%.*s", (int)(q - p), p);
	for (; *q == ' '; q++)
		continue;
	for (k = SCN_CMP_EQ; k >= 0; k--) {
		l = strlen(scn_cmp_text(k));
		if (strncmp(q, scn_cmp_text(k), l) == 0 && (k == SCN_CMP_EQ ||
		    k == SCN_CMP_LE || k == SCN_CMP_GE || q[l] != '='))
			break;
	}
	if (k < 0)
		return (scn_fail(c, n, "%s: no comparison after '%s' (write "
		    "<, <=, >, >= or ==, e.g. '%s < 500')", what, name,
		    name));
	a->cmp = (enum scn_acmp)k;
	for (q += strlen(scn_cmp_text(k)); *q == ' '; q++)
		continue;
	v = strtod(q, &end);
	if (end == q || !isfinite(v))
		return (scn_fail(c, n, "%s: '%s' needs a number after '%s' "
		    "(got '%s')", what, name, scn_cmp_text(k), q));
	a->limit_text = dn_xstrdup(q);
	for (q = end; *q == ' '; q++)
		continue;
	snprintf(sfx, sizeof(sfx), "%s", q);
	for (l = strlen(sfx); l > 0 && sfx[l - 1] == ' '; l--)
		sfx[l - 1] = '\0';
	if (resolve_metric(c, n, name, named, a) != 0)
		return (-1);
	if (a->named != NULL && sfx[0] != '\0')
		return (scn_fail(c, n, "%s: '%s' is a named metric with no "
		    "unit; write a bare number (got '%s')", what, name, sfx));
	if (a->named == NULL && (f = unit_factor(sfx, a->unit)) == 0)
		return (scn_fail(c, n, "%s: '%s' is in %s; '%s' is not (write "
		    "a bare number of %s%s)", what, name, a->unit, sfx,
		    a->unit, strcmp(a->unit, "bytes/min") == 0 ?
		    ", or e.g. 1MiB/min" : strcmp(a->unit, "bytes") == 0 ?
		    ", or e.g. 64MiB" : strcmp(a->unit, "ms") == 0 ?
		    ", or e.g. 2s" : ""));
	else if (a->named == NULL)
		v *= f;
	a->limit = v;
	return (0);
}

/* --- windows ---------------------------------------------------------- */

static int
find_event(const struct scenario *s, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < s->nevents; i++)
		if (s->events[i].name != NULL &&
		    strlen(s->events[i].name) == len &&
		    strncmp(s->events[i].name, name, len) == 0)
			return ((int)i);
	return (-1);
}

static int
no_event(struct ctx *c, const struct scenario *s, const struct ynode *n,
    const char *what, const char *name, size_t len)
{
	const char	*cand[SCN_MAX_ASSERTS];
	char		 word[NAME_MAX_LEN + 1], hint[NAME_MAX_LEN];
	size_t		 i, k = 0;

	snprintf(word, sizeof(word), "%.*s", (int)len, name);
	cand[k++] = "warmup";
	cand[k++] = "end";
	for (i = 0; i < s->nevents && k + 1 < SCN_MAX_ASSERTS; i++)
		if (s->events[i].name != NULL)
			cand[k++] = s->events[i].name;
	cand[k] = NULL;
	if (scn_nearest(word, cand, hint, sizeof(hint)) == 0)
		return (scn_fail(c, n, "%s names event '%s', which is not in "
		    "events (did you mean '%s'?)", what, word, hint));
	return (scn_fail(c, n, "%s names event '%s', which is not in "
	    "events; give the event a name (events[].name) or use t=0, "
	    "warmup or end", what, word));
}

/* "t=0", "warmup", "end" or an event's name, then +D or -D. */
static int
load_anchor(struct ctx *c, const struct scenario *s, const struct ynode *n,
    const char *what, struct scn_anchor *a)
{
	const char	*p, *why;
	size_t		 l;
	int64_t		 off = 0;

	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	p = n->value;
	l = strcspn(p, "+- ");
	if (l == 0 && (l = strcspn(p + 1, "+- ") + 1) == 1)
		l = 0;
	if (p[l] == ' ')
		return (scn_fail(c, n, "%s: write ANCHOR or ANCHOR+D, no "
		    "spaces (got '%s')", what, p));
	if (p[l] != '\0') {
		if (dn_parse_duration_ms(p + l + 1, &off, &why) != 0)
			return (scn_fail(c, n, "%s: offset '%s': %s (write "
			    "e.g. heal+5s, end-10s)", what, p + l, why));
		if (p[l] == '-')
			off = -off;
	}
	a->offset_ms = off;
	a->event = -1;
	if ((l == 3 && strncmp(p, "t=0", 3) == 0) ||
	    (l == 5 && strncmp(p, "start", 5) == 0))
		a->kind = SCN_ANC_START;
	else if (l == 6 && strncmp(p, "warmup", 6) == 0)
		a->kind = SCN_ANC_WARMUP;
	else if (l == 3 && strncmp(p, "end", 3) == 0)
		a->kind = SCN_ANC_END;
	else if ((a->event = find_event(s, p, l)) >= 0)
		a->kind = SCN_ANC_EVENT;
	else
		return (no_event(c, s, n, what, p, l));
	return (0);
}

/* after: X | during: [X, Y] | during: EVENT; the default window is
 * [t=0, end] (value: [warmup, end]). */
static int
load_window(struct ctx *c, const struct scenario *s, const struct ynode *m,
    struct scn_assert *a)
{
	const struct ynode	*v, *d = ymap_get(m, "during");

	a->from.kind = a->form == SCN_AF_VALUE ? SCN_ANC_WARMUP :
	    SCN_ANC_START;
	a->to.kind = SCN_ANC_END;
	a->from.event = a->to.event = a->during_event = -1;
	if ((v = ymap_get(m, "after")) != NULL) {
		if (d != NULL)
			return (scn_fail(c, v, "give 'after' or 'during', not "
			    "both"));
		if (load_anchor(c, s, v, "after", &a->from) != 0)
			return (-1);
	}
	if (d != NULL && d->type == Y_SEQ) {
		if (d->nkids != 2)
			return (scn_fail(c, d, "during: a list is [FROM, TO], "
			    "e.g. [warmup, end]"));
		if (load_anchor(c, s, d->kids[0], "during[0]", &a->from) !=
		    0 || load_anchor(c, s, d->kids[1], "during[1]",
		    &a->to) != 0)
			return (-1);
	} else if (d != NULL) {
		if (scn_want_scalar(c, d, "during") != 0)
			return (-1);
		if ((a->during_event = find_event(s, d->value,
		    strlen(d->value))) < 0)
			return (no_event(c, s, d, "during", d->value,
			    strlen(d->value)));
	}
	if ((v = ymap_get(m, "except")) != NULL) {
		if (scn_want_scalar(c, v, "except") != 0)
			return (-1);
		if (strcmp(v->value, "events") != 0)
			return (scn_fail(c, v, "except: the one value is "
			    "'events' (not while an event is active; got "
			    "'%s')", v->value));
		a->except_events = 1;
	}
	return (0);
}

/* --- one entry ---------------------------------------------------------- */

static int
load_scope(struct ctx *c, const struct ynode *m, const char *what,
    const char *const *named, struct scn_assert *a)
{
	const struct ynode	*v = NULL;
	int			 k, found = -1;

	for (k = 0; scope_names[k] != NULL; k++) {
		if (ymap_get(m, scope_names[k]) == NULL)
			continue;
		if (found >= 0)
			return (scn_fail(c, ymap_get(m, scope_names[k]),
			    "%s: one scope per assertion ('%s' and '%s')",
			    what, scope_names[found], scope_names[k]));
		found = k;
		v = ymap_get(m, scope_names[k]);
	}
	if (found < 0)
		return (scn_fail(c, m, "%s needs a scope with its condition: "
		    "each_node, all_nodes, any_node, max_spread or load, "
		    "e.g. {each_node: lag_ms < 500}", what));
	a->scope = (enum scn_ascope)found;
	if (load_cond(c, v, scope_names[found], named, a) != 0)
		return (-1);
	if (a->metric_id >= 0 && (a->scope == SCN_AS_LOAD) !=
	    (dn_metric_defs[a->metric_id].source == DN_SOURCE_L))
		return (scn_fail(c, v, "'%s' is reported by %s; its scope is "
		    "%s", a->metric, a->scope == SCN_AS_LOAD ? "every node" :
		    "the load generator", a->scope == SCN_AS_LOAD ?
		    "each_node, all_nodes, any_node or max_spread" : "load"));
	if (a->named != NULL && a->scope == SCN_AS_LOAD)
		return (scn_fail(c, v, "'%s' is a node's named metric; its "
		    "scope is a node one", a->metric));
	return (0);
}

static int
load_relative(struct ctx *c, const struct scenario *s, const struct ynode *m,
    const char *const *named, struct scn_assert *a)
{
	const struct ynode	*k = NULL, *v = NULL;
	const char		*vs, *p;
	char			*end;
	size_t			 i;
	int			 j, cmp;

	if (m->type != Y_MAP)
		return (scn_fail(c, m, "relative must be a mapping, e.g. "
		    "{metric: allocs_per_s, B_vs_A: \"<= -10%%\"}"));
	for (i = 0; i < m->nkids; i += 2) {
		if (strcmp(m->kids[i]->value, "metric") == 0)
			continue;
		if (strstr(m->kids[i]->value, "_vs_") == NULL || k != NULL)
			return (scn_fail(c, m->kids[i], "unknown key '%s' in "
			    "relative (valid keys: 'metric', one "
			    "'B_vs_A')", m->kids[i]->value));
		k = m->kids[i];
		v = m->kids[i + 1];
	}
	if (ymap_get(m, "metric") == NULL || k == NULL)
		return (scn_fail(c, m, "relative needs 'metric' and one "
		    "'B_vs_A: \"<= -10%%\"'"));
	if (scn_want_scalar(c, ymap_get(m, "metric"), "relative.metric") !=
	    0 || resolve_metric(c, ymap_get(m, "metric"),
	    ymap_get(m, "metric")->value, named, a) != 0)
		return (-1);
	vs = strstr(k->value, "_vs_");
	a->rel_b = dn_xstrndup(k->value, (size_t)(vs - k->value));
	a->rel_a = dn_xstrdup(vs + 4);
	for (i = 0; i < 2; i++) {
		const char *want = i ? a->rel_a : a->rel_b;

		for (j = 0; (size_t)j < s->nvariants; j++)
			if (strcmp(s->variants[j].name, want) == 0)
				break;
		if ((size_t)j == s->nvariants)
			return (scn_fail(c, k, "relative: '%s' names variant "
			    "'%s', which is not in variants", k->value,
			    want));
	}
	if (strcmp(a->rel_a, a->rel_b) == 0)
		return (scn_fail(c, k, "relative: compare two variants"));
	if (scn_want_scalar(c, v, k->value) != 0)
		return (-1);
	for (p = v->value; *p == ' '; p++)
		continue;
	for (cmp = SCN_CMP_EQ; cmp >= 0; cmp--)
		if (strncmp(p, scn_cmp_text(cmp),
		    strlen(scn_cmp_text(cmp))) == 0 && (cmp == SCN_CMP_EQ ||
		    cmp == SCN_CMP_LE || cmp == SCN_CMP_GE ||
		    p[strlen(scn_cmp_text(cmp))] != '='))
			break;
	if (cmp < 0 || cmp == SCN_CMP_EQ)
		return (scn_fail(c, v, "%s: write OP PERCENT, e.g. \"<= "
		    "-10%%\" (got '%s')", k->value, v->value));
	p += strlen(scn_cmp_text(cmp));
	a->rel_cmp = (enum scn_acmp)cmp;
	a->rel_pct = strtod(p, &end);
	while (*end == ' ')
		end++;
	if (end == p || strcmp(end, "%") != 0 || !isfinite(a->rel_pct))
		return (scn_fail(c, v, "%s: the change is a percentage, e.g. "
		    "\"<= -10%%\" (got '%s')", k->value, v->value));
	return (0);
}

static int
load_form(struct ctx *c, const struct scenario *s, const struct ynode *m,
    const char *const *named, struct scn_assert *a)
{
	static const char *const *keys[] = { ev_keys, al_keys, val_keys };
	const struct ynode	*v;

	if (a->form == SCN_AF_RELATIVE)
		return (load_relative(c, s, m, named, a));
	if (scn_check_map(c, m, form_names[a->form], keys[a->form]) != 0 ||
	    load_scope(c, m, form_names[a->form], named, a) != 0 ||
	    load_window(c, s, m, a) != 0)
		return (-1);
	if ((v = ymap_get(m, "within")) != NULL &&
	    scn_get_duration(c, v, "eventually.within", 1, 30 * DAY_MS,
	    &a->within_ms) != 0)
		return (-1);
	if (a->form == SCN_AF_EVENTUALLY && v == NULL &&
	    a->during_event < 0 && ymap_get(m, "during") == NULL)
		return (scn_fail(c, m, "eventually needs 'within' (e.g. "
		    "within: 60s) or a 'during' window"));
	if ((v = ymap_get(m, "sustained")) != NULL &&
	    scn_get_duration(c, v, "always.sustained", 0, 30 * DAY_MS,
	    &a->sustained_ms) != 0)
		return (-1);
	if ((v = ymap_get(m, "grace")) != NULL &&
	    scn_get_duration(c, v, "always.grace", 0, 3600000,
	    &a->grace_ms) != 0)
		return (-1);
	if ((v = ymap_get(m, "abort_on_fail")) != NULL) {
		static const char *const tf[] = { "false", "true", NULL };

		if (scn_get_enum(c, v, "always.abort_on_fail", tf,
		    &a->abort_on_fail) != 0)
			return (-1);
	}
	if (v == NULL && ymap_get(m, "grace") != NULL)
		return (scn_fail(c, ymap_get(m, "grace"), "always.grace is "
		    "the time from a failure to the trial's end; it needs "
		    "abort_on_fail: true"));
	if (a->scope == SCN_AS_MAX_SPREAD && a->fold == SCN_FOLD_RATE)
		return (scn_fail(c, ymap_get(m, "max_spread"), "max_spread "
		    "of a rate is not supported; use each_node"));
	return (0);
}

static int
load_entry(struct ctx *c, const struct scenario *s, const struct ynode *e,
    const char *const *named, struct scn_assert *a)
{
	const struct ynode	*v = NULL;
	int			 k, found = -1;

	if (scn_check_map(c, e, "assert[]", entry_keys) != 0)
		return (-1);
	a->line = e->line;
	a->col = e->col;
	if ((v = ymap_get(e, "name")) == NULL)
		return (scn_fail(c, e, "an assertion needs a 'name' (it names "
		    "the result row and the JUnit case)"));
	if (scn_get_str(c, v, "assert[].name", &a->name) != 0)
		return (-1);
	if (a->name[0] == '\0' || strlen(a->name) > 200)
		return (scn_fail(c, v, "assert[].name must be 1 to 200 "
		    "characters"));
	for (k = 0; form_names[k] != NULL; k++) {
		if (ymap_get(e, form_names[k]) == NULL)
			continue;
		if (found >= 0)
			return (scn_fail(c, ymap_get(e, form_names[k]),
			    "assertion '%s' has two forms ('%s' and '%s'); "
			    "write one per entry", a->name,
			    form_names[found], form_names[k]));
		found = k;
	}
	if (found < 0)
		return (scn_fail(c, e, "assertion '%s' needs a form: "
		    "eventually, always, value or relative", a->name));
	a->form = (enum scn_aform)found;
	if (a->form == SCN_AF_RELATIVE && s->nvariants < 2)
		return (scn_fail(c, ymap_get(e, "relative"), "relative "
		    "compares two variants; the scenario has one"));
	return (load_form(c, s, ymap_get(e, form_names[found]), named, a));
}

int
scn_load_asserts(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	const char	**named;
	size_t		  nnamed, i, j;
	int		  rc = -1;

	if (n->type != Y_SEQ)
		return (scn_fail(c, n, "assert must be a list of {name, "
		    "eventually|always|value|relative}, not a %s",
		    ynode_type_name(n)));
	if (n->nkids > SCN_MAX_ASSERTS)
		return (scn_fail(c, n->kids[SCN_MAX_ASSERTS], "more than %d "
		    "assertions", SCN_MAX_ASSERTS));
	named = scn_named_metrics(s, &nnamed);
	s->asserts = dn_xcalloc(n->nkids ? n->nkids : 1, sizeof(*s->asserts));
	for (i = 0; i < n->nkids; i++) {
		struct scn_assert *a = &s->asserts[s->nasserts++];

		if (load_entry(c, s, n->kids[i], named, a) != 0)
			goto out;
		for (j = 0; j + 1 < s->nasserts; j++)
			if (strcmp(s->asserts[j].name, a->name) == 0) {
				scn_fail(c, ymap_get(n->kids[i], "name"),
				    "two assertions are named '%s'; a name "
				    "is a result row, make them unique",
				    a->name);
				goto out;
			}
	}
	rc = 0;
out:
	free(named);
	return (rc);
}

void
scn_assert_release(struct scn_assert *a)
{
	free(a->name);
	free(a->metric);
	free(a->named);
	free(a->unit);
	free(a->limit_text);
	free(a->rel_a);
	free(a->rel_b);
}
