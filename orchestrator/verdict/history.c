/*
 * history.c: a scenario's stored runs in commit order, a series per
 * metric, and their change points (see history.h).
 *
 * Order.  Runs are read in start order.  Runs that know their commit (a
 * `rev:` variant's build) are grouped by commit, and the groups are put
 * in the order of git's history (`rev-list --topo-order` in the
 * repository, git_order); each group takes, in that order, the places in
 * time the groups had, so runs without a commit stay where time put them.
 * When git cannot order the commits (no repository, a commit it does not
 * have), the groups stay in the order of their first run, and the order
 * note says so.  Within a commit, runs are in start order.
 *
 * One point per run: the run's per-trial observation of the metric, the
 * same value `devnet compare` tests (compare_run_observe).  Runs without
 * data for a metric are not points of its series.
 *
 * Not here: printing (cmd-history.c, report-history.c), the change point
 * method (metrics/stats/changepoint.c), git (git.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "sys/git.h"
#include "verdict/history.h"
#include "store.h"
#include "units.h"
#include "xalloc.h"

struct loading {
	struct history	*h;
	int64_t		*warmup;
};

static int
run_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	struct loading		*l = arg;
	struct history_run	*r;
	size_t			 n = l->h->nruns;

	(void)ncols;
	(void)names;
	(void)types;
	l->h->runs = dn_xreallocarray(l->h->runs, n + 1,
	    sizeof(*l->h->runs));
	l->warmup = dn_xreallocarray(l->warmup, n + 1, sizeof(*l->warmup));
	r = &l->h->runs[n];
	memset(r, 0, sizeof(*r));
	l->warmup[n] = 0;
	dn_parse_i64(v[0], &r->id);
	r->variant = dn_xstrdup(v[1] != NULL ? v[1] : "");
	r->commit = v[2] != NULL && v[2][0] != '\0' ? dn_xstrdup(v[2]) :
	    NULL;
	r->describe = v[3] != NULL ? dn_xstrdup(v[3]) : NULL;
	if (v[4] != NULL)
		dn_parse_i64(v[4], &r->start_ms);
	if (v[5] != NULL)
		dn_parse_i64(v[5], &l->warmup[n]);
	/* label, binary sha256, machine */
	if (r->commit != NULL)
		r->build = dn_xasprintf("%.10s", r->commit);
	else if (v[6] != NULL && v[6][0] != '\0')
		r->build = dn_xasprintf("label %s", v[6]);
	else if (r->describe != NULL)
		r->build = dn_xstrdup(r->describe);
	else if (v[7] != NULL && v[7][0] != '\0')
		r->build = dn_xasprintf("binary %.12s", v[7]);
	else
		r->build = dn_xasprintf("run %lld", (long long)r->id);
	r->machine = v[8] != NULL ? dn_xstrdup(v[8]) : NULL;
	l->h->nruns++;
	return (0);
}

static int
count_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	(void)ncols;
	(void)names;
	(void)types;
	*(int *)arg = v[0] != NULL ? atoi(v[0]) : 0;
	return (0);
}

struct names {
	char	*list;
	int	 n;
	char	*only;
};

static int
name_row(void *arg, int ncols, const char *const *names,
    const char *const *v, const int *types)
{
	struct names	*nm = arg;
	char		*old = nm->list;

	(void)ncols;
	(void)names;
	(void)types;
	nm->list = dn_xasprintf("%s%s'%s' (%s runs)", old ? old : "",
	    old ? ", " : "", v[0], v[1]);
	free(old);
	if (nm->n++ == 0)
		nm->only = dn_xstrdup(v[0]);
	return (0);
}

/* Which scenario: the one asked for, or the only one stored. */
static int
pick_scenario(struct dn_store *s, const char *want, char **name,
    char **cause)
{
	struct names	 nm = { NULL, 0, NULL };
	int		 rc = -1, have = 0;
	const char	*p[1];

	if (dn_store_query(s, "SELECT scenario, count(*) FROM runs WHERE "
	    "status = 'ok' GROUP BY scenario ORDER BY scenario", NULL, 0,
	    name_row, &nm, cause) != 0)
		return (-1);
	if (want != NULL) {
		p[0] = want;
		if (dn_store_query(s, "SELECT count(*) FROM runs WHERE "
		    "scenario = ?1 AND status = 'ok'", p, 1, count_row, &have,
		    cause) != 0)
			goto out;
		if (have == 0) {
			*cause = dn_xasprintf("no finished runs of scenario "
			    "'%s' in '%s' (stored: %s)", want,
			    dn_store_path(s), nm.list ? nm.list : "none");
			goto out;
		}
		*name = dn_xstrdup(want);
	} else if (nm.n == 1) {
		*name = nm.only;
		nm.only = NULL;
	} else {
		*cause = nm.n == 0 ? dn_xasprintf("no finished runs in '%s' "
		    "(store some with 'devnet run')", dn_store_path(s)) :
		    dn_xasprintf("'%s' holds runs of %d scenarios; choose one "
		    "with --scenario NAME: %s", dn_store_path(s), nm.n,
		    nm.list);
		goto out;
	}
	rc = 0;
out:
	free(nm.list);
	free(nm.only);
	return (rc);
}

/* Whether run R is of machine class M (a fingerprint prefix, or
 * "unknown" for runs without one). */
static int
machine_is(const struct history_run *r, const char *m)
{
	if (strcmp(m, "unknown") == 0)
		return (r->machine == NULL);
	return (r->machine != NULL && strncmp(r->machine, m, strlen(m)) == 0);
}

/*
 * Keep H's runs of machine class WANT; without WANT, refuse runs of
 * several classes, listing them: numbers of different machines in one
 * series make change points of the machines, not of the builds.
 */
static int
pick_machine(struct dn_store *s, struct history *h, int64_t *warmup,
    const char *want, char **cause)
{
	char	*list = NULL, *t;
	size_t	 i, j, n = 0, nclass = 0;

	for (i = 0; i < h->nruns; i++) {
		const char *m = h->runs[i].machine;

		for (j = 0; j < i; j++)
			if ((m == NULL) == (h->runs[j].machine == NULL) &&
			    (m == NULL || strcmp(m, h->runs[j].machine) == 0))
				break;
		if (j < i)
			continue;
		nclass++;
		t = dn_xasprintf("%s%s%s", list ? list : "", list ? ", " : "",
		    m ? m : "unknown");
		free(list);
		list = t;
	}
	if (want == NULL && nclass > 1) {
		*cause = dn_xasprintf("the runs of scenario '%s' in '%s' ran on "
		    "%zu machine classes (%s): a series across machines "
		    "finds the machines, not the builds; choose one with "
		    "--machine FP (devnet runs shows each run's)", h->scenario,
		    dn_store_path(s), nclass, list);
		free(list);
		return (-1);
	}
	for (i = 0; want != NULL && i < h->nruns; i++) {
		if (machine_is(&h->runs[i], want)) {
			h->runs[n] = h->runs[i];
			warmup[n++] = warmup[i];
			continue;
		}
		free(h->runs[i].variant);
		free(h->runs[i].commit);
		free(h->runs[i].describe);
		free(h->runs[i].build);
		free(h->runs[i].machine);
	}
	if (want != NULL)
		h->nruns = n;
	if (h->nruns == 0) {
		*cause = dn_xasprintf("no finished runs of scenario '%s' ran "
		    "on machine %s (classes there: %s)", h->scenario, want,
		    list);
		free(list);
		return (-1);
	}
	free(list);
	if (h->runs[0].machine != NULL)
		h->machine = dn_xstrdup(h->runs[0].machine);
	return (0);
}

struct keyed {
	size_t	key;	/* group place in time */
	size_t	idx;	/* start order */
};

static int
keyed_cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	if (x->key != y->key)
		return (x->key < y->key ? -1 : 1);
	return (x->idx < y->idx ? -1 : x->idx > y->idx);
}

struct group {
	char	*commit;	/* its commit, or its build */
	size_t	 first;		/* index of its first run (start order) */
	long	 pos;		/* git position */
	size_t	 key;
	int	 has_commit;
};

static int
group_pos_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (x->pos != y->pos)
		return (x->pos < y->pos ? -1 : 1);
	return (x->first < y->first ? -1 : x->first > y->first);
}

static int
size_cmp(const void *a, const void *b)
{
	size_t	x = *(const size_t *)a, y = *(const size_t *)b;

	return (x < y ? -1 : x > y);
}

/* H's builds, one group each, in order of their first run; *NCOMMIT of
 * them know their commit. */
static struct group *
build_groups(struct history *h, size_t *ng, size_t *ncommit)
{
	struct group	*g = NULL;
	const char	*key;
	size_t		 i, j;

	*ng = *ncommit = 0;
	for (i = 0; i < h->nruns; i++) {
		key = h->runs[i].commit ? h->runs[i].commit : h->runs[i].build;
		for (j = 0; j < *ng; j++)
			if (strcmp(g[j].commit, key) == 0)
				break;
		if (j < *ng)
			continue;
		g = dn_xreallocarray(g, *ng + 1, sizeof(*g));
		g[*ng].commit = (char *)key;
		g[*ng].first = i;
		g[*ng].pos = -1;
		g[*ng].key = i;
		g[*ng].has_commit = h->runs[i].commit != NULL;
		*ncommit += g[*ng].has_commit;
		(*ng)++;
	}
	return (g);
}

/*
 * The groups that know their commit in git's order, each taking, in that
 * order, the places in time those groups had; *WHY says why not when git
 * cannot order them.  Returns whether it could.
 */
static int
git_places(struct group *g, size_t ng, size_t nc, const char *repo,
    char **why)
{
	struct group	*cg;
	char		**ids;
	long		*pos;
	size_t		*keys, j, k;
	int		 ok = 0;

	cg = dn_xcalloc(nc, sizeof(*cg));
	ids = dn_xcalloc(nc, sizeof(*ids));
	pos = dn_xcalloc(nc, sizeof(*pos));
	keys = dn_xcalloc(nc, sizeof(*keys));
	for (j = 0, k = 0; j < ng; j++)
		if (g[j].has_commit) {
			ids[k] = g[j].commit;
			keys[k++] = g[j].first;
		}
	if (git_order(repo, ids, nc, pos, why) == 0) {
		ok = 1;
		for (k = 0; k < nc && ok; k++)
			if (pos[k] < 0)
				ok = 0;
		if (!ok)
			*why = dn_xasprintf("'%s' does not have every commit",
			    repo);
	}
	if (ok) {
		for (j = 0, k = 0; j < ng; j++)
			if (g[j].has_commit) {
				cg[k] = g[j];
				cg[k].pos = pos[k];
				k++;
			}
		/* the commits in git order take the commits' places in
		 * time, in time order */
		qsort(cg, nc, sizeof(*cg), group_pos_cmp);
		qsort(keys, nc, sizeof(*keys), size_cmp);
		for (k = 0; k < nc; k++)
			for (j = 0; j < ng; j++)
				if (g[j].has_commit && g[j].first ==
				    cg[k].first)
					g[j].key = keys[k];
	}
	free(cg);
	free(ids);
	free(pos);
	free(keys);
	return (ok);
}

/* Put H->runs (and WARMUP alongside) in build order (see the top). */
static void
order_runs(struct history *h, int64_t *warmup, const char *repo)
{
	struct group	*g;
	struct keyed	*k;
	struct history_run *nr;
	int64_t		*nw;
	char		*why = NULL;
	const char	*key;
	size_t		 ng, nc, i, j;

	g = build_groups(h, &ng, &nc);
	h->ncommits = nc;
	h->nbuilds = ng;
	if (nc == 0)
		h->order = dn_xstrdup("time order (no run knows its commit), "
		    "runs grouped by build: label, else git describe, else "
		    "binary sha256");
	else if (git_places(g, ng, nc, repo, &why))
		h->order = dn_xasprintf("commit order (git rev-list "
		    "--topo-order in %s)", repo);
	else
		h->order = dn_xasprintf("commits in the order of their first "
		    "run: git could not order them (%s)", why ? why : "?");
	free(why);
	k = dn_xcalloc(h->nruns, sizeof(*k));
	for (i = 0; i < h->nruns; i++) {
		k[i].idx = i;
		k[i].key = i;
		key = h->runs[i].commit ? h->runs[i].commit :
		    h->runs[i].build;
		for (j = 0; j < ng; j++)
			if (strcmp(g[j].commit, key) == 0)
				k[i].key = g[j].key;
	}
	qsort(k, h->nruns, sizeof(*k), keyed_cmp);
	nr = dn_xcalloc(h->nruns, sizeof(*nr));
	nw = dn_xcalloc(h->nruns, sizeof(*nw));
	for (i = 0; i < h->nruns; i++) {
		nr[i] = h->runs[k[i].idx];
		nw[i] = warmup[k[i].idx];
	}
	memcpy(h->runs, nr, h->nruns * sizeof(*nr));
	memcpy(warmup, nw, h->nruns * sizeof(*nw));
	free(nr);
	free(nw);
	free(k);
	free(g);
}

static const char *
direction(const char *better, double before, double after)
{
	if (strcmp(better, "lower") == 0)
		return (after < before ? "better" : "worse");
	if (strcmp(better, "higher") == 0)
		return (after > before ? "better" : "worse");
	return ("changed");
}

/* USE[k] for each of the NM metric NAMES that O->metrics asks for (all
 * if none); an unknown name is an error. */
static int
pick_metrics(const struct history_opts *o, const char *const *names,
    size_t nm, int *use, char **cause)
{
	size_t	i, k;

	if (o->metrics == NULL || o->nmetrics == 0) {
		for (k = 0; k < nm; k++)
			use[k] = 1;
	}
	for (i = 0; o->metrics != NULL && i < o->nmetrics; i++) {
		for (k = 0; k < nm; k++)
			if (strcmp(names[k], o->metrics[i]) == 0)
				break;
		if (k == nm) {
			*cause = dn_xasprintf("unknown metric '%s' (see "
			    "'devnet compare --help' for the list)",
			    o->metrics[i]);
			return (-1);
		}
		use[k] = 1;
	}
	return (0);
}

/* The change points of each series, each with its direction. */
static int
find_changes(struct history *h, const struct history_opts *o, char **cause)
{
	struct dn_cp_opts	cpo;
	size_t			i, j;

	dn_cp_opts_init(&cpo);
	cpo.search_kappa = o->search_kappa;
	for (j = 0; j < h->nseries; j++) {
		struct history_series	*sr = &h->series[j];
		struct dn_cp		*cp = NULL;
		size_t			 ncp = 0;

		if (sr->n > DN_CP_MAX_N) {
			*cause = dn_xasprintf("%zu runs is more than the %d "
			    "change point analysis takes; narrow it with "
			    "--variant", sr->n, DN_CP_MAX_N);
			return (-1);
		}
		if (dn_changepoints(sr->v, sr->n, &cpo, &cp, &ncp,
		    cause) != 0)
			return (-1);
		sr->changes = dn_xcalloc(ncp ? ncp : 1,
		    sizeof(*sr->changes));
		for (i = 0; i < ncp; i++) {
			sr->changes[i].cp = cp[i];
			sr->changes[i].direction = direction(sr->better,
			    cp[i].mean_before, cp[i].mean_after);
		}
		sr->nchanges = ncp;
		free(cp);
	}
	return (0);
}

int
history_load(struct dn_store *s, const struct history_opts *o,
    struct history **hp, char **cause)
{
	const char *const	*names = compare_metric_names();
	struct history		*h;
	struct loading		 l = { NULL, NULL };
	const char		*p[2], *unit, *better, *desc;
	char			*sql = NULL;
	double			*obs = NULL;
	int			 use[64] = { 0 }, rc = -1, have_commit = 0;
	size_t			 nm = 0, i, k, j, nuse = 0;

	*hp = NULL;
	while (names[nm] != NULL)
		nm++;
	if (nm > sizeof(use) / sizeof(use[0])) {
		*cause = dn_xasprintf("%zu metrics: more than history knows",
		    nm);
		return (-1);
	}
	if (pick_metrics(o, names, nm, use, cause) != 0)
		return (-1);
	h = dn_xcalloc(1, sizeof(*h));
	l.h = h;
	if (pick_scenario(s, o->scenario, &h->scenario, cause) != 0)
		goto out;
	/* A database from before schema step 2 has no runs.git_commit (a
	 * read-only open does not migrate). */
	if (dn_store_query(s, "SELECT count(*) FROM pragma_table_info('runs')"
	    " WHERE name = 'git_commit'", NULL, 0, count_row, &have_commit,
	    cause) != 0)
		goto out;
	sql = dn_xasprintf("SELECT id, variant, %s, git_describe, start_ms, "
	    "warmup_ms, label, binary_sha256, machine FROM runs WHERE "
	    "scenario = ?1 AND status = 'ok'%s ORDER BY start_ms, id",
	    have_commit ? "git_commit" : "NULL",
	    o->variant != NULL ? " AND variant = ?2" : "");
	p[0] = h->scenario;
	p[1] = o->variant;
	if (dn_store_query(s, sql, p, o->variant != NULL ? 2 : 1, run_row,
	    &l, cause) != 0)
		goto out;
	if (h->nruns == 0) {
		*cause = dn_xasprintf("no finished runs of scenario '%s' "
		    "variant '%s'", h->scenario, o->variant);
		goto out;
	}
	if (pick_machine(s, h, l.warmup, o->machine, cause) != 0)
		goto out;
	order_runs(h, l.warmup, o->repo != NULL ? o->repo : ".");

	for (k = 0; k < nm; k++)
		nuse += use[k] != 0;
	h->series = dn_xcalloc(nuse, sizeof(*h->series));
	for (k = 0; k < nm; k++) {
		if (!use[k])
			continue;
		compare_metric_info(k, &unit, &better, &desc);
		h->series[h->nseries].name = names[k];
		h->series[h->nseries].unit = unit;
		h->series[h->nseries].better = better;
		h->series[h->nseries].desc = desc;
		h->series[h->nseries].run = dn_xcalloc(h->nruns,
		    sizeof(size_t));
		h->series[h->nseries].v = dn_xcalloc(h->nruns,
		    sizeof(double));
		h->nseries++;
	}
	obs = dn_xcalloc(nm, sizeof(*obs));
	for (i = 0; i < h->nruns; i++) {
		if (compare_run_observe(s, h->runs[i].id, l.warmup[i], use,
		    obs, cause) != 0)
			goto out;
		for (k = 0, j = 0; k < nm; k++) {
			struct history_series *sr;

			if (!use[k])
				continue;
			sr = &h->series[j++];
			if (!isfinite(obs[k]))
				continue;
			sr->run[sr->n] = i;
			sr->v[sr->n++] = obs[k];
		}
	}
	if (find_changes(h, o, cause) != 0)
		goto out;
	*hp = h;
	h = NULL;
	rc = 0;
out:
	free(obs);
	free(sql);
	free(l.warmup);
	history_free(h);
	return (rc);
}

void
history_free(struct history *h)
{
	size_t	i;

	if (h == NULL)
		return;
	for (i = 0; i < h->nruns; i++) {
		free(h->runs[i].variant);
		free(h->runs[i].commit);
		free(h->runs[i].describe);
		free(h->runs[i].build);
		free(h->runs[i].machine);
	}
	free(h->machine);
	free(h->runs);
	for (i = 0; i < h->nseries; i++) {
		free(h->series[i].run);
		free(h->series[i].v);
		free(h->series[i].changes);
	}
	free(h->series);
	free(h->scenario);
	free(h->order);
	free(h);
}

void
history_range(const struct history *h, const struct history_series *sr,
    size_t i, char *buf, size_t cap)
{
	const struct history_run *a, *b;

	if (i == 0 || i >= sr->n) {
		snprintf(buf, cap, "?");
		return;
	}
	a = &h->runs[sr->run[i - 1]];
	b = &h->runs[sr->run[i]];
	if (a->commit != NULL && b->commit != NULL) {
		if (strcmp(a->commit, b->commit) == 0)
			snprintf(buf, cap, "within %.10s", a->commit);
		else
			snprintf(buf, cap, "%.10s..%.10s", a->commit,
			    b->commit);
	} else if (strcmp(a->build, b->build) == 0)
		snprintf(buf, cap, "within %s", a->build);
	else
		snprintf(buf, cap, "%s..%s", a->build, b->build);
}
