/*
 * assert-junit.c: stored assertion results as JUnit XML test suites, one
 * per run, one test case per assertion: a failure's message is the row's
 * message, readable alone; an inconclusive one is skipped, with its
 * reason.  The same suite for results judged outside a run (compare's
 * relative assertions, assert_junit_suite).  The caller writes the
 * <testsuites> wrapper (with `ab`, the verdict's cases share it).  Not
 * here: judging (assert-live.c, assert-end.c).
 */
#include <stdlib.h>
#include <string.h>

#include "assert/assert.h"
#include "store.h"
#include "xalloc.h"
#include "markup.h"

struct jrow {
	char	*name, *form, *status, *message;
};

struct jrun {
	char		*scenario, *variant, *trial;
	struct jrow	*rows;
	size_t		 n;
};

static int
header_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct jrun	*r = arg;
	int		 i;

	(void)types;
	for (i = 0; i < ncols; i++) {
		char	**dst = strcmp(names[i], "scenario") == 0 ?
			    &r->scenario : strcmp(names[i], "variant") == 0 ?
			    &r->variant : strcmp(names[i], "trial") == 0 ?
			    &r->trial : NULL;

		if (dst != NULL && *dst == NULL)
			*dst = dn_xstrdup(values[i] ? values[i] : "");
	}
	return (0);
}

static int
assert_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct jrun	*r = arg;
	struct jrow	*w;

	(void)names;
	(void)types;
	if (ncols < 8)
		return (1);
	r->rows = dn_xreallocarray(r->rows, r->n + 1, sizeof(*r->rows));
	w = &r->rows[r->n++];
	w->name = dn_xstrdup(values[0] ? values[0] : "");
	w->form = dn_xstrdup(values[1] ? values[1] : "");
	w->status = dn_xstrdup(values[2] ? values[2] : "");
	w->message = dn_xstrdup(values[7] ? values[7] : "");
	return (0);
}

static void
jrun_release(struct jrun *r)
{
	size_t	i;

	for (i = 0; i < r->n; i++) {
		free(r->rows[i].name);
		free(r->rows[i].form);
		free(r->rows[i].status);
		free(r->rows[i].message);
	}
	free(r->rows);
	free(r->scenario);
	free(r->variant);
	free(r->trial);
}

void
assert_junit_suite(FILE *out, const char *name, const char *scenario,
    const struct assert_case *cases, size_t n)
{
	struct dn_junit_case	*c;
	char			*cls, **skip;
	size_t			 i;

	c = dn_xcalloc(n + 1, sizeof(*c));
	skip = dn_xcalloc(n + 1, sizeof(*skip));
	cls = scenario != NULL ? dn_xasprintf("devnet.assert.%s", scenario) :
	    dn_xstrdup("devnet.assert");
	for (i = 0; i < n; i++) {
		const struct assert_case *w = &cases[i];

		c[i].classname = cls;
		c[i].name = w->name;
		if (strcmp(w->status, "pass") == 0)
			c[i].status = DN_JUNIT_PASS;
		else if (strcmp(w->status, "fail") == 0) {
			c[i].status = DN_JUNIT_FAIL;
			c[i].message = c[i].text = w->message;
		} else {
			c[i].status = DN_JUNIT_SKIP;
			c[i].message = skip[i] = dn_xasprintf("%s: %s",
			    w->status, w->message);
		}
	}
	dn_junit_suite(out, name, NULL, c, n);
	for (i = 0; i < n; i++)
		free(skip[i]);
	free(skip);
	free(cls);
	free(c);
}

/* Run RUN_ID's stored results R as its suite. */
static void
put_suite(FILE *out, long long run_id, const struct jrun *r)
{
	struct assert_case	*c;
	char			*name;
	size_t			 i;

	c = dn_xcalloc(r->n + 1, sizeof(*c));
	for (i = 0; i < r->n; i++) {
		c[i].name = dn_xasprintf("%s (run %lld, %s)", r->rows[i].name,
		    run_id, r->rows[i].form);
		c[i].status = r->rows[i].status;
		c[i].message = r->rows[i].message;
	}
	name = dn_xasprintf("assertions of run %lld (%s, variant %s, trial "
	    "%s)", run_id, r->scenario ? r->scenario : "",
	    r->variant ? r->variant : "", r->trial ? r->trial : "?");
	assert_junit_suite(out, name, r->scenario ? r->scenario : "", c,
	    r->n);
	for (i = 0; i < r->n; i++)
		free(c[i].name);
	free(c);
	free(name);
}

int
assert_junit(FILE *out, struct dn_store *s, const int64_t *run_ids,
    size_t n, char **cause)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		struct jrun	r = { 0 };

		if (dn_store_read(s, DN_READ_RUN_HEADER, run_ids[i],
		    header_row, &r, cause) != 0 ||
		    dn_store_read(s, DN_READ_RUN_ASSERTIONS, run_ids[i],
		    assert_row, &r, cause) != 0) {
			jrun_release(&r);
			return (-1);
		}
		if (r.n > 0)
			put_suite(out, (long long)run_ids[i], &r);
		jrun_release(&r);
	}
	return (0);
}

int
assert_summary(FILE *out, struct dn_store *s, const int64_t *run_ids,
    size_t n, int quiet, char **cause)
{
	size_t	i, j, npass = 0, nfail = 0, ninc = 0, said = 0;
	int	pass;

	for (i = 0; i < n; i++) {
		struct jrun	r = { 0 };

		if (dn_store_read(s, DN_READ_RUN_ASSERTIONS, run_ids[i],
		    assert_row, &r, cause) != 0) {
			jrun_release(&r);
			return (-1);
		}
		for (j = 0; j < r.n; j++) {
			pass = strcmp(r.rows[j].status, "pass") == 0;
			npass += pass;
			nfail += strcmp(r.rows[j].status, "fail") == 0;
			ninc += strcmp(r.rows[j].status, "inconclusive") == 0;
			/* a relative one is the same row in every run */
			if ((strcmp(r.rows[j].form, "relative") == 0 &&
			    i > 0) || (quiet && pass))
				continue;
			if (said++ == 0)
				fputs("\nassertions:\n", out);
			fprintf(out, "  %-12s run %lld: %s\n",
			    strcmp(r.rows[j].status, "fail") == 0 ? "FAIL" :
			    r.rows[j].status, (long long)run_ids[i],
			    r.rows[j].message);
		}
		jrun_release(&r);
	}
	if (npass + nfail + ninc > 0 && said == 0 && !quiet)
		fputs("\nassertions:\n", out);
	if (npass + nfail + ninc > 0)
		fprintf(out, "%zu passed, %zu failed, %zu inconclusive (rows "
		    "in the table assertions; devnet show RUN)\n", npass,
		    nfail, ninc);
	return (0);
}
