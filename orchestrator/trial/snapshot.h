/*
 * snapshot.h: what a run looks like right now, for the live server
 * (serve/, `--serve`): the plan, each trial's nodes with their latest
 * samples, a short downsampled history per series, and the events.
 *
 * The runner and the collector publish into it (snapshot_*: one small
 * mutex per trial, held for a copy of one sample); the server reads it
 * through snapshot_view and snapshot_series, which copy out under that
 * mutex and format nothing while holding it.  The server never touches
 * the trial or its store (trial-store.h): a slow client cannot slow a
 * trial.
 *
 * Not here: the HTTP server and the formats (serve/), the trial itself
 * (trial.h).
 */
#ifndef DN_SNAPSHOT_H
#define DN_SNAPSHOT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "metric-table.h"

struct trial;
struct plan_trial;

/* Points kept per series: when full, every other one is dropped and
 * from then on only every 2nd, 4th, ... sample is kept (a 2.5-hour
 * trial at 1 s samples keeps 240..480 points, the browser no more). */
#define SNAP_POINTS	480
/* Events kept per trial, the newest. */
#define SNAP_EVENTS	256

enum snap_state {
	SNAP_PLANNED, SNAP_STARTING, SNAP_RUNNING, SNAP_ENDED
};
/* A node's state as the runner last saw it. */
enum snap_node_state {
	SNAP_NODE_UP, SNAP_NODE_DOWN, SNAP_NODE_PAUSED, SNAP_NODE_CRASHED,
	SNAP_NODE_DONE
};

struct snap_event {
	int64_t	 t_ms;
	int	 node;
	char	 kind[24];
	char	 detail[104];
};

/* One node's (or, node == -1, the load generator's) latest values. */
struct snap_node {
	int		 node;
	char		*host;
	int		 state;		/* enum snap_node_state */
	int64_t		 samples;	/* SAMPLE messages taken for it */
	int64_t		 t_ms;		/* of the latest */
	uint64_t	 have;		/* bit i: last[i] was received */
	double		 last[DN_METRIC_COUNT];
};

/* A copy of one trial for the server (snapshot_view). */
struct snap_trial_view {
	int		 index;		/* in the plan, from 0 */
	int		 slot;
	int64_t		 run_id;	/* 0 until prepared */
	char		*variant;
	int		 state;		/* enum snap_state */
	char		*status;	/* when ended: ok, failed, ... */
	char		 cpus[64];	/* the duet's CPU set, or "" */
	int64_t		 t_ms;		/* its clock now (running) */
	int64_t		 duration_ms, warmup_ms, interval_ms;
	int		 nnodes;
	struct snap_node *nodes;	/* nnodes + 1: the last is node -1 */
	struct snap_event *events;	/* oldest first */
	size_t		 nevents;
	int64_t		 events_total;
};

struct snap_view {
	char			*scenario;
	int64_t			 group_id;
	uint64_t		 now_ms;	/* wall clock */
	int			 ntrials;
	struct snap_trial_view	*trials;
	int			 ended;		/* trials ended so far */
};

struct snapshot;

struct snapshot *snapshot_new(void);
void	 snapshot_free(struct snapshot *);

/* --- the runner (main thread) ----------------------------------------- */

/* The plan: N trials of SCENARIO in run order, in group GROUP_ID. */
void	 snapshot_plan(struct snapshot *, const char *scenario,
	    int64_t group_id, const struct plan_trial *plan, size_t n,
	    int64_t duration_ms, int64_t warmup_ms, int64_t interval_ms);
/* T is prepared (run id, nodes): T->snap is set. */
void	 snapshot_trial_begin(struct snapshot *, struct trial *t);
/* T's t=0. */
void	 snapshot_trial_start(struct trial *t);
/* The nodes' states (main-thread fields of T), each tick. */
void	 snapshot_trial_watch(struct trial *t);
/* T ended with STATUS (ok, failed, interrupted). */
void	 snapshot_trial_end(struct trial *t, const char *status);

/* --- the collector and trial.c ---------------------------------------- */

/* A sample of NODE (-1: the load generator) at T_MS: VALUES[i] for each
 * bit i of PRESENT. */
void	 snapshot_sample(struct trial *t, int node, int64_t t_ms,
	    const double *values, uint64_t present);
/* An event, as stored. */
void	 snapshot_event(struct trial *t, int node, int64_t t_ms,
	    const char *kind, const char *detail);

/* --- the server --------------------------------------------------------- */

/* A copy of everything but the series: snapshot_view_free. */
struct snap_view *snapshot_view(struct snapshot *);
void	 snapshot_view_free(struct snap_view *);

/* The history of METRIC in the trial of run RUN_ID: per node (-1 last)
 * its points, T_MS ascending, copied (snapshot_series_free).  -1 when no
 * such trial. */
struct snap_series {
	int	 node;
	size_t	 n;
	int64_t	*t_ms;
	double	*v;
};
int	 snapshot_series(struct snapshot *, int64_t run_id, int metric,
	    struct snap_series **out, size_t *nout);
void	 snapshot_series_free(struct snap_series *v, size_t n);

#endif
