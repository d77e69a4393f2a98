/*
 * compare-seq.c: the sequential analysis of an A/B group (compare.h,
 * docs/statistics.md section 8).  When the design is known (devnet ab
 * --until decided passes it; a stored group carries it as the runs' fact
 * `sequential`), every metric is tested again at each look on the first
 * trials of each side that look had: the difference (Welch's t, or the
 * zero-spread rule), equivalence within the threshold (two one-sided
 * tests) and not-worse by the margin (one-sided), each turned into a
 * repeated p-value by the Lan-DeMets O'Brien-Fleming design
 * (sequential.c), whose running minimum over the looks keeps its level
 * however often the data were looked at; then Holm across the metrics
 * for each kind of claim, as the fixed design does.  Also the futility
 * estimate: the trials per side a decision would take at the current
 * estimate and spread.
 *
 * Not here: the fixed-design tests (compare.c), the loop that runs
 * blocks and stops (cmd/cmd-ab.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "verdict/sequential.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"
#include "json-write.h"

/* A group sequential design needs a little more than the fixed one of the
 * same power (about 3% for O'Brien-Fleming over 5-20 looks; 10% here, as
 * the futility estimate rests on few trials). */
#define SEQ_INFLATION	1.10

char *
compare_seq_format(const struct compare_seq *q, double require_pct)
{
	char	*s, *t;
	size_t	 i;

	s = dn_xasprintf("design=obf alpha=%g max_per_side=%zu require=%g "
	    "stop=%s limit=%s looks=", COMPARE_ALPHA, q->max_per_side,
	    require_pct, q->stop[0] ? q->stop : "running", q->budget_bound ?
	    "budget" : "max-trials");
	for (i = 0; i < q->nlooks; i++) {
		t = dn_xasprintf("%s%s%zu", s, i ? "," : "", q->looks[i]);
		free(s);
		s = t;
	}
	return (s);
}

static int
compare_seq_parse(const char *s, struct compare_seq *q, double *require_pct)
{
	const char	*l;
	char		*end;
	unsigned long	 v;

	memset(q, 0, sizeof(*q));
	if (sscanf(s, "design=obf alpha=%*g max_per_side=%zu require=%lg "
	    "stop=%31s", &q->max_per_side, require_pct, q->stop) != 3 ||
	    (l = strstr(s, " looks=")) == NULL || q->max_per_side == 0)
		return (-1);
	if (strcmp(q->stop, "running") == 0)
		q->stop[0] = '\0';
	/* limit= came later: a fact without it was bound by max-trials */
	q->budget_bound = strstr(s, " limit=budget ") != NULL;
	for (l += 7; *l != '\0' && q->nlooks < COMPARE_SEQ_LOOKS; l = end) {
		v = strtoul(l, &end, 10);
		if (end == l || v == 0 || (q->nlooks > 0 &&
		    v <= q->looks[q->nlooks - 1]))
			return (-1);
		q->looks[q->nlooks++] = v;
		if (*end == ',')
			end++;
	}
	return (q->nlooks > 0 ? 0 : -1);
}

/* The design stored with the first run of side A, into *Q (0: none). */
static int
stored_design(struct dn_store *s, const struct compare_result *r,
    struct compare_seq *q, double *require_pct, int *found, char **cause)
{
	char		*val = NULL;

	*found = 0;
	if (compare_side_fact(s, &r->a, "sequential", &val, cause) != 0)
		return (-1);
	if (val == NULL)
		return (0);
	if (compare_seq_parse(val, q, require_pct) != 0) {
		*cause = dn_xasprintf("run %lld: unreadable sequential "
		    "design '%s'", (long long)r->a.runs[0].id, val);
		free(val);
		return (-1);
	}
	free(val);
	*found = 1;
	return (0);
}

static int
all_equal(const double *v, size_t n)
{
	size_t	i;

	for (i = 1; i < n; i++)
		if (v[i] != v[0])
			return (0);
	return (1);
}

/* The nominal two-sided p of a difference on NA, NB trials. */
static double
diff_p(const double *a, size_t na, const double *b, size_t nb)
{
	struct dn_welch	w;

	if (all_equal(a, na) && all_equal(b, nb))
		return (a[0] == b[0] ? 1.0 : dn_stats_mwu_min_p(na, nb));
	dn_stats_welch(a, na, b, nb, &w);
	return (w.p);
}

/* The running minima of one metric's repeated p over the looks: the
 * difference, equivalence (each one-sided half apart), not-worse. */
struct seq_ps {
	double	diff, eq_lo, eq_hi, ni;
	double	last;	/* the last look's nominal p of the difference */
	/* paired by slot: the last look's mean and SD of the differences,
	 * the threshold's band and the margin's, in their unit */
	double	mean, sd, lo, hi, mlo, mhi;
};

/* One claim's repeated p at look K (of T) for its nominal P, SIDES 2
 * (the difference) or 1 (a one-sided claim), kept when below *MIN.  The
 * repeated p is never below the nominal one. */
static void
keep_repeated(const double *t, size_t k, double p, int sides, double *min)
{
	double	rp;

	if (isnan(p) || p >= *min)
		return;
	rp = seq_repeated_p(t, k, seq_z_of_p(p, sides), sides);
	if (rp < *min)
		*min = rp;
}

static void
metric_looks(const struct compare_seq *q, const struct obs *oa,
    const struct obs *ob, const char *better, double th, double margin,
    struct seq_ps *ps)
{
	double	t[COMPARE_SEQ_LOOKS], p;
	size_t	j, k = 0, na, nb, prev = 0;

	ps->diff = ps->eq_lo = ps->eq_hi = 1;
	ps->last = NAN;
	ps->ni = margin > 0 && strcmp(better, "neutral") != 0 ? 1 : NAN;
	for (j = 0; j < q->nlooks; j++) {
		na = q->looks[j] < oa->ntrial ? q->looks[j] : oa->ntrial;
		nb = q->looks[j] < ob->ntrial ? q->looks[j] : ob->ntrial;
		if (na < 2 || nb < 2 || (na < nb ? na : nb) <= prev)
			continue;
		prev = na < nb ? na : nb;
		t[k] = (double)prev / (double)q->max_per_side;
		if (t[k] > 1)
			t[k] = 1;
		if (k > 0 && t[k] <= t[k - 1])
			continue;
		k++;
		p = diff_p(oa->trial_v, na, ob->trial_v, nb);
		ps->last = p;
		keep_repeated(t, k, p, 2, &ps->diff);
		keep_repeated(t, k, seq_shift_p(oa->trial_v, na, ob->trial_v, nb,
		    1 - th, -1), 1, &ps->eq_lo);
		keep_repeated(t, k, seq_shift_p(oa->trial_v, na, ob->trial_v, nb,
		    1 + th, 1), 1, &ps->eq_hi);
		if (isnan(ps->ni))
			continue;
		if (strcmp(better, "lower") == 0)
			keep_repeated(t, k, seq_shift_p(oa->trial_v, na,
			    ob->trial_v, nb, 1 + margin, 1), 1, &ps->ni);
		else
			keep_repeated(t, k, seq_shift_p(oa->trial_v, na,
			    ob->trial_v, nb, 1 - margin, -1), 1, &ps->ni);
	}
	if (k == 0)
		ps->diff = ps->eq_lo = ps->eq_hi = ps->ni = NAN;
}

/* The slots of R whose runs were all among the first PER_SIDE of each
 * side. */
static size_t
slots_at(const struct compare_result *r, size_t per_side)
{
	size_t	p, n = 0;

	for (p = 0; p < r->npairs; p++)
		n += r->pair_a[p] < per_side && r->pair_b[p] < per_side;
	return (n);
}

/*
 * One metric's looks when the group ran in slots (compare-paired.c): at
 * each look the paired t on the per-slot differences of the slots that
 * look had, its p turned into z and a repeated p as metric_looks does
 * with Welch's, the information the slots over the design's maximum;
 * equivalence and not-worse by one-sided paired t-tests against the
 * band's edges in the differences' unit.
 */
static void
paired_looks(const struct compare_result *r, const struct compare_seq *q,
    const struct obs *oa, const struct obs *ob, const char *better,
    double th, double margin, struct seq_ps *ps)
{
	struct dn_paired	 pt;
	double			 t[COMPARE_SEQ_LOOKS], *d, *dl, scale;
	size_t			*last, i, j, m, n, k = 0, prev = 0;
	int			 lg, lower = strcmp(better, "lower") == 0;

	d = dn_xcalloc(r->npairs + 1, sizeof(*d));
	dl = dn_xcalloc(r->npairs + 1, sizeof(*dl));
	last = dn_xcalloc(r->npairs + 1, sizeof(*last));
	n = compare_paired_diffs(r, oa, ob, d, last, &lg, &scale);
	compare_paired_band(lg, scale, 100 * th, &ps->lo, &ps->hi);
	compare_paired_band(lg, scale, 100 * margin, &ps->mlo, &ps->mhi);
	ps->diff = ps->eq_lo = ps->eq_hi = 1;
	ps->last = ps->mean = ps->sd = NAN;
	ps->ni = margin > 0 && strcmp(better, "neutral") != 0 ? 1 : NAN;
	for (j = 0; j < q->nlooks; j++) {
		for (i = m = 0; i < n; i++)
			if (last[i] <= q->looks[j])
				dl[m++] = d[i];
		if (m < 2 || m <= prev)
			continue;
		prev = m;
		t[k] = fmin(1, (double)m / (double)q->max_per_side);
		if (k > 0 && t[k] <= t[k - 1])
			continue;
		k++;
		dn_stats_paired_t(dl, m, 0.95, &pt);
		ps->last = pt.p;
		ps->mean = pt.mean;
		ps->sd = pt.sd;
		keep_repeated(t, k, pt.p, 2, &ps->diff);
		if (!(scale > 0))
			continue;	/* A is 0: no band */
		keep_repeated(t, k, dn_stats_paired_equivalence_p(&pt, ps->lo,
		    INFINITY), 1, &ps->eq_lo);
		keep_repeated(t, k, dn_stats_paired_equivalence_p(&pt, -INFINITY,
		    ps->hi), 1, &ps->eq_hi);
		if (!isnan(ps->ni))
			keep_repeated(t, k, lower ? dn_stats_paired_equivalence_p(
			    &pt, -INFINITY, ps->mhi) :
			    dn_stats_paired_equivalence_p(&pt, ps->mlo,
			    INFINITY), 1, &ps->ni);
	}
	if (k == 0)
		ps->diff = ps->eq_lo = ps->eq_hi = ps->ni = NAN;
	free(d);
	free(dl);
	free(last);
}

static double
sd_of(const double *v, size_t n)
{
	double	m = dn_stats_mean(v, n), q = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		q += (v[i] - m) * (v[i] - m);
	return (n > 1 ? sqrt(q / (double)(n - 1)) : NAN);
}

/*
 * The trials per side the design would need to decide ROW at this
 * estimate and spread (normal approximation, power COMPARE_POWER, level
 * ALPHA, times SEQ_INFLATION): a difference when it is beyond the
 * threshold, else equivalence (or not-worse by MARGIN, the nearer).  0
 * when it cannot be said (no spread), -1 beyond reach.
 */
/* Trials per side for power COMPARE_POWER at distance DIST (SD S of
 * each of K samples' values: 2 independent sides, 1 the slots'
 * differences) with critical value Z, times SEQ_INFLATION; -1 beyond
 * reach. */
static long
n_for(double dist, double s, double z, double k)
{
	double	n;

	if (!(dist > 0))
		return (-1);
	n = SEQ_INFLATION * k * pow(z + dn_stats_norm_quantile(COMPARE_POWER),
	    2) * s * s / (dist * dist);
	return (n > COMPARE_MAX_TRIALS ? -1 : (long)ceil(n < 2 ? 2 : n));
}

/*
 * The trials per side the design would need to decide ROW at this
 * estimate and spread (normal approximation, power COMPARE_POWER, level
 * ALPHA): the soonest of a difference (when beyond the threshold),
 * equivalence (when within it) and not-worse by MARGIN (when the
 * estimate is inside it).  0 when it cannot be said (no spread), -1
 * beyond reach.
 */
static long
needed(const struct compare_row *row, const struct obs *oa,
    const struct obs *ob, double alpha, double th, double margin)
{
	double	ma = fabs(row->a.mean), d = row->b.mean - row->a.mean, s;
	long	best = -1, n;
	int	worse_up = strcmp(row->better, "higher") != 0;

	s = sqrt((pow(sd_of(oa->trial_v, oa->ntrial), 2) +
	    pow(sd_of(ob->trial_v, ob->ntrial), 2)) / 2);
	if (isnan(s) || s == 0 || compare_row_a_zero(row) || isnan(d))
		return (0);
	if (fabs(d) >= th * ma)
		best = n_for(fabs(d), s, seq_z_of_p(alpha, 2), 2);
	else
		best = n_for(th * ma - fabs(d), s, seq_z_of_p(alpha, 1), 2);
	if (margin > 0 && strcmp(row->better, "neutral") != 0) {
		n = n_for(margin * ma - (worse_up ? d : -d), s,
		    seq_z_of_p(alpha, 1), 2);
		if (n > 0 && (best < 0 || n < best))
			best = n;
	}
	return (best);
}

/* NEEDED of a group paired by slot: the slots (trials per side) at the
 * last look's mean and SD of the differences PS holds, in their unit. */
static long
paired_needed(const struct compare_row *row, const struct seq_ps *ps,
    double alpha, double margin)
{
	double	m = ps->mean;
	long	best, n;

	if (!(ps->sd > 0) || compare_row_a_zero(row) || isnan(m))
		return (0);
	if (m <= ps->lo || m >= ps->hi)
		best = n_for(fabs(m), ps->sd, seq_z_of_p(alpha, 2), 1);
	else
		best = n_for(fmin(ps->hi - m, m - ps->lo), ps->sd,
		    seq_z_of_p(alpha, 1), 1);
	if (margin > 0 && strcmp(row->better, "neutral") != 0) {
		n = n_for(strcmp(row->better, "higher") != 0 ? ps->mhi - m :
		    m - ps->mlo, ps->sd, seq_z_of_p(alpha, 1), 1);
		if (n > 0 && (best < 0 || n < best))
			best = n;
	}
	return (best);
}

/* Holm over the rows of one kind of claim: V[i] into ADJ[i]. */
static void
holm(const double *v, size_t n, double *adj)
{
	dn_stats_holm(v, n, adj);
}

/* Better or worse: the rule of compare_row_decide (compare-rule.c) on
 * the corrected p. */
static const char *
difference(struct compare_row *row, double threshold_pct)
{
	compare_row_decide(row, threshold_pct);
	return (row->verdict);
}

/* Set the verdict of row I; 1 when it is undecided. */
static int
decide(struct compare_result *r, size_t i, double margin)
{
	struct compare_row	*row = &r->rows[i];
	int			 eq, ni;

	row->verdict = difference(row, r->threshold_pct);
	eq = !isnan(row->p_eq) && row->p_eq < COMPARE_ALPHA;
	ni = margin > 0 && !isnan(row->p_ni) && row->p_ni < COMPARE_ALPHA;
	if (row->significant)
		return (0);	/* better, worse, or a neutral one changed */
	if (eq)
		row->verdict = "equivalent";
	else if (ni)
		row->verdict = "not-worse";
	else
		row->verdict = "undecided";
	return (!eq && !ni);
}

int
compare_seq_apply(struct dn_store *s, struct compare_result *r,
    const struct compare_opts *opts, const size_t *rk, const struct obs *oa,
    const struct obs *ob, char **cause)
{
	struct compare_seq	 q;
	struct seq_ps		*ps;
	double			*v, *adj, margin = 0, th, alpha;
	size_t			 i, n = r->nrows, nundecided = 0, nfutile = 0;
	size_t			 have;
	int			 found = 1, k;

	if (opts != NULL && opts->seq != NULL)
		q = *opts->seq;
	else if (stored_design(s, r, &q, &margin, &found, cause) != 0)
		return (-1);
	if (!found && (opts == NULL || (opts->require_pct <= 0 &&
	    !opts->not_shown)))
		return (0);
	if (!found) {
		/* A fixed design asked for proof: one look at all trials. */
		memset(&q, 0, sizeof(q));
		q.nlooks = 1;
		q.looks[0] = r->a.nruns > r->b.nruns ? r->a.nruns :
		    r->b.nruns;
		q.max_per_side = q.looks[0] > 0 ? q.looks[0] : 1;
		snprintf(q.stop, sizeof(q.stop), "fixed");
	}
	if (opts != NULL && opts->require_pct > 0)
		margin = opts->require_pct;
	else if (margin <= 0 && opts != NULL && opts->not_shown)
		margin = r->threshold_pct;
	if (r->unit != COMPARE_UNIT_TRIAL) {
		*cause = dn_xstrdup("a sequential group is analysed with the "
		    "trial unit (drop --unit node)");
		return (-1);
	}
	r->seq = dn_xcalloc(1, sizeof(*r->seq));
	*r->seq = q;
	r->seq_stored = opts == NULL || opts->seq == NULL;
	r->require_pct = margin;
	th = r->threshold_pct / 100;
	ps = dn_xcalloc(n, sizeof(*ps));
	v = dn_xcalloc(n, sizeof(*v));
	adj = dn_xcalloc(n, sizeof(*adj));
	for (i = 0; i < n; i++)
		if (r->npairs > 0)
			paired_looks(r, &q, &oa[rk[i]], &ob[rk[i]],
			    r->rows[i].better, th, margin / 100, &ps[i]);
		else
			metric_looks(&q, &oa[rk[i]], &ob[rk[i]],
			    r->rows[i].better, th, margin / 100, &ps[i]);
	/* Holm over each family apart: the primary rows [0, nprimary),
	 * then the secondary ones among themselves. */
	for (k = 0; k < 3; k++) {
		for (i = 0; i < n; i++)
			v[i] = k == 0 ? ps[i].diff : k == 1 ?
			    fmax(ps[i].eq_lo, ps[i].eq_hi) : ps[i].ni;
		holm(v, r->nprimary, adj);
		holm(v + r->nprimary, n - r->nprimary, adj + r->nprimary);
		for (i = 0; i < n; i++) {
			if (k == 0)
				r->rows[i].p = adj[i];
			else if (k == 1)
				r->rows[i].p_eq = adj[i];
			else
				r->rows[i].p_ni = adj[i];
		}
	}
	/* The stopping rule looks at the primary family only: secondary
	 * metrics are exploratory, and 31 of them would never all be
	 * decided. */
	r->all_decided = r->nprimary > 0;
	for (i = 0; i < n; i++) {
		struct compare_row *row = &r->rows[i];
		size_t		    fam = i < r->nprimary ? r->nprimary :
				    n - r->nprimary;

		alpha = COMPARE_ALPHA / (double)fam;
		row->test = r->npairs > 0 ? "paired-t-seq" : "welch-seq";
		row->p_raw = ps[i].last;
		if (!decide(r, i, margin / 100))
			continue;
		row->seq_needed = r->npairs > 0 ? paired_needed(row, &ps[i],
		    alpha, margin / 100) : needed(row, &oa[rk[i]], &ob[rk[i]],
		    alpha, th, margin / 100);
		if (i >= r->nprimary)
			continue;
		r->all_decided = 0;
		/* Undecided now: at least one more block, whatever the
		 * approximation says. */
		have = oa[rk[i]].ntrial < ob[rk[i]].ntrial ? oa[rk[i]].ntrial :
		    ob[rk[i]].ntrial;
		if (row->seq_needed > 0 && (size_t)row->seq_needed < have + 2)
			row->seq_needed = (long)have + 2;
		/* A is 0: no trial count decides it */
		row->futile = row->seq_needed < 0 || row->seq_needed >
		    (long)q.max_per_side || compare_row_a_zero(row);
		nundecided++;
		nfutile += row->futile;
	}
	r->all_futile = nundecided > 0 && nfutile == nundecided;
	free(ps);
	free(v);
	free(adj);
	return (0);
}

static const char *
stop_words(const struct compare_seq *q)
{
	const char	*stop = q->stop;

	if (strcmp(stop, "decided") == 0)
		return ("every primary metric decided");
	if (strcmp(stop, "futile") == 0)
		return (q->budget_bound ? "futile: deciding is out of reach "
		    "in the --budget left" : "futile: deciding is out of "
		    "reach within --max-trials");
	if (strcmp(stop, "max-trials") == 0)
		return ("--max-trials reached");
	if (strcmp(stop, "budget") == 0)
		return ("--budget spent");
	if (strcmp(stop, "fixed") == 0)
		return ("a fixed design (one look)");
	return (stop[0] ? stop : "still running");
}

static void
looks_text(const struct compare_seq *q, char *buf, size_t len)
{
	size_t	i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < q->nlooks && o + 16 < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%zu", i ? ", " : "",
		    q->looks[i]);
}

/* Alpha spent (two-sided difference test) by the last look. */
static double
spent_last(const struct compare_seq *q)
{
	double	t;

	if (q->nlooks == 0)
		return (0);
	t = (double)q->looks[q->nlooks - 1] / (double)q->max_per_side;
	return (seq_spent(COMPARE_ALPHA, t, 2));
}

char *
compare_seq_note(const struct compare_result *r)
{
	const struct compare_seq	*q = r->seq;
	char				 lk[256], *pd = NULL, *s;

	if (q == NULL)
		return (NULL);
	looks_text(q, lk, sizeof(lk));
	/* a group that ran in slots: its looks were paired t-tests */
	if (r->npairs > 0)
		pd = dn_xasprintf("; paired by slot: a paired t on each "
		    "slot's B/A at each look, %zu slots at the last",
		    slots_at(r, q->looks[q->nlooks - 1]));
	s = dn_xasprintf("%s%s: %zu look%s (%s trials per side) of at "
	    "most %zu per side; Lan-DeMets O'Brien-Fleming alpha spending, "
	    "%.3g of %.2g spent; p, equivalence and not-worse corrected for "
	    "the looks (docs/statistics.md, section 8)%s; stopped: %s",
	    r->npairs > 0 ? "paired " : "",
	    strcmp(q->stop, "fixed") == 0 ? "proof asked for" :
	    r->seq_stored ? "sequential group" : "sequential", q->nlooks,
	    q->nlooks == 1 ? "" : "s", lk, q->max_per_side, spent_last(q),
	    COMPARE_ALPHA, pd != NULL ? pd : "", stop_words(q));
	free(pd);
	return (s);
}

void
compare_seq_render_text(const struct compare_result *r, FILE *out, int md)
{
	char	*note = compare_seq_note(r);
	size_t	 i;

	if (note == NULL)
		return;
	fprintf(out, "\n%s%s\n", md ? "- " : "", note);
	free(note);
	for (i = 0; i < r->nprimary; i++) {
		const struct compare_row *row = &r->rows[i];

		if (row->verdict[0] != 'u')	/* undecided */
			continue;
		fprintf(out, "%s%s: undecided at %+.2f%% (95%% CI %+.1f%% to "
		    "%+.1f%%); ", md ? "- " : "", row->name, row->delta_pct,
		    row->delta_ci_low, row->delta_ci_high);
		if (compare_row_a_zero(row))
			fprintf(out, "A is 0: a change of it is no "
			    "percentage\n");
		else if (row->seq_needed < 0)
			fprintf(out, "deciding it is out of reach (more than "
			    "%d trials per side)\n", COMPARE_MAX_TRIALS);
		else if (row->seq_needed == 0)
			fprintf(out, "no spread to say how many trials it "
			    "needs\n");
		else
			fprintf(out, "deciding it needs about %ld trials per "
			    "side%s\n", row->seq_needed, row->futile ?
			    ", more than the design allows (futile)" : "");
	}
	if (r->require_pct > 0)
		fprintf(out, "%snot-worse: B at most %.3g%% worse than A, "
		    "one-sided %.2g; equivalent: within +-%.3g%%, two "
		    "one-sided tests\n", md ? "- " : "", r->require_pct,
		    COMPARE_ALPHA, r->threshold_pct);
}

void
compare_seq_render_json(const struct compare_result *r, FILE *out)
{
	const struct compare_seq	*q = r->seq;
	double				 t[COMPARE_SEQ_LOOKS];
	double				 c[COMPARE_SEQ_LOOKS];
	size_t				 i, k = 0;

	if (q == NULL) {
		fputs("null", out);
		return;
	}
	/* paired by slot, the information is the slots' (paired_looks) */
	for (i = 0; i < q->nlooks; i++) {
		t[i] = (double)(r->npairs > 0 ? slots_at(r, q->looks[i]) :
		    q->looks[i]) / (double)q->max_per_side;
		if (t[i] > 1)
			t[i] = 1;
		if (i == 0 || t[i] > t[i - 1])
			k = i + 1;
		else
			break;
	}
	if (k == 0 || seq_bounds(t, k, COMPARE_ALPHA, 2, c) != 0)
		k = 0;
	fprintf(out, "{\"method\": \"group-sequential, Lan-DeMets "
	    "O'Brien-Fleming alpha spending\", \"stored\": %s, "
	    "\"max_trials_per_side\": %zu, ",
	    r->seq_stored ? "true" : "false", q->max_per_side);
	if (r->npairs > 0)
		fprintf(out, "\"design\": \"paired-sequential\", "
		    "\"statistic\": \"paired-t\", \"slots\": %zu, ",
		    r->npairs);
	fputs("\"stopped\": ", out);
	/* plain words: no escapes needed */
	fprintf(out, "\"%s\", \"why\": \"%s\"", q->stop[0] ? q->stop :
	    "running", stop_words(q));
	fputs(", \"require_not_worse_pct\": ", out);
	dn_json_num(out, r->require_pct > 0 ? r->require_pct : NAN);
	fprintf(out, ", \"all_decided\": %s, \"futile\": %s, \"alpha_spent\""
	    ": ", r->all_decided ? "true" : "false", r->all_futile ? "true" :
	    "false");
	dn_json_num(out, spent_last(q));
	fputs(", \"looks\": [", out);
	for (i = 0; i < q->nlooks; i++) {
		fprintf(out, "%s{\"trials_per_side\": %zu, ", i ? ", " : "",
		    q->looks[i]);
		if (r->npairs > 0)
			fprintf(out, "\"slots\": %zu, ", slots_at(r,
			    q->looks[i]));
		fputs("\"information\": ", out);
		dn_json_num(out, i < k ? t[i] : NAN);
		fputs(", \"alpha_spent\": ", out);
		dn_json_num(out, i < k ? seq_spent(COMPARE_ALPHA, t[i], 2) : NAN);
		fputs(", \"bound_z\": ", out);
		dn_json_num(out, i < k ? c[i] : NAN);
		fputc('}', out);
	}
	fputs("]}", out);
}
