/*
 * stats-paired.c: the paired t-test and its power (see stats.h and
 * docs/statistics.md, "Paired by slot"): for observations that come in
 * pairs sharing a common noise (A and B of one concurrent slot), the
 * test of the mean of the per-pair differences, its interval, the two
 * one-sided tests of equivalence, and the minimum detectable shift by
 * simulation.  Not here: what is paired with what (orchestrator/verdict/
 * compare-paired.c).
 */
#include <math.h>
#include <stdlib.h>

#include "rng.h"
#include "stats.h"
#include "xalloc.h"

int
dn_stats_paired_t(const double *d, size_t n, double conf,
    struct dn_paired *r)
{
	double	s = 0, tc;
	size_t	i;

	r->mean = r->sd = r->se = r->t = r->df = r->p = NAN;
	r->lo = r->hi = NAN;
	if (n < 2)
		return (-1);
	r->mean = dn_stats_mean(d, n);
	for (i = 0; i < n; i++)
		s += (d[i] - r->mean) * (d[i] - r->mean);
	r->sd = sqrt(s / (double)(n - 1));
	r->se = r->sd / sqrt((double)n);
	r->df = (double)(n - 1);
	if (!(r->se > 0)) {
		/* Every pair moved alike: no spread to scale by.  The exact
		 * sign test's floor is the evidence there is, 2 / 2^n for n
		 * pairs of one sign; none when there is no difference. */
		r->p = r->mean == 0 ? 1 : ldexp(1, 1 - (int)n);
		r->lo = r->hi = r->mean;
		return (0);
	}
	r->t = r->mean / r->se;
	r->p = dn_stats_t_p2(r->t, r->df);
	tc = dn_stats_t_crit(1 - conf, r->df);
	r->lo = r->mean - tc * r->se;
	r->hi = r->mean + tc * r->se;
	return (0);
}

void
dn_stats_paired_ar1(struct dn_paired *r, size_t n, double r1, double conf)
{
	double	f, tc;

	if (!(r1 > 0 && r1 < 1) || !(r->se > 0) || n < 2)
		return;
	f = (1 + r1) / (1 - r1);
	r->sd *= sqrt(f);
	r->se *= sqrt(f);
	r->df = fmax(1.0, (double)n / f - 1);
	r->t = r->mean / r->se;
	r->p = dn_stats_t_p2(r->t, r->df);
	tc = dn_stats_t_crit(1 - conf, r->df);
	r->lo = r->mean - tc * r->se;
	r->hi = r->mean + tc * r->se;
}

/* One-sided p of "the mean is above LO" (ABOVE) or below it. */
static double
one_sided(const struct dn_paired *r, double edge, int above)
{
	double	t, p2;

	if (!(r->se > 0))
		return ((above ? r->mean > edge : r->mean < edge) ?
		    ldexp(1, -(int)(r->df + 1)) : 1);
	t = (r->mean - edge) / r->se;
	if (!above)
		t = -t;
	p2 = dn_stats_t_p2(fabs(t), r->df);
	return (t > 0 ? p2 / 2 : 1 - p2 / 2);
}

double
dn_stats_paired_equivalence_p(const struct dn_paired *r, double lo,
    double hi)
{
	if (isnan(r->mean) || !(hi > lo))
		return (NAN);
	return (fmax(one_sided(r, lo, 1), one_sided(r, hi, 0)));
}

/* Fraction of the simulated sets (means M, standard errors SE) whose
 * |mean + SHIFT| exceeds TC standard errors. */
static double
paired_sim_power(const double *m, const double *se, int iters, double tc,
    double shift)
{
	int	i, hits = 0;

	for (i = 0; i < iters; i++)
		hits += fabs(m[i] + shift) > tc * se[i];
	return ((double)hits / iters);
}

double
dn_stats_mde_paired(size_t n, double alpha, double power, int iters,
    uint64_t seed)
{
	double		*m, *se, tc, lo = 0, hi = 1, mid;
	uint64_t	 rng = seed;
	size_t		 j;
	int		 i;

	if (n < 2 || iters <= 0 || !(power > 0 && power < 1) ||
	    !(alpha > 0 && alpha < 1))
		return (NAN);
	tc = dn_stats_t_crit(alpha, (double)(n - 1));
	m = dn_xreallocarray(NULL, iters, sizeof(double));
	se = dn_xreallocarray(NULL, iters, sizeof(double));
	/* The sets' means and spreads do not depend on the shift: the same
	 * sets at every shift, bisected (power grows with it). */
	for (i = 0; i < iters; i++) {
		double	x, s = 0, ss = 0;

		for (j = 0; j < n; j++) {
			x = dn_rand_gauss(&rng);
			s += x;
			ss += x * x;
		}
		m[i] = s / (double)n;
		se[i] = sqrt(fmax(0, (ss - s * s / (double)n) /
		    (double)(n - 1)) / (double)n);
	}
	while (paired_sim_power(m, se, iters, tc, hi) < power && hi < 1e9)
		hi *= 2;
	for (i = 0; i < 50; i++) {
		mid = (lo + hi) / 2;
		if (paired_sim_power(m, se, iters, tc, mid) < power)
			lo = mid;
		else
			hi = mid;
	}
	free(m);
	free(se);
	return (hi);
}
