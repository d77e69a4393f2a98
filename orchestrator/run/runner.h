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

#include "scenario/scenario.h"

struct dn_store;
struct snapshot;
struct runner_result;

struct runner_opts {
	const char	*db_path;	/* for messages */
	const char	*label;		/* may be NULL */
	const char	*run_dir;	/* base dir of trial dirs */
	int		 quiet;		/* no progress at all */
	int		 ready_timeout_ms;	/* 0 = default */
	int		 grace_ms;	/* SIGTERM -> SIGKILL, 0 = default */
	FILE		*out;		/* per-run summaries, NULL = stdout */
	struct snapshot	*snap;		/* --serve: published to, or NULL */
	/* Interference (run/interference.c): the cores other programs may
	 * use beside a trial before it is named (0 = INTERFERENCE_MAX);
	 * STRICT: such a trial fails. */
	double		 itf_max;
	int		 strict;
	/* The machine lock (sys/machlock.h): how long to wait for another
	 * devnet that holds it, ms; 0 = refuse at once, -1 = default. */
	int		 machine_wait_ms;
	/* Called after every slot with the runs so far (devnet ab --until
	 * decided looks at the data here); nonzero stops the plan there,
	 * as if it had ended.  NULL: none. */
	int		(*after_slot)(void *arg, const struct scenario *scn,
			    struct dn_store *store,
			    const struct runner_result *res);
	void		*after_arg;
};

struct runner_result {
	int64_t		 group_id;
	int64_t		*run_ids;	/* owned: free() */
	size_t		 nruns;
	int		 nfailed;
	int		 signal;	/* stop signal that stopped it, or 0 */
	int		 store_failed;	/* a write failed; plan cut short */
	int		 asserts_failed;	/* assertions that failed */
	int		 asserts_inconclusive;
};

/* Exit statuses of run and ab for assertions (docs/cli.md): one failed;
 * none failed but one was inconclusive. */
#define RUNNER_EXIT_ASSERT_FAILED	4
#define RUNNER_EXIT_ASSERT_INCONCLUSIVE	5

/*
 * The one check of a loaded scenario S (with the run's options already
 * applied: --set, --provider, --order, --repeats) before anything starts:
 * what its provider and its nodes' kinds cannot do, and what the runner
 * cannot (check.c).  `devnet validate` and `devnet run`/`ab` call it, so
 * that what validate accepts, run runs, and what run refuses, validate
 * refuses with the same words.  No side effect.  0, or -1 with *CAUSE.
 */
int	 run_check(const struct scenario *s, char **cause);
/* What the check does not refuse but a user should know before anything
 * starts, on F (validate and run print the same): a trial too short for
 * its network conditions' proof, which will fail as not proven. */
void	 run_check_warn(const struct scenario *s, FILE *f);

/*
 * Block the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) in the calling
 * (main) thread: call before any thread or nng socket exists, so that
 * every thread inherits the mask and the runner takes the signals
 * synchronously.
 */
void	 signals_block(void);
/*
 * After runner_run, when nothing takes the stop signals any more: from
 * here one of them (or one that came since the last trial stopped
 * waiting) prints a line and exits 128 + its number at once.  Main
 * thread, once the other threads are gone.
 */
void	 signals_unblock(void);

/*
 * Run every trial of SCN's plan, storing into STORE.  Prints progress and
 * summaries to stderr/stdout unless quiet.  Returns 0 when every trial
 * ran (look at RES for failures and the interrupting signal), -1 with
 * *CAUSE when nothing could be started.
 */
int	 runner_run(struct scenario *scn, struct dn_store *store,
	    const struct runner_opts *o, struct runner_result *res,
	    char **cause);

/* The exit status a command should return for RES: 128 + the signal
 * that stopped it, else 1 when a trial failed, else 4 when an assertion
 * failed, else 5 when one was inconclusive, else 0. */
int	 runner_exit_status(const struct runner_result *res);

#endif
