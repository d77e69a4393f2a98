/* test-stats.c: the statistics against reference values (R / brute force
 * enumeration; see docs/statistics.md). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "stats.h"
#include "rng.h"

#define NEAR(a, b, eps)	assert_true(fabs((a) - (b)) <= (eps))

static void
basics(void **state)
{
	const double	x[] = { 3, 1, 2 }, q[] = { 1, 2, 3, 4 };
	const double	t[] = { 0, 1, 2, 3 }, y[] = { 1, 3, 5, 7 };

	(void)state;
	NEAR(dn_stats_median(x, 3), 2, 1e-12);
	NEAR(dn_stats_median(q, 4), 2.5, 1e-12);
	NEAR(dn_stats_quantile(q, 4, 0.99), 3.97, 1e-12);
	NEAR(dn_stats_quantile(q, 4, 0), 1, 1e-12);
	NEAR(dn_stats_mean(q, 4), 2.5, 1e-12);
	NEAR(dn_stats_max(x, 3), 3, 1e-12);
	NEAR(dn_stats_slope(t, y, 4), 2, 1e-12);
	assert_true(isnan(dn_stats_slope(t, y, 1)));
	assert_true(isnan(dn_stats_median(x, 0)));
}

static void
mwu_exact_reference(void **state)
{
	const double	a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	const double	c[] = { 1, 3, 5, 7, 9 }, d[] = { 2, 4, 6, 8, 10, 12 };
	const double	e[] = { 1.1, 2.2, 3.3, 4.4, 10.5, 11.5, 12.5 };
	const double	f[] = { 5.1, 6.1, 7.1, 8.1, 9.1, 13.1, 14.1, 15.1 };
	struct dn_mwu	r;

	(void)state;
	assert_int_equal(dn_stats_mwu(a, 3, b, 3, &r), 0);
	assert_true(r.exact);
	NEAR(r.u, 0, 1e-12);
	NEAR(r.p, 0.1, 1e-12);
	/* Symmetric in the other direction. */
	assert_int_equal(dn_stats_mwu(b, 3, a, 3, &r), 0);
	NEAR(r.u, 9, 1e-12);
	NEAR(r.p, 0.1, 1e-12);
	/* Reference values by enumerating every rank assignment. */
	assert_int_equal(dn_stats_mwu(c, 5, d, 6, &r), 0);
	NEAR(r.u, 10, 1e-12);
	NEAR(r.p, 0.42857142857142855, 1e-12);
	assert_int_equal(dn_stats_mwu(e, 7, f, 8, &r), 0);
	NEAR(r.p, 0.151981351981352, 1e-12);
	/* Identical samples: nothing to see. */
	assert_int_equal(dn_stats_mwu(a, 3, a, 3, &r), 0);
	NEAR(r.p, 1, 1e-12);
	assert_int_equal(dn_stats_mwu(a, 0, b, 3, &r), -1);
}

static void
mwu_normal_ties(void **state)
{
	/* R: wilcox.test(x, y) -> W = 58, p-value = 0.1329 (ties: normal
	 * approximation with continuity correction). */
	const double	x[] = { 1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06,
			    1.30 };
	const double	y[] = { 0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06,
			    3.14, 1.29 };
	const double	same[] = { 5, 5, 5, 5 };
	struct dn_mwu	r;

	(void)state;
	assert_int_equal(dn_stats_mwu(x, 9, y, 9, &r), 0);
	assert_false(r.exact);
	NEAR(r.u, 58, 1e-12);
	NEAR(r.p, 0.13291945818531886, 1e-9);
	assert_int_equal(dn_stats_mwu(same, 4, same, 4, &r), 0);
	NEAR(r.p, 1, 1e-12);
}

static void
mwu_min_p(void **state)
{
	(void)state;
	NEAR(dn_stats_mwu_min_p(1, 1), 1, 1e-12);
	NEAR(dn_stats_mwu_min_p(2, 2), 1.0 / 3, 1e-12);
	NEAR(dn_stats_mwu_min_p(3, 3), 0.1, 1e-12);
	NEAR(dn_stats_mwu_min_p(4, 4), 2.0 / 70, 1e-12);
	NEAR(dn_stats_mwu_min_p(0, 4), 1, 1e-12);
}

static void
holm_reference(void **state)
{
	/* R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm")
	 *    -> 0.03 0.06 0.06 0.02 */
	double	p[] = { 0.01, 0.04, 0.03, 0.005 }, adj[4];
	double	q[] = { 0.5, NAN, 0.01 }, qa[3];

	(void)state;
	dn_stats_holm(p, 4, adj);
	NEAR(adj[0], 0.03, 1e-12);
	NEAR(adj[1], 0.06, 1e-12);
	NEAR(adj[2], 0.06, 1e-12);
	NEAR(adj[3], 0.02, 1e-12);
	dn_stats_holm(q, 3, qa);
	NEAR(qa[0], 0.5, 1e-12);
	assert_true(isnan(qa[1]));
	NEAR(qa[2], 0.02, 1e-12);
}

static void
bootstrap_contains_truth(void **state)
{
	double		a[40], b[40];
	int		ca[40], cb[40];
	struct dn_boot	r, rc;
	uint64_t	rng = 7;
	int		i;

	(void)state;
	/* B is 20% lower than A; the interval must contain -20 and not 0. */
	for (i = 0; i < 40; i++) {
		a[i] = 100 * (1 + 0.05 * dn_rand_gauss(&rng));
		b[i] = 80 * (1 + 0.05 * dn_rand_gauss(&rng));
	}
	assert_int_equal(dn_stats_bootstrap(a, NULL, 40, b, NULL, 40, 2000,
	    1, 0.95, &r), 0);
	assert_true(r.d_lo < -20 && r.d_hi > -20);
	assert_true(r.d_hi < 0);
	assert_true(r.a_lo < 100 && r.a_hi > 100);
	assert_true(r.b_lo < 80 && r.b_hi > 80);
	/* Deterministic in the seed. */
	assert_int_equal(dn_stats_bootstrap(a, NULL, 40, b, NULL, 40, 2000,
	    1, 0.95, &rc), 0);
	assert_true(rc.d_lo == r.d_lo && rc.d_hi == r.d_hi);

	/* Same distribution, but every group of 10 values shares a trial
	 * effect (4 trials per side): over 100 such A/A draws, the clustered
	 * interval must contain the true difference (0) far more often than
	 * the naive one, which treats the 40 values as independent. */
	for (i = 0; i < 40; i++) {
		ca[i] = i / 10;
		cb[i] = i / 10;
	}
	{
		int	rep, naive_ok = 0, clus_ok = 0;

		rng = 11;
		for (rep = 0; rep < 100; rep++) {
			for (i = 0; i < 4; i++) {
				double	ea = 1 + 0.05 * dn_rand_gauss(&rng);
				double	eb = 1 + 0.05 * dn_rand_gauss(&rng);

				for (int j = 0; j < 10; j++) {
					a[i * 10 + j] = 100 * ea *
					    (1 + 0.01 * dn_rand_gauss(&rng));
					b[i * 10 + j] = 100 * eb *
					    (1 + 0.01 * dn_rand_gauss(&rng));
				}
			}
			dn_stats_bootstrap(a, NULL, 40, b, NULL, 40, 500,
			    rep, 0.95, &r);
			dn_stats_bootstrap(a, ca, 40, b, cb, 40, 500, rep,
			    0.95, &rc);
			naive_ok += r.d_lo < 0 && r.d_hi > 0;
			clus_ok += rc.d_lo < 0 && rc.d_hi > 0;
			assert_true(rc.d_hi - rc.d_lo > r.d_hi - r.d_lo);
		}
		print_message("A/A coverage of 0: naive %d%%, clustered %d%%\n",
		    naive_ok, clus_ok);
		assert_true(clus_ok >= 75);
		assert_true(clus_ok > naive_ok + 20);
	}
}

static void
welch_reference(void **state)
{
	const double	x[] = { 1, 2, 3, 4 }, y[] = { 3, 4, 5, 6, 7 };
	const double	c[] = { 5, 5, 5 };
	struct dn_welch	w;

	(void)state;
	/* Closed forms: df 1 is Cauchy, df 2 has p = 1 - t / sqrt(2 + t^2);
	 * qt(0.975, 4) = 2.776445, qt(0.975, 10) = 2.228139. */
	NEAR(dn_stats_t_p2(1, 1), 0.5, 1e-9);
	NEAR(dn_stats_t_p2(2, 2), 1 - 2 / sqrt(6), 1e-9);
	NEAR(dn_stats_t_p2(2.776445, 4), 0.05, 1e-6);
	NEAR(dn_stats_t_p2(-2.228139, 10), 0.05, 1e-6);
	NEAR(dn_stats_t_p2(0, 7), 1, 1e-12);
	assert_int_equal(dn_stats_welch(x, 4, y, 5, &w), 0);
	NEAR(w.t, -2.6111648393354674, 1e-9);
	NEAR(w.df, 6.980769230769232, 1e-9);
	assert_true(w.p > 0.03 && w.p < 0.04);
	assert_int_equal(dn_stats_welch(c, 3, c, 3, &w), 0);
	NEAR(w.p, 1, 1e-12);
	/* Both sides constant but different: no spread to scale the
	 * difference by, so no p at all -- never 0 (docs/statistics.md). */
	{
		const double	c2[] = { 6, 6, 6 };

		assert_int_equal(dn_stats_welch(c, 3, c2, 3, &w), 0);
		assert_true(isnan(w.p));
		assert_true(isinf(w.t));
	}
	assert_int_equal(dn_stats_welch(x, 1, y, 5, &w), -1);
}

static void
mwu_clustered_design_effect(void **state)
{
	/* Two trials per side, 4 nodes each; trial effects dominate: the
	 * design effect must be large and the p-value far weaker than the
	 * naive test's. */
	const double	x[] = { 10, 11, 10.5, 10.2, 20, 21, 20.5, 20.2 };
	const double	y[] = { 15, 16, 15.5, 15.2, 25, 26, 25.5, 25.2 };
	const int	c[] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	struct dn_mwu	naive, clus;

	(void)state;
	assert_int_equal(dn_stats_mwu(x, 8, y, 8, &naive), 0);
	assert_int_equal(dn_stats_mwu_clustered(x, c, 8, y, c, 8, &clus), 0);
	assert_true(clus.deff > 3);
	assert_true(clus.p > naive.p);
	NEAR(clus.u, naive.u, 1e-12);
}

/* dn_stats_quantiles_inplace (the report's bands: a select, no sort)
 * gives what dn_stats_quantile gives, on 20,000 random arrays of 1-60
 * values: spread, few distinct (ties), all equal, sorted and reversed. */
static void
quantiles_inplace_match(void **state)
{
	static const double	q[] = { 0, 0.1, 0.25, 0.5, 0.9, 0.99, 1 };
	double			x[64], y[64], out[7];
	uint64_t		st = 7;
	size_t			n, i, k;
	int			t, mode;

	(void)state;
	for (t = 0; t < 20000; t++) {
		n = 1 + (size_t)(dn_rand01(&st) * 60);
		mode = t % 5;
		for (i = 0; i < n; i++) {
			double u = dn_rand01(&st);

			x[i] = mode == 0 ? u * 1000 : mode == 1 ?
			    floor(u * 3) : mode == 2 ? 5 : mode == 3 ?
			    (double)i : (double)(n - i);
			y[i] = x[i];
		}
		dn_stats_quantiles_inplace(x, n, q, out, 7);
		for (k = 0; k < 7; k++)
			assert_true(out[k] == dn_stats_quantile(y, n, q[k]));
	}
	out[0] = 0;
	dn_stats_quantiles_inplace(x, 0, q, out, 1);
	assert_true(isnan(out[0]));
}

static void
quantiles_reference(void **state)
{
	(void)state;
	/* R: qnorm(0.975), qnorm(0.8), qt(0.975, 4), qt(1 - 0.05/58, 2). */
	NEAR(dn_stats_norm_quantile(0.975), 1.959963984540054, 1e-12);
	NEAR(dn_stats_norm_quantile(0.8), 0.8416212335729143, 1e-12);
	NEAR(dn_stats_norm_quantile(0.5), 0, 1e-12);
	NEAR(dn_stats_t_crit(0.05, 4), 2.776445105, 1e-8);
	/* df 2 in closed form: t = sqrt(2 / (a (2 - a)) - 2), a = alpha. */
	NEAR(dn_stats_t_crit(0.05 / 29, 2),
	    sqrt(2 / ((0.05 / 29) * (2 - 0.05 / 29)) - 2), 1e-6);
	/* df 1 is Cauchy: t = tan(pi / 2 (1 - alpha)). */
	NEAR(dn_stats_t_crit(0.1, 1), tan(M_PI / 2 * 0.9), 1e-8);
}

/* Fraction of NSIM simulated A/B sets of N + N normal values (SD 1, B
 * shifted by SHIFT) in which the test rejects at ALPHA. */
static double
sim_power(int mwu, size_t n, double shift, double alpha, int nsim,
    uint64_t seed)
{
	double		x[64], y[64];
	uint64_t	rng = seed;
	int		it, hits = 0;
	size_t		i;

	for (it = 0; it < nsim; it++) {
		for (i = 0; i < n; i++) {
			x[i] = 100 + dn_rand_gauss(&rng);
			y[i] = 100 + shift + dn_rand_gauss(&rng);
		}
		if (mwu) {
			struct dn_mwu	r;

			dn_stats_mwu(x, n, y, n, &r);
			hits += r.p < alpha;
		} else {
			struct dn_welch	w;

			dn_stats_welch(x, n, y, n, &w);
			hits += w.p < alpha;
		}
	}
	return ((double)hits / nsim);
}

/*
 * The minimum detectable effect is what it says: simulate trial sets with
 * a true shift equal to the computed MDE, run the real test, and the
 * observed power must be close to the 0.8 asked for; at half the MDE it
 * must be clearly lower.  Independent random numbers from the ones the
 * MDE was computed with; fixed seeds.  Alpha 0.05 / 29 is one metric of a
 * full comparison after Holm.
 */
static void
mde_power_simulated(void **state)
{
	static const struct {
		int	mwu;
		size_t	n;
		double	alpha;
	} cases[] = {
		{ 0, 2, 0.05 }, { 0, 3, 0.05 / 29 }, { 0, 4, 0.05 },
		{ 0, 6, 0.05 / 29 }, { 1, 4, 0.05 }, { 1, 7, 0.05 / 29 },
		{ 1, 12, 0.05 / 29 }, { 1, 40, 0.05 / 29 },
	};
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double	mde, full, half;

		mde = cases[i].mwu ?
		    dn_stats_mde_mwu(cases[i].n, cases[i].n, cases[i].alpha,
		    0.8, 4000, 42) :
		    dn_stats_mde_welch(1, cases[i].n, 1, cases[i].n,
		    cases[i].alpha, 0.8, 4000, 42);
		full = sim_power(cases[i].mwu, cases[i].n, mde,
		    cases[i].alpha, 4000, 1000 + i);
		half = sim_power(cases[i].mwu, cases[i].n, mde / 2,
		    cases[i].alpha, 4000, 2000 + i);
		print_message("%s %zu+%zu alpha %.4f: MDE %.3f SD, power "
		    "%.3f at the MDE, %.3f at half\n", cases[i].mwu ? "mwu" :
		    "welch", cases[i].n, cases[i].n, cases[i].alpha, mde,
		    full, half);
		assert_true(isfinite(mde) && mde > 0);
		assert_true(fabs(full - 0.8) < 0.04);
		assert_true(half < full - 0.15);
		if (cases[i].n > 2)
			assert_true(half < 0.5);
	}
	/* Out of reach: the exact test at 4 + 4 cannot get under 0.05 / 29;
	 * no spread at all leaves nothing to scale by. */
	assert_true(isinf(dn_stats_mde_mwu(4, 4, 0.05 / 29, 0.8, 100, 1)));
	assert_true(isnan(dn_stats_mde_welch(0, 3, 0, 3, 0.05, 0.8, 100, 1)));
	assert_true(isnan(dn_stats_mde_welch(1, 1, 1, 3, 0.05, 0.8, 100, 1)));
	/* Deterministic in the seed. */
	assert_true(dn_stats_mde_welch(1, 3, 2, 4, 0.05, 0.8, 500, 9) ==
	    dn_stats_mde_welch(1, 3, 2, 4, 0.05, 0.8, 500, 9));
	/* Scales with the spread. */
	NEAR(dn_stats_mde_welch(3, 3, 3, 3, 0.05, 0.8, 500, 9),
	    3 * dn_stats_mde_welch(1, 3, 1, 3, 0.05, 0.8, 500, 9), 1e-9);
}

/*
 * dn_stats_paired_ar1 (issue 35, paired time blocks): 8 differences of
 * mean 0 that follow an AR(1) of lag-1 0.3.  The plain paired t's 95 %
 * interval covers 0 too seldom; allowed for the lag-1, at least 95 % of
 * the time; with no autocorrelation the allowance changes nothing.
 */
static void
paired_ar1_coverage(void **state)
{
	struct dn_paired	 pt;
	uint64_t		 rng = 11;
	double			 d[8], x;
	int			 i, j, plain = 0, allowed = 0;

	(void)state;
	for (i = 0; i < 4000; i++) {
		x = dn_rand_gauss(&rng) / sqrt(1 - 0.09);
		for (j = 0; j < 8; j++) {
			d[j] = x;
			x = 0.3 * x + dn_rand_gauss(&rng);
		}
		assert_int_equal(dn_stats_paired_t(d, 8, 0.95, &pt), 0);
		plain += pt.lo <= 0 && pt.hi >= 0;
		dn_stats_paired_ar1(&pt, 8, 0.3, 0.95);
		allowed += pt.lo <= 0 && pt.hi >= 0;
		NEAR(pt.df, 8 / (1.3 / 0.7) - 1, 1e-9);
	}
	print_message("AR(1) 0.3, 8 differences: 95 %% interval covers 0 "
	    "%.3f plain, %.3f allowed for\n", plain / 4000.0,
	    allowed / 4000.0);
	assert_true(allowed / 4000.0 >= 0.945);
	assert_true(plain / 4000.0 < allowed / 4000.0 - 0.03);
	/* no lag-1, no change */
	for (j = 0; j < 8; j++)
		d[j] = dn_rand_gauss(&rng);
	dn_stats_paired_t(d, 8, 0.95, &pt);
	x = pt.se;
	dn_stats_paired_ar1(&pt, 8, 0, 0.95);
	assert_true(pt.se == x && pt.df == 7);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(basics),
		cmocka_unit_test(mwu_exact_reference),
		cmocka_unit_test(mwu_normal_ties),
		cmocka_unit_test(mwu_min_p),
		cmocka_unit_test(holm_reference),
		cmocka_unit_test(welch_reference),
		cmocka_unit_test(mwu_clustered_design_effect),
		cmocka_unit_test(bootstrap_contains_truth),
		cmocka_unit_test(quantiles_reference),
		cmocka_unit_test(quantiles_inplace_match),
		cmocka_unit_test(mde_power_simulated),
		cmocka_unit_test(paired_ar1_coverage),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
