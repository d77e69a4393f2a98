/* cmd-runs.c: `devnet runs`, the list of stored runs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "verdict/compare.h"
#include "report/qtab.h"
#include "xalloc.h"

static const char runs_help[] =
    "options:\n"
    "  --db PATH       database (default devnet.db)\n"
    "  --format FMT    table (default), csv or json\n"
    "  --help          this text\n\n"
    "Columns: id, group, scenario, variant, trial, label, status, start\n"
    "(UTC), duration_s, nodes.  Compare runs with 'devnet compare' using\n"
    "run ids or GROUP:VARIANT.\n";

static int	cmd_runs_exec(int, char **);

const struct cmd_entry cmd_runs_entry = {
	.name = "runs",
	.usage = "runs [--db PATH] [--format table|csv|json]",
	.summary = "list the stored runs",
	.help = runs_help,
	.exec = cmd_runs_exec,
};

static int
cmd_runs_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*db = CMD_DEFAULT_DB;
	char		*cause = NULL, *empty = NULL;
	int		 c, format = COMPARE_TABLE, rc = 1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'f':
			if (cmd_list_format(optarg, &format) != 0)
				return (CMD_EXIT_USAGE);
			break;
		case 'h':
			cmd_usage(&cmd_runs_entry, stdout);
			return (0);
		default:
			return (cmd_bad_option(&cmd_runs_entry,
			    argv[optind - 1]));
		}
	}
	if (optind != argc) {
		cmd_error("runs: unexpected argument '%s'", argv[optind]);
		return (CMD_EXIT_USAGE);
	}
	empty = dn_xasprintf("no runs in '%s' (store some with 'devnet "
	    "run')\n", db);
	if (qtab_exec(db, "SELECT id, ab_group AS \"group\", scenario, "
	    "variant, trial, label, status, "
	    "strftime('%Y-%m-%d %H:%M:%S', start_ms / 1000, 'unixepoch') "
	    "AS start, round((coalesce(end_ms, start_ms) - start_ms) / "
	    "1000.0, 1) AS duration_s, nodes FROM runs ORDER BY id", format,
	    empty, stdout, &cause) != 0) {
		cmd_error("%s", cause);
		goto out;
	}
	rc = 0;
out:
	free(empty);
	free(cause);
	return (rc);
}
