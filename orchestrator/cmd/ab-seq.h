/*
 * ab-seq.h: the look after every ABBA block of `devnet ab --until
 * decided` (ab-seq.c): analyse the group so far as the sequential design
 * it is (verdict/compare-seq.c), print the state of every metric and the
 * time to the decision, and say whether to stop; at the end, store the
 * design with the group's runs.
 */
#ifndef DN_AB_SEQ_H
#define DN_AB_SEQ_H

#include <stdint.h>
#include <stdio.h>

#include "verdict/compare.h"
#include "run/runner.h"

/* The design's bounds when none is given (README, docs/cli.md): trials
 * of both variants, and the budget. */
#define AB_SEQ_MAX_TRIALS	20
#define AB_SEQ_BUDGET_MS	(30 * 60 * 1000)

struct ab_seq {
	struct compare_opts	 co;	/* the verdict's options, seq set */
	struct compare_seq	 q;
	int64_t			 budget_ms;	/* 0 none */
	int			 budget_default; /* not --budget */
	uint64_t		 t0_ns, last_ns;
	double			 block_s;	/* the last block's wall time */
	FILE			*out;		/* progress, NULL none */
	int			 failed;	/* said why; exit 1 */
};

/* Ready S for at most MAX_TRIALS trials of both variants (a multiple of
 * 4 is used: whole ABBA blocks) and BUDGET_MS (0 none); CO is copied
 * (its metrics must outlive S).  Returns the repeats per variant. */
int	 ab_seq_init(struct ab_seq *s, const struct compare_opts *co,
	    int max_trials, int64_t budget_ms, FILE *out);
/* runner_opts.after_slot: ARG is a struct ab_seq. */
int	 ab_seq_after_slot(void *arg, const struct scenario *scn,
	    struct dn_store *store, const struct runner_result *res);
/* After the runner: why it stopped (if not said yet) and the fact
 * `sequential` on every run of the group.  0, or -1 with *CAUSE. */
int	 ab_seq_finish(struct ab_seq *s, struct dn_store *store,
	    const struct runner_result *res, char **cause);

#endif
