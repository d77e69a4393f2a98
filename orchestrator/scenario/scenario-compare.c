/*
 * scenario-compare.c: the top-level compare: section, what the scenario's
 * comparisons are about (issue 35): {primary: [METRIC, ...]}, the metrics
 * whose verdict decides (Holm runs over them alone; the others are
 * secondary and exploratory, docs/statistics.md).  Without it, the
 * default of the node kind of the first variant.  A name must be one of
 * the verdict's metrics (the one table, metric-table.h) or a named
 * metric of the scenario's nodes.
 * Not here: the comparison itself (verdict/), storing the list with each
 * run (run/finish.c, fact compare_primary).
 */
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "metric-table.h"
#include "xalloc.h"

#define SCN_MAX_PRIMARY	32

static const char *const compare_keys[] = { "primary", NULL };

/* The default primary metrics per node kind (docs/statistics.md,
 * "Primary metrics"): memory, CPU, and what the kind's load shows. */
static const struct {
	enum scn_node_kind	 kind;
	const char		*from;
	const char		*names[6];
} defaults[] = {
	{ SCN_NODE_DEVNET, "default for devnet nodes",
	    { "rss_avg", "cpu_s_per_s", "allocs_per_s", "tx_latency_p99_ms",
	    NULL } },
	{ SCN_NODE_COMMAND, "default for command nodes",
	    { "rss_avg", "cpu_s_per_s", "tx_latency_p99_ms", "achieved_tps",
	    NULL } },
};

/* The default primary metrics of node kind KIND, NULL-terminated;
 * *FROM says whose default. */
static const char *const *
default_primary(int kind, const char **from)
{
	size_t	i;

	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		if ((int)defaults[i].kind == kind) {
			*from = defaults[i].from;
			return (defaults[i].names);
		}
	}
	return (NULL);
}

static int
in(const char *const *v, const char *name)
{
	size_t	i, l = strlen(name);

	for (i = 0; v != NULL && v[i] != NULL; i++)
		if (strncmp(v[i], name, l) == 0 && (v[i][l] == '\0' ||
		    v[i][l] == '='))	/* prom_map's "NAME=..." */
			return (1);
	return (0);
}

/* NAME of node N is a metric compare knows or a named one (NAMED). */
static int
check_name(struct ctx *c, const struct ynode *n, const char *name,
    const char *const *named)
{
	const char	*cand[DN_VERDICT_COUNT + 128];
	char		 near[64], sug[96] = "";
	size_t		 k = 0, i;

	if (dn_verdict_lookup(name) >= 0 || in(named, name))
		return (0);
	for (i = 0; i < DN_VERDICT_COUNT; i++)
		cand[k++] = dn_verdict_defs[i].name;
	for (i = 0; named[i] != NULL && k + 1 < DN_VERDICT_COUNT + 128; i++)
		cand[k++] = named[i];
	cand[k] = NULL;
	if (scn_nearest(name, cand, near, sizeof(near)) == 0) {
		if (strchr(near, '=') != NULL)
			*strchr(near, '=') = '\0';
		snprintf(sug, sizeof(sug), " (did you mean '%s'?)", near);
	}
	return (scn_fail(c, n, "unknown metric '%s' in compare.primary%s; "
	    "'devnet metrics' lists them (docs/metrics.md), named ones come "
	    "from node.metrics", name, sug));
}

int
scn_load_compare(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	const struct ynode	 *v;
	const char		**named = NULL;
	size_t			  i, j, nn;
	int			  rv = -1;

	if (n == NULL)
		return (0);
	if (scn_check_map(c, n, "compare", compare_keys) != 0)
		return (-1);
	if ((v = ymap_get(n, "primary")) == NULL)
		return (0);
	if (v->type != Y_SEQ || v->nkids == 0 || v->nkids > SCN_MAX_PRIMARY)
		return (scn_fail(c, v, "compare.primary is a list of 1 to %d "
		    "metric names, e.g. [rss_avg, cpu_s_per_s]",
		    SCN_MAX_PRIMARY));
	named = scn_named_metrics(s, &nn);
	s->primary = dn_xcalloc(v->nkids + 1, sizeof(*s->primary));
	for (i = 0; i < v->nkids; i++) {
		if (scn_get_str(c, v->kids[i], "compare.primary",
		    &s->primary[i]) != 0)
			goto out;
		s->nprimary = i + 1;
		if (check_name(c, v->kids[i], s->primary[i], named) != 0)
			goto out;
		for (j = 0; j < i; j++)
			if (strcmp(s->primary[j], s->primary[i]) == 0) {
				scn_fail(c, v->kids[i], "compare.primary "
				    "names '%s' twice", s->primary[i]);
				goto out;
			}
	}
	rv = 0;
out:
	free(named);
	return (rv);
}

char *
scenario_primary_text(const struct scenario *s)
{
	const char *const	*v = (const char *const *)s->primary;
	const char		*from = "scenario";
	char			*t, *u;
	size_t			 i;

	if (s->nprimary == 0)
		v = default_primary(s->nvariants > 0 ?
		    (int)s->variants[0].node.kind : SCN_NODE_DEVNET, &from);
	t = dn_xasprintf("%s:", from);
	for (i = 0; v != NULL && v[i] != NULL; i++) {
		u = dn_xasprintf("%s%s%s", t, i ? "," : "", v[i]);
		free(t);
		t = u;
	}
	return (t);
}
