/*
 * assert-internal.h: shared by the files of orchestrator/assert/ only:
 * assert-live.c (the live forms, each tick), assert-end.c (the end: value
 * forms, rows, JUnit) and assert-text.c (the words of a result).
 */
#ifndef DN_ASSERT_INTERNAL_H
#define DN_ASSERT_INTERNAL_H

#include <stdint.h>

#include "assert/assert.h"
#include "scenario/scenario.h"
#include "trial/trial.h"

enum ast_status { AST_PENDING, AST_PASS, AST_FAIL, AST_INCONCLUSIVE };

/* One assertion in one trial. */
struct ast {
	const struct scn_assert	*a;
	enum ast_status		 status;
	int			 seen;		/* samples judged in the window */
	/* The deciding (or, pending, the nearest) sample. */
	double			 observed;
	int64_t			 t_ms;		/* -1: none */
	int			 node;		/* -1 load, INT_MIN none */
	int			 run;		/* always: samples in a row */
	char			*message;	/* the result in words */
	/* always: when each node (or, index nnodes, the aggregate) began to
	 * break it, -1 while it holds; and the samples in a row. */
	int64_t			*bad_since;
	int			*bad_run;
	double			*bad_first;	/* the value that began it */
	/* eventually each_node: nodes that held once. */
	char			*held;
};

struct assert_state {
	struct ast		*v;
	size_t			 n;
	int64_t			*event_ms;	/* per event: its row's t_ms, -1 */
	int64_t			 next_ms;	/* next evaluation */
	int64_t			*seen_samples;	/* per node, and the load */
	int64_t			 abort_at_ms;	/* -1: none */
	const char		*abort_by;	/* its assertion's name */
};

/* assert-live.c: judge X at trial time NOW on SN (NULL: no new samples);
 * END: the trial is over, decide what the window leaves open. */
struct snap;
void	 ast_judge(struct trial *t, struct ast *x, const struct snap *sn,
	    int64_t now, int end);

/* assert-text.c */
/* "+812" style numbers: V with up to 4 significant decimals. */
void	 ast_fmt_num(char *buf, size_t cap, double v);
/* "; events active: stop node 2 ('pause') since t=20.0 s" or "; events
 * active: none", at T_MS of trial T. */
char	*ast_events_active(const struct trial *t, int64_t t_ms);
/* "; last lines of node-3.log: ..." (empty when there is no log). */
char	*ast_log_tail(const struct trial *t, int node);
/* Is T_MS inside any event's span (except: events)? */
int	 ast_in_event(const struct trial *t, int64_t t_ms);
/* The window of A in trial T: 0 and [*FROM, *TO], or -1 when its event
 * did not fire. */
int	 ast_window(const struct trial *t, const struct scn_assert *a,
	    int64_t *from, int64_t *to);
/* The condition as written, "lag_ms < 500 ms". */
void	 ast_cond(char *buf, size_t cap, const struct scn_assert *a);

#endif
