/*
 * runner.h: run every trial of a scenario (what `devnet run` and
 * `devnet ab` share): plan, spawn, readiness, load, events, collection,
 * stop, and the end-of-trial checks (same state hash on every node, every
 * transaction accounted for exactly once).
 */
#ifndef DN_RUNNER_H
#define DN_RUNNER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "scenario.h"

struct dn_store;

struct runner_opts {
	const char	*db_path;	/* for messages */
	const char	*label;		/* may be NULL */
	const char	*run_dir;	/* base dir of trial dirs */
	int		 quiet;		/* no progress at all */
	int		 ready_timeout_ms;	/* 0 = default */
	int		 grace_ms;	/* SIGTERM -> SIGKILL, 0 = default */
	FILE		*out;		/* per-run summaries, NULL = stdout */
};

struct runner_result {
	int64_t		 group_id;
	int64_t		*run_ids;	/* owned: free() */
	size_t		 nruns;
	int		 nfailed;
	int		 signal;	/* SIGINT/SIGTERM that stopped it, or 0 */
};

/*
 * Block SIGINT and SIGTERM in the calling (main) thread: call before any
 * thread or nng socket exists, so that every thread inherits the mask and
 * the runner takes the signals synchronously.
 */
void	 runner_block_signals(void);

/*
 * Run every trial of SCN's plan, storing into STORE.  Prints progress and
 * summaries to stderr/stdout unless quiet.  Returns 0 when every trial
 * ran (look at RES for failures and the interrupting signal), -1 with
 * *CAUSE when nothing could be started.
 */
int	 runner_run(struct scenario *scn, struct dn_store *store,
	    const struct runner_opts *o, struct runner_result *res,
	    char **cause);

/* devnet-probe beside the devnet executable (foreign nodes). */
const char *runner_probe_path(void);

/* The exit status a command should return for RES. */
int	 runner_exit_status(const struct runner_result *res);

#endif
