/*
 * test-paired-sim.c: the paired design of a concurrent comparison
 * (orchestrator/verdict/compare-paired.c, issue 36) by seeded simulation,
 * beside test-cuped-sim.c.  Each slot runs A and B at the same time, so
 * both share the slot's luck: log value = slot factor (20 % between
 * slots) + each side's own noise (3 %) + B's effect.  A primary family
 * of 4 metrics; each group decided twice on the same data, through the
 * real compare_row_test / compare_equivalence_p / compare_row_power (the
 * independent design: two samples, Welch) and compare_paired_row /
 * compare_paired_power (the paired t on the slots' log(B / A)), both
 * through compare_family_decide:
 *
 *  - A/A: the share of groups with any better/worse stays at or below
 *    alpha, paired (and independent);
 *  - the MDE of the paired design is less than half the independent
 *    one's, and a 10 % worsening is called worse far more often;
 *  - no shared slot factor (each side's luck its own): the paired test
 *    stays honest (A/A at or below alpha); it gains nothing then.
 *
 * At 4, 6 and 8 slots.  DN_VERDICT_SIM_REPS=N for more groups (default
 * 200; docs/statistics.md quotes 1000).
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
#define NMAX	8

static const size_t	ns[] = { 4, 6, 8 };
#define NNS	(sizeof(ns) / sizeof(ns[0]))

/* groups per cell: 200, or DN_VERDICT_SIM_REPS */
static int
reps(void)
{
	return (sim_reps("DN_VERDICT_SIM_REPS", 200));
}

/* The model: slot factor SLOT shared by A and B when SHARED (else each
 * side draws its own), each side's own noise OWN, B's metric 0 moved by
 * EFFECT (all in log units). */
struct model {
	double	slot, own, effect;
	int	shared;
};

struct tally {
	int	moved[2];	/* groups with a better/worse: indep, paired */
	int	hit[2];		/* metric 0 called worse */
	double	mde[2];		/* metric 0's MDE, summed */
	int	groups;
	/* the simulated power figures, kept over the groups of one count */
	struct compare_power_cache pc[2];
};

/* Decide the FAMILY metrics of VA/VB at N slots in the independent
 * design (PAIRED 0) or paired by slot (1). */
static void
decide(double va[][NMAX], double vb[][NMAX], size_t n, int paired,
    struct tally *t)
{
	struct obs			oa[FAMILY], ob[FAMILY];
	struct compare_row		rows[FAMILY];
	size_t				k;
	int				moved = 0;

	for (k = 0; k < FAMILY; k++) {
		memset(&oa[k], 0, sizeof(oa[k]));
		memset(&ob[k], 0, sizeof(ob[k]));
		oa[k].trial_v = va[k];
		ob[k].trial_v = vb[k];
		oa[k].ntrial = ob[k].ntrial = n;
		memset(&rows[k], 0, sizeof(rows[k]));
		rows[k].name = "m";
		rows[k].unit = "u";
		rows[k].better = "lower";
		if (paired) {
			assert_int_equal(compare_paired_row(&rows[k], va[k],
			    vb[k], n, TH_PCT), 0);
			assert_string_equal(rows[k].design, "paired");
			continue;
		}
		compare_row_test(&rows[k], &oa[k], &ob[k],
		    COMPARE_UNIT_TRIAL, FAMILY);
		rows[k].p_eq_raw = compare_equivalence_p(va[k], n, vb[k], n,
		    TH_PCT, 1);
	}
	compare_family_decide(rows, FAMILY, TH_PCT);
	if (paired)
		compare_paired_power(&rows[0], va[0], vb[0], n, TH_PCT, 0,
		    &t->pc[1]);
	else
		compare_row_power(&rows[0], &oa[0], &ob[0],
		    COMPARE_UNIT_TRIAL, FAMILY, TH_PCT, 0, &t->pc[0]);
	for (k = 0; k < FAMILY; k++)
		moved |= strcmp(rows[k].verdict, "better") == 0 ||
		    strcmp(rows[k].verdict, "worse") == 0;
	t->moved[paired] += moved;
	t->hit[paired] += strcmp(rows[0].verdict, "worse") == 0;
	t->mde[paired] += rows[0].mde_pct;
}

static void
group(size_t n, const struct model *m, uint64_t *rng, struct tally *t)
{
	double	va[FAMILY][NMAX], vb[FAMILY][NMAX];
	size_t	k, i;

	for (k = 0; k < FAMILY; k++) {
		for (i = 0; i < n; i++) {
			double	ca = m->slot * dn_rand_gauss(rng);
			double	cb = m->shared ? ca : m->slot *
				    dn_rand_gauss(rng);
			double	e = k == 0 ? m->effect : 0;

			va[k][i] = 100 * exp(ca + m->own * dn_rand_gauss(rng));
			vb[k][i] = 100 * exp(cb + e + m->own *
			    dn_rand_gauss(rng));
		}
	}
	decide(va, vb, n, 0, t);
	decide(va, vb, n, 1, t);
	t->groups++;
}

static struct tally
run(size_t n, const struct model *m, uint64_t seed)
{
	struct tally	t;
	uint64_t	rng = seed;
	int		r, nr = reps();

	memset(&t, 0, sizeof(t));
	t.pc[0].alpha = t.pc[1].alpha = COMPARE_ALPHA / FAMILY;
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
	    "independent, paired; mean MDE independent, paired\n", what,
	    FAMILY, reps());
	for (i = 0; i < NNS; i++) {
		struct tally	t = run(ns[i], m, seed + i);
		double		f0 = (double)t.moved[0] / t.groups;
		double		f1 = (double)t.moved[1] / t.groups;

		print_message("  %zu slots  %.3f  %.3f  %.1f%%  %.1f%%\n",
		    ns[i], f0, f1, t.mde[0] / t.groups, t.mde[1] / t.groups);
		assert_true(f1 <= COMPARE_ALPHA + slack(COMPARE_ALPHA,
		    t.groups));
		assert_true(f0 <= COMPARE_ALPHA + slack(COMPARE_ALPHA,
		    t.groups));
		if (m->shared)
			assert_true(t.mde[1] < t.mde[0] / 2);
		moved += t.moved[1];
		groups += t.groups;
	}
	/* over the three slot counts, tighter: 2 standard errors */
	print_message("  all   paired %.3f\n", (double)moved / groups);
	assert_true((double)moved / groups <= COMPARE_ALPHA + 2.0 / 3 *
	    slack(COMPARE_ALPHA, groups));
}

/* A/A, the slot's luck shared: honest, and a far smaller MDE. */
static void
aa_shared(void **state)
{
	struct model	m = { 0.20, 0.03, 0, 1 };

	(void)state;
	aa_model(&m, "slot factor shared (20 %, own 3 %)", 171);
}

/* A/A, no shared luck: the paired test stays honest. */
static void
aa_unshared(void **state)
{
	struct model	m = { 0.20, 0.03, 0, 0 };

	(void)state;
	aa_model(&m, "no shared slot factor", 181);
}

/* B 10 % worse: called worse far more often paired. */
static void
power(void **state)
{
	struct model	m = { 0.20, 0.03, log(1.10), 1 };
	size_t		i;

	(void)state;
	print_message("10%% worse, slot factor shared: called worse "
	    "independent, paired\n");
	for (i = 0; i < NNS; i++) {
		struct tally	t = run(ns[i], &m, 191 + i);
		double		p0 = (double)t.hit[0] / t.groups;
		double		p1 = (double)t.hit[1] / t.groups;

		print_message("  %zu slots  %.3f  %.3f\n", ns[i], p0, p1);
		assert_true(p1 >= p0 + 0.3);
	}
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(aa_shared),
		cmocka_unit_test(aa_unshared),
		cmocka_unit_test(power),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
