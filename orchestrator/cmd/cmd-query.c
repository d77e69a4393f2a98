/*
 * cmd-query.c: `devnet query SQL`, one read-only SQL statement against the
 * database (schema: docs/schema.md).  The database is opened read-only and
 * statements that would write are refused; a statement that runs longer
 * than --timeout is stopped.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd-args.h"
#include "verdict/compare.h"
#include "report/qtab.h"
#include "store.h"
#include "units.h"

/* --timeout's default: a mistaken query (an unbounded recursive CTE, a
 * cross join of the samples) ends instead of running forever. */
#define QUERY_TIMEOUT	"60s"

static const char query_help[] =
    "options:\n"
    "  --db PATH       database (default devnet.db)\n"
    "  --format FMT    table (default), csv or json\n"
    "  --timeout DUR   stop the statement after DUR (default " QUERY_TIMEOUT
    "; 0: no limit)\n"
    "  --help          this text\n\n"
    "One statement; the database is opened read-only (writes fail).\n"
    "Tables: runs, nodes, metrics, samples, events, run_facts, ab_groups;\n"
    "views: run_summary, node_summary, sample_rates (docs/schema.md).\n"
    "example: devnet query \"SELECT node, metric, max FROM node_summary\n"
    "         WHERE run_id = 1 AND metric = 'rss_bytes'\"\n";

static int	cmd_query_exec(int, char **);
static int	query_run(const char *, const char *, int, const char *,
		    int64_t);

const struct cmd_entry cmd_query_entry = {
	.name = "query",
	.usage = "query [--db PATH] [--format table|csv|json] [--timeout DUR] SQL",
	.summary = "run one read-only SQL statement on the database",
	.help = query_help,
	.exec = cmd_query_exec,
};

static int
cmd_query_exec(int argc, char **argv)
{
	static const struct option own[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*timeout = QUERY_TIMEOUT, *why;
	struct cmd_args	 a;
	int64_t		 timeout_ms;
	int		 c;

	cmd_args_init(&a, CMD_A_DB | CMD_A_LIST, own);
	while ((c = cmd_getopt(&a, &cmd_query_entry, NULL, argc,
	    argv)) != -1) {
		if (c == CMD_GETOPT_EXIT)
			return (a.exit);
		timeout = optarg;	/* 't', the only own option */
	}
	if (argc - optind != 1) {
		cmd_error("query: want one SQL statement, quoted (see 'devnet "
		    "query --help')");
		return (CMD_EXIT_USAGE);
	}
	if (dn_parse_duration_ms(timeout, &timeout_ms, &why) != 0) {
		cmd_error("query: --timeout '%s': %s (e.g. 30s, 5m, 0 for no "
		    "limit)", timeout, why);
		return (CMD_EXIT_USAGE);
	}
	return (query_run(a.db, argv[optind], a.format, timeout,
	    timeout_ms));
}

/* qtab_exec with a time limit: TIMEOUT is the user's text, for the
 * message. */
static int
query_run(const char *db, const char *sql, int format, const char *timeout,
    int64_t timeout_ms)
{
	struct dn_store	*s = NULL;
	struct qtab	 t = { 0 };
	char		*cause = NULL;
	int		 rc = 1;

	if (dn_store_open(&s, db, DN_STORE_RDONLY, &cause) != 0)
		goto out;
	dn_store_set_timeout(s, timeout_ms);
	if (dn_store_query(s, sql, NULL, 0, qtab_row, &t, &cause) != 0)
		goto out;
	qtab_print(&t, format, stdout);
	rc = 0;
out:
	if (rc != 0 && s != NULL && dn_store_timed_out(s))
		cmd_error("query: query stopped after %s (--timeout DUR to "
		    "allow more)", timeout);
	else if (rc != 0)
		cmd_error("%s", cause);
	free(cause);
	qtab_release(&t);
	dn_store_close(s);
	return (rc);
}
