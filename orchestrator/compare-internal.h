/*
 * compare-internal.h: internal to the compare module (compare*.c) only.
 * What the files of the A/B analysis share: the derived-metric table
 * (compare-derive.c), the per-side observations it yields, and side
 * resolution (compare-sides.c).  Callers outside compare*.c use compare.h.
 */
#ifndef DN_COMPARE_INTERNAL_H
#define DN_COMPARE_INTERNAL_H

#include <stddef.h>

#include "compare.h"

struct dn_store;

enum dfn { F_MAX, F_MEAN, F_P99, F_MEDIAN, F_SLOPE_MIN, F_RATE };

struct derived {
	const char	*name;
	const char	*unit;
	const char	*better;
	int		 m1, m2;	/* base metrics; m2 -1 or summed */
	enum dfn	 fn;
	int		 agg_max;	/* across nodes: 1 max, 0 mean */
	const char	*desc;
};

/* The derived metrics, NDERIVED of them (compare-derive.c checks the
 * count at compile time). */
#define NDERIVED	29
extern const struct derived compare_derived[];

/* Observations of one derived metric on one side: per (trial, node)
 * values with their trial index, and per-trial summaries. */
struct obs {
	double	*node_v;
	int	*node_c;
	size_t	 nnode;
	double	*trial_v;
	size_t	 ntrial;
};

/* Read every run of SIDE and add its observations to O[N], for the
 * metrics DEFS[K] with USE[K] set (DEFS: compare_derived, then any named
 * metrics, whose m1 is a store id >= DN_STORE_NAMED_BASE).  0, or -1
 * with *CAUSE. */
int	 compare_side_observe(struct dn_store *s,
	    const struct compare_side *side, const struct derived *defs,
	    size_t n, const int *use, struct obs *o, char **cause);
/* Free what O holds (not O). */
void	 compare_obs_release(struct obs *o);

/* Resolve SPEC into SIDE (runs and their faults); warnings about runs
 * left out go to RES.  0, or -1 with *CAUSE.  compare_side_release frees
 * what SIDE holds, also after a failure. */
int	 compare_side_resolve(struct dn_store *s, const char *spec,
	    struct compare_side *side, struct compare_result *res,
	    char **cause);
void	 compare_side_release(struct compare_side *side);

#endif
