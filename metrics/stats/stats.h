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
/* The NQ quantiles Q[] of X into OUT[], as dn_stats_quantile gives each,
 * without a sort: a linear-time select in place (X is reordered), for
 * callers that want quantiles of much data they own (the report's bands
 * per time bin). */
void	 dn_stats_quantiles_inplace(double *x, size_t n, const double *q,
	    double *out, size_t nq);
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
	double	deff;	/* design effect applied (1 = none) */
};
int	 dn_stats_mwu(const double *x, size_t nx, const double *y, size_t ny,
	    struct dn_mwu *r);
/*
 * Mann-Whitney U for clustered values (several nodes of one trial): CX / CY
 * give each value's cluster.  The variance of U under the null is
 * inflated by a design effect, MSB / MSW of a one-way ANOVA of the ranks
 * by cluster within each sample (so that an A/B difference does not count
 * as clustering), at least 1: an upper bound of 1 + (m - 1) ICC.  Always
 * the normal approximation.  With one cluster per sample the design
 * effect cannot be estimated and is 1.
 */
int	 dn_stats_mwu_clustered(const double *x, const int *cx, size_t nx,
	    const double *y, const int *cy, size_t ny, struct dn_mwu *r);

/* The smallest two-sided p the exact test can give for sizes NX, NY:
 * 2 / C(NX + NY, NX) (1 for an empty side).  With NX = NY = 2 it is 1/3:
 * no difference can ever be significant. */
double	 dn_stats_mwu_min_p(size_t nx, size_t ny);

/*
 * Welch's two-sample t-test, two-sided: T, its Welch-Satterthwaite degrees
 * of freedom DF and P.  Needs at least 2 values per sample; identical
 * values on both sides give p = 1; zero variance on both sides with
 * different means gives p = NAN (t is infinite only because the spread
 * estimate is 0: no evidence either way).  Returns -1 when a sample has
 * fewer than 2 values.
 */
struct dn_welch {
	double	t;
	double	df;
	double	p;
};
int	 dn_stats_welch(const double *x, size_t nx, const double *y,
	    size_t ny, struct dn_welch *r);
/* Two-sided p of Student's t with DF degrees of freedom at T. */
double	 dn_stats_t_p2(double t, double df);

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

/*
 * Power (docs/statistics.md, section 4).  The quantile of the standard
 * normal at P; the two-sided critical value of Student's t at level ALPHA
 * with DF degrees of freedom (P(|T| > t) = ALPHA).
 */
double	 dn_stats_norm_quantile(double p);
double	 dn_stats_t_crit(double alpha, double df);
/*
 * Minimum detectable difference of means for Welch's test at level ALPHA
 * and power POWER, for normal values with SDs SA, SB and NA, NB values per
 * side: the shift at which the test as dn_stats_welch runs it (df
 * estimated from each set) rejects in a fraction POWER of ITERS simulated
 * A/B sets (deterministic in SEED), in the values' unit.  NAN when a side
 * has fewer than 2 values or both SDs are 0.
 */
double	 dn_stats_mde_welch(double sa, size_t na, double sb, size_t nb,
	    double alpha, double power, int iters, uint64_t seed);
/*
 * Minimum detectable shift of the Mann-Whitney test as dn_stats_mwu runs
 * it (exact up to DN_MWU_EXACT_MAX values per side, normal approximation
 * above) at level ALPHA and power POWER, in units of the common SD, for
 * normal values: ITERS simulated A/B sets (deterministic in SEED), the
 * same sets at every shift, bisected on the shift.  INFINITY when no
 * outcome at these sizes reaches ALPHA (the exact test's floor,
 * dn_stats_mwu_min_p).  Very large sizes use the asymptotic relative
 * efficiency 3/pi instead of simulating.
 */
double	 dn_stats_mde_mwu(size_t na, size_t nb, double alpha, double power,
	    int iters, uint64_t seed);

/*
 * The paired t-test (stats-paired.c): on the N per-pair differences D
 * (B - A, or log(B / A)), their MEAN, SD, the standard error SE, T with
 * DF = N - 1 and the two-sided P, and the central interval [LO, HI] of
 * the mean at coverage CONF.  Every difference equal: P is the exact
 * sign test's floor, 2 / 2^N (1 when they are 0), and the interval is
 * the one value.  Returns -1 below 2 pairs (all NAN).
 */
struct dn_paired {
	double	mean, sd, se, t, df, p;
	double	lo, hi;
};
int	 dn_stats_paired_t(const double *d, size_t n, double conf,
	    struct dn_paired *r);
/* R (of N differences) allowed for a lag-1 autocorrelation R1 > 0 of
 * the differences (AR(1)): the variance of their mean inflated by
 * (1 + R1) / (1 - R1), as SD (what an MDE scales), the degrees of
 * freedom those of the effective count N (1 - R1) / (1 + R1), at least
 * 1; t, p and the CONF interval again.  R untouched for R1 <= 0 or no
 * spread. */
void	 dn_stats_paired_ar1(struct dn_paired *r, size_t n, double r1,
	    double conf);
/* Equivalence of R's mean to the band (LO, HI): the larger of the two
 * one-sided paired t-tests' p; NAN without a test or a band. */
double	 dn_stats_paired_equivalence_p(const struct dn_paired *r, double lo,
	    double hi);
/*
 * Minimum detectable mean difference of the paired t-test at level ALPHA
 * and power POWER with N pairs, in units of the differences' SD: the
 * shift at which the test (its SD estimated from each set) rejects in a
 * fraction POWER of ITERS simulated sets of N normal differences
 * (deterministic in SEED).  NAN below 2 pairs.
 */
double	 dn_stats_mde_paired(size_t n, double alpha, double power, int iters,
	    uint64_t seed);

#endif
