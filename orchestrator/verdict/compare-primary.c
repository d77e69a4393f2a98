/*
 * compare-primary.c: which metrics a comparison is about (issue 35).  The
 * primary family is what --metric names; else what the runs' scenario
 * named (`compare: {primary: [...]}`) or, when it named none, its node
 * kind's default, both stored with every run as the fact
 * `compare_primary` ("FROM:name,name,..."); runs from before that fact
 * have every metric primary, as compare always did.  Holm runs over the
 * primary family alone; every other metric is secondary.
 *
 * Not here: the defaults per node kind and the check of the names (the
 * scenario loader, scenario-compare.c), the tests (compare.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare-internal.h"
#include "store.h"
#include "xalloc.h"

/* NAME is one of the comma-separated LIST. */
static int
listed(const char *list, const char *name)
{
	size_t		 l = strlen(name);
	const char	*p;

	for (p = list; (p = strstr(p, name)) != NULL; p += l) {
		if ((p == list || p[-1] == ',') && (p[l] == ',' ||
		    p[l] == '\0'))
			return (1);
	}
	return (0);
}

int
compare_primary_mark(struct dn_store *s, struct compare_result *r,
    const struct compare_opts *opts, const struct derived *defs, size_t nd,
    int *prim, char **cause)
{
	char		*val = NULL, *names;
	size_t		 k;

	if (opts != NULL && opts->nmetrics > 0) {
		for (k = 0; k < nd; k++)
			prim[k] = 1;
		r->primary_from = dn_xstrdup("--metric");
		return (0);
	}
	if (compare_side_fact(s, &r->a, "compare_primary", &val, cause) != 0)
		return (-1);
	if (val == NULL || (names = strrchr(val, ':')) == NULL) {
		for (k = 0; k < nd; k++)
			prim[k] = 1;
		r->primary_from = dn_xstrdup("every metric (runs from before "
		    "compare.primary)");
		free(val);
		return (0);
	}
	*names++ = '\0';
	for (k = 0; k < nd; k++)
		prim[k] = listed(names, defs[k].name);
	r->primary_from = val;
	return (0);
}
