/*
 * run-args.h: the options `devnet run` and `devnet ab` share, parsed in
 * one place (run-args.c).
 */
#ifndef DN_RUN_ARGS_H
#define DN_RUN_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd.h"
#include "run/runner.h"

struct scenario;

struct run_args {
	const char	*scenario;
	const char	*db;
	char		**sets;
	size_t		 nsets;
	int		 repeats;	/* 0 = the scenario's */
	int		 dry_run;	/* --dry-run: check, start nothing */
	int		 order;		/* -1 = the scenario's */
	struct runner_opts ro;
	char		*provider_set;	/* "provider=X" from --provider */
	const char	*serve;		/* --serve [ADDR:]PORT, or NULL */
	const char	*commit;	/* --commit: the build's commit */
	/* devnet ab only */
	const char	**metrics;
	size_t		 nmetrics;
	const char	*format;
	const char	*threshold;
	const char	*unit;
	const char	*target;	/* --target-effect */
	int		 strict;
	const char	*fail_on;
	/* --until decided (sequential), --max-trials N (all variants),
	 * --budget DUR (ms, 0 none), --require not-worse:PCT */
	int		 until;
	int		 max_trials;
	int64_t		 budget_ms;
	const char	*require;
	/* devnet ab: called once the scenario is loaded, before its
	 * repeats are set and checked, to choose the design (a->until,
	 * a->repeats, a->ro's hooks); DESIGN_ARG is its own. */
	void		(*design)(struct run_args *,
			    const struct scenario *, void *);
	void		*design_arg;
};

/* Options text for --help of run and ab. */
extern const char run_args_help[];

/*
 * Parse ARGV of E into A.  Returns 0, or an exit status to return at once
 * (0 after --help, CMD_EXIT_USAGE after a usage error, already printed).
 * AB enables the comparison options.  A->sets and A->metrics are owned by
 * A: run_args_free.
 */
int	 run_args_parse(struct run_args *a, const struct cmd_entry *e,
	    int argc, char **argv, int ab, int *exit_status);
void	 run_args_free(struct run_args *a);

/*
 * Load the scenario, open the store, run every trial.  Prints errors.
 * On return *STORE is open (caller closes) when the runs happened.
 * Returns the exit status so far (0, 1, 130, 143).
 */
int	 run_args_execute(struct run_args *a, struct runner_result *res,
	    struct dn_store **store, struct scenario **scn);

#endif
