/*
 * loadgen.h: the open-loop load generator of a trial (loadgen.c).  It
 * sends to the nodes' inbound endpoints the trial names (trial_node
 * in_url) and keeps its counters in a struct trial_load it publishes as
 * trial->load, where the collector reads them.
 *
 * Not here: inclusion accounting (collector.h), the trial data (trial.h).
 */
#ifndef DN_LOADGEN_H
#define DN_LOADGEN_H

#include <stdint.h>

#include "trial/trial.h"

/* Dial every node's inbound endpoint; the thread waits for loadgen_go.
 * Points T->load at the new generator's counters. */
int	 loadgen_create(struct trial *t, struct loadgen **lp, char **cause);
/* Start sending from T->t0_ns, until T->t0_ns + duration. */
int	 loadgen_go(struct loadgen *l, char **cause);
/*
 * Halt and close the sockets to the nodes, keeping the counts: done
 * before the nodes stop, so that nng's dialers never chase dead nodes
 * (docs/architecture.md, "nng_close can hang").
 */
void	 loadgen_disconnect(struct loadgen *l);
/* Stop sending (join the thread); counters stay readable. */
void	 loadgen_halt(struct loadgen *l);
/* Accepts NULL; clears the trial's load pointer. */
void	 loadgen_free(struct loadgen *l);

struct loadgen_stats {
	int64_t		submitted;
	int64_t		send_errors;
	double		elapsed_s;	/* of the schedule so far */
	double		target_tps;	/* mean target over elapsed */
	const char	*wait;		/* "sleep" or "spin", static */
	int		realtime;	/* SCHED_FIFO was granted */
	/* 0: a command load that printed no DN-LOAD line yet, so the
	 * counts above are not known (not 0) */
	int		reported;
};
void	 loadgen_stats(struct loadgen *l, struct loadgen_stats *st);
/*
 * Quantile Q (0 < Q <= 1) of every send lag of the run so far, in µs, from
 * a histogram with 1 % wide buckets (the bucket's upper bound, so at most
 * 1 % high); Q = 1 gives the exact maximum.  0 when nothing was sent.
 */
double	 loadgen_lag_quantile(struct loadgen *l, double q);

#endif
