/*
 * cmd-query.c: `devnet query SQL`, one read-only SQL statement against the
 * database (schema: docs/schema.md).  The database is opened read-only and
 * statements that would write are refused.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "compare.h"
#include "qtab.h"

static const char query_help[] =
    "options:\n"
    "  --db PATH       database (default devnet.db)\n"
    "  --format FMT    table (default), csv or json\n"
    "  --help          this text\n\n"
    "One statement; the database is opened read-only (writes fail).\n"
    "Tables: runs, nodes, metrics, samples, events, run_facts, ab_groups;\n"
    "views: run_summary, node_summary, sample_rates (docs/schema.md).\n"
    "example: devnet query \"SELECT node, metric, max FROM node_summary\n"
    "         WHERE run_id = 1 AND metric = 'rss_bytes'\"\n";

static int	cmd_query_exec(int, char **);

const struct cmd_entry cmd_query_entry = {
	.name = "query",
	.usage = "query [--db PATH] [--format table|csv|json] SQL",
	.summary = "run one read-only SQL statement on the database",
	.help = query_help,
	.exec = cmd_query_exec,
};

static int
cmd_query_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*db = CMD_DEFAULT_DB;
	char		*cause = NULL;
	int		 c, format = COMPARE_TABLE, rc = 1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'f':
			if (compare_format_parse(optarg, &format) != 0 ||
			    format == COMPARE_MARKDOWN) {
				cmd_error("unknown format '%s' (table, csv or "
				    "json)", optarg);
				return (CMD_EXIT_USAGE);
			}
			break;
		case 'h':
			cmd_usage(&cmd_query_entry, stdout);
			return (0);
		default:
			return (cmd_bad_option(&cmd_query_entry,
			    argv[optind - 1]));
		}
	}
	if (argc - optind != 1) {
		cmd_error("query: want one SQL statement, quoted (see 'devnet "
		    "query --help')");
		return (CMD_EXIT_USAGE);
	}
	if (qtab_exec(db, argv[optind], format, NULL, stdout,
	    &cause) != 0) {
		cmd_error("%s", cause);
		goto out;
	}
	rc = 0;
out:
	free(cause);
	return (rc);
}
