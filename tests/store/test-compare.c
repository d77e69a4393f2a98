/*
 * test-compare.c: the verdict rules (orchestrator/compare.c) and the
 * power figures (orchestrator/compare-power.c) on hand-made observations,
 * no database: an interval that could not be computed is no evidence,
 * zero spread is decided by the exact rank test, the reported MDE is the
 * simulated one, and trials_needed trials do detect the effect
 * (docs/statistics.md, sections 3 and 4).
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
#include "stats.h"
#include "rng.h"

#define NEAR(a, b, eps)	assert_true(fabs((a) - (b)) <= (eps))

static struct obs
trials(double *v, size_t n)
{
	struct obs	o;

	memset(&o, 0, sizeof(o));
	o.trial_v = v;
	o.ntrial = n;
	return (o);
}

static void
row_init(struct compare_row *row, const char *better)
{
	memset(row, 0, sizeof(*row));
	row->name = "m";
	row->unit = "u";
	row->better = better;
	row->p_eq = NAN;	/* no equivalence shown unless a test says */
}

/* A bootstrap interval that is NAN (a resampled median of A was 0) must
 * never count as excluding 0. */
static void
nan_interval_is_no_evidence(void **state)
{
	struct compare_row	row;

	(void)state;
	row_init(&row, "lower");
	row.p = 0.001;
	row.delta_pct = -20;
	row.delta_ci_low = NAN;
	row.delta_ci_high = NAN;
	compare_row_decide(&row, 1);
	assert_false(row.significant);
	assert_string_equal(row.verdict, "undecided");
	/* The same row with an interval clear of 0 is better. */
	row.delta_ci_low = -25;
	row.delta_ci_high = -15;
	compare_row_decide(&row, 1);
	assert_true(row.significant);
	assert_string_equal(row.verdict, "better");
	/* Half an interval is no interval. */
	row.delta_ci_high = NAN;
	compare_row_decide(&row, 1);
	assert_false(row.significant);
}

/* Constant within each side: equal is no difference (p 1); different is a
 * complete separation, p = 2 / C(nA + nB, nA), never Welch's 0. */
static void
zero_spread(void **state)
{
	double			a2[] = { 24, 24 }, b2[] = { 25, 25 };
	double			a4[] = { 24, 24, 24, 24 }, b4[] = { 25, 25,
				    25, 25 };
	struct obs		oa, ob;
	struct compare_row	row;

	(void)state;
	/* 2 + 2 trials over a full family: p 1/3, never significant. */
	oa = trials(a2, 2);
	ob = trials(b2, 2);
	row_init(&row, "lower");
	compare_row_test(&row, &oa, &ob, COMPARE_UNIT_TRIAL, 29);
	assert_true(row.constant);
	NEAR(row.p_raw, 1.0 / 3, 1e-12);
	assert_string_equal(row.test, "mwu");
	row.p = fmin(1, 29 * row.p_raw);
	row.p_eq = NAN;
	compare_row_decide(&row, 1);
	assert_false(row.significant);
	assert_string_equal(row.verdict, "undecided");
	/* Even alone in the family, 2 + 2 cannot reach 0.05. */
	compare_row_test(&row, &oa, &ob, COMPARE_UNIT_TRIAL, 1);
	row.p = row.p_raw;
	compare_row_decide(&row, 1);
	assert_false(row.significant);
	/* 4 + 4 alone: 2/70 = 0.029 is evidence, and B is worse. */
	oa = trials(a4, 4);
	ob = trials(b4, 4);
	compare_row_test(&row, &oa, &ob, COMPARE_UNIT_TRIAL, 1);
	NEAR(row.p_raw, 2.0 / 70, 1e-12);
	row.p = row.p_raw;
	compare_row_decide(&row, 1);
	assert_true(row.significant);
	assert_string_equal(row.verdict, "worse");
	/* Exactly equal: nothing to see. */
	ob = trials(a4, 4);
	compare_row_test(&row, &oa, &ob, COMPARE_UNIT_TRIAL, 1);
	assert_true(row.constant);
	NEAR(row.p_raw, 1, 1e-12);
	/* One side varies: Welch as usual, and not "constant". */
	{
		double	bv[] = { 25, 26 };

		oa = trials(a2, 2);
		ob = trials(bv, 2);
		compare_row_test(&row, &oa, &ob, COMPARE_UNIT_TRIAL, 29);
		assert_false(row.constant);
		assert_string_equal(row.test, "welch");
		assert_true(row.p_raw > 0);
	}
}

static double
sd(const double *v, size_t n)
{
	double	m = dn_stats_mean(v, n), s = 0;
	size_t	i;

	for (i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return (sqrt(s / (n - 1)));
}

/*
 * The MDE compare reports is the simulated one of the test it used, as a
 * percentage of A's mean; and the trials_needed it gives for an `undecided`
 * whose interval excludes 0 are enough: trial sets of that size with the
 * observed effect and spread are called by the test that size would use
 * in about 80% of simulations (fixed seeds).
 */
static void
mde_and_trials_needed(void **state)
{
	double				 a[] = { 100.0, 101.1, 99.2 };
	double				 b[] = { 98.1, 98.9, 97.6 };
	struct obs			 oa = trials(a, 3), ob = trials(b, 3);
	struct compare_row		 row;
	struct compare_power_cache	 pc;
	double				 want, x[64], y[64], alpha = 0.05 / 29;
	uint64_t			 rng = 5;
	long				 n;
	int				 it, hits = 0;

	(void)state;
	memset(&pc, 0, sizeof(pc));
	pc.alpha = alpha;
	row_init(&row, "lower");
	compare_row_test(&row, &oa, &ob, COMPARE_UNIT_TRIAL, 29);
	assert_string_equal(row.test, "welch");
	row.p = fmin(1, 29 * row.p_raw);
	/* As the bootstrap might have it: a clear interval. */
	row.delta_ci_low = -2.5;
	row.delta_ci_high = -0.9;
	compare_row_decide(&row, 1);
	assert_false(row.significant);
	compare_row_power(&row, &oa, &ob, COMPARE_UNIT_TRIAL, 29, 1, 0, &pc);
	want = 100 * dn_stats_mde_welch(sd(a, 3), 3, sd(b, 3), 3, alpha,
	    COMPARE_POWER, COMPARE_POWER_ITERS, COMPARE_POWER_SEED) /
	    dn_stats_mean(a, 3);
	NEAR(row.mde_pct, want, 1e-9);
	assert_true(row.mde_pct > fabs(row.delta_pct));
	NEAR(row.target_pct, fabs(row.delta_pct), 1e-12);
	n = row.trials_needed;
	print_message("delta %.2f%%, MDE %.1f%% at 3+3; %ld trials per side "
	    "needed\n", row.delta_pct, row.mde_pct, n);
	assert_true(n > 3 && n <= 64);
	/* Simulate n + n trials with the observed means and spreads. */
	for (it = 0; it < 2000; it++) {
		struct compare_row	r2;
		struct obs		sa, sb;
		long			i;

		for (i = 0; i < n; i++) {
			x[i] = dn_stats_mean(a, 3) + sd(a, 3) * dn_rand_gauss(&rng);
			y[i] = dn_stats_mean(a, 3) * (1 + row.delta_pct /
			    100) + sd(b, 3) * dn_rand_gauss(&rng);
		}
		sa = trials(x, (size_t)n);
		sb = trials(y, (size_t)n);
		row_init(&r2, "lower");
		compare_row_test(&r2, &sa, &sb, COMPARE_UNIT_TRIAL, 29);
		hits += r2.p_raw < alpha;
	}
	print_message("power at %ld trials per side: %.3f\n", n,
	    hits / 2000.0);
	assert_true(hits / 2000.0 > 0.74);

	/* --target-effect: asked for every metric; a bigger effect needs
	 * fewer trials. */
	compare_row_power(&row, &oa, &ob, COMPARE_UNIT_TRIAL, 29, 1, 10, &pc);
	NEAR(row.target_pct, 10, 1e-12);
	assert_true(row.trials_needed > 0 && row.trials_needed < n);
	/* Out of reach: 1 + 1 trials can never be significant. */
	{
		double		a1[] = { 100 }, b1[] = { 90 };
		struct obs	o1 = trials(a1, 1), o2 = trials(b1, 1);

		compare_row_test(&row, &o1, &o2, COMPARE_UNIT_TRIAL, 29);
		row.p = 1;
		compare_row_decide(&row, 1);
		compare_row_power(&row, &o1, &o2, COMPARE_UNIT_TRIAL, 29, 1,
		    0, &pc);
		assert_true(isinf(row.mde_pct));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nan_interval_is_no_evidence),
		cmocka_unit_test(zero_spread),
		cmocka_unit_test(mde_and_trials_needed),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
