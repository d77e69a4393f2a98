/* cmd-report.c: placeholder until `devnet report` lands. */
#include "cmd.h"

static int
cmd_report_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cmd_error("'report' is not built yet");
	return (1);
}

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "report",
	.summary = "(not built yet)",
	.exec = cmd_report_exec,
};
