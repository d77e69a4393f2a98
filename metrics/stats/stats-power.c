/*
 * stats-power.c: power and minimum detectable effects (see stats.h and
 * docs/statistics.md, section 4), split from stats.c at its 800 lines.
 */
#include <math.h>
#include <stdlib.h>

#include "rng.h"
#include "stats.h"
#include "stats-internal.h"
#include "xalloc.h"

/*
 * Power and minimum detectable effects (docs/statistics.md, section 4).
 * Both tests are calibrated by simulation rather than by a textbook
 * formula: at 2-6 trials per side the noncentral-t approximation of
 * Welch's power is far too optimistic (its df are estimated too), and the
 * exact rank test's power is a step function of its few attainable p.
 */

double
dn_stats_norm_quantile(double p)
{
	double	lo = -40, hi = 40, mid;
	int	i;

	if (!(p > 0 && p < 1))
		return (p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN);
	/* Bisection on the CDF: called a handful of times per comparison,
	 * and exact to the last bit after 100 halvings of [-40, 40]. */
	for (i = 0; i < 100; i++) {
		mid = (lo + hi) / 2;
		if (0.5 * erfc(-mid / M_SQRT2) < p)
			lo = mid;
		else
			hi = mid;
	}
	return ((lo + hi) / 2);
}

double
dn_stats_t_crit(double alpha, double df)
{
	double	lo = 0, hi = 1, mid;
	int	i;

	if (!(alpha > 0 && alpha < 1) || !(df > 0))
		return (NAN);
	while (dn_stats_t_p2(hi, df) > alpha) {
		hi *= 2;
		if (hi > 1e15)
			return (INFINITY);
	}
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		mid = (lo + hi) / 2;
		if (dn_stats_t_p2(mid, df) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return ((lo + hi) / 2);
}

static double
gauss01(uint64_t *st)
{
	double	u = dn_rand01(st), v = dn_rand01(st);

	return (sqrt(-2.0 * log(u + 1e-300)) * cos(2.0 * M_PI * v));
}

/*
 * Critical values of Welch's t on a grid of degrees of freedom: the
 * simulated sets' df lie between min(na, nb) - 1 and na + nb - 2, and
 * inverting the t distribution for each set would cost more than all the
 * rest.  Linear in log(df), where t_crit is smooth.
 */
#define TC_GRID	65
struct tc_grid {
	double	lo, hi;
	double	tc[TC_GRID];
};

static void
tc_grid_init(struct tc_grid *g, double alpha, double lo, double hi)
{
	int	i;

	g->lo = log(lo);
	g->hi = log(hi);
	for (i = 0; i < TC_GRID; i++)
		g->tc[i] = dn_stats_t_crit(alpha, exp(g->lo + (g->hi - g->lo) *
		    i / (TC_GRID - 1)));
}

static double
tc_grid_at(const struct tc_grid *g, double df)
{
	double	x;
	int	i;

	if (!(g->hi > g->lo))
		return (g->tc[0]);
	x = (log(df) - g->lo) / (g->hi - g->lo) * (TC_GRID - 1);
	if (!(x > 0))
		return (g->tc[0]);
	if (x >= TC_GRID - 1)
		return (g->tc[TC_GRID - 1]);
	i = (int)x;
	return (g->tc[i] + (x - i) * (g->tc[i + 1] - g->tc[i]));
}

/* Fraction of the simulated sets whose |difference + SHIFT| exceeds their
 * own critical distance. */
static double
welch_sim_power(const double *d, const double *c, int iters, double shift)
{
	int	i, hits = 0;

	for (i = 0; i < iters; i++)
		hits += fabs(d[i] + shift) > c[i];
	return ((double)hits / iters);
}

double
dn_stats_mde_welch(double sa, size_t na, double sb, size_t nb, double alpha,
    double power, int iters, uint64_t seed)
{
	struct tc_grid	 g;
	double		*d, *c, *x, lo = 0, hi, mid;
	uint64_t	 rng = seed;
	size_t		 j;
	int		 i;

	if (na < 2 || nb < 2 || iters <= 0 || !(power > 0 && power < 1) ||
	    !(alpha > 0 && alpha < 1) || !(sa >= 0 && sb >= 0) ||
	    !(sa > 0 || sb > 0) || isinf(sa) || isinf(sb))
		return (NAN);
	tc_grid_init(&g, alpha, fmin(na, nb) - 1, na + nb - 2);
	d = dn_xreallocarray(NULL, iters, sizeof(double));
	c = dn_xreallocarray(NULL, iters, sizeof(double));
	x = dn_xreallocarray(NULL, na + nb, sizeof(double));
	/*
	 * Per simulated set: the noise part of the difference of means, and
	 * the distance it must exceed, t_crit(df) * se.  Both depend on the
	 * set's own spread, not on the shift, so the shift is bisected over
	 * the same sets (and power grows with it).
	 */
	for (i = 0; i < iters; i++) {
		double	ma = 0, mb = 0, va = 0, vb = 0, df;

		for (j = 0; j < na + nb; j++)
			x[j] = gauss01(&rng) * (j < na ? sa : sb);
		for (j = 0; j < na; j++)
			ma += x[j] / na;
		for (j = na; j < na + nb; j++)
			mb += x[j] / nb;
		for (j = 0; j < na; j++)
			va += (x[j] - ma) * (x[j] - ma) / (na - 1) / na;
		for (j = na; j < na + nb; j++)
			vb += (x[j] - mb) * (x[j] - mb) / (nb - 1) / nb;
		df = (va + vb) * (va + vb) / (va * va / (na - 1) +
		    vb * vb / (nb - 1));
		d[i] = mb - ma;
		c[i] = tc_grid_at(&g, df) * sqrt(va + vb);
	}
	free(x);
	hi = (sa + sb) / 2;
	while (welch_sim_power(d, c, iters, hi) < power && hi < 1e9 *
	    (sa + sb))
		hi *= 2;
	for (i = 0; i < 24; i++) {
		mid = (lo + hi) / 2;
		if (welch_sim_power(d, c, iters, mid) < power)
			lo = mid;
		else
			hi = mid;
	}
	free(d);
	free(c);
	return (hi);
}

/* Fraction of the simulated sets that reject at shift D: U counts the
 * pairs with x > y + D, walking the sorted samples together. */
static double
mwu_sim_power(const double *x, size_t na, const double *y, size_t nb,
    int iters, double thr, double d)
{
	int	it, hits = 0;

	for (it = 0; it < iters; it++) {
		const double	*xs = x + (size_t)it * na;
		const double	*ys = y + (size_t)it * nb;
		double		 u = 0;
		size_t		 j, k = 0;

		for (j = 0; j < na; j++) {
			while (k < nb && ys[k] + d < xs[j])
				k++;
			u += k;
		}
		hits += u < thr || u > (double)na * nb - thr;
	}
	return ((double)hits / iters);
}

double
dn_stats_mde_mwu(size_t na, size_t nb, double alpha, double power, int iters,
    uint64_t seed)
{
	double		*x, *y, thr, lo = 0, hi = 0.5, mid;
	double		 z = dn_stats_norm_quantile(1 - alpha / 2);
	uint64_t	 rng = seed;
	size_t		 i;
	int		 k;

	if (na == 0 || nb == 0 || iters <= 0 || !(power > 0 && power < 1) ||
	    !(alpha > 0 && alpha < 1))
		return (NAN);
	if (na <= DN_MWU_EXACT_MAX && nb <= DN_MWU_EXACT_MAX) {
		double	 total, cum = 0, *c = dn_stats_mwu_dist(na, nb, &total);
		size_t	 u;

		/* The exact test rejects at U <= u when 2 P(U <= u) < alpha
		 * (and symmetrically at the top). */
		thr = 0;
		for (u = 0; u <= na * nb / 2; u++) {
			cum += c[u];
			if (2 * cum / total >= alpha)
				break;
			thr = u + 0.5;
		}
		free(c);
		if (thr == 0)
			return (INFINITY);
	} else {
		if ((na + nb) * (size_t)iters > 4000000)
			return (sqrt(M_PI / 3) * (z +
			    dn_stats_norm_quantile(power)) *
			    sqrt(1.0 / na + 1.0 / nb));
		/* The normal approximation with continuity correction. */
		thr = na * nb / 2.0 - 0.5 - z * sqrt(na * nb *
		    (na + nb + 1) / 12.0);
		if (thr <= 0)
			return (INFINITY);
	}
	x = dn_xreallocarray(NULL, na * (size_t)iters, sizeof(double));
	y = dn_xreallocarray(NULL, nb * (size_t)iters, sizeof(double));
	for (k = 0; k < iters; k++) {
		for (i = 0; i < na; i++)
			x[(size_t)k * na + i] = gauss01(&rng);
		for (i = 0; i < nb; i++)
			y[(size_t)k * nb + i] = gauss01(&rng);
		qsort(x + (size_t)k * na, na, sizeof(double), dn_stats_dbl_cmp);
		qsort(y + (size_t)k * nb, nb, sizeof(double), dn_stats_dbl_cmp);
	}
	/* The same simulated sets at every shift: power grows with it. */
	while (mwu_sim_power(x, na, y, nb, iters, thr, hi) < power &&
	    hi < 1e6)
		hi *= 2;
	for (k = 0; k < 24; k++) {	/* hi / 2^24: far below a printed digit */
		mid = (lo + hi) / 2;
		if (mwu_sim_power(x, na, y, nb, iters, thr, mid) < power)
			lo = mid;
		else
			hi = mid;
	}
	free(x);
	free(y);
	return (hi);
}
