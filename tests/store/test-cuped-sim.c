/*
 * test-cuped-sim.c: the adjustment on the warmup window (orchestrator/
 * verdict/compare-adjust.c, issue 35 item 4) by seeded simulation, beside
 * test-verdict-sim.c: a primary family of 4 metrics, each trial's
 * steady-state value and its warmup window sharing the trial's luck
 * (2 % trial-to-trial, 1 % of each window's own), so that they correlate
 * at about 0.8; each group decided twice on the same data, through the
 * real compare_adjust_metric, compare_row_test, compare_equivalence_p and
 * compare_family_decide: as it is, and adjusted.
 *
 *  - A/A: the share of groups with any better/worse stays at or below
 *    alpha with the adjustment (and without);
 *  - power: metric 0 of B worse by 5 % (the warmup window untouched):
 *    called worse more often adjusted;
 *  - B moves the warmup window too (by the same 5 %): the rule refuses
 *    (never adjusted), so the difference is not taken away;
 *  - no correlation (independent windows): rarely adjusted, and A/A
 *    still at or below alpha.
 *
 * At 4+4, 6+6 and 8+8 trials (the rule needs 4 a side).  DN_VERDICT_SIM_REPS=N for more groups
 * (default 200; docs/statistics.md quotes 1000).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "rng.h"

#define FAMILY	4
#define TH_PCT	1.0
#define NMAX	8

static const size_t	ns[] = { 4, 6, 8 };
#define NNS	(sizeof(ns) / sizeof(ns[0]))

static int
reps(void)
{
	const char	*e = getenv("DN_VERDICT_SIM_REPS");

	return (e != NULL && atoi(e) > 0 ? atoi(e) : 200);
}

/* The model: trial luck LUCK shared by both windows when CORR, each
 * window's own noise OWN; B's metric 0 moved by EFFECT in the steady
 * state and by PRE_EFFECT in the warmup window. */
struct model {
	double	luck, own, effect, pre_effect;
	int	corr;
};

struct tally {
	int	moved[2];	/* groups with a better/worse: plain, adj */
	int	hit[2];		/* metric 0 called worse */
	int	adjusted;	/* metrics adjusted */
	double	removed;	/* variance removed, summed over adjusted */
	int	groups;
};

/* Decide the FAMILY metrics of VA/VB (and covariates XA/XB) at N a side,
 * adjusted or not (ADJ): *MOVED any better/worse, *HIT metric 0 worse. */
static void
decide(double va[][NMAX], double vb[][NMAX], double xa[][NMAX],
    double xb[][NMAX], size_t n, int adj, struct tally *t)
{
	struct obs		 oa[FAMILY], ob[FAMILY];
	struct compare_row	 rows[FAMILY];
	struct compare_adjust	 info;
	double			*raw[2], ca[NMAX], cb[NMAX];
	size_t			 k;
	int			 moved = 0;

	for (k = 0; k < FAMILY; k++) {
		memset(&oa[k], 0, sizeof(oa[k]));
		memset(&ob[k], 0, sizeof(ob[k]));
		memcpy(ca, va[k], n * sizeof(double));
		memcpy(cb, vb[k], n * sizeof(double));
		oa[k].trial_v = ca;
		ob[k].trial_v = cb;
		oa[k].pre_v = xa[k];
		ob[k].pre_v = xb[k];
		oa[k].ntrial = ob[k].ntrial = n;
		memset(&info, 0, sizeof(info));
		raw[0] = raw[1] = NULL;
		if (adj) {
			compare_adjust_metric(&oa[k], &ob[k], &info, raw);
			assert_true((raw[0] != NULL) == info.adjusted);
			if (info.adjusted) {
				t->adjusted++;
				t->removed += info.var_removed_pct;
			}
		}
		memset(&rows[k], 0, sizeof(rows[k]));
		rows[k].name = "m";
		rows[k].unit = "u";
		rows[k].better = "lower";
		compare_row_test(&rows[k], &oa[k], &ob[k], COMPARE_UNIT_TRIAL,
		    FAMILY);
		rows[k].p_eq_raw = compare_equivalence_p(oa[k].trial_v, n,
		    ob[k].trial_v, n, TH_PCT);
		if (raw[0] != NULL) {
			/* the adjusted values were allocated for it */
			free(oa[k].trial_v);
			free(ob[k].trial_v);
		}
	}
	compare_family_decide(rows, FAMILY, TH_PCT);
	for (k = 0; k < FAMILY; k++)
		moved |= strcmp(rows[k].verdict, "better") == 0 ||
		    strcmp(rows[k].verdict, "worse") == 0;
	t->moved[adj] += moved;
	t->hit[adj] += strcmp(rows[0].verdict, "worse") == 0;
}

static void
group(size_t n, const struct model *m, uint64_t *rng, struct tally *t)
{
	double	va[FAMILY][NMAX], vb[FAMILY][NMAX];
	double	xa[FAMILY][NMAX], xb[FAMILY][NMAX];
	size_t	k, i;

	for (k = 0; k < FAMILY; k++) {
		for (i = 0; i < n; i++) {
			double	la = m->luck * dn_rand_gauss(rng);
			double	lb = m->luck * dn_rand_gauss(rng);
			double	e = k == 0 ? m->effect : 0;
			double	pe = k == 0 ? m->pre_effect : 0;

			va[k][i] = 100 * (1 + la + m->own * dn_rand_gauss(rng));
			vb[k][i] = 100 * (1 + e + lb + m->own * dn_rand_gauss(rng));
			xa[k][i] = 100 * (1 + (m->corr ? la : m->luck *
			    dn_rand_gauss(rng)) + m->own * dn_rand_gauss(rng));
			xb[k][i] = 100 * (1 + pe + (m->corr ? lb : m->luck *
			    dn_rand_gauss(rng)) + m->own * dn_rand_gauss(rng));
		}
	}
	decide(va, vb, xa, xb, n, 0, t);
	decide(va, vb, xa, xb, n, 1, t);
	t->groups++;
}

static struct tally
run(size_t n, const struct model *m, uint64_t seed)
{
	struct tally	t;
	uint64_t	rng = seed;
	int		r, nr = reps();

	memset(&t, 0, sizeof(t));
	for (r = 0; r < nr; r++)
		group(n, m, &rng, &t);
	return (t);
}

/* Monte Carlo slack: 3 standard errors of a share near P over N. */
static double
slack(double p, int n)
{
	return (3 * sqrt(p * (1 - p) / n));
}

static void
aa_model(const struct model *m, const char *what, uint64_t seed)
{
	size_t	i;
	int	moved = 0, groups = 0;

	print_message("A/A, %s, %d metrics, %d groups: any better/worse "
	    "plain, adjusted; share adjusted; variance removed\n", what,
	    FAMILY, reps());
	for (i = 0; i < NNS; i++) {
		struct tally	t = run(ns[i], m, seed + i);
		double		f0 = (double)t.moved[0] / t.groups;
		double		f1 = (double)t.moved[1] / t.groups;
		double		sh = (double)t.adjusted / (t.groups * FAMILY);

		print_message("  %zu+%zu  %.3f  %.3f  %.2f  %.0f%%\n", ns[i],
		    ns[i], f0, f1, sh, t.adjusted ? t.removed / t.adjusted :
		    0);
		assert_true(f1 <= COMPARE_ALPHA + slack(COMPARE_ALPHA,
		    t.groups));
		assert_true(f0 <= COMPARE_ALPHA + slack(COMPARE_ALPHA,
		    t.groups));
		if (m->corr)
			assert_true(sh >= 0.5);
		else
			assert_true(sh <= 0.3);
		moved += t.moved[1];
		groups += t.groups;
	}
	/* over the three trial counts, tighter: 2 standard errors */
	print_message("  all   adjusted %.3f\n", (double)moved / groups);
	assert_true((double)moved / groups <= COMPARE_ALPHA + 2.0 / 3 *
	    slack(COMPARE_ALPHA, groups));
}

/* A/A with correlated windows: false alarms at most alpha, adjusted. */
static void
aa(void **state)
{
	struct model	m = { 0.02, 0.01, 0, 0, 1 };

	(void)state;
	aa_model(&m, "windows correlated (r ~ 0.8)", 71);
}

/* A/A with independent windows: rarely adjusted, still honest. */
static void
aa_uncorrelated(void **state)
{
	struct model	m = { 0.02, 0.01, 0, 0, 0 };

	(void)state;
	aa_model(&m, "windows independent", 81);
}

/* A 5 % worsening with the warmup window untouched: more power. */
static void
power(void **state)
{
	struct model	m = { 0.02, 0.01, 0.05, 0, 1 };
	size_t		i;

	(void)state;
	print_message("5%% worse, warmup untouched: called worse plain, "
	    "adjusted\n");
	for (i = 0; i < NNS; i++) {
		struct tally	t = run(ns[i], &m, 91 + i);
		double		p0 = (double)t.hit[0] / t.groups;
		double		p1 = (double)t.hit[1] / t.groups;

		print_message("  %zu+%zu  %.3f  %.3f\n", ns[i], ns[i], p0, p1);
		if (ns[i] < 8)
			assert_true(p1 >= p0 + 0.1);
		else
			assert_true(p1 + 0.02 >= p0);
	}
}

/* B moves the warmup window as much as the steady state: the rule
 * refuses metric 0 (the others may be adjusted), so the 5 % change is
 * found as often as plain. */
static void
moved_window(void **state)
{
	struct model	m = { 0.02, 0.01, 0.05, 0.05, 1 };
	size_t		i;

	(void)state;
	print_message("5%% worse, warmup window moved too: called worse "
	    "plain, adjusted\n");
	for (i = 0; i < NNS; i++) {
		struct tally	t = run(ns[i], &m, 101 + i);
		double		p0 = (double)t.hit[0] / t.groups;
		double		p1 = (double)t.hit[1] / t.groups;

		print_message("  %zu+%zu  %.3f  %.3f\n", ns[i], ns[i], p0, p1);
		assert_true(p1 + 0.05 >= p0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aa),
		cmocka_unit_test(aa_uncorrelated),
		cmocka_unit_test(power),
		cmocka_unit_test(moved_window),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
