/*
 * compare.c: the A/B analysis (see compare.h, docs/statistics.md): check
 * the options, resolve both sides, gather observations, pick the unit, test
 * every derived metric (Mann-Whitney or Welch on trials, clustered
 * Mann-Whitney on nodes, bootstrap CIs, Holm), and assemble the verdicts and
 * warnings -- also about runs that are not comparable (setup differences,
 * a missed load rate; errors with --strict) -- into a struct
 * compare_result.
 *
 * Pipeline: resolve each side to runs (compare-sides.c) -> per run, read
 * the steady-state window (t_ms >= warmup_ms) of the base metrics -> derive
 * one value per node per derived metric (max, mean, p99, slope, rate) -> a
 * per-trial summary (max over nodes for max-like metrics, mean over nodes
 * otherwise) (compare-derive.c) -> adjust (compare-adjust.c) -> test on
 * the chosen unit (compare-test.c), Holm and the verdicts (here,
 * compare-rule.c) -> what could not be seen
 * (compare-power.c) -> render (compare-render.c).  No
 * sqlite here: reads go through metrics/store/store.h.  Option parsing is in
 * compare-opts.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "metric-table.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"

static int
wanted(const struct compare_opts *opts, const char *name)
{
	size_t	i;

	if (opts == NULL || opts->nmetrics == 0)
		return (1);
	for (i = 0; i < opts->nmetrics; i++)
		if (strcmp(opts->metrics[i], name) == 0)
			return (1);
	return (0);
}

/* Say which metrics can never be significant with the observations at
 * hand (the exact test's smallest p, times the Holm family size). */
static void
too_few(struct compare_result *r)
{
	char	*names = NULL, *t;
	size_t	 i, n = 0, na = 0, nb = 0;

	for (i = 0; i < r->nprimary; i++) {
		const struct compare_row *row = &r->rows[i];

		if (strcmp(row->test, "welch") == 0 ||
		    dn_stats_mwu_min_p(row->a.n, row->b.n) * r->nprimary <
		    COMPARE_ALPHA)
			continue;
		t = dn_xasprintf("%s%s%s", names ? names : "",
		    names ? ", " : "", row->name);
		free(names);
		names = t;
		na = row->a.n;
		nb = row->b.n;
		n++;
	}
	if (n == 0)
		return;
	compare_warn(r, dn_xasprintf("%s: %zu vs %zu observations can never "
	    "be significant after Holm over the %zu primary metrics "
	    "(smallest possible p %.3g); run more trials or pick metrics "
	    "with --metric", names, na, nb, r->nprimary,
	    dn_stats_mwu_min_p(na, nb)));
	free(names);
}

/* One setup field of a run, as text: what differs between runs. */
enum setup_field { SF_SCENARIO, SF_NODES, SF_TPS, SF_DURATION, SF_WARMUP,
    SF_MACHINE, SF_COUNT };

static char *
setup_value(const struct compare_run *run, int f)
{
	switch (f) {
	case SF_SCENARIO:
		return (dn_xasprintf("'%s'", run->scenario));
	case SF_NODES:
		return (dn_xasprintf("%d", run->nodes));
	case SF_TPS:
		return (dn_xasprintf("%g tx/s", run->tps));
	case SF_DURATION:
		return (dn_xasprintf("%g s", run->duration_ms / 1000.0));
	case SF_MACHINE:	/* docs/schema.md, "machines" */
		return (dn_xstrdup(run->machine ? run->machine : "unknown"));
	default:
		return (dn_xasprintf("%g s", run->warmup_ms / 1000.0));
	}
}

/* A value of a setup field and the runs of each side that have it. */
struct setup_group {
	char	*value;
	char	*runs[2];	/* "1, 2" for A and for B, or NULL */
};

static void
add_mismatch(struct compare_result *r, char *w, char **strict)
{
	char	*t;

	t = dn_xasprintf("%s%s%s", *strict ? *strict : "", *strict ? "; " :
	    "", w);
	free(*strict);
	*strict = t;
	compare_warn(r, w);
	r->nmismatch++;
}

/*
 * Warn about what makes the runs not comparable: a setup that differs
 * between runs (scenario, node count, target rate, duration, warmup) and
 * runs whose load generator missed its rate.  The warnings go to R (and
 * count in r->nmismatch); *STRICT gets them joined, for --strict.
 */
static void
check_comparable(struct compare_result *r, char **strict)
{
	static const char *const	 names[SF_COUNT] = { "scenario",
					    "node count", "target rate",
					    "duration", "warmup",
					    "machine class" };
	const struct compare_side	*sd[2] = { &r->a, &r->b };
	struct setup_group		*g;
	size_t				 ng, i, j, k;
	int				 f, side;
	char				*v, *t, *w;

	g = dn_xcalloc(r->a.nruns + r->b.nruns, sizeof(*g));
	for (f = 0; f < SF_COUNT; f++) {
		ng = 0;
		for (side = 0; side < 2; side++) {
			for (i = 0; i < sd[side]->nruns; i++) {
				v = setup_value(&sd[side]->runs[i], f);
				for (k = 0; k < ng; k++)
					if (strcmp(g[k].value, v) == 0)
						break;
				if (k == ng)
					g[ng++].value = v;
				else
					free(v);
				t = dn_xasprintf("%s%s%lld",
				    g[k].runs[side] ? g[k].runs[side] : "",
				    g[k].runs[side] ? ", " : "",
				    (long long)sd[side]->runs[i].id);
				free(g[k].runs[side]);
				g[k].runs[side] = t;
			}
		}
		if (ng > 1) {
			w = dn_xasprintf("runs differ in %s:", names[f]);
			for (k = 0; k < ng; k++) {
				t = dn_xasprintf("%s%s %s (%s%s%s%s%s)", w,
				    k ? "," : "", g[k].value,
				    g[k].runs[0] ? "A runs " : "",
				    g[k].runs[0] ? g[k].runs[0] : "",
				    g[k].runs[0] && g[k].runs[1] ? "; " : "",
				    g[k].runs[1] ? "B runs " : "",
				    g[k].runs[1] ? g[k].runs[1] : "");
				free(w);
				w = t;
			}
			t = dn_xasprintf("%s: the comparison mixes setups",
			    w);
			free(w);
			add_mismatch(r, t, strict);
			r->nsetup++;
		}
		for (k = 0; k < ng; k++) {
			free(g[k].value);
			for (j = 0; j < 2; j++)
				free(g[k].runs[j]);
		}
		memset(g, 0, ng * sizeof(*g));
	}
	free(g);
	for (side = 0; side < 2; side++) {
		for (i = 0; i < sd[side]->nruns; i++) {
			const struct compare_run *run = &sd[side]->runs[i];

			if (run->interference != NULL)
				add_mismatch(r, dn_xasprintf("run %lld (%s) "
				    "ran beside other work: %s; its figures "
				    "may be off", (long long)run->id, side ?
				    "B" : "A", run->interference), strict);
			if (run->rate_missed == NULL)
				continue;
			add_mismatch(r, dn_xasprintf("run %lld (%s) missed "
			    "its load rate (%s): it ran under less load than "
			    "planned", (long long)run->id, side ? "B" : "A",
			    run->rate_missed), strict);
		}
	}
}

/* Name the metrics that were constant within each side but different
 * between them: their p is the exact rank test's, and says so. */
static void
zero_spread(struct compare_result *r)
{
	char	*names = NULL, *t;
	size_t	 i;

	for (i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];

		if (!row->constant || row->p_raw == 1)
			continue;
		t = dn_xasprintf("%s%s%s", names ? names : "",
		    names ? ", " : "", row->name);
		free(names);
		names = t;
	}
	if (names == NULL)
		return;
	compare_warn(r, dn_xasprintf("%s: constant within each side and "
	    "different between them; no spread to test against, so p is "
	    "the exact rank test's for a complete separation of the trials "
	    "(%.3g with %zu vs %zu), not Welch's", names,
	    dn_stats_mwu_min_p(r->a.nruns, r->b.nruns), r->a.nruns,
	    r->b.nruns));
	free(names);
}

/* Add named metric ID (a foreign node's, outside the table) to DEFS:
 * mean per node for a gauge, rate for a counter; its strings go into R. */
static int
add_named(struct dn_store *s, struct compare_result *r, struct derived **defs,
    size_t *nd, int id, char **cause)
{
	struct dn_metric_info	 info;
	struct derived		*d;
	char			*name;
	size_t			 k;

	for (k = NDERIVED; k < *nd; k++)
		if ((*defs)[k].m1 == id)
			return (0);
	if (dn_store_metric_name(s, id, &name, &info, cause) != 0)
		return (-1);
	r->owned = dn_xreallocarray(r->owned, r->nowned + 2,
	    sizeof(*r->owned));
	r->owned[r->nowned++] = name;
	r->owned[r->nowned++] = dn_xstrdup(info.better);
	*defs = dn_xreallocarray(*defs, *nd + 1, sizeof(**defs));
	d = &(*defs)[(*nd)++];
	memset(d, 0, sizeof(*d));
	d->name = name;
	d->unit = info.counter ? "/s" : "";
	d->better = r->owned[r->nowned - 1];
	d->m1 = id;
	d->m2 = -1;
	d->fn = info.counter ? F_RATE : F_MEAN;
	d->desc = info.counter ? "a node's own counter, per second (named)" :
	    "a node's own metric, mean (named)";
	return (0);
}

/* Every named metric with samples in a run of either side. */
static int
add_all_named(struct dn_store *s, struct compare_result *r,
    struct derived **defs, size_t *nd, char **cause)
{
	size_t	i, j, n;
	int	*ids, side;

	for (side = 0; side < 2; side++) {
		const struct compare_side *sd = side ? &r->b : &r->a;

		for (i = 0; i < sd->nruns; i++) {
			if (dn_store_run_named(s, sd->runs[i].id, &ids, &n,
			    cause) != 0)
				return (-1);
			for (j = 0; j < n; j++) {
				if (add_named(s, r, defs, nd, ids[j],
				    cause) != 0) {
					free(ids);
					return (-1);
				}
			}
			free(ids);
		}
	}
	return (0);
}

/* Metrics measured on one side only: "not measured" on the other, which
 * is not a difference (never "0 vs X"). */
static void
one_sided(struct compare_result *r, const struct derived *defs,
    const int *use, const struct obs *oa, const struct obs *ob, size_t nd)
{
	char	*names = NULL, *t;
	size_t	 k;

	for (k = 0; k < nd; k++) {
		if (!use[k] || (oa[k].ntrial > 0) == (ob[k].ntrial > 0))
			continue;
		t = dn_xasprintf("%s%s%s (%s only)", names ? names : "",
		    names ? ", " : "", defs[k].name, oa[k].ntrial > 0 ? "A" :
		    "B");
		free(names);
		names = t;
	}
	if (names != NULL)
		compare_warn(r, dn_xasprintf("not measured on both sides, not "
		    "compared: %s", names));
	free(names);
}

/* The allocation sources (fact alloc_source) of SIDE's runs' nodes, joined
 * with " + " in the order first seen, into *SRC (NULL: none recorded,
 * runs from before the fact existed).  A source is "seen" when a value
 * equal to it, whole, was kept: one source's text may contain another's. */
static int
side_sources(struct dn_store *s, const struct compare_side *sd, char **src,
    char **cause)
{
	char	**v, **seen = NULL, *t;
	size_t	  i, j, k, n, nseen = 0;
	int	  rv = 0;

	*src = NULL;
	for (i = 0; i < sd->nruns && rv == 0; i++) {
		if (dn_store_fact_values(s, sd->runs[i].id, "alloc_source",
		    &v, &n, cause) != 0) {
			rv = -1;
			break;
		}
		for (j = 0; j < n; j++) {
			for (k = 0; k < nseen; k++)
				if (strcmp(seen[k], v[j]) == 0)
					break;
			if (k < nseen) {
				free(v[j]);
				continue;
			}
			t = dn_xasprintf("%s%s%s", *src ? *src : "",
			    *src ? " + " : "", v[j]);
			free(*src);
			*src = t;
			seen = dn_xreallocarray(seen, nseen + 1, sizeof(*seen));
			seen[nseen++] = v[j];
		}
		free(v);
	}
	for (k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
	return (rv);
}

static int
is_alloc_metric(int m)
{
	return (m == DN_M_ALLOCS || m == DN_M_FREES ||
	    m == DN_M_ALLOC_BYTES || m == DN_M_HEAP_LIVE_BYTES);
}

/*
 * Allocations counted in different ways are not one quantity: glibc's
 * malloc calls against jemalloc's, or against Go's runtime, would make a
 * difference of the counters look like one of the programs (issue 25).
 * When both sides recorded their sources and those differ, the
 * allocation metrics are left out, naming both; asked for by name
 * (--metric), compare fails.
 */
static int
alloc_sources(struct dn_store *s, struct compare_result *r,
    const struct derived *defs, int *use, size_t nd,
    const struct compare_opts *opts, char **cause)
{
	char	*sa = NULL, *sb = NULL, *names = NULL, *t;
	size_t	 k;
	int	 rv = -1, asked = 0;

	if (side_sources(s, &r->a, &sa, cause) != 0 ||
	    side_sources(s, &r->b, &sb, cause) != 0)
		goto out;
	/* shown beside the verdict, whatever it is (issue 25) */
	r->a.alloc_source = sa != NULL ? dn_xstrdup(sa) : NULL;
	r->b.alloc_source = sb != NULL ? dn_xstrdup(sb) : NULL;
	rv = 0;
	if (sa == NULL || sb == NULL || strcmp(sa, sb) == 0)
		goto out;
	for (k = 0; k < nd; k++) {
		if (!use[k] || !(is_alloc_metric(defs[k].m1) ||
		    is_alloc_metric(defs[k].m2)))
			continue;
		use[k] = 0;
		asked |= opts != NULL && opts->nmetrics > 0;
		t = dn_xasprintf("%s%s%s", names ? names : "",
		    names ? ", " : "", defs[k].name);
		free(names);
		names = t;
	}
	if (names == NULL)
		goto out;
	if (asked) {
		*cause = dn_xasprintf("cannot compare %s: the allocations "
		    "are counted differently (A: %s; B: %s)", names, sa, sb);
		rv = -1;
	} else
		compare_warn(r, dn_xasprintf("allocation sources differ, not "
		    "compared: %s (A: %s; B: %s)", names, sa, sb));
out:
	free(names);
	free(sa);
	free(sb);
	return (rv);
}

/* The --metric names outside the derived table: foreign nodes' own
 * metrics (with --named), added to DEFS; an unknown name is an error. */
static int
add_wanted_named(struct dn_store *s, struct compare_result *r,
    const struct compare_opts *opts, struct derived **defs, size_t *nd,
    char **cause)
{
	size_t	i, k;
	int	id;

	for (i = 0; opts != NULL && i < opts->nmetrics; i++) {
		for (k = 0; k < NDERIVED; k++)
			if (strcmp(compare_derived[k].name,
			    opts->metrics[i]) == 0)
				break;
		if (k < NDERIVED)
			continue;
		id = -1;
		if (opts->named && dn_store_metric_find(s, opts->metrics[i],
		    &id, NULL, cause) != 0)
			return (-1);
		if (id < DN_STORE_NAMED_BASE) {
			*cause = dn_xasprintf("unknown metric '%s' (see "
			    "'devnet compare --help' for the list%s)",
			    opts->metrics[i], opts->named ? "; a foreign "
			    "node's own metric must have been stored" : "");
			return (-1);
		}
		if (add_named(s, r, defs, nd, id, cause) != 0)
			return (-1);
	}
	return (0);
}

/* A run on both sides is an error. */
static int
check_disjoint(const struct compare_result *r, char **cause)
{
	size_t	i, j;

	for (i = 0; i < r->a.nruns; i++) {
		for (j = 0; j < r->b.nruns; j++) {
			if (r->a.runs[i].id == r->b.runs[j].id) {
				*cause = dn_xasprintf("run %lld is on both "
				    "sides; compare different runs",
				    (long long)r->a.runs[i].id);
				return (-1);
			}
		}
	}
	return (0);
}

/* The unit of observation (--unit; auto means trial) and its note. */
static int
choose_unit(struct compare_result *r, const struct compare_opts *opts)
{
	size_t	nta, ntb;
	int	unit;

	nta = r->a.nruns;
	ntb = r->b.nruns;
	unit = opts ? opts->unit : COMPARE_UNIT_AUTO;
	if (unit == COMPARE_UNIT_AUTO) {
		/* The node unit failed the A/A honesty sweep (6/30 groups
		 * with a false positive under 2% trial noise; docs/
		 * statistics.md), so auto always means the trial unit. */
		unit = COMPARE_UNIT_TRIAL;
		r->unit_note = dn_xasprintf("unit: trial (%zu vs %zu trials; "
		    "auto; --unit node only where an A/A stays clean)", nta,
		    ntb);
	} else if (unit == COMPARE_UNIT_TRIAL) {
		r->unit_note = dn_xasprintf("unit: trial (%zu vs %zu trials)",
		    nta, ntb);
	} else
		r->unit_note = dn_xasprintf("unit: trial x node (%zu vs %zu "
		    "trials; valid only if an A/A comparison stays clean)",
		    nta, ntb);
	r->unit = unit;
	return (unit);
}

/* One row per metric in USE, the primary ones (PRIM) first: the test,
 * Holm over each family apart (the primary metrics; the secondary ones
 * among themselves), the verdict and the power. */
static void
test_rows(struct compare_result *r, const struct derived *defs, size_t nd,
    const int *use, const int *prim, const struct obs *oa,
    const struct obs *ob, int unit, size_t family, size_t *rk,
    const struct compare_adjust *adj, double *const *alt)
{
	struct compare_power_cache pc[2];
	size_t	 i, k, fam[2] = { 0, 0 };
	int	 pass;

	for (k = 0; k < nd; k++)
		if (use[k])
			fam[prim[k] ? 0 : 1]++;
	r->rows = dn_xcalloc(family, sizeof(*r->rows));
	for (pass = 0; pass < 2; pass++) {
		for (k = 0; k < nd; k++) {
			struct compare_row	*row;

			if (!use[k] || (prim[k] ? 0 : 1) != pass)
				continue;
			row = &r->rows[r->nrows];
			row->name = defs[k].name;
			row->unit = defs[k].unit;
			row->better = defs[k].better;
			row->desc = defs[k].desc;
			row->base_metric = defs[k].m1;
			row->primary = pass == 0;
			row->adj = adj[k];
			compare_row_test(row, &oa[k], &ob[k], unit, fam[pass]);
			compare_adjust_guard(row, &oa[k], &ob[k], &alt[2 * k],
			    unit, fam[pass]);
			/* equivalence on the test's own unit: the nodes
			 * (their trials' design effect), or the trials */
			if (unit == COMPARE_UNIT_NODE)
				row->p_eq_raw = compare_equivalence_p(
				    oa[k].node_v, oa[k].nnode, ob[k].node_v,
				    ob[k].nnode, r->threshold_pct, row->deff);
			else
				row->p_eq_raw = compare_equivalence_p(
				    oa[k].trial_v, oa[k].ntrial, ob[k].trial_v,
				    ob[k].ntrial, r->threshold_pct, 1);
			rk[r->nrows++] = k;
		}
	}
	r->nprimary = fam[0];
	compare_family_decide(r->rows, fam[0], r->threshold_pct);
	compare_family_decide(r->rows + fam[0], fam[1], r->threshold_pct);
	too_few(r);
	zero_spread(r);
	memset(pc, 0, sizeof(pc));
	for (pass = 0; pass < 2; pass++)
		pc[pass].alpha = COMPARE_ALPHA / (double)(fam[pass] > 0 ?
		    fam[pass] : 1);
	for (i = 0; i < r->nrows; i++) {
		pass = i < fam[0] ? 0 : 1;
		compare_row_power(&r->rows[i], &oa[rk[i]], &ob[rk[i]], unit,
		    fam[pass], r->threshold_pct, r->target_pct, &pc[pass]);
		compare_adjust_mde(&r->rows[i], &oa[rk[i]], &ob[rk[i]],
		    &alt[2 * rk[i]], unit, fam[pass], r->threshold_pct,
		    &pc[pass]);
	}
}

/* A warning per run with unplanned faults. */
static void
warn_faults(struct compare_result *r)
{
	size_t	i, j;

	for (i = 0; i < 2; i++) {
		const struct compare_side *sd = i ? &r->b : &r->a;

		for (j = 0; j < sd->nruns; j++) {
			if (sd->runs[j].faults != NULL)
				compare_warn(r, dn_xasprintf("run %lld had "
				    "unplanned faults: %s", (long long)
				    sd->runs[j].id, sd->runs[j].faults));
		}
	}
}

/* After every test: the rows --aa leaves undecided, the warnings of
 * faulted runs, then the headline over the rows as they stand. */
static void
finish_rows(struct compare_result *r, const struct compare_opts *opts)
{
	compare_aa_secondary(r, opts);
	warn_faults(r);
	r->headline = compare_headline(r);
}

/* The stored A/A of --aa, analysed as the verdict will be (for
 * compare-aa.c); NULL with *CAUSE when it cannot be. */
static struct compare_result *
aa_analyze(struct dn_store *s, const struct compare_opts *opts,
    char **cause)
{
	struct compare_opts	 o = *opts;
	struct compare_result	*aa = NULL;
	char			 sa[32], sb[32];

	snprintf(sa, sizeof(sa), "%s:A", opts->aa);
	snprintf(sb, sizeof(sb), "%s:B", opts->aa);
	o.aa = NULL;
	o.feed = NULL;
	o.seq = NULL;
	if (compare_analyze(s, sa, sb, &o, &aa, cause) != 0)
		return (NULL);
	return (aa);
}

int
compare_analyze(struct dn_store *s, const char *side_a, const char *side_b,
    const struct compare_opts *opts, struct compare_result **rp,
    char **cause)
{
	struct compare_result	*r = dn_xcalloc(1, sizeof(*r));
	struct compare_result	*aar = NULL;
	const struct compare_side *sides[2] = { &r->a, &r->b };
	const struct compare_feed *feed = opts ? opts->feed : NULL;
	struct derived		*defs;
	struct obs		*oa = NULL, *ob = NULL, *os[2];
	struct compare_adjust	*adj = NULL;
	double			**alt = NULL;
	int			*use = NULL, *prim = NULL, unit;
	size_t			 k, family = 0, nd = NDERIVED, *rk = NULL;
	char			*strict = NULL;

	*rp = NULL;
	defs = dn_xreallocarray(NULL, NDERIVED, sizeof(*defs));
	memcpy(defs, compare_derived, NDERIVED * sizeof(*defs));
	r->threshold_pct = (opts && opts->threshold_pct > 0) ?
	    opts->threshold_pct : COMPARE_THRESHOLD_PCT;
	r->target_pct = opts ? opts->target_pct : 0;
	if (add_wanted_named(s, r, opts, &defs, &nd, cause) != 0)
		goto fail;
	r->machine = opts ? opts->machine : NULL;
	if (compare_side_resolve(s, side_a, &r->a, r, cause) != 0 ||
	    compare_side_resolve(s, side_b, &r->b, r, cause) != 0 ||
	    compare_sides_network(s, r, cause) != 0)
		goto fail;
	if (opts != NULL && opts->named && opts->nmetrics == 0 &&
	    add_all_named(s, r, &defs, &nd, cause) != 0)
		goto fail;
	oa = dn_xcalloc(nd, sizeof(*oa));
	ob = dn_xcalloc(nd, sizeof(*ob));
	use = dn_xcalloc(nd, sizeof(*use));
	for (k = 0; k < nd; k++)
		use[k] = wanted(opts, defs[k].name);
	if (check_disjoint(r, cause) != 0)
		goto fail;
	check_comparable(r, &strict);
	if (strict != NULL && opts != NULL && opts->strict) {
		*cause = dn_xasprintf("runs not comparable (--strict): %s "
		    "(drop --strict to compare anyway)", strict);
		goto fail;
	}
	if (feed != NULL && feed->begin(feed->arg, r, cause) != 0)
		goto fail;
	os[0] = oa;
	os[1] = ob;
	if (compare_observe(s, sides, 2, defs, nd, use, os, feed,
	    cause) != 0)
		goto fail;
	one_sided(r, defs, use, oa, ob, nd);
	compare_sides_unmeasured(r);
	if (alloc_sources(s, r, defs, use, nd, opts, cause) != 0)
		goto fail;

	/* The family: metrics with data on both sides. */
	for (k = 0; k < nd; k++) {
		use[k] = use[k] && oa[k].ntrial > 0 && ob[k].ntrial > 0;
		family += use[k];
	}
	if (family == 0) {
		const char *unm = compare_sides_unmeasured_of(r, opts);

		*cause = dn_xasprintf("no samples to compare after warmup in "
		    "%s vs %s (see 'devnet show RUN')%s%s", side_a, side_b,
		    unm ? ": " : "", unm ? unm : "");
		goto fail;
	}
	unit = choose_unit(r, opts);
	if (unit == COMPARE_UNIT_NODE && ((opts->aa != NULL &&
	    (aar = aa_analyze(s, opts, cause)) == NULL) ||
	    compare_node_unit_check(r, opts, aar, cause) != 0))
		goto fail;
	unit = r->unit;
	prim = dn_xcalloc(nd, sizeof(*prim));
	if (compare_primary_mark(s, r, opts, defs, nd, prim, cause) != 0)
		goto fail;
	rk = dn_xcalloc(family, sizeof(*rk));
	adj = dn_xcalloc(nd, sizeof(*adj));
	alt = dn_xcalloc(2 * nd, sizeof(*alt));
	if (compare_adjust_all(s, r, opts, oa, ob, use, nd, adj, alt,
	    cause) != 0)
		goto fail;
	test_rows(r, defs, nd, use, prim, oa, ob, unit, family, rk, adj,
	    alt);
	compare_paired_blocks(r, oa, ob, rk);
	if (compare_paired_apply(s, r, opts, oa, ob, rk, alt, cause) != 0 ||
	    compare_seq_apply(s, r, opts, rk, oa, ob, cause) != 0)
		goto fail;
	free(rk);
	rk = NULL;
	free(prim);
	prim = NULL;
	finish_rows(r, opts);
	for (k = 0; k < nd; k++) {
		compare_obs_release(&oa[k]);
		compare_obs_release(&ob[k]);
	}
	free(oa);
	free(ob);
	free(use);
	free(defs);
	compare_adjust_free(adj, alt, nd);
	*rp = r;
	free(strict);
	return (0);
fail:
	free(rk);
	free(prim);
	free(strict);
	for (k = 0; oa != NULL && k < nd; k++) {
		compare_obs_release(&oa[k]);
		compare_obs_release(&ob[k]);
	}
	free(oa);
	free(ob);
	free(use);
	free(defs);
	compare_adjust_free(adj, alt, nd);
	compare_result_free(r);
	return (-1);
}
