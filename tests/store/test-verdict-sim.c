/*
 * test-verdict-sim.c: the verdict rule (orchestrator/verdict/
 * compare-rule.c, issue 35) on synthetic observations, by seeded
 * simulation: a primary family of 4 metrics (the size of the node kinds'
 * defaults), normal trial summaries, each group run through the real
 * compare_row_test, compare_equivalence_p and compare_family_decide.
 *
 *  - A/A (no effect anywhere): the share of groups where any metric is
 *    called better or worse stays at or below alpha (family-wise), and
 *    the share of metrics shown `equivalent` is reported;
 *  - a true effect exactly at the threshold is shown `equivalent` at most
 *    alpha of the time (the two one-sided tests keep their level);
 *  - power: one metric of the four moved by 2, 5, 10 and 30 %, the share
 *    of groups that call it `worse`;
 *
 * at 2+2, 3+3, 4+4 and 8+8 trials.  Two noise levels: 2 % trial-to-trial
 * (allocation rates, CPU) and 0.2 % (RSS).  The verdict words are only
 * better, worse, changed, equivalent and undecided: never `same`.
 * DN_VERDICT_SIM_REPS=N for more groups (default 200: docs/statistics.md
 * quotes 2000).
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
#include "store-testlib.h"

#define FAMILY	4
#define TH_PCT	1.0

static const size_t	ns[] = { 2, 3, 4, 8 };
#define NNS	(sizeof(ns) / sizeof(ns[0]))

/* groups per cell: 200, or DN_VERDICT_SIM_REPS */
static int
reps(void)
{
	return (sim_reps("DN_VERDICT_SIM_REPS", 200));
}

struct tally {
	int	any_moved;	/* groups with a better/worse anywhere */
	int	eq;		/* metrics shown equivalent */
	int	hit;		/* metric 0 called worse */
	int	eq0;		/* metric 0 shown equivalent */
	int	groups;
};

/*
 * One group of FAMILY metrics at N trials per side, noise CV (fraction of
 * the mean), metric 0 of B moved by EFFECT (a fraction): tally it.
 */
static void
group(size_t n, double cv, double effect, uint64_t *rng, struct tally *t)
{
	double			 va[FAMILY][8], vb[FAMILY][8];
	struct obs		 oa[FAMILY], ob[FAMILY];
	struct compare_row	 rows[FAMILY];
	size_t			 k, i;
	int			 moved = 0;

	for (k = 0; k < FAMILY; k++) {
		for (i = 0; i < n; i++) {
			va[k][i] = 100 * (1 + cv * dn_rand_gauss(rng));
			vb[k][i] = 100 * (1 + (k == 0 ? effect : 0) + cv *
			    dn_rand_gauss(rng));
		}
		memset(&oa[k], 0, sizeof(oa[k]));
		memset(&ob[k], 0, sizeof(ob[k]));
		oa[k].trial_v = va[k];
		oa[k].ntrial = n;
		ob[k].trial_v = vb[k];
		ob[k].ntrial = n;
		memset(&rows[k], 0, sizeof(rows[k]));
		rows[k].name = "m";
		rows[k].unit = "u";
		rows[k].better = "lower";
		compare_row_test(&rows[k], &oa[k], &ob[k], COMPARE_UNIT_TRIAL,
		    FAMILY);
		rows[k].p_eq_raw = compare_equivalence_p(va[k], n, vb[k], n,
		    TH_PCT, 1);
	}
	compare_family_decide(rows, FAMILY, TH_PCT);
	for (k = 0; k < FAMILY; k++) {
		const char *v = rows[k].verdict;

		assert_true(strcmp(v, "better") == 0 ||
		    strcmp(v, "worse") == 0 || strcmp(v, "equivalent") == 0 ||
		    strcmp(v, "undecided") == 0);
		moved |= strcmp(v, "better") == 0 || strcmp(v, "worse") == 0;
		t->eq += strcmp(v, "equivalent") == 0;
	}
	t->any_moved += moved;
	t->hit += strcmp(rows[0].verdict, "worse") == 0;
	t->eq0 += strcmp(rows[0].verdict, "equivalent") == 0;
	t->groups++;
}

static struct tally
run(size_t n, double cv, double effect, uint64_t seed)
{
	struct tally	t;
	uint64_t	rng = seed;
	int		r, nr = reps();

	memset(&t, 0, sizeof(t));
	for (r = 0; r < nr; r++)
		group(n, cv, effect, &rng, &t);
	return (t);
}

/* Monte Carlo slack: 3 standard errors of a share near P over N. */
static double
slack(double p, int n)
{
	return (3 * sqrt(p * (1 - p) / n));
}

/* A/A: family-wise false alarms at most alpha; equivalence reported,
 * and at low noise and 8+8 shown almost always. */
static void
aa(void **state)
{
	static const double	cvs[] = { 0.02, 0.002 };
	size_t			i, c;

	(void)state;
	print_message("A/A, %d metrics, threshold %g%%, %d groups each\n",
	    FAMILY, TH_PCT, reps());
	print_message("  noise  trials  any better/worse  equivalent\n");
	for (c = 0; c < 2; c++) {
		for (i = 0; i < NNS; i++) {
			struct tally	t = run(ns[i], cvs[c], 0, 11 + i);
			double		fa = (double)t.any_moved / t.groups;
			double		eq = (double)t.eq / (t.groups *
					    FAMILY);

			print_message("  %4.1f%%  %zu+%zu  %16.3f  %10.3f\n",
			    100 * cvs[c], ns[i], ns[i], fa, eq);
			assert_true(fa <= COMPARE_ALPHA +
			    slack(COMPARE_ALPHA, t.groups));
			if (cvs[c] < 0.01 && ns[i] == 8)
				assert_true(eq >= 0.9);
			if (ns[i] == 2 && cvs[c] > 0.01)
				assert_true(eq == 0);
		}
	}
}

/* A true change exactly at the threshold: shown equivalent at most
 * alpha of the time (the claim's own level). */
static void
boundary(void **state)
{
	size_t	i;

	(void)state;
	print_message("true effect = +%g%% (the threshold), noise 0.2%%: "
	    "shown equivalent\n", TH_PCT);
	for (i = 0; i < NNS; i++) {
		struct tally	t = run(ns[i], 0.002, TH_PCT / 100, 31 + i);
		double		e = (double)t.eq0 / t.groups;

		print_message("  %zu+%zu  %.3f\n", ns[i], ns[i], e);
		assert_true(e <= COMPARE_ALPHA + slack(COMPARE_ALPHA,
		    t.groups));
	}
}

/* Power to call a true worsening `worse`, noise 2 %. */
static void
power(void **state)
{
	static const double	eff[] = { 0.02, 0.05, 0.10, 0.30 };
	double			pw[NNS][4];
	size_t			i, e;

	(void)state;
	print_message("power (called worse), noise 2%%, %d metrics:\n"
	    "  trials      2%%      5%%     10%%     30%%\n", FAMILY);
	for (i = 0; i < NNS; i++) {
		for (e = 0; e < 4; e++) {
			struct tally t = run(ns[i], 0.02, eff[e], 51 + 7 * i +
			    e);

			pw[i][e] = (double)t.hit / t.groups;
		}
		print_message("  %zu+%zu  %7.3f %7.3f %7.3f %7.3f\n", ns[i],
		    ns[i], pw[i][0], pw[i][1], pw[i][2], pw[i][3]);
	}
	/* More trials, more power; a 30 % change is found at 4+4 and
	 * 8+8, a 10 % one at 8+8. */
	for (e = 0; e < 4; e++)
		assert_true(pw[NNS - 1][e] + 0.05 >= pw[0][e]);
	assert_true(pw[2][3] >= 0.8);
	assert_true(pw[3][3] >= 0.95);
	assert_true(pw[3][2] >= 0.8);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(aa),
		cmocka_unit_test(boundary),
		cmocka_unit_test(power),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
