/*
 * cmd-run.c: `devnet run SCENARIO`: run every trial of a scenario and
 * store it.  The options and the run itself are shared with `devnet ab`
 * (run-args.c).
 */
#include <stdio.h>
#include <stdlib.h>

#include "assert/assert.h"
#include "cmd/cmd.h"
#include "cmd/run-args.h"
#include "scenario/scenario.h"
#include "store.h"
#include "markup.h"

static const char run_help_extra[] =
    "  --format junit       print the assertions' results (one testcase\n"
    "                       per assertion per run) as JUnit XML on stdout\n"
    "  (--quiet still prints every failed or inconclusive assertion and\n"
    "  the counts)\n"
    "\nExit status: 0 all trials ok and every assertion passed, 1 a trial\n"
    "failed, 4 an assertion failed, 5 none failed but one was\n"
    "inconclusive (docs/cli.md).\n";
static char run_help[sizeof(run_help_extra) + 2048];

static int
cmd_run_exec(int argc, char **argv)
{
	struct run_args		 a;
	struct runner_result	 res;
	struct dn_store		*store;
	struct scenario		*scn;
	int			 status;

	snprintf(run_help, sizeof(run_help), "%s%s", run_args_help,
	    run_help_extra);
	if (run_args_parse(&a, &cmd_run_entry, argc, argv, 0, &status) != 0)
		return (status);
	/* --format junit: stdout holds only the XML. */
	if (a.format != NULL)
		a.ro.out = stderr;
	status = run_args_execute(&a, &res, &store, &scn);
	if (store != NULL) {
		char	*cause = NULL;

		/* how a run ends: what held and what did not (--quiet: the
		 * counts and what did not hold) */
		if (assert_summary(stderr, store, res.run_ids, res.nruns,
		    a.ro.quiet, &cause) != 0) {
			cmd_error("%s", cause);
			free(cause);
		}
	}
	if (a.format != NULL && store != NULL) {
		char	*cause = NULL;

		dn_junit_begin(stdout);
		if (assert_junit(stdout, store, res.run_ids, res.nruns,
		    &cause) != 0) {
			cmd_error("%s", cause);
			free(cause);
			if (status == 0 || status == 4 || status == 5)
				status = 1;
		}
		dn_junit_end(stdout);
		fflush(stdout);
	}
	dn_store_close(store);
	scenario_free(scn);
	free(res.run_ids);
	run_args_free(&a);
	return (status);
}

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.usage = "run SCENARIO [--db PATH] [--label TEXT] [--set KEY=VALUE]... "
	    "[--run-dir DIR] [--serve [ADDR:]PORT] [--format junit] [--quiet]",
	.summary = "run a scenario's devnets and store their samples",
	.help = run_help,
	.exec = cmd_run_exec,
};
