/* cmd-export.c: placeholder until `devnet export` lands. */
#include "cmd.h"

static int
cmd_export_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cmd_error("'export' is not built yet");
	return (1);
}

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.usage = "export",
	.summary = "(not built yet)",
	.exec = cmd_export_exec,
};
