/*
 * test-seq-paired-sim.c: the paired sequential design (compare-seq.c on
 * the slots of compare-paired.c, issue 36) by seeded simulation, beside
 * test-paired-sim.c and test-sequential.c.  Each slot runs A and B at
 * the same time and both share its luck: log value = slot factor (20 %
 * between slots) + each side's own noise (3 %) + B's effect.  One
 * primary metric, looked at after every block of 2 slots (as `devnet ab
 * --until decided` does) up to 6 per side, each look through the real
 * analysis: compare_row_test, compare_paired_apply (which finds the
 * slots from the runs' times, the rule compare uses) and
 * compare_seq_apply; a group stops when its metric is decided.  The
 * same simulated values are analysed twice: with runs that overlap
 * (concurrent: paired sequential) and with runs one after the other
 * (the independent sequential design, Welch's t at each look).
 *
 *  - A/A: the share of groups ever called better or worse stays at
 *    alpha (0.05 + 3 Monte Carlo SE), paired (the independent design's
 *    A/A is test-sequential.c's);
 *  - B 15 % worse: the paired design stops after fewer trials per side
 *    on average than the independent one, and calls it worse more often.
 *
 * DN_SEQ_PAIRED_REPS=N for more groups (default 200 A/A, a quarter of
 * them with the effect: each look redoes the repeated p-values of all
 * the looks before, so a group costs about 40 ms; docs/statistics.md
 * quotes 1000).
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

#define BLOCK	2	/* slots per look */
#define NMAX	6	/* slots (trials per side) at most */
#define SLOT	0.20	/* the slots' shared luck, log SD */
#define OWN	0.03	/* each side's own noise, log SD */

/* What one design did with one group: ever called better or worse,
 * called worse, and the trials per side it stopped at. */
struct outcome {
	int	moved, worse;
	size_t	trials;
};

/* One look at the first L slots of VA, VB, the runs overlapping by
 * slot when CONCURRENT (else one after the other); 1 when decided, the
 * verdict into *O. */
static int
look(const double *va, const double *vb, size_t l, int concurrent,
    struct outcome *o)
{
	struct compare_run	 ra[NMAX], rb[NMAX];
	struct compare_result	 r;
	struct compare_row	 row;
	struct compare_seq	 q;
	struct compare_opts	 opts;
	struct obs		 oa, ob;
	double			*raw[2] = { NULL, NULL };
	int			 node_c[NMAX], decided;
	size_t			 i, rk[1] = { 0 };
	char			*cause = NULL;

	memset(ra, 0, sizeof(ra));
	memset(rb, 0, sizeof(rb));
	for (i = 0; i < l; i++) {
		node_c[i] = (int)i;
		ra[i].id = (int64_t)(2 * i + 1);
		rb[i].id = (int64_t)(2 * i + 2);
		/* a slot of 100 s: both in it, or A then B */
		ra[i].start_ms = 1000000 + 200000 * (int64_t)i;
		ra[i].end_ms = ra[i].start_ms + 90000;
		rb[i].start_ms = ra[i].start_ms + (concurrent ? 0 : 100000);
		rb[i].end_ms = rb[i].start_ms + 90000;
	}
	memset(&oa, 0, sizeof(oa));
	memset(&ob, 0, sizeof(ob));
	oa.trial_v = (double *)va;
	ob.trial_v = (double *)vb;
	oa.ntrial = ob.ntrial = oa.nnode = ob.nnode = l;
	oa.node_c = ob.node_c = node_c;
	memset(&row, 0, sizeof(row));
	row.name = "m";
	row.unit = "u";
	row.better = "lower";
	row.primary = 1;
	compare_row_test(&row, &oa, &ob, COMPARE_UNIT_TRIAL, 1);
	memset(&r, 0, sizeof(r));
	r.a.runs = ra;
	r.b.runs = rb;
	r.a.nruns = r.b.nruns = l;
	r.rows = &row;
	r.nrows = r.nprimary = 1;
	r.unit = COMPARE_UNIT_TRIAL;
	r.threshold_pct = 1;
	memset(&q, 0, sizeof(q));
	q.max_per_side = NMAX;
	for (i = BLOCK; i <= l; i += BLOCK)
		q.looks[q.nlooks++] = i;
	memset(&opts, 0, sizeof(opts));
	opts.seq = &q;
	assert_int_equal(compare_paired_apply(NULL, &r, &opts, &oa, &ob, rk,
	    raw, &cause), 0);
	assert_int_equal(r.npairs, concurrent ? l : 0);
	assert_int_equal(compare_seq_apply(NULL, &r, &opts, rk, &oa, &ob,
	    &cause), 0);
	assert_string_equal(row.test, concurrent ? "paired-t-seq" :
	    "welch-seq");
	o->moved = strcmp(row.verdict, "better") == 0 ||
	    strcmp(row.verdict, "worse") == 0;
	o->worse = strcmp(row.verdict, "worse") == 0;
	o->trials = l;
	decided = r.all_decided;
	for (i = 0; i < r.nwarnings; i++)
		free(r.warnings[i]);
	free(r.warnings);
	free(r.pair_a);
	free(r.pair_b);
	free(r.unit_note);
	free(r.seq);
	return (decided);
}

/* One group of NMAX slots, B moved by EFFECT (log), through the
 * independent design (BOTH set) and the paired one, look by look until
 * decided. */
static void
group(double effect, int both, uint64_t *rng, struct outcome o[2])
{
	double	va[NMAX], vb[NMAX];
	size_t	i, l;
	int	c;

	for (i = 0; i < NMAX; i++) {
		double	s = SLOT * dn_rand_gauss(rng);

		va[i] = 100 * exp(s + OWN * dn_rand_gauss(rng));
		vb[i] = 100 * exp(s + effect + OWN * dn_rand_gauss(rng));
	}
	memset(o, 0, 2 * sizeof(*o));
	for (c = both ? 0 : 1; c < 2; c++)
		for (l = BLOCK; l <= NMAX; l += BLOCK)
			if (look(va, vb, l, c, &o[c]) || l == NMAX)
				break;
}

/* Share of N groups, and its Monte Carlo standard error near P. */
static double
se(double p, int n)
{
	return (sqrt(p * (1 - p) / n));
}

/* Tally NREP groups with EFFECT: moved, worse and trials per design
 * (the independent one only when BOTH). */
static void
run(double effect, int both, int nrep, uint64_t seed, int moved[2],
    int worse[2], double trials[2])
{
	struct outcome	o[2];
	uint64_t	rng = seed;
	int		r, c;

	for (c = 0; c < 2; c++) {
		moved[c] = worse[c] = 0;
		trials[c] = 0;
	}
	for (r = 0; r < nrep; r++) {
		group(effect, both, &rng, o);
		for (c = 0; c < 2; c++) {
			moved[c] += o[c].moved;
			worse[c] += o[c].worse;
			trials[c] += (double)o[c].trials;
		}
	}
	for (c = 0; c < 2; c++)
		trials[c] /= nrep;
}

/* A/A: ever called better or worse at most alpha, paired. */
static void
aa(void **state)
{
	int	nrep = sim_reps("DN_SEQ_PAIRED_REPS", 200), moved[2], worse[2];
	double	trials[2], f;

	(void)state;
	run(0, 0, nrep, 361, moved, worse, trials);
	f = (double)moved[1] / nrep;
	print_message("A/A, slot factor shared (%.0f %%, own %.0f %%), %d "
	    "groups, looks every %d slots up to %d: ever better/worse "
	    "paired %.3f (MC SE %.3f, bound %.3f); mean trials per side "
	    "%.1f\n", 100 * SLOT, 100 * OWN, nrep, BLOCK, NMAX, f,
	    se(COMPARE_ALPHA, nrep), COMPARE_ALPHA + 3 * se(COMPARE_ALPHA,
	    nrep), trials[1]);
	assert_true(f <= COMPARE_ALPHA + 3 * se(COMPARE_ALPHA, nrep));
}

/* B 15 % worse: the paired design stops sooner, and says worse more. */
static void
effect(void **state)
{
	int	nrep = (sim_reps("DN_SEQ_PAIRED_REPS", 200) + 3) / 4;
	int	moved[2], worse[2];
	double	trials[2];

	(void)state;
	run(log(1.15), 1, nrep, 367, moved, worse, trials);
	print_message("B 15 %% worse, %d groups: called worse independent "
	    "%.3f, paired %.3f; mean trials per side at the stop "
	    "independent %.1f, paired %.1f (at most %d)\n", nrep,
	    (double)worse[0] / nrep, (double)worse[1] / nrep, trials[0],
	    trials[1], NMAX);
	assert_true(trials[1] < trials[0] - 1);
	assert_true(worse[1] > worse[0] + nrep / 4);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(aa),
		cmocka_unit_test(effect),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
