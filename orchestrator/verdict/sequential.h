/*
 * sequential.h: the group-sequential design behind `devnet ab --until
 * decided` (docs/statistics.md, section 8): Lan-DeMets alpha spending
 * with the O'Brien-Fleming-like function, boundaries by numerical
 * integration of the recursive density of the score process over the
 * looks (Jennison & Turnbull, "Group Sequential Methods", ch. 19), and
 * repeated p-values, which keep their level however many looks were
 * taken.  Pure arithmetic: no store, no I/O.
 */
#ifndef DN_SEQUENTIAL_H
#define DN_SEQUENTIAL_H

#include <stddef.h>

#define SEQ_MAX_LOOKS	64

/*
 * Alpha spent by information fraction T (0 < T, capped at 1) under the
 * Lan-DeMets O'Brien-Fleming-like spending function of level ALPHA:
 * one-sided (SIDES 1) 2 - 2 Phi(z_{1-alpha/2} / sqrt(t)); two-sided
 * (SIDES 2) each tail spends that at level ALPHA/2, so the sum is
 * 2 (2 - 2 Phi(z_{1-alpha/4} / sqrt(t))).  ALPHA at T = 1.
 */
double	 seq_spent(double alpha, double t, int sides);

/*
 * Critical values C[0..K-1] on the z scale for the looks at information
 * fractions T[0..K-1] (increasing, in (0, 1]), level ALPHA, SIDES 1
 * (reject when Z >= c) or 2 (when |Z| >= c): each look spends what the
 * spending function adds since the previous one.  0, or -1 for bad
 * arguments (K 0 or above SEQ_MAX_LOOKS, T not increasing).
 */
int	 seq_bounds(const double *t, size_t k, double alpha, int sides,
	    double *c);

/*
 * The repeated p-value of the last look (K-th, at T[K-1]) for the
 * statistic Z there: the smallest level whose boundary at that look Z
 * crosses (SIDES 2: |Z|; SIDES 1: Z).  The running minimum over the
 * looks of a hypothesis is a valid p-value under any stopping rule.
 * In [0, 1]; accurate to about 0.5% of its value.
 */
double	 seq_repeated_p(const double *t, size_t k, double z, int sides);

/* The z of a nominal p: two-sided (|z| whose two-sided p is P) or
 * one-sided (z whose upper tail is P).  P 0 gives 40. */
double	 seq_z_of_p(double p, int sides);

/*
 * One-sided Welch test of a shifted difference, for non-inferiority and
 * the two one-sided tests of equivalence: H1 is SIGN * (KA * mean(A) -
 * mean(B)) > 0 (KA = 1 + margin, SIGN 1: B below (1 + margin) times A).
 * The p of that H1 (small: shown), df Welch-Satterthwaite with A's
 * variance scaled by KA^2.  Zero spread on both sides: the exact rank
 * test's one-sided floor 1 / C(NA + NB, NA) when the difference points to
 * H1, else 1.  NAN with fewer than 2 values on a side.
 */
double	 seq_shift_p(const double *a, size_t na, const double *b, size_t nb,
	    double ka, int sign);
/* The same with values that move together in clusters (the nodes of a
 * trial): each side's variance of the mean times DEFF, the design
 * effect, and the degrees of freedom of the effective counts N / DEFF
 * (DEFF 1: seq_shift_p). */
double	 seq_shift_p_deff(const double *a, size_t na, const double *b,
	    size_t nb, double ka, int sign, double deff);

#endif
