/*
 * relative.c: the scenario's `relative` assertions judged by the verdict
 * (verdict/compare-relative.c) on two sides, for `ab` (the group's
 * variants; one row per run of the group) and `compare` (the two sides
 * given, matched to the claim's variants by their runs' variant, the
 * scenario read back from the runs; printed only: compare never writes
 * the database).  Not here: the judging rule (compare-relative.c).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sys/spawn.h"
#include "cmd/cmd.h"
#include "cmd/relative.h"
#include "run/runner.h"
#include "scenario/scenario.h"
#include "verdict/compare.h"
#include "store.h"
#include "xalloc.h"

/* The index of VARIANT among V[0..N-1], or -1. */
static int
side_of(const char *const *v, size_t n, const char *variant)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (v[i] != NULL && strcmp(v[i], variant) == 0)
			return ((int)i);
	return (-1);
}

/* Assertion NAME's result into C's cases: STATUS (static), MESSAGE
 * (taken). */
static void
add_case(struct relative_counts *c, const char *name, const char *status,
    char *message)
{
	c->cases = dn_xreallocarray(c->cases, c->ncases + 1,
	    sizeof(*c->cases));
	c->cases[c->ncases].name = dn_xasprintf("%s (relative)", name);
	c->cases[c->ncases].status = status;
	c->cases[c->ncases++].message = message;
}

void
relative_counts_release(struct relative_counts *c)
{
	size_t	i;

	for (i = 0; i < c->ncases; i++) {
		free(c->cases[i].name);
		free(c->cases[i].message);
	}
	free(c->cases);
	c->cases = NULL;
	c->ncases = 0;
}

/* One row per run for assertion A's claim CL. */
static void
store_rows(struct dn_store *s, const struct scn_assert *a,
    const struct compare_claim *cl, const char *message,
    const int64_t *runs, size_t nruns)
{
	struct dn_assert_row	 r;
	char			*cause = NULL;
	size_t			 k;

	memset(&r, 0, sizeof(r));
	r.name = a->name;
	r.form = "relative";
	r.status = cl->status;
	r.observed = cl->observed;
	r.threshold = a->rel_pct;
	r.t_ms = -1;
	r.node = INT_MIN;
	r.message = message;
	r.metric = a->metric;
	r.op = scn_cmp_text(a->rel_cmp);
	r.unit = "%";
	r.from_ms = r.to_ms = -1;	/* the whole trials */
	for (k = 0; k < nruns; k++) {
		r.run_id = runs[k];
		if (dn_store_assertion(s, &r, &cause) != 0) {
			cmd_error("%s", cause);
			free(cause);
			cause = NULL;
		}
	}
}

void
relative_judge(struct dn_store *s, const struct scenario *scn,
    const char *const *variants, const char *const *specs, size_t n,
    const int64_t *runs, size_t nruns, FILE *out,
    struct relative_counts *c)
{
	struct compare_claim	 cl;
	char			*cause = NULL, *msg;
	size_t			 i;
	int			 ka, kb;

	for (i = 0; i < scn->nasserts; i++) {
		const struct scn_assert *a = &scn->asserts[i];

		if (a->form != SCN_AF_RELATIVE)
			continue;
		ka = side_of(variants, n, a->rel_a);
		kb = side_of(variants, n, a->rel_b);
		if (ka < 0 || kb < 0 || ka == kb) {
			msg = dn_xasprintf("it compares variants %s and %s; "
			    "the sides are %s and %s", a->rel_b, a->rel_a,
			    variants[0] ? variants[0] : "of mixed variants",
			    n > 1 && variants[1] ? variants[1] :
			    "of mixed variants");
			fprintf(out, "devnet: assert not judged: %s: %s\n",
			    a->name, msg);
			add_case(c, a->name, "not judged", msg);
			continue;
		}
		if (compare_relative(s, specs[ka], specs[kb], a->metric,
		    a->rel_cmp == SCN_CMP_LT || a->rel_cmp == SCN_CMP_LE,
		    a->rel_pct, &cl, &cause) != 0) {
			cl.status = "inconclusive";
			cl.observed = NAN;
			cl.message = dn_xasprintf("cannot compare: %s", cause);
			free(cause);
			cause = NULL;
		}
		msg = dn_xasprintf("%s: %s", a->name, cl.message);
		if (runs != NULL)
			store_rows(s, a, &cl, msg, runs, nruns);
		fprintf(out, "devnet: assert %s: %s\n", strcmp(cl.status,
		    "pass") == 0 ? "pass" : strcmp(cl.status, "fail") == 0 ?
		    "FAIL" : "inconclusive", msg);
		c->judged++;
		c->failed += strcmp(cl.status, "fail") == 0;
		c->inconclusive += strcmp(cl.status, "inconclusive") == 0;
		add_case(c, a->name, strcmp(cl.status, "pass") == 0 ? "pass" :
		    strcmp(cl.status, "fail") == 0 ? "fail" : "inconclusive",
		    msg);
		free(cl.message);
	}
}

/* DN_READ_RUN_SCENARIO: scenario_path, scenario_yaml. */
static int
scenario_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	char	**pair = arg;

	(void)names;
	(void)types;
	if (ncols >= 2 && values[1] != NULL && pair[1] == NULL) {
		pair[0] = dn_xstrdup(values[0] ? values[0] : "scenario");
		pair[1] = dn_xstrdup(values[1]);
	}
	return (0);
}

/* The one variant of side SD's runs, or NULL when they mix. */
static char *
side_variant(const struct compare_side *sd, const char *scenario)
{
	size_t	i;

	for (i = 0; i < sd->nruns; i++)
		if (strcmp(sd->runs[i].variant, sd->runs[0].variant) != 0 ||
		    strcmp(sd->runs[i].scenario, scenario) != 0)
			return (NULL);
	return (sd->nruns > 0 ? dn_xstrdup(sd->runs[0].variant) : NULL);
}

int
relative_sides(struct dn_store *s, const char *side_a, const char *side_b,
    struct scenario **scn, char *variants[2], char **cause)
{
	struct compare_result	*r = NULL;
	char			*pair[2] = { NULL, NULL }, *why = NULL;
	int			 rc = -1;

	*scn = NULL;
	variants[0] = variants[1] = NULL;
	/* the runs alone: the verdict is made once, by the caller (a
	 * second analysis here read every sample twice) */
	if (compare_resolve(s, side_a, side_b, &r, cause) != 0)
		return (-1);
	if (r->a.nruns == 0 || r->b.nruns == 0) {
		rc = 0;
		goto out;
	}
	if (dn_store_read(s, DN_READ_RUN_SCENARIO, r->a.runs[0].id,
	    scenario_row, pair, cause) != 0)
		goto out;
	rc = 0;
	if (pair[1] == NULL)
		goto out;
	/* the text as the runs stored it: no --set is replayed, and a
	 * relative claim names variants and a metric, not settings */
	if (scenario_load_buffer(scn, pair[0], pair[1], strlen(pair[1]),
	    NULL, 0, spawn_default_node_binary(), &why) != 0) {
		*cause = dn_xasprintf("the scenario stored with run %lld does "
		    "not load: %s", (long long)r->a.runs[0].id, why);
		free(why);
		rc = -1;
		goto out;
	}
	variants[0] = side_variant(&r->a, r->a.runs[0].scenario);
	variants[1] = side_variant(&r->b, r->a.runs[0].scenario);
out:
	free(pair[0]);
	free(pair[1]);
	compare_result_free(r);
	return (rc);
}

int
relative_status(int status, const struct relative_counts *c)
{
	if (c->failed > 0 && (status == 0 ||
	    status == RUNNER_EXIT_ASSERT_INCONCLUSIVE))
		return (RUNNER_EXIT_ASSERT_FAILED);
	if (c->inconclusive > 0 && status == 0)
		return (RUNNER_EXIT_ASSERT_INCONCLUSIVE);
	return (status);
}
