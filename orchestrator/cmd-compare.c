/* cmd-compare.c: placeholder until `devnet compare` lands. */
#include "cmd.h"

static int
cmd_compare_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cmd_error("'compare' is not built yet");
	return (1);
}

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "compare",
	.summary = "(not built yet)",
	.exec = cmd_compare_exec,
};
