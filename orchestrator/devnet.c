/*
 * devnet.c: main() and the command table.  Dispatches `devnet VERB ...` to
 * the cmd-VERB.c files (see cmd.h for how to add one).
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"

static const struct cmd_entry *cmd_table[] = {
	&cmd_run_entry,
	&cmd_ab_entry,
	&cmd_validate_entry,
	&cmd_runs_entry,
	&cmd_show_entry,
	&cmd_logs_entry,
	&cmd_compare_entry,
	&cmd_report_entry,
	&cmd_serve_entry,
	&cmd_history_entry,
	&cmd_import_entry,
	&cmd_query_entry,
	&cmd_export_entry,
	&cmd_image_entry,
	&cmd_metrics_entry,
};
#define NCMDS	(sizeof(cmd_table) / sizeof(cmd_table[0]))

static void
usage(FILE *out)
{
	size_t	i;

	fprintf(out, "usage: devnet COMMAND [ARGS...]\n\n"
	    "Run devnets of storage nodes, collect their metrics into sqlite, "
	    "and say\nwhether build B beats build A.\n\ncommands:\n");
	for (i = 0; i < NCMDS; i++)
		fprintf(out, "  %-10s %s\n", cmd_table[i]->name,
		    cmd_table[i]->summary);
	fprintf(out, "\n`devnet COMMAND --help` for a command's options; "
	    "docs/ for the rest.\n\nexit status: 0 done, 1 error (or a "
	    "failed trial), 2 usage error,\n3 `--fail-on` tripped (compare, "
	    "ab), 130/143 interrupted (run, ab);\ndocs/cli.md has every "
	    "command's.\n");
}

int
main(int argc, char **argv)
{
	size_t	i;

	if (argc < 2) {
		usage(stderr);
		return (CMD_EXIT_USAGE);
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return (0);
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("devnet %s\n", DN_VERSION);
		return (0);
	}
	for (i = 0; i < NCMDS; i++) {
		if (strcmp(argv[1], cmd_table[i]->name) == 0)
			return (cmd_table[i]->exec(argc - 1, argv + 1));
	}
	cmd_error("unknown command '%s' (see 'devnet --help')", argv[1]);
	return (CMD_EXIT_USAGE);
}
