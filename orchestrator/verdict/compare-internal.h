/*
 * compare-internal.h: internal to the compare module (compare*.c) only.
 * What the files of the A/B analysis share: the derived-metric table
 * (compare-derive.c), the per-side observations it yields, and side
 * resolution (compare-sides.c).  Callers outside compare*.c use compare.h.
 */
#ifndef DN_COMPARE_INTERNAL_H
#define DN_COMPARE_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include "verdict/compare.h"
#include "metric-table.h"
#include "stats.h"

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
#define NDERIVED	DN_VERDICT_COUNT
extern const struct derived compare_derived[];

/* Observations of one derived metric on one side: per (trial, node)
 * values with their trial index, and per-trial summaries; per trial also
 * the same metric over its warmup window (PRE_V, NAN: none; the
 * covariate of compare-adjust.c) and its steady-state window cut into
 * BLK_N[trial] time blocks (their values in BLK_V, trial after trial,
 * NBLK_ALL in all; the block unit of compare-adjust.c). */
#define COMPARE_BLOCKS_MAX	32
struct obs {
	double	*node_v;
	int	*node_c;
	size_t	 nnode;
	double	*trial_v;
	size_t	 ntrial;
	double	*pre_v;
	double	*blk_v;
	size_t	*blk_n;
	size_t	 nblk_all;
};

/* Read every run of the NSIDES SIDES and add their observations to
 * O[side][K], for the metrics DEFS[K] with USE[K] set (DEFS:
 * compare_derived, then any named metrics, whose m1 is a store id >=
 * DN_STORE_NAMED_BASE); one base metric at a time, each read once, and
 * handed to FEED too when not NULL (compare.h).  0, or -1 with *CAUSE. */
int	 compare_observe(struct dn_store *s,
	    const struct compare_side *const *sides, size_t nsides,
	    const struct derived *defs, size_t n, const int *use,
	    struct obs **o, const struct compare_feed *feed, char **cause);
/* Free what O holds (not O). */
void	 compare_obs_release(struct obs *o);

/* The trial unit's choice: Welch's t when the exact rank test cannot
 * reach significance after Holm over FAMILY metrics at NA vs NB trials
 * (and each side has 2), the rank test otherwise. */
int	 compare_uses_welch(size_t na, size_t nb, size_t family);

/* Test one metric (compare-test.c): fill ROW's statistics, interval,
 * test and raw p from the observations of UNIT (trial or node), FAMILY
 * metrics in the Holm family.  COMPARE_ROW_P: only the test and raw p
 * (test, p_raw, deff, constant), without the bootstrap interval. */
void	 compare_row_test(struct compare_row *row, const struct obs *oa,
	    const struct obs *ob, int unit, size_t family);
void	 compare_row_p(struct compare_row *row, const struct obs *oa,
	    const struct obs *ob, int unit, size_t family);
/* Decide ROW from its Holm-adjusted p and p_eq (set by the caller):
 * significant and verdict, at the practical threshold THRESHOLD_PCT
 * (compare-rule.c, for compare.c and compare-seq.c alike). */
void	 compare_row_decide(struct compare_row *row, double threshold_pct);
/* The p of equivalence within +-THRESHOLD_PCT % of A's mean from values
 * A, B (trials; or nodes, whose trials' design effect DEFF widens it:
 * seq_shift_p_deff): the larger of the two one-sided Welch tests (the
 * zero-spread floor where both sides are constant); NAN with fewer than
 * 2 values a side or a mean of A of 0 (no band). */
double	 compare_equivalence_p(const double *a, size_t na, const double *b,
	    size_t nb, double threshold_pct, double deff);
/* Decide the N tested ROWS of one family (the primary metrics, or the
 * secondary ones): Holm over p_raw into p and over p_eq_raw into p_eq,
 * then compare_row_decide each. */
void	 compare_family_decide(struct compare_row *rows, size_t n,
	    double threshold_pct);
/* Mark in PRIM[K] the metrics DEFS[K] that are primary (--metric, the
 * runs' stored compare_primary fact, or all for runs from before it);
 * R->primary_from says which (compare-primary.c).  0, or -1 with
 * *CAUSE. */
int	 compare_primary_mark(struct dn_store *s, struct compare_result *r,
	    const struct compare_opts *opts, const struct derived *defs,
	    size_t nd, int *prim, char **cause);

/* Simulated power figures shared by the rows of one analysis
 * (compare-power.c, compare-paired.c: the paired test's MDE is simulated
 * up to COMPARE_PAIRED_EXACT pairs). */
#define COMPARE_PAIRED_EXACT	30
struct compare_power_cache {
	double	alpha;
	double	mwu_eq[DN_MWU_EXACT_MAX + 1];	/* by n, 0 = not yet */
	size_t	na, nb;				/* the one unequal pair */
	double	mwu_ab;
	double	paired[COMPARE_PAIRED_EXACT + 1];	/* by pairs, 0 = not
							   yet */
};
/* Fill ROW's mde_pct (and mde_note when it is no number), and
 * target_pct / trials_needed / decide_by when asked for (TARGET_PCT > 0)
 * or when ROW is undecided (docs/statistics.md, section 4): the trials
 * per side that would detect its change, or show it equivalent.  ROW
 * must be tested and decided. */
void	 compare_row_power(struct compare_row *row, const struct obs *oa,
	    const struct obs *ob, int unit, size_t family,
	    double threshold_pct, double target_pct,
	    struct compare_power_cache *pc);

/*
 * Before the test (compare-adjust.c).  COMPARE_ADJUST_METRIC: the
 * CUPED-style adjustment of one metric's trial values on their warmup
 * windows (PRE_V), in place when its rule holds (ADJ says whether and
 * why, and the correlation and variance removed); the values the row is
 * not tested on go to ALT[0] (A) and ALT[1] (B), the caller's to free:
 * the unadjusted ones when adjusted, the adjusted ones when refused only
 * because the warmup windows differ (ADJ->guarded), else NULL.
 * COMPARE_BLOCKS_METRIC: a 1+1 pair's trial values replaced by its time
 * blocks (batch means, WINDOW_S the steady-state window's seconds) where
 * their autocorrelation allows; ADJ says so.  COMPARE_ADJUST_ALL:
 * either, per metric K with USE[K], as R's runs and OPTS allow (blocks
 * for a concurrent 1+1 with the auto unit; the adjustment on the trial
 * unit outside a sequential design); ADJ and ALT (2 per metric) have ND
 * entries.  0, or -1 with *CAUSE.
 * After the test: COMPARE_ADJUST_GUARD, a guarded ROW's p_raw raised
 * (before Holm) to what keeps an A/A at alpha: the plain test's, and
 * either a clear move of the warmup windows or the adjusted test (from
 * ALT) at half the level.  COMPARE_ADJUST_MDE: an adjusted ROW's
 * mde_unadjusted_pct, from ALT.  COMPARE_ADJUST_FREE: ADJ and ALT (ND
 * metrics' worth), either NULL.
 */
void	 compare_adjust_metric(struct obs *oa, struct obs *ob,
	    struct compare_adjust *adj, double **alt);
int	 compare_adjust_all(struct dn_store *s, struct compare_result *r,
	    const struct compare_opts *opts, struct obs *oa, struct obs *ob,
	    const int *use, size_t nd, struct compare_adjust *adj,
	    double **alt, char **cause);
void	 compare_adjust_guard(struct compare_row *row, const struct obs *oa,
	    const struct obs *ob, double *const *alt, int unit,
	    size_t family);
void	 compare_adjust_mde(struct compare_row *row, const struct obs *oa,
	    const struct obs *ob, double *const *alt, int unit,
	    size_t family, double threshold_pct,
	    struct compare_power_cache *pc);
/* Whether ROW was decided on time blocks. */
int	 compare_row_blocks(const struct compare_row *row);
void	 compare_adjust_free(struct compare_adjust *adj, double **alt,
	    size_t nd);

/*
 * The paired design (compare-paired.c).  COMPARE_PAIRED_APPLY: when R's
 * runs ran in concurrent slots (an A and a B run that overlap by more
 * than half the shorter, at least 2 slots and most runs of each side in
 * one; the trial unit), find the slots (R->npairs: a sequential design
 * is then tested on them look by look, compare-seq.c), name the
 * runs left out, and test every row of R (from the observations O*[RK[i]],
 * the unadjusted values where RAW has them) by a paired t-test on its
 * slots, decide both families again and fill the power; else nothing.
 * 0, or -1 with *CAUSE.  COMPARE_PAIRED_ROW: test ROW on the N slots'
 * aligned values XA, XB (statistics, delta and its interval, p_raw,
 * p_eq_raw, design, pairs, mde_unpaired_pct from ROW's mde_pct); -1 (ROW
 * untouched) below 2 slots or with A is 0.  COMPARE_PAIRED_POWER: a
 * decided paired ROW's MDE and, when undecided or with TARGET_PCT, the
 * slots that would decide it (trials_needed, per side).
 */
/* compare-sides.c: runs A and B ran at the same time (each overlaps the
 * other by more than half of the shorter): a concurrent order's. */
int	 compare_runs_overlap(const struct compare_run *a,
	    const struct compare_run *b);
/* compare-sides.c: W (allocated) added to R's warnings. */
void	 compare_warn(struct compare_result *r, char *w);
/* compare-aa.c: --unit node checked against AA, the analysed stored
 * A/A of --aa (NULL: none named), which it frees (R's unit note says
 * how; R falls back to the trial unit where it failed); 0, or -1 with
 * *CAUSE. */
int	 compare_node_unit_check(struct compare_result *r,
	    const struct compare_opts *opts, struct compare_result *aa,
	    char **cause);
/* compare-aa.c: after the tests, R's rows of the secondary metrics its
 * A/A called on nodes (r->aa_secondary) left undecided, saying why. */
void	 compare_aa_secondary(struct compare_result *r,
	    const struct compare_opts *opts);
int	 compare_paired_apply(struct dn_store *s, struct compare_result *r,
	    const struct compare_opts *opts, const struct obs *oa,
	    const struct obs *ob, const size_t *rk, double *const *raw,
	    char **cause);
/* compare-paired.c: R's rows decided on paired time blocks
 * (compare-adjust.c) tested by a paired t-test on their blocks (O*'s
 * trial values, RK as above), both families decided again. */
void	 compare_paired_blocks(struct compare_result *r,
	    const struct obs *oa, const struct obs *ob, const size_t *rk);
/* compare-paired.c: the per-pair differences of XA, XB (N, aligned)
 * into D: log(B / A) when every value is positive (*LOG_ set), else
 * B - A; *SCALE the percentage of one unit of difference (A's mean), 0
 * when there is none (A is 0).  The slots' and the paired time blocks'
 * (compare-adjust.c) one rule. */
void	 compare_paired_differences(const double *xa, const double *xb,
	    size_t n, double *d, int *log_, double *scale);
int	 compare_paired_row(struct compare_row *row, const double *xa,
	    const double *xb, size_t n, double threshold_pct);
void	 compare_paired_power(struct compare_row *row, const double *xa,
	    const double *xb, size_t n, double threshold_pct,
	    double target_pct, struct compare_power_cache *pc);
/* The paired sequential design's data (compare-seq.c): one metric's
 * per-slot differences of R's slots where both sides have a value
 * (log(B / A) when every value is positive, *LOG_ set, else B - A; O*
 * the metric's observations), into D (R->npairs + 1 of room), the runs
 * per side each slot needs (its later run's index + 1) into LAST, and
 * *SCALE as COMPARE_PAIRED_BAND takes it; how many.  COMPARE_PAIRED_BAND:
 * the band of +-THRESHOLD_PCT of A in the differences' unit. */
size_t	 compare_paired_diffs(const struct compare_result *r,
	    const struct obs *oa, const struct obs *ob, double *d,
	    size_t *last, int *log_, double *scale);
void	 compare_paired_band(int log_, double scale, double threshold_pct,
	    double *lo, double *hi);

/* The sequential analysis (compare-seq.c): when OPTS or the runs' stored
 * fact name a design, redo the tests of R's rows look by look (the rows
 * come from the observations O*[RK[i]]), correct for the looks, Holm,
 * and decide better/worse/equivalent/not-worse/undecided.  0, or -1
 * with *CAUSE. */
int	 compare_seq_apply(struct dn_store *s, struct compare_result *r,
	    const struct compare_opts *opts, const size_t *rk,
	    const struct obs *oa, const struct obs *ob, char **cause);
/* Its lines under the table, and its JSON object (compare-render.c). */
void	 compare_seq_render_text(const struct compare_result *r, FILE *out,
	    int md);
void	 compare_seq_render_json(const struct compare_result *r, FILE *out);

/* Resolve SPEC into SIDE (runs and their faults); warnings about runs
 * left out go to RES.  0, or -1 with *CAUSE.  compare_side_release frees
 * what SIDE holds, also after a failure. */
int	 compare_side_resolve(struct dn_store *s, const char *spec,
	    struct compare_side *side, struct compare_result *res,
	    char **cause);
void	 compare_side_release(struct compare_side *side);
/* Each side's network conditions into its net_conditions, and a warning
 * in R when the two sides ran under different ones.  0, or -1 with
 * *CAUSE. */
int	 compare_sides_network(struct dn_store *s, struct compare_result *r,
	    char **cause);
/* A warning in R per declared metric no node measured (the runs'
 * `unmeasured` events): "metric X was declared but never measured in run
 * N: WHY", the runs that say alike in one. */
void	 compare_sides_unmeasured(struct compare_result *r);
/* That warning of R for a metric OPTS asks for (the first; any metric
 * without --metric), or NULL: why there is nothing to compare. */
const char *compare_sides_unmeasured_of(const struct compare_result *r,
	    const struct compare_opts *opts);

/* The run-level fact KEY of SIDE's first run (compare-sides.c: a side's
 * design and primary metrics are stored with its runs), into *VAL (caller
 * frees; NULL: none, or no runs).  0, or -1 with *CAUSE. */
int	 compare_side_fact(struct dn_store *s, const struct compare_side *side,
	    const char *key, char **val, char **cause);

#endif
