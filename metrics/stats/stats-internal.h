/*
 * stats-internal.h: what stats.c shares with stats-power.c, nothing else.
 */
#ifndef DN_STATS_INTERNAL_H
#define DN_STATS_INTERNAL_H

#include <stddef.h>

/* qsort's comparison of two doubles, ascending. */
int	 dn_stats_dbl_cmp(const void *a, const void *b);
/*
 * Exact null distribution of Mann-Whitney's U for sizes M, N: the M * N +
 * 1 counts (caller frees) and their sum in *TOTAL.
 */
double	*dn_stats_mwu_dist(size_t m, size_t n, double *total);

#endif
