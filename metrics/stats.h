/*
 * stats.h: the statistics behind `devnet compare` (docs/statistics.md).
 * Pure functions over arrays of doubles: no I/O, no sqlite, no metric
 * knowledge.  Inputs are never modified (functions copy what they sort).
 * Empty inputs give NAN where a value is undefined.
 */
#ifndef DN_STATS_H
#define DN_STATS_H

#include <stddef.h>
#include <stdint.h>

double	 dn_stats_mean(const double *x, size_t n);
double	 dn_stats_max(const double *x, size_t n);
double	 dn_stats_median(const double *x, size_t n);
/* Quantile Q in [0, 1], linear interpolation between order statistics
 * (R's type 7, numpy's default). */
double	 dn_stats_quantile(const double *x, size_t n, double q);
/* Least-squares slope of Y over T (dY per unit of T); NAN if n < 2 or T
 * is constant. */
double	 dn_stats_slope(const double *t, const double *y, size_t n);

/*
 * Mann-Whitney U test, two-sided.  Exact null distribution when there are
 * no ties and both samples have at most DN_MWU_EXACT_MAX values; normal
 * approximation with tie and continuity correction otherwise.  U is the
 * statistic of X (number of pairs with x > y, ties counting one half).
 * Returns -1 when either sample is empty.
 */
#define DN_MWU_EXACT_MAX	30
struct dn_mwu {
	double	u;
	double	p;
	int	exact;
};
int	 dn_stats_mwu(const double *x, size_t nx, const double *y, size_t ny,
	    struct dn_mwu *r);
/* The smallest two-sided p the exact test can give for sizes NX, NY:
 * 2 / C(NX + NY, NX) (1 for an empty side).  With NX = NY = 2 it is 1/3:
 * no difference can ever be significant. */
double	 dn_stats_mwu_min_p(size_t nx, size_t ny);

/* Holm step-down adjustment of N p-values into ADJ (monotone, capped at
 * 1; ADJ may equal P).  NAN entries are left out of the family and stay
 * NAN. */
void	 dn_stats_holm(const double *p, size_t n, double *adj);

/*
 * Percentile bootstrap of the medians of A and B and of the relative
 * difference of medians, 100 * (median(B) / median(A) - 1) percent.
 * CA / CB give each value's cluster (a trial) or are NULL (every value its
 * own cluster): a resample draws clusters with replacement, then values
 * with replacement inside each drawn cluster (two-stage), so that values
 * that share a trial are not treated as independent.  ITERS resamples,
 * deterministic in SEED, central interval of coverage CONF (e.g. 0.95).
 * The difference interval is NAN when a resampled median of A is 0.
 */
struct dn_boot {
	double	a_lo, a_hi;
	double	b_lo, b_hi;
	double	d_lo, d_hi;
};
int	 dn_stats_bootstrap(const double *a, const int *ca, size_t na,
	    const double *b, const int *cb, size_t nb, int iters,
	    uint64_t seed, double conf, struct dn_boot *out);

#endif
