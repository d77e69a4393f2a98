/* cmd-ab.c: placeholder until `devnet ab` lands. */
#include "cmd.h"

static int
cmd_ab_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cmd_error("'ab' is not built yet");
	return (1);
}

const struct cmd_entry cmd_ab_entry = {
	.name = "ab",
	.usage = "ab",
	.summary = "(not built yet)",
	.exec = cmd_ab_exec,
};
