/*
 * test-sequential.c: the group-sequential design of `devnet ab --until
 * decided` (orchestrator/verdict/sequential.c, docs/statistics.md
 * section 8): the Lan-DeMets O'Brien-Fleming boundaries against the
 * published values, repeated p-values against the boundaries, and by
 * seeded simulation of trial summaries (normal, looked at after every
 * ABBA block of 2 trials per side, Welch's t turned into z as the
 * analysis does): the false better/worse rate of A/A data under peeking
 * stays at alpha where the naive repeated test's inflates, a
 * non-inferiority claim at the margin keeps its level, and the trials to
 * a decision against the fixed design of the same power; and the
 * verdict words of a sequential group (compare-seq.c).  The tables
 * printed are those of docs/statistics.md; DN_SEQ_REPS overrides the
 * repetitions.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "verdict/sequential.h"
#include "stats.h"
#include "rng.h"
#include "store-testlib.h"

#define NEAR(a, b, eps)	assert_true(fabs((a) - (b)) <= (eps))
#define ALPHA		0.05
#define BLOCK		2	/* trials per side per look (ABBA) */
#define MAXN		(SEQ_MAX_LOOKS * BLOCK)

/* DFLT repetitions, or DN_SEQ_REPS */
static int
reps(int dflt)
{
	return (sim_reps("DN_SEQ_REPS", dflt));
}

static void
equal_looks(double *t, size_t k)
{
	size_t	i;

	for (i = 0; i < k; i++)
		t[i] = (double)(i + 1) / (double)k;
}

/* Jennison & Turnbull table 2.x / ldbounds: 5 equally spaced looks,
 * two-sided 0.05, O'Brien-Fleming-like spending. */
static void
obf_five_looks(void **state)
{
	static const double	want[5] = { 4.877, 3.357, 2.680, 2.290,
				    2.031 };
	double			t[5], c[5], c1[5];
	size_t			i;

	(void)state;
	equal_looks(t, 5);
	assert_int_equal(seq_bounds(t, 5, ALPHA, 2, c), 0);
	for (i = 0; i < 5; i++) {
		printf("look %zu: %.3f (want %.3f)\n", i + 1, c[i], want[i]);
		NEAR(c[i], want[i], 0.003);
	}
	/* One-sided 0.025 is the upper half of two-sided 0.05 (up to the
	 * negligible chance of crossing below first). */
	assert_int_equal(seq_bounds(t, 5, ALPHA / 2, 1, c1), 0);
	for (i = 0; i < 5; i++)
		NEAR(c1[i], c[i], 0.005);
	/* One look at t = 1 is the fixed test. */
	t[0] = 1;
	assert_int_equal(seq_bounds(t, 1, ALPHA, 2, c), 0);
	NEAR(c[0], 1.95996, 1e-4);
	assert_int_equal(seq_bounds(t, 1, ALPHA, 1, c), 0);
	NEAR(c[0], 1.64485, 1e-4);
	NEAR(seq_spent(ALPHA, 1, 2), ALPHA, 1e-12);
	NEAR(seq_spent(ALPHA, 0.5, 2), 2 * (2 - 2 * 0.5 * erfc(-2.2414 / sqrt(0.5) / M_SQRT2)), 1e-4);
	/* Looks that do not advance are refused. */
	t[0] = 0.5;
	t[1] = 0.5;
	assert_int_equal(seq_bounds(t, 2, ALPHA, 2, c), -1);
}

/* The repeated p of a look is below alpha exactly when the statistic
 * crosses that look's boundary at alpha. */
static void
repeated_p_matches_bounds(void **state)
{
	double	t[8], c[8], p;
	size_t	k;

	(void)state;
	equal_looks(t, 8);
	for (k = 1; k <= 8; k++) {
		assert_int_equal(seq_bounds(t, k, ALPHA, 2, c), 0);
		p = seq_repeated_p(t, k, c[k - 1] * 1.01, 2);
		assert_true(p < ALPHA);
		assert_true(p > ALPHA * 0.8);
		p = seq_repeated_p(t, k, c[k - 1] * 0.99, 2);
		assert_true(p > ALPHA);
		assert_true(p < ALPHA * 1.25);
		assert_true(seq_repeated_p(t, k, -c[k - 1] * 1.01, 2) <
		    ALPHA);
	}
	/* The last look at t = 1 of one look is the nominal p. */
	t[0] = 1;
	NEAR(seq_repeated_p(t, 1, 2.5758, 2), 0.01, 1e-4);
}

/* Welch's two-sided p of the first N values per side, as z. */
static double
look_z(const double *a, const double *b, size_t n)
{
	struct dn_welch	w;

	dn_stats_welch(a, n, b, n, &w);
	return (seq_z_of_p(w.p, 2));
}

/*
 * A/A under peeking after every block up to K looks: the share of
 * simulated groups ever called different, by the design's boundaries
 * and by the naive test at 0.05 every look.
 */
static void
aa_rates(size_t k, int nrep, uint64_t seed, double *seq, double *naive)
{
	double	t[SEQ_MAX_LOOKS], c[SEQ_MAX_LOOKS], a[MAXN], b[MAXN];
	int	r, ns = 0, nn = 0;
	size_t	i, j;

	equal_looks(t, k);
	assert_int_equal(seq_bounds(t, k, ALPHA, 2, c), 0);
	for (r = 0; r < nrep; r++) {
		int	hit_s = 0, hit_n = 0;

		for (j = 0; j < k * BLOCK; j++) {
			a[j] = 100 + dn_rand_gauss(&seed);
			b[j] = 100 + dn_rand_gauss(&seed);
		}
		for (i = 0; i < k && !(hit_s && hit_n); i++) {
			double	z = look_z(a, b, (i + 1) * BLOCK);

			hit_s |= z >= c[i];
			hit_n |= z >= seq_z_of_p(ALPHA, 2);
		}
		ns += hit_s;
		nn += hit_n;
	}
	*seq = (double)ns / nrep;
	*naive = (double)nn / nrep;
}

static void
aa_under_peeking(void **state)
{
	static const size_t	looks[] = { 5, 10, 20 };
	int			nrep = reps(4000);
	double			seq, naive, tol;
	size_t			i;

	(void)state;
	tol = 3 * sqrt(ALPHA * (1 - ALPHA) / nrep);
	printf("A/A, %d groups each, 2 trials per side per look, alpha "
	    "%.2f:\n| looks | sequential (OBF) | naive p < 0.05 every look "
	    "|\n|---|---|---|\n", nrep, ALPHA);
	for (i = 0; i < 3; i++) {
		aa_rates(looks[i], nrep, 1000 + i, &seq, &naive);
		printf("| %zu | %.3f | %.3f |\n", looks[i], seq, naive);
		assert_true(seq <= ALPHA + tol);
		assert_true(naive >= 2 * ALPHA);
	}
}

/*
 * Non-inferiority at the margin (the worst case of its null: B exactly
 * MARGIN worse): the share of groups ever called not-worse, one-sided
 * 0.05 with 10 looks, must stay at 0.05.
 */
static void
not_worse_keeps_level(void **state)
{
	double	t[10], c[10], a[20], b[20];
	int	nrep = reps(4000), r, hits = 0;
	size_t	i, j;
	uint64_t seed = 77;

	(void)state;
	equal_looks(t, 10);
	assert_int_equal(seq_bounds(t, 10, ALPHA, 1, c), 0);
	for (r = 0; r < nrep; r++) {
		for (j = 0; j < 20; j++) {
			a[j] = 100 + dn_rand_gauss(&seed);
			b[j] = 102 + dn_rand_gauss(&seed);	/* 2% worse */
		}
		for (i = 0; i < 10; i++) {
			double	p = seq_shift_p(a, (i + 1) * 2, b,
			    (i + 1) * 2, 1.02, 1);

			if (seq_z_of_p(p, 1) >= c[i]) {
				hits++;
				break;
			}
		}
	}
	printf("not-worse:2%% with B 2%% worse, 10 looks: claimed in "
	    "%.3f\n", (double)hits / nrep);
	assert_true((double)hits / nrep <= ALPHA + 3 * sqrt(ALPHA *
	    (1 - ALPHA) / nrep));
}

/* Welch's power at N per side for a shift of D SDs, simulated. */
static double
fixed_power(size_t n, double d, int nrep, uint64_t seed)
{
	double	a[MAXN], b[MAXN];
	int	r, hits = 0;
	size_t	j;

	for (r = 0; r < nrep; r++) {
		for (j = 0; j < n; j++) {
			a[j] = dn_rand_gauss(&seed);
			b[j] = d + dn_rand_gauss(&seed);
		}
		hits += look_z(a, b, n) >= seq_z_of_p(ALPHA, 2);
	}
	return ((double)hits / nrep);
}

/*
 * Effects of D trial SDs: the fixed design of power 0.8 (smallest even N
 * per side), and the sequential one with the same power (its maximum the
 * smallest multiple of the block that reaches 0.8), its expected trials.
 */
static void
trials_to_decision(void **state)
{
	static const double	eff[] = { 0.5, 1, 2, 4 };
	double			t[SEQ_MAX_LOOKS], c[SEQ_MAX_LOOKS];
	double			a[MAXN], b[MAXN];
	int			nrep = reps(2000), r;
	size_t			i, j, k, n, nfix, nmax = 0;
	uint64_t		seed;

	(void)state;
	printf("| effect (SD) | fixed n per side | sequential max | power "
	    "| expected trials per side | saved |\n|---|---|---|---|---|---"
	    "|\n");
	for (i = 0; i < 4; i++) {
		double	pw = 0, asn = 0;

		for (nfix = 2; nfix < MAXN; nfix += 2)
			if (fixed_power(nfix, eff[i], nrep, 5) >= 0.8)
				break;
		for (nmax = nfix; nmax <= MAXN; nmax += BLOCK) {
			long	used = 0;
			int	hits = 0;

			k = nmax / BLOCK;
			equal_looks(t, k);
			assert_int_equal(seq_bounds(t, k, ALPHA, 2, c), 0);
			seed = 9;
			for (r = 0; r < nrep; r++) {
				for (j = 0; j < nmax; j++) {
					a[j] = dn_rand_gauss(&seed);
					b[j] = eff[i] + dn_rand_gauss(&seed);
				}
				for (n = 0; n < k; n++)
					if (look_z(a, b, (n + 1) * BLOCK) >=
					    c[n])
						break;
				hits += n < k;
				used += (long)((n < k ? n + 1 : k) * BLOCK);
			}
			pw = (double)hits / nrep;
			asn = (double)used / nrep;
			if (pw >= 0.8)
				break;
		}
		printf("| %.1f | %zu | %zu | %.2f | %.1f | %.0f%% |\n",
		    eff[i], nfix, nmax, pw, asn, 100 * (1 - asn / nfix));
		assert_true(pw >= 0.78);
		assert_true(nmax <= nfix + nfix / 4 + BLOCK);
		if (eff[i] <= 2)
			assert_true(asn < nfix);
	}
}

/*
 * The analysis of a sequential group (compare-seq.c) on hand-made trial
 * summaries, 8 per side looked at every 2: a 30 % drop is better with a
 * corrected p above the nominal one, a metric equal to 0.1 % is
 * equivalent (and not-worse by 5 %), a noisy one undecided with the
 * trials it would take beyond the design (futile).
 */
static void
group_verdicts(void **state)
{
	double			 va[3][8], vb[3][8];
	struct obs		 oa[3], ob[3];
	struct compare_result	 r;
	struct compare_row	 rows[3];
	struct compare_seq	 q;
	struct compare_opts	 o;
	size_t			 rk[3] = { 0, 1, 2 }, i, j;
	uint64_t		 seed = 5;
	char			*cause = NULL;

	(void)state;
	for (j = 0; j < 8; j++) {
		va[0][j] = 100 + 0.5 * dn_rand_gauss(&seed);
		vb[0][j] = 70 + 0.5 * dn_rand_gauss(&seed);
		va[1][j] = 100 + 0.05 * dn_rand_gauss(&seed);
		vb[1][j] = 100 + 0.05 * dn_rand_gauss(&seed);
		va[2][j] = 100 + 20 * dn_rand_gauss(&seed);
		vb[2][j] = 100 + 20 * dn_rand_gauss(&seed);
	}
	memset(&r, 0, sizeof(r));
	memset(rows, 0, sizeof(rows));
	memset(oa, 0, sizeof(oa));
	memset(ob, 0, sizeof(ob));
	for (i = 0; i < 3; i++) {
		oa[i].trial_v = va[i];
		oa[i].ntrial = 8;
		ob[i].trial_v = vb[i];
		ob[i].ntrial = 8;
		rows[i].name = "m";
		rows[i].unit = "u";
		rows[i].better = "lower";
		compare_row_test(&rows[i], &oa[i], &ob[i], COMPARE_UNIT_TRIAL,
		    3);
	}
	r.rows = rows;
	r.nrows = 3;
	r.nprimary = 3;	/* all primary: the stopping rule looks at them */
	r.unit = COMPARE_UNIT_TRIAL;
	r.threshold_pct = 1;
	memset(&q, 0, sizeof(q));
	q.max_per_side = 8;
	for (j = 0; j < 4; j++)
		q.looks[q.nlooks++] = 2 * (j + 1);
	memset(&o, 0, sizeof(o));
	o.seq = &q;
	o.require_pct = 5;
	assert_int_equal(compare_seq_apply(NULL, &r, &o, rk, oa, ob, &cause),
	    0);
	printf("verdicts: %s (p %.3g, nominal %.3g), %s (p_eq %.3g), %s "
	    "(needs %ld)\n", rows[0].verdict, rows[0].p, rows[0].p_raw,
	    rows[1].verdict, rows[1].p_eq, rows[2].verdict,
	    rows[2].seq_needed);
	assert_string_equal(rows[0].verdict, "better");
	assert_true(rows[0].p < ALPHA && rows[0].p > rows[0].p_raw);
	assert_string_equal(rows[1].verdict, "equivalent");
	assert_true(rows[1].p_eq < ALPHA && rows[1].p_ni < ALPHA);
	assert_string_equal(rows[2].verdict, "undecided");
	assert_true(rows[2].futile);
	assert_true(rows[2].seq_needed < 0 || rows[2].seq_needed > 8);
	assert_false(r.all_decided);
	assert_true(r.all_futile);
	assert_non_null(r.seq);
	assert_false(r.seq_stored);
	free(r.seq);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(obf_five_looks),
		cmocka_unit_test(repeated_p_matches_bounds),
		cmocka_unit_test(aa_under_peeking),
		cmocka_unit_test(not_worse_keeps_level),
		cmocka_unit_test(trials_to_decision),
		cmocka_unit_test(group_verdicts),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
