/*
 * trial-store.h: the store every trial of a run shares, owned by trial/
 * (issue 34): the sqlite handle, its lock and whether it is down (a
 * write failed) live behind these functions, and each read or write a
 * part of a trial makes is one of them, taking the lock itself.  No
 * caller takes the store's lock or holds its handle: a new kind of row
 * is a function here (as trial_event, trial.h, is for events).
 *
 * Errors: a write whose failure means "the database cannot be written"
 * (samples, events, facts, link samples, named metrics) marks the store
 * down for every trial and remembers the first error in T
 * (T->store_failed, T->store_error); the others return -1 with *CAUSE
 * for the caller to say.
 *
 * Lock order: the store's lock before T->mu, never the reverse.
 *
 * Not here: the runner's own use of the store before and after the
 * trials (the group, the plan's end), when no trial thread runs.
 */
#ifndef DN_TRIAL_STORE_H
#define DN_TRIAL_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

struct trial;
struct trial_store;

/* One sample row queued by the collector for the writer thread. */
struct trial_row {
	int32_t		node;
	int32_t		metric;
	int64_t		t_ms;
	double		value;
};

/* trial_store_samples: the store is down, nothing was written. */
#define TRIAL_STORE_DOWN	1

/* The shared store of a run's trials over DB (still the caller's: close
 * it after trial_store_free).  Set it as each trial's `store`. */
struct trial_store *trial_store_new(struct dn_store *db);
void	 trial_store_free(struct trial_store *);

/* 1 once a write failed: no more samples go in, and the runner ends the
 * slot's trials failed and runs no more. */
int	 trial_store_down(struct trial *t);
/* Mark the store down and remember CAUSE (consumed) as T's first store
 * error (a failure met outside these functions). */
void	 trial_store_error(struct trial *t, char *cause);

/* T's run row from RI, committed; T->run_id set.  0 or -1 with *CAUSE. */
int	 trial_store_run_begin(struct trial *t, const struct dn_run_info *ri,
	    char **cause);
/* Node K's row (its pid and command line from T, BINARY and its SHA). */
int	 trial_store_node_add(struct trial *t, int k, const char *binary,
	    const char *sha, char **cause);
/* Node K runs on HOST (swarm). */
int	 trial_store_node_host(struct trial *t, int k, const char *host,
	    char **cause);
/* An event and a fact of T (trial_event, trial_fact); errors to T. */
void	 trial_store_event(struct trial *t, int node, int64_t t_ms,
	    const char *kind, const char *detail);
void	 trial_store_fact(struct trial *t, int node, const char *key,
	    const char *value);
/* The emulated network's probe samples (V, N of them); errors to T. */
void	 trial_store_links(struct trial *t, const struct dn_link_sample *v,
	    size_t n);
/* The id of named metric NAME, its dictionary row made if new (COUNTER:
 * its kind): 0, or -1 with the error to T. */
int	 trial_store_metric_named(struct trial *t, const char *name,
	    int counter, int *id);

/*
 * The writer thread's batch: ROWS[0..N) into the open transaction.  0 and
 * *DONE = N when all went in; DN_STORE_EBUSY with *DONE the rows taken
 * when another process holds the database (the rest to be queued again);
 * -1 (error to T) with *DONE the rows before it; TRIAL_STORE_DOWN with
 * *DONE = 0 when the store is down (what space is left is for the runs'
 * ends: runner.c's reserve).
 */
int	 trial_store_samples(struct trial *t, const struct trial_row *rows,
	    size_t n, size_t *done);
/* The writer's commit: 0 (also when the store is down: nothing to do),
 * DN_STORE_EBUSY (the rows kept: again later), or -1 (error to T). */
int	 trial_store_try_commit(struct trial *t);

/* Open the transaction now, so that the run's end is one commit (a
 * failure here only means more commits). */
void	 trial_store_begin(struct trial *t);
/* T's end: STATUS and REASON, committed.  0 or -1 with *CAUSE. */
int	 trial_store_run_end(struct trial *t, const char *status,
	    const char *reason, char **cause);
/* Commit what is open.  0 or -1 with *CAUSE. */
int	 trial_store_commit(struct trial *t, char **cause);

/* Reads for the assertions: the id of NAME (-1 unknown) and T's series
 * of metric ID from FROM_MS (store.h, dn_store_metric_find and
 * dn_store_series).  0 or -1 with *CAUSE. */
int	 trial_store_metric_find(struct trial *t, const char *name, int *id,
	    char **cause);
int	 trial_store_series(struct trial *t, int id, int64_t from_ms,
	    struct dn_series **sr, size_t *n, char **cause);
/* Whether T's run has any sample of metric NAME into *HAS (store.h,
 * dn_store_run_has_metric).  0 or -1 with *CAUSE. */
int	 trial_store_has_metric(struct trial *t, const char *name, int *has,
	    char **cause);
/* One assertion's row.  0 or -1 with *CAUSE. */
int	 trial_store_assertion(struct trial *t, const struct dn_assert_row *r,
	    char **cause);

#endif
