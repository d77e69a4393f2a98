/* cmd-runs.c: placeholder until `devnet runs` lands. */
#include "cmd.h"

static int
cmd_runs_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cmd_error("'runs' is not built yet");
	return (1);
}

const struct cmd_entry cmd_runs_entry = {
	.name = "runs",
	.usage = "runs",
	.summary = "(not built yet)",
	.exec = cmd_runs_exec,
};
