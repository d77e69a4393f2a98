/*
 * compare.h: the A/B analysis behind `devnet compare`, `devnet report` and
 * `devnet ab`: resolve the two sides to runs, summarise every run's
 * steady-state window per node and per trial, test, and render.  Method:
 * docs/statistics.md.  Reads the store only (metrics/store/store.h).
 * Files: compare.c (analysis, test, verdict), compare-sides.c,
 * compare-derive.c, compare-power.c (what could not be seen),
 * compare-render.c, compare-opts.c; compare-internal.h is what they
 * share.
 */
#ifndef DN_COMPARE_H
#define DN_COMPARE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct dn_store;

enum compare_format {
	COMPARE_TABLE = 0,	/* benchstat-like text (default) */
	COMPARE_MARKDOWN,
	COMPARE_CSV,
	COMPARE_JSON		/* stable: docs/statistics.md */
};

enum compare_unit {
	COMPARE_UNIT_AUTO = 0,	/* trial when it can reach significance */
	COMPARE_UNIT_TRIAL,	/* one summary per trial */
	COMPARE_UNIT_NODE	/* one summary per trial and node */
};

#define COMPARE_ALPHA		0.05
#define COMPARE_THRESHOLD_PCT	1.0	/* default practical threshold */
#define COMPARE_BOOT_ITERS	2000
#define COMPARE_BOOT_SEED	20240611
#define COMPARE_POWER		0.8	/* for the MDE and trials_needed */
#define COMPARE_POWER_ITERS	4000	/* simulated sets per MDE */
#define COMPARE_POWER_SEED	20240612
#define COMPARE_MAX_TRIALS	1000	/* trials_needed beyond: "more" */

/*
 * A group-sequential design (compare-seq.c, docs/statistics.md section
 * 6): the trials per side at each look so far and the most the design
 * allows, and why it stopped.  Stored with the group's runs as the fact
 * `sequential` (compare_seq_format), so that compare and report of the
 * group apply the same correction.
 */
#define COMPARE_SEQ_LOOKS	64
struct compare_seq {
	size_t	looks[COMPARE_SEQ_LOOKS];	/* trials per side, rising */
	size_t	nlooks;
	size_t	max_per_side;
	char	stop[32];	/* decided|futile|max-trials|budget|... or
				   "" while running */
	int	budget_bound;	/* futile: the --budget left, not the
				   design's maximum, was the limit */
};

/* The `sequential` fact of design Q with margin REQUIRE_PCT (0 none), as
 * compare-seq.c reads it back (caller frees). */
char	*compare_seq_format(const struct compare_seq *q, double require_pct);

struct compare_result;
/* The line that says R was analysed as a sequential design (looks, alpha
 * spent, why it stopped), caller frees; NULL for a fixed design. */
char	*compare_seq_note(const struct compare_result *r);

struct compare_feed;

struct compare_opts {
	const char *const	*metrics;	/* derived metric names, or
						   NULL for all */
	size_t			 nmetrics;
	int			 format;	/* enum compare_format */
	double			 threshold_pct;	/* <= 0: the default, 1% */
	int			 unit;		/* enum compare_unit, 0 auto */
	int			 strict;	/* runs that differ in setup
						   or missed their rate: an
						   error */
	double			 target_pct;	/* --target-effect, 0 none */
	/* Also the metrics outside the table that foreign nodes sent
	 * (ops_per_s from a log extractor, ...): mean per trial for a gauge,
	 * rate for a counter.  Rows of such metrics have base_metric
	 * >= DN_STORE_NAMED_BASE (not a metric-table id). */
	int			 named;
	/* --require not-worse:PCT (0 none): the non-inferiority margin. */
	double			 require_pct;
	/* --fail-on not-shown: test not-worse at the threshold when no
	 * --require names a margin. */
	int			 not_shown;
	/* Analyse as this sequential design (devnet ab --until decided);
	 * NULL: as the runs' stored `sequential` fact says, if any. */
	const struct compare_seq *seq;
	/* --machine FP: only the runs of this machine class (a fingerprint
	 * or its prefix, "unknown" for runs without one) on each side. */
	const char		*machine;
	/* Hand every series read to this too (NULL: nobody): devnet
	 * report draws its charts from compare's one read. */
	const struct compare_feed *feed;
	/* --aa GROUP: the stored A/A group (both variants the same) of the
	 * same scenario and machine that --unit node must pass: compared on
	 * the node unit, it may call no primary metric better or worse,
	 * else the trial unit decides (NULL: nothing checked, and said). */
	const char		*aa;
};

/*
 * A reader of the samples compare reads (devnet report's charts), so that
 * each is read once.  BEGIN once the sides are resolved, before any
 * sample; then for each base metric of the metrics compared (a row's
 * base_metric: a table id, or a named metric's >= DN_STORE_NAMED_BASE;
 * not the second counter a row sums, cpu_sys_s), SERIES once per run of side
 * SIDE (0 A, 1 B; runs in order) with its N series per node from t=0
 * (warmup included; valid during the call only), and DONE after the last
 * run of both sides.  Each returns 0, or -1 with *CAUSE to stop the
 * analysis.
 */
struct dn_series;
struct compare_feed {
	int	(*begin)(void *arg, const struct compare_result *r,
		    char **cause);
	int	(*series)(void *arg, int side, int metric,
		    const struct dn_series *ser, size_t n, char **cause);
	int	(*done)(void *arg, int metric, char **cause);
	void	*arg;
};

/*
 * The analysis, for callers that render it themselves (devnet report).
 */
struct compare_run {
	int64_t		 id;
	int64_t		 group;		/* 0 = none */
	char		*variant;
	char		*status;
	int64_t		 warmup_ms;
	int64_t		 duration_ms;
	int		 nodes;
	char		*faults;	/* unplanned events ("crash x1"),
					   NULL if none */
	char		*scenario;	/* scenario name */
	double		 tps;		/* target rate */
	char		*rate_missed;	/* the rate_missed event's detail,
					   NULL if none */
	char		*machine;	/* runs.machine, NULL unknown */
	char		*interference;	/* the interference event's detail
					   (other programs' CPU beside it,
					   issue 36), NULL if none */
	/* Declared metrics no node measured (events `unmeasured`, issue
	 * 37): UNMEASURED[i] is the metric's name, UNMEASURED_WHY[i] why,
	 * as devnet knew it at the trial's end. */
	char		**unmeasured, **unmeasured_why;
	size_t		 nunmeasured;
	int64_t		 start_ms, end_ms;	/* Unix ms; 0 unknown */
};

struct compare_side {
	char			*spec;
	struct compare_run	*runs;
	size_t			 nruns;
	/* its nodes' allocation sources (fact alloc_source), " + " joined;
	 * NULL: none recorded (runs from before the fact) */
	char			*alloc_source;
	/* the network conditions its runs ran under (fact net_conditions,
	 * scenario_conditions_text); NULL: the loopback, on every run;
	 * "mixed: X | Y" when its runs differ */
	char			*net_conditions;
};

struct compare_stat {
	size_t	n;
	double	median, mean, ci_low, ci_high;
};

/*
 * What was done to a metric's observations before its test
 * (compare-adjust.c; docs/statistics.md, "Variance reduction" and "Long
 * runs decide too").
 *
 * The adjustment (CUPED-style regression on the trial's own warmup
 * window of the same metric): ADJUSTED when applied; R the within-side
 * correlation of the steady-state values with the warmup ones and THETA
 * the regression slope (NAN when not computed), VAR_REMOVED_PCT the
 * share of the within-side variance it removes after its costs, at the
 * expected difference of the warmup windows (NAN: not computed),
 * MDE_UNADJUSTED_PCT the MDE the unadjusted values give (NAN unless
 * adjusted), NOTE why it was or was not applied (static).  GUARDED when
 * refused only because the warmup windows differ (MOVED_P, Welch's p of
 * that difference, NAN when not tested): tested unadjusted, and shown
 * different only with more evidence (compare_adjust_guard).
 *
 * The unit that decided ("trial", "node" or "block", static) and
 * UNIT_WHY (static, NULL for the trial and node units); for time blocks
 * their length in seconds, count per side and largest lag-1
 * autocorrelation of the two sides' block values; BLOCK_PAIRED when the
 * blocks were paired (each block's B/A over the same minutes, tested by
 * compare-paired.c; BLOCK_R1 then that of the differences, and
 * BLOCK_AR1 that lag-1 when it stayed above 0.2 and the test allows for
 * it).
 */
struct compare_adjust {
	int		 adjusted, guarded;
	double		 r, theta, var_removed_pct, mde_unadjusted_pct;
	double		 moved_p;
	const char	*note;
	const char	*unit;
	const char	*unit_why;
	double		 block_s, block_r1;
	size_t		 blocks_a, blocks_b;
	int		 block_paired;
	double		 block_ar1;	/* paired blocks' lag-1 allowed for
					   (compare-paired.c), 0 none */
};

struct compare_row {
	const char		*name;		/* static */
	const char		*unit;		/* static */
	const char		*better;	/* lower|higher|neutral */
	const char		*desc;		/* static */
	int			 base_metric;	/* metric-table id plotted */
	struct compare_stat	 a, b;
	double			 delta_pct, delta_ci_low, delta_ci_high;
	double			 p_raw, p;	/* p: Holm-adjusted */
	double			 deff;		/* design effect (node unit) */
	const char		*test;		/* mwu|welch|mwu-clustered */
	int			 significant;
	/* better|worse (a change in the metric's direction), changed (a
	 * neutral metric moved), equivalent (shown within the threshold),
	 * undecided (neither; trials_needed says what would decide it).
	 * Also not-worse in a sequential analysis. */
	const char		*verdict;
	int			 constant;	/* no spread on either side */
	/* A primary metric: what the change is about (--metric, the
	 * scenario's compare.primary, or the node kind's default); the
	 * others are secondary, corrected among themselves, exploratory,
	 * and trip --fail-on only with :all. */
	int			 primary;
	/* Equivalence within the threshold, two one-sided Welch tests on
	 * the trials: the larger one-sided p (p_eq_raw) and its
	 * Holm-adjusted value in the row's family (p_eq). */
	double			 p_eq_raw;
	/* Why mde_pct is NAN or INFINITY ("A is 0", ...), static; NULL
	 * when it is a number. */
	const char		*mde_note;
	/* What trials_needed is for: "difference" (target_pct, a change
	 * of that size) or "equivalence" (within the threshold); NULL when
	 * not computed. */
	const char		*decide_by;
	/* What could not be seen (compare-power.c): the smallest change,
	 * in % of A's mean, the test used would detect with power
	 * COMPARE_POWER (INFINITY: never at these trial counts; NAN: no
	 * spread or no mean to scale by); and for an `undecided`, or every
	 * metric with --target-effect, the trials per side that would decide
	 * it (DECIDE_BY: detect TARGET_PCT, or show equivalence; 0 not
	 * computed, -1 more than COMPARE_MAX_TRIALS). */
	double			 mde_pct;
	double			 target_pct;	/* NAN when not computed */
	long			 trials_needed;
	/* Sequential analysis only (else NAN / 0): the Holm-adjusted
	 * p of equivalence within the threshold (two one-sided tests) and
	 * of not-worse by the margin; the trials per side a decision would
	 * take at this estimate and spread (-1 beyond reach), and whether
	 * that is beyond the design's maximum (futile). */
	double			 p_eq, p_ni;
	long			 seq_needed;
	int			 futile;
	struct compare_adjust	 adj;
	/* The design (compare-paired.c; docs/statistics.md, "Paired by
	 * slot"): "paired" when decided by a paired t-test on the per-slot
	 * B/A of runs that ran at the same time (PAIRS slots), NULL for the
	 * independent design of two samples; MDE_UNPAIRED_PCT the MDE the
	 * independent design gives on the same runs (paired rows only). */
	const char		*design;
	size_t			 pairs;
	double			 mde_unpaired_pct;
};

struct compare_result {
	struct compare_side	 a, b;
	const char		*machine;	/* opts->machine, or NULL */
	int			 unit;		/* COMPARE_UNIT_TRIAL or _NODE */
	char			*unit_note;
	double			 threshold_pct;
	struct compare_row	*rows;
	size_t			 nrows;
	char			**warnings;
	size_t			 nwarnings;
	size_t			 nmismatch;	/* warnings that --strict
						   makes errors */
	size_t			 nsetup;	/* of them, setups that
						   differ (a gate refuses) */
	double			 target_pct;	/* --target-effect, 0 none */
	char			**owned;	/* named metrics' strings */
	size_t			 nowned;
	/* Sequential (NULL: fixed design): the design analysed, from the
	 * options or the stored fact (seq_stored), the margin tested (0
	 * none), and whether every metric is decided or futile. */
	struct compare_seq	*seq;
	int			 seq_stored;
	double			 require_pct;
	int			 all_decided, all_futile;
	/* The primary family: how many rows (the first NPRIMARY of ROWS),
	 * and where it came from ("--metric", "scenario", "default for
	 * devnet nodes", ...; owned). */
	size_t			 nprimary;
	char			*primary_from;
	/* Paired by slot (compare-paired.c): NPAIRS slots, run
	 * PAIR_A[i] of A beside run PAIR_B[i] of B (indexes into a.runs,
	 * b.runs); 0: the independent design. */
	size_t			 npairs;
	size_t			*pair_a, *pair_b;
	/* The answer in one line (compare_headline), owned. */
	char			*headline;
	/* --aa backed the node unit, but its A/A called these secondary
	 * metrics on nodes (",name,name,", owned; NULL none): their rows
	 * are left undecided (compare_aa_secondary). */
	char			*aa_secondary;
};

/*
 * The verdict in words, one line (compare-headline.c): what changed
 * among the primary metrics, by how much, with its interval, as a
 * percentage and a ratio; what was shown equivalent; what is undecided
 * and what would decide it; then the secondary metrics in one clause.
 * Caller frees.
 */
char	*compare_headline(const struct compare_result *r);

int	 compare_analyze(struct dn_store *s, const char *side_a,
	    const char *side_b, const struct compare_opts *opts,
	    struct compare_result **rp, char **cause);
void	 compare_result_free(struct compare_result *r);
/*
 * Only the sides of `compare A B`: each side's runs (r->a, r->b) and the
 * warnings about runs left out, with no sample read (a caller that needs
 * the runs, not the verdict: cmd/relative.c).  *RP is the caller's, freed
 * with compare_result_free.  0, or -1 with *CAUSE.
 */
int	 compare_resolve(struct dn_store *s, const char *side_a,
	    const char *side_b, struct compare_result **rp, char **cause);

/*
 * A relative claim judged by the verdict (compare-relative.c): METRIC of
 * SIDE_B vs SIDE_A changes by at most PCT % (AT_MOST 1: "<= PCT%") or at
 * least (0: ">= PCT%").  *OUT: STATUS "pass" (the 95% CI of the change
 * lies inside the claim; a claimed change also needs the Holm-adjusted
 * test), "fail" (it lies outside: the opposite, or a miss) or
 * "inconclusive" (with the trials per side that would tell); OBSERVED the
 * change in %; MESSAGE (caller frees) readable alone.  0, or -1 with
 * *CAUSE.
 */
struct compare_claim {
	const char	*status;
	double		 observed;
	char		*message;
};
int	 compare_relative(struct dn_store *s, const char *side_a,
	    const char *side_b, const char *metric, int at_most, double pct,
	    struct compare_claim *out, char **cause);
void	 compare_render(const struct compare_result *r, int format,
	    FILE *out);

/* Parse "table", "markdown", "csv", "json" into *FORMAT; -1 if unknown. */
int	 compare_format_parse(const char *s, int *format);
/*
 * Set one comparison option from the command line: OPT is 'f' (--format),
 * 't' (--threshold), 'u' (--unit), 'e' (--target-effect PCT), 'r'
 * (--require not-worse:PCT) or 's' (--strict, VAL unused).  Returns 0, or -1 with *CAUSE saying what the
 * option takes (caller frees).  The one place these options' values and
 * messages live, for compare, report and ab.
 */
int	 compare_opt_set(struct compare_opts *o, int opt, const char *val,
	    char **cause);

/* Names of the derived metrics compare knows, NULL-terminated (static). */
const char *const *compare_metric_names(void);

/*
 * One run's per-trial observation of every derived metric K with USE[K]
 * set (USE and OUT are indexed like compare_metric_names()), from its
 * samples at t_ms >= WARMUP_MS: exactly the values a comparison of that
 * run would test.  OUT[K] is NAN when not used or without data.  For
 * devnet history, which puts them in commit order.  0, or -1 with *CAUSE.
 */
int	 compare_run_observe(struct dn_store *s, int64_t run_id,
	    int64_t warmup_ms, const int *use, double *out, char **cause);
/* Unit, better direction (lower|higher|neutral) and description of the
 * K-th derived metric (static strings); -1 when K is out of range. */
int	 compare_metric_info(size_t k, const char **unit, const char **better,
	    const char **desc);

/* What would decide ROW of R when it is undecided, short ("9/side",
 * "6/side eq": to show it equivalent, "out of reach", "A is 0"), else
 * "-", into BUF (compare-render.c; the report's column too). */
void	 compare_fmt_decide(const struct compare_result *r,
	    const struct compare_row *row, char *buf, size_t len);
/* The adj/unit column of ROW into BUF: the variance the adjustment
 * removed and its correlation ("-62% r0.81"), or the time blocks that
 * decided ("28x1s blk"), the slots of a paired test ("paired 4"), "-"
 * for none (compare-render.c; the report's column too);
 * COMPARE_ADJ_LEGEND says so in words. */
void	 compare_fmt_adj(const struct compare_row *row, char *buf,
	    size_t len);
extern const char compare_adj_legend[];
/* 1 when ROW's A side is 0 (its median or its mean): its change is no
 * percentage, so no trial count can decide it; "A is 0" is the reason
 * every output gives. */
int	 compare_row_a_zero(const struct compare_row *row);
/* Human form of V in UNIT ("251.3 MiB", "20.1k allocs/s") into BUF. */
void	 compare_fmt_value(double v, const char *unit, char *buf,
	    size_t len);

/*
 * The CI gate (compare-gate.c).  --fail-on worse|changed: a command exits
 * COMPARE_EXIT_GATE after printing when a primary metric is worse
 * (worse) or better or worse (changed); with the suffix :all
 * (COMPARE_FAIL_ALL, or'ed in) a secondary metric trips it too.
 */
#define COMPARE_EXIT_GATE	3
/* --fail-on refuses to pass: a side without runs (no baseline), or runs
 * that differ in setup or machine (docs/cli.md). */
#define COMPARE_EXIT_REFUSED	6
/* What compare_gate_print says in *TRIPPED. */
#define COMPARE_GATE_TRIPPED	1	/* the gate tripped */
#define COMPARE_GATE_REFUSED	2	/* no baseline or not comparable */
enum compare_fail_on {
	COMPARE_FAIL_NONE = 0,
	COMPARE_FAIL_WORSE,
	COMPARE_FAIL_CHANGED,
	COMPARE_FAIL_NOT_SHOWN,	/* a metric not shown better or not-worse */
	COMPARE_FAIL_ALL = 0x100	/* or'ed: secondary metrics too */
};
#define COMPARE_FAIL_KIND(f)	((f) & ~COMPARE_FAIL_ALL)
/* Parse "worse", "changed" or "not-shown", each optionally with ":all",
 * into *FAIL_ON; -1 if unknown. */
int	 compare_fail_on_parse(const char *s, int *fail_on);
/* What a tripped FAIL_ON says ("worse: a metric is worse"). */
const char *compare_fail_on_says(int fail_on);
/* Compare SIDE_A and SIDE_B (each a run id, a comma list of run ids, or
 * GROUP:VARIANT) and print the result to OUT in OPTS->format, or as a
 * JUnit testsuite named TITLE if JUNIT; *TRIPPED says whether FAIL_ON
 * tripped (COMPARE_GATE_TRIPPED), or, with FAIL_ON, that it refuses to
 * pass because the runs' setups or machines differ
 * (COMPARE_GATE_REFUSED, after printing).  0, or -1 with *CAUSE (caller
 * frees) for a bad side, a missing run, no data, or a store error;
 * with FAIL_ON, a side without runs is -1 with *TRIPPED
 * COMPARE_GATE_REFUSED. */
int	 compare_gate_print(struct dn_store *s, const char *side_a,
	    const char *side_b, const struct compare_opts *opts, int junit,
	    int fail_on, const char *title, FILE *out, int *tripped,
	    char **cause);

#endif
