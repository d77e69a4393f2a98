/* cmd-query.c: placeholder until `devnet query` lands. */
#include "cmd.h"

static int
cmd_query_exec(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cmd_error("'query' is not built yet");
	return (1);
}

const struct cmd_entry cmd_query_entry = {
	.name = "query",
	.usage = "query",
	.summary = "(not built yet)",
	.exec = cmd_query_exec,
};
