/* cmd-validate.c: placeholder until `devnet validate` lands. */
#include "cmd.h"

static int
cmd_validate_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cmd_error("'validate' is not built yet");
	return (1);
}

const struct cmd_entry cmd_validate_entry = {
	.name = "validate",
	.usage = "validate",
	.summary = "(not built yet)",
	.exec = cmd_validate_exec,
};
