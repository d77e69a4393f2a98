/*
 * changepoint.h: change points in a series of measurements (a metric over
 * builds, in commit order), for `devnet history`.  Pure computation over
 * an array of doubles: no I/O, no sqlite, no knowledge of runs, commits or
 * metrics; the caller maps an index back to its run.  Deterministic: no
 * permutations, no randomness.
 *
 * The method is Hunter's (datastax-labs/hunter, now Apache Otava):
 *
 * 1. Split: E-divisive means (Matteson and James 2014, energy statistic
 *    with alpha = 1), applied hierarchically.  In each segment [S, E)
 *    between the change points found so far, the candidate is the split
 *    TAU with the largest q-hat of [S, TAU) against [TAU, E), both sides
 *    at least MIN_SIZE long; the segment with the largest q-hat is split
 *    when Student's t-test between its two sides gives p < 10 * MAX_P
 *    (Hunter splits at ten times the final threshold, then prunes), else
 *    that segment is done.
 *    With SEARCH_KAPPA the right-hand side is [TAU, KAPPA) and KAPPA is
 *    searched too, as in the paper, and the t-test is between [S, TAU)
 *    and [TAU, KAPPA).  That finds changes that alternate (A B A B ...),
 *    where no split into [S, TAU) and [TAU, E) is significant, at the
 *    price of more false change points in long flat series: measured on
 *    Gaussian noise, 500 series each, 60 / 120 / 240 points had at least
 *    one change point in 3 / 4 / 4 % of the series by default and in
 *    4 / 11 / 23 % with SEARCH_KAPPA; a step of 4 sd up and back down (A
 *    B A, 10 points each) was found in 82 % of 200 series by default and
 *    in all with SEARCH_KAPPA.
 * 2. Merge (Hunter's weak change point removal): each change point is
 *    tested by Student's t between the segments left and right of it,
 *    bounded by its neighbouring change points; the weakest one (largest
 *    p, if p >= MAX_P; else the smallest magnitude, if it is <=
 *    MIN_MAGNITUDE) is removed and its neighbours re-tested, until every
 *    change point that is left has p < MAX_P and a magnitude above
 *    MIN_MAGNITUDE.
 *
 * Hunter's defaults are MAX_P 0.001 and MIN_MAGNITUDE 0.  Hunter also
 * runs the split in overlapping windows of 50 points to bound its O(n^2)
 * cost; here the whole series is one window and its length is capped at
 * DN_CP_MAX_N instead (the q-hat table takes 8 * n^2 / 2 bytes).
 *
 * What this is not: a verdict.  A change point says the mean moved
 * between two builds; whether that is better or worse is the caller's
 * (the metric's direction), and whether it matters is the reader's.
 */
#ifndef DN_CHANGEPOINT_H
#define DN_CHANGEPOINT_H

#include <stddef.h>

#define DN_CP_MAX_N	4096

struct dn_cp_opts {
	size_t	min_size;	/* fewest points per segment, >= 2 (3) */
	double	max_p;		/* keep a change point if p < this (0.001) */
	double	min_magnitude;	/* and max(|b/a - 1|, |a/b - 1|) > this (0) */
	int	search_kappa;	/* search the right window's end too (0) */
};

/* One change point: X[INDEX] is the first value after the change.  The
 * "before" segment is [previous change point or 0, INDEX), the "after"
 * one [INDEX, next change point or N). */
struct dn_cp {
	size_t	index;
	size_t	n_before;
	size_t	n_after;
	double	mean_before;
	double	mean_after;
	double	change_pct;	/* 100 * (after / before - 1), NAN if 0 */
	double	p;		/* Student's t, two-sided */
};

/* Fill O with the defaults above. */
void	 dn_cp_opts_init(struct dn_cp_opts *o);

/*
 * Find the change points of X[0..N) with options O (NULL: the defaults).
 * On success returns 0 with *OUT (caller frees; NULL when none) holding
 * *NOUT change points in increasing index order.  A series shorter than
 * 2 * MIN_SIZE has none.  Returns -1 with *CAUSE (caller frees) when X
 * holds a NaN or infinity, N exceeds DN_CP_MAX_N, or an option is out of
 * range.
 */
int	 dn_changepoints(const double *x, size_t n,
	    const struct dn_cp_opts *o, struct dn_cp **out, size_t *nout,
	    char **cause);

#endif
