/* cmd-show.c: placeholder until `devnet show` lands. */
#include "cmd.h"

static int
cmd_show_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cmd_error("'show' is not built yet");
	return (1);
}

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.usage = "show",
	.summary = "(not built yet)",
	.exec = cmd_show_exec,
};
