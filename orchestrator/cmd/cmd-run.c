/*
 * cmd-run.c: `devnet run SCENARIO`: run every trial of a scenario and
 * store it.  The options and the run itself are shared with `devnet ab`
 * (run-args.c).
 */
#include <stdlib.h>

#include "cmd/cmd.h"
#include "cmd/run-args.h"
#include "scenario/scenario.h"
#include "store.h"

static int
cmd_run_exec(int argc, char **argv)
{
	struct run_args		 a;
	struct runner_result	 res;
	struct dn_store		*store;
	struct scenario		*scn;
	int			 status;

	if (run_args_parse(&a, &cmd_run_entry, argc, argv, 0, &status) != 0)
		return (status);
	status = run_args_execute(&a, &res, &store, &scn);
	dn_store_close(store);
	scenario_free(scn);
	free(res.run_ids);
	run_args_free(&a);
	return (status);
}

const struct cmd_entry cmd_run_entry = {
	.name = "run",
	.usage = "run SCENARIO [--db PATH] [--label TEXT] [--set KEY=VALUE]... "
	    "[--run-dir DIR] [--serve [ADDR:]PORT] [--quiet]",
	.summary = "run a scenario's devnets and store their samples",
	.help = run_args_help,
	.exec = cmd_run_exec,
};
