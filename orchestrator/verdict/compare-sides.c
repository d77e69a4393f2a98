/*
 * compare-sides.c: resolve one side of a comparison (a run id, a comma
 * list of run ids, or GROUP:VARIANT) to its runs, with their warmup,
 * duration, setup (scenario, nodes, rate), unplanned faults (crash,
 * stalled, lost_samples events), missed load rates (rate_missed),
 * other programs' CPU beside them (interference) and declared metrics no
 * node measured (unmeasured);
 * runs that did not finish are left out of a group with a warning; the
 * sides alone (compare_resolve) and a result's release.
 *
 * Not here: reading the runs' samples (compare-derive.c) or testing them
 * (compare.c).  Reads go through metrics/store/store.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/strv.h"
#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "store.h"
#include "units.h"
#include "xalloc.h"

/* The words of a warning about a declared metric no node measured. */
#define UNMEASURED_SAYS	" was declared but never measured in run"

struct run_rows {
	struct compare_side	*side;
	int			 count;
};

static int
add_run_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	struct compare_side	*side = arg;
	struct compare_run	*r;

	(void)ncols;
	(void)names;
	(void)types;
	side->runs = dn_xreallocarray(side->runs, side->nruns + 1,
	    sizeof(*side->runs));
	r = &side->runs[side->nruns++];
	memset(r, 0, sizeof(*r));
	dn_parse_i64(v[0], &r->id);
	if (v[1] != NULL)
		dn_parse_i64(v[1], &r->group);
	r->variant = dn_xstrdup(v[2] ? v[2] : "");
	r->status = dn_xstrdup(v[3] ? v[3] : "");
	if (v[4] != NULL)
		dn_parse_i64(v[4], &r->warmup_ms);
	if (v[5] != NULL)
		dn_parse_i64(v[5], &r->duration_ms);
	r->nodes = v[6] ? atoi(v[6]) : 0;
	r->scenario = dn_xstrdup(v[7] ? v[7] : "");
	if (v[8] == NULL || dn_parse_double(v[8], &r->tps) != 0)
		r->tps = 0;
	r->machine = v[9] != NULL ? dn_xstrdup(v[9]) : NULL;
	if (v[10] != NULL)
		dn_parse_i64(v[10], &r->start_ms);
	if (v[11] != NULL)
		dn_parse_i64(v[11], &r->end_ms);
	return (0);
}

#define RUN_COLS "SELECT id, ab_group, variant, status, warmup_ms, " \
	"duration_ms, nodes, scenario, tps, machine, start_ms, end_ms " \
	"FROM runs "

static int
fault_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	struct compare_run	*r = arg;
	char			*s;

	(void)ncols;
	(void)names;
	(void)types;
	s = dn_xasprintf("%s%s%s x%s", r->faults ? r->faults : "",
	    r->faults ? ", " : "", v[0], v[1]);
	free(r->faults);
	r->faults = s;
	return (0);
}

static int
rate_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	struct compare_run	*r = arg;

	(void)ncols;
	(void)names;
	(void)types;
	if (r->rate_missed == NULL)
		r->rate_missed = dn_xstrdup(v[0] ? v[0] : "rate missed");
	return (0);
}

static int
itf_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	struct compare_run	*r = arg;

	(void)ncols;
	(void)names;
	(void)types;
	if (r->interference == NULL)
		r->interference = dn_xstrdup(v[0] ? v[0] : "interference");
	return (0);
}

/* An `unmeasured` event: "NAME: WHY" (node-kind/unmeasured.c). */
static int
unmeasured_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	struct compare_run	*r = arg;
	const char		*sep;

	(void)ncols;
	(void)names;
	(void)types;
	if (v[0] == NULL || (sep = strstr(v[0], ": ")) == NULL)
		return (0);
	r->unmeasured = dn_xreallocarray(r->unmeasured, r->nunmeasured + 1,
	    sizeof(char *));
	r->unmeasured_why = dn_xreallocarray(r->unmeasured_why,
	    r->nunmeasured + 1, sizeof(char *));
	r->unmeasured[r->nunmeasured] = dn_xstrndup(v[0],
	    (size_t)(sep - v[0]));
	r->unmeasured_why[r->nunmeasured++] = dn_xstrdup(sep + 2);
	return (0);
}

/* Only finished runs stand for a group: the others are left out with a
 * warning. */
static void
finished_only(struct compare_side *side, struct compare_result *res,
    const char *spec)
{
	size_t	i;

	for (i = 0; i < side->nruns;) {
		struct compare_run *r0 = &side->runs[i];

		if (strcmp(r0->status, "ok") == 0) {
			i++;
			continue;
		}
		compare_warn(res, dn_xasprintf("run %lld of "
		    "%s left out: status '%s'", (long long)r0->id, spec,
		    r0->status));
		free(r0->variant);
		free(r0->status);
		free(r0->scenario);
		free(r0->machine);
		memmove(r0, r0 + 1, (side->nruns - i - 1) * sizeof(*r0));
		side->nruns--;
	}
}

/* Whether run R's machine class is MACHINE (a fingerprint prefix, or
 * "unknown"). */
static int
machine_is(const struct compare_run *r, const char *machine)
{
	if (strcmp(machine, "unknown") == 0)
		return (r->machine == NULL);
	return (r->machine != NULL && strncmp(r->machine, machine,
	    strlen(machine)) == 0);
}

/* --machine: only SIDE's runs of that class; the others left out with a
 * warning, none left an error. */
static int
machine_only(struct compare_side *side, struct compare_result *res,
    char **cause)
{
	size_t	i;

	for (i = 0; i < side->nruns;) {
		struct compare_run *r0 = &side->runs[i];

		if (machine_is(r0, res->machine)) {
			i++;
			continue;
		}
		compare_warn(res, dn_xasprintf("run %lld of "
		    "%s left out: machine %s, not %s", (long long)r0->id,
		    side->spec, r0->machine ? r0->machine : "unknown",
		    res->machine));
		free(r0->variant);
		free(r0->status);
		free(r0->scenario);
		free(r0->rate_missed);
		free(r0->interference);
		free(r0->machine);
		free(r0->faults);
		memmove(r0, r0 + 1, (side->nruns - i - 1) * sizeof(*r0));
		side->nruns--;
	}
	if (side->nruns == 0) {
		*cause = dn_xasprintf("no runs of %s ran on machine %s (see "
		    "'devnet runs', column machine)", side->spec,
		    res->machine);
		return (-1);
	}
	return (0);
}

int
compare_side_resolve(struct dn_store *s, const char *spec,
    struct compare_side *side, struct compare_result *res, char **cause)
{
	const char	*colon = strchr(spec, ':');
	char		*copy = NULL, *p, *tok;
	int64_t		 id;
	size_t		 i, before;

	memset(side, 0, sizeof(*side));
	side->spec = dn_xstrdup(spec);
	if (colon != NULL) {
		char		*g = dn_xstrndup(spec, colon - spec);
		const char	*params[2] = { g, colon + 1 };
		int		 r;

		if (dn_parse_i64(g, &id) != 0 || id <= 0 ||
		    colon[1] == '\0') {
			*cause = dn_xasprintf("bad side '%s': want a run id, "
			    "a comma list of run ids, or GROUP:VARIANT (e.g. "
			    "3:A)", spec);
			free(g);
			return (-1);
		}
		r = dn_store_query(s, RUN_COLS "WHERE ab_group = ?1 AND "
		    "variant = ?2 ORDER BY id", params, 2, add_run_row, side,
		    cause);
		free(g);
		if (r != 0)
			return (-1);
		if (side->nruns == 0) {
			*cause = dn_xasprintf("no runs of variant '%s' in "
			    "group %lld in '%s' (see 'devnet runs')",
			    colon + 1, (long long)id, dn_store_path(s));
			return (-1);
		}
		finished_only(side, res, spec);
		if (side->nruns == 0) {
			*cause = dn_xasprintf("no finished ('ok') runs of "
			    "variant '%s' in group %lld (see 'devnet runs')",
			    colon + 1, (long long)id);
			return (-1);
		}
		goto faults;
	}
	copy = dn_xstrdup(spec);
	for (p = copy; (tok = strsep(&p, ",")) != NULL;) {
		char		 buf[32];
		const char	*params[1] = { buf };

		if (dn_parse_i64(tok, &id) != 0 || id <= 0) {
			*cause = dn_xasprintf("bad side '%s': '%s' is not a "
			    "run id; want a run id, a comma list of run ids, "
			    "or GROUP:VARIANT (e.g. 3:A)", spec, tok);
			goto fail;
		}
		snprintf(buf, sizeof(buf), "%lld", (long long)id);
		before = side->nruns;
		if (dn_store_query(s, RUN_COLS "WHERE id = ?1", params, 1,
		    add_run_row, side, cause) != 0)
			goto fail;
		if (side->nruns == before) {
			*cause = dn_xasprintf("no run %lld in '%s' (see "
			    "'devnet runs')", (long long)id,
			    dn_store_path(s));
			goto fail;
		}
		if (strcmp(side->runs[before].status, "ok") != 0) {
			compare_warn(res, dn_xasprintf("run "
			    "%lld has status '%s'", (long long)id,
			    side->runs[before].status));
		}
	}
	free(copy);
faults:
	if (res->machine != NULL && machine_only(side, res, cause) != 0)
		return (-1);
	for (i = 0; i < side->nruns; i++) {
		char		 buf[32];
		const char	*params[1] = { buf };

		snprintf(buf, sizeof(buf), "%lld",
		    (long long)side->runs[i].id);
		/* A node paused by a `stop` event that stalls is what was
		 * asked for (the runner does not count it either). */
		if (dn_store_query(s, "SELECT kind, count(*) FROM events "
		    "WHERE run_id = ?1 AND kind IN ('crash', 'stalled', "
		    "'lost_samples') AND NOT (kind = 'stalled' AND "
		    "coalesce(detail, '') LIKE '%(paused by an event%') "
		    "GROUP BY kind ORDER BY kind", params, 1,
		    fault_row, &side->runs[i], cause) != 0)
			return (-1);
		if (dn_store_query(s, "SELECT detail FROM events WHERE "
		    "run_id = ?1 AND kind = 'rate_missed' ORDER BY t_ms, id "
		    "LIMIT 1", params, 1, rate_row, &side->runs[i],
		    cause) != 0)
			return (-1);
		if (dn_store_query(s, "SELECT detail FROM events WHERE "
		    "run_id = ?1 AND kind = 'interference' ORDER BY t_ms, id "
		    "LIMIT 1", params, 1, itf_row, &side->runs[i],
		    cause) != 0)
			return (-1);
		if (dn_store_query(s, "SELECT detail FROM events WHERE "
		    "run_id = ?1 AND kind = 'unmeasured' ORDER BY id", params,
		    1, unmeasured_row, &side->runs[i], cause) != 0)
			return (-1);
	}
	return (0);
fail:
	free(copy);
	return (-1);
}

/* DN_READ_RUN_FACTS row (node, key, value): the run's net_conditions. */
static int
net_fact_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	char	**out = arg;

	(void)ncols;
	(void)names;
	(void)types;
	if (values[0] != NULL && strcmp(values[0], "-1") == 0 &&
	    values[1] != NULL && strcmp(values[1], "net_conditions") == 0 &&
	    values[2] != NULL && *out == NULL)
		*out = dn_xstrdup(values[2]);
	return (0);
}

/* The conditions of SIDE's runs into *OUT: one text when its runs
 * agree, "mixed: X | Y" (each distinct text once) when not; NULL: the
 * loopback on every run, as runs from before issue 20 all ran. */
static int
side_network(struct dn_store *s, const struct compare_side *sd, char **out,
    char **cause)
{
	struct strv	 seen = { 0 };
	char		*v, *m;
	size_t		 i, j;
	int		 rc = -1;

	*out = NULL;
	for (i = 0; i < sd->nruns; i++) {
		v = NULL;
		if (dn_store_read(s, DN_READ_RUN_FACTS, sd->runs[i].id,
		    net_fact_row, &v, cause) != 0)
			goto out;
		if (v == NULL)
			v = dn_xstrdup("loopback");
		for (j = 0; j < seen.n && strcmp(seen.v[j], v) != 0; j++)
			continue;
		if (j < seen.n)
			free(v);
		else
			strv_add(&seen, v);
	}
	if (seen.n > 1) {
		*out = dn_xasprintf("mixed: %s", seen.v[0]);
		for (j = 1; j < seen.n; j++) {
			m = dn_xasprintf("%s | %s", *out, seen.v[j]);
			free(*out);
			*out = m;
		}
	} else if (seen.n == 1 && strcmp(seen.v[0], "loopback") != 0)
		*out = dn_xstrdup(seen.v[0]);
	rc = 0;
out:
	strv_add(&seen, NULL);
	strv_free(seen.v);
	return (rc);
}

int
compare_sides_network(struct dn_store *s, struct compare_result *r,
    char **cause)
{
	const char	*a, *b;

	if (side_network(s, &r->a, &r->a.net_conditions, cause) != 0 ||
	    side_network(s, &r->b, &r->b.net_conditions, cause) != 0)
		return (-1);
	a = r->a.net_conditions ? r->a.net_conditions : "loopback";
	b = r->b.net_conditions ? r->b.net_conditions : "loopback";
	if (strcmp(a, b) == 0)
		return (0);
	compare_warn(r, dn_xasprintf("the sides ran under "
	    "different network conditions (A: %s; B: %s): a difference is "
	    "the network's as well as the builds'", a, b));
	r->nsetup++;	/* a gate refuses to pass on it (exit 6) */
	return (0);
}

/* The I-th (run, metric) pair of R's unmeasured metrics over both sides,
 * in order: 0, or -1 past the last. */
static int
unmeasured_at(const struct compare_result *r, size_t i,
    const struct compare_run **run, size_t *j)
{
	const struct compare_side	*sd;
	size_t				 s, k;

	for (s = 0; s < 2; s++) {
		sd = s ? &r->b : &r->a;
		for (k = 0; k < sd->nruns; k++) {
			if (i < sd->runs[k].nunmeasured) {
				*run = &sd->runs[k];
				*j = i;
				return (0);
			}
			i -= sd->runs[k].nunmeasured;
		}
	}
	return (-1);
}

void
compare_sides_unmeasured(struct compare_result *r)
{
	const struct compare_run	*ru, *o;
	size_t				 i, k, j, jo, n;
	char				*runs, *w;
	char				*said = NULL;

	for (n = 0; unmeasured_at(r, n, &ru, &j) == 0; n++)
		continue;
	said = dn_xcalloc(n + 1, 1);
	for (i = 0; i < n; i++) {
		if (said[i])
			continue;
		(void)unmeasured_at(r, i, &ru, &j);
		runs = dn_xasprintf("%lld", (long long)ru->id);
		k = 1;
		/* the same metric, said alike, in the other runs */
		for (jo = i + 1; jo < n; jo++) {
			size_t	m = 0;

			o = NULL;
			if (unmeasured_at(r, jo, &o, &m) != 0 || said[jo] || o == ru || strcmp(o->unmeasured[m],
			    ru->unmeasured[j]) != 0 || !dn_same_but_digits(
			    o->unmeasured_why[m], ru->unmeasured_why[j]))
				continue;
			said[jo] = 1;
			w = dn_xasprintf("%s, %lld", runs, (long long)o->id);
			free(runs);
			runs = w;
			k++;
		}
		if (k > 1)
			w = dn_xasprintf("s %s, alike in each; run %lld", runs,
			    (long long)ru->id);
		else
			w = dn_xasprintf(" %s", runs);
		compare_warn(r, dn_xasprintf("metric %s"
		    UNMEASURED_SAYS "%s: %s", ru->unmeasured[j], w,
		    ru->unmeasured_why[j]));
		free(w);
		free(runs);
	}
	free(said);
}

const char *
compare_sides_unmeasured_of(const struct compare_result *r,
    const struct compare_opts *opts)
{
	const char	*w;
	size_t		 i, k, l;

	for (i = 0; i < r->nwarnings; i++) {
		w = r->warnings[i];
		if (strncmp(w, "metric ", 7) != 0 || strstr(w,
		    UNMEASURED_SAYS) == NULL)
			continue;
		if (opts == NULL || opts->nmetrics == 0)
			return (w);
		for (k = 0; k < opts->nmetrics; k++) {
			l = strlen(opts->metrics[k]);
			if (strncmp(w + 7, opts->metrics[k], l) == 0 &&
			    strncmp(w + 7 + l, UNMEASURED_SAYS,
			    sizeof(UNMEASURED_SAYS) - 1) == 0)
				return (w);
		}
	}
	return (NULL);
}

static int
first_text(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	char	**out = arg;

	(void)ncols;
	(void)names;
	(void)types;
	if (*out == NULL && v[0] != NULL)
		*out = dn_xstrdup(v[0]);
	return (0);
}

int
compare_side_fact(struct dn_store *s, const struct compare_side *side,
    const char *key, char **val, char **cause)
{
	char		 id[32];
	const char	*params[2] = { id, key };

	*val = NULL;
	if (side->nruns == 0)
		return (0);
	snprintf(id, sizeof(id), "%lld", (long long)side->runs[0].id);
	return (dn_store_query(s, "SELECT value FROM run_facts WHERE run_id = "
	    "?1 AND node = -1 AND key = ?2", params, 2, first_text, val,
	    cause));
}

void
compare_side_release(struct compare_side *side)
{
	size_t	i, j;

	free(side->alloc_source);
	side->alloc_source = NULL;
	free(side->net_conditions);
	side->net_conditions = NULL;
	for (i = 0; i < side->nruns; i++) {
		free(side->runs[i].variant);
		free(side->runs[i].status);
		free(side->runs[i].faults);
		free(side->runs[i].scenario);
		free(side->runs[i].rate_missed);
		free(side->runs[i].interference);
		free(side->runs[i].machine);
		for (j = 0; j < side->runs[i].nunmeasured; j++) {
			free(side->runs[i].unmeasured[j]);
			free(side->runs[i].unmeasured_why[j]);
		}
		free(side->runs[i].unmeasured);
		free(side->runs[i].unmeasured_why);
	}
	free(side->runs);
	free(side->spec);
}

int
compare_resolve(struct dn_store *s, const char *side_a, const char *side_b,
    struct compare_result **rp, char **cause)
{
	struct compare_result	*r = dn_xcalloc(1, sizeof(*r));

	*rp = NULL;
	if (compare_side_resolve(s, side_a, &r->a, r, cause) != 0 ||
	    compare_side_resolve(s, side_b, &r->b, r, cause) != 0) {
		compare_result_free(r);
		return (-1);
	}
	*rp = r;
	return (0);
}

void
compare_result_free(struct compare_result *r)
{
	size_t	i;

	if (r == NULL)
		return;
	compare_side_release(&r->a);
	compare_side_release(&r->b);
	for (i = 0; i < r->nwarnings; i++)
		free(r->warnings[i]);
	free(r->warnings);
	for (i = 0; i < r->nowned; i++)
		free(r->owned[i]);
	free(r->owned);
	free(r->rows);
	free(r->pair_a);
	free(r->pair_b);
	free(r->unit_note);
	free(r->aa_secondary);
	free(r->seq);
	free(r->primary_from);
	free(r->headline);
	free(r);
}

void
compare_warn(struct compare_result *r, char *w)
{
	r->warnings = dn_xreallocarray(r->warnings, r->nwarnings + 1,
	    sizeof(char *));
	r->warnings[r->nwarnings++] = w;
}

/* A and B ran at the same time: each overlaps the other by more than
 * half of the shorter. */
int
compare_runs_overlap(const struct compare_run *a, const struct compare_run *b)
{
	int64_t	lo, hi, da, db;

	if (a->start_ms <= 0 || b->start_ms <= 0 || a->end_ms <= a->start_ms ||
	    b->end_ms <= b->start_ms)
		return (0);
	lo = a->start_ms > b->start_ms ? a->start_ms : b->start_ms;
	hi = a->end_ms < b->end_ms ? a->end_ms : b->end_ms;
	da = a->end_ms - a->start_ms;
	db = b->end_ms - b->start_ms;
	return (2 * (hi - lo) > (da < db ? da : db));
}
