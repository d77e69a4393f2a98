/*
 * cmd-report.c: `devnet report A B -o report.html` and `devnet report
 * --history -o FILE`: the options, then the page from report/
 * (compare-page.c, report-history.c), written whole or not at all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd-args.h"
#include "verdict/compare.h"
#include "metric-table.h"
#include "sys/outfile.h"
#include "report/report.h"
#include "report/report-history.h"
#include "stats.h"
#include "store.h"
#include "xalloc.h"

static const char report_help[] =
    "A and B as for 'devnet compare' (run id, comma list, GROUP:VARIANT).\n\n"
    "options:\n"
    "  -o, --output F     HTML file to write (required)\n"
    "  --db PATH          database (default devnet.db)\n"
    "  --metric NAME      only NAME (repeatable; see 'devnet compare "
    "--help')\n"
    "  --threshold PCT    practical threshold (default 1)\n"
    "  --unit UNIT        auto (default), trial or node\n"
    "  --aa GROUP         the A/A group --unit node must pass\n"
    "  --strict           runs that differ in setup or missed their load\n"
    "                     rate are an error, not a warning\n"
    "  --history          instead of A and B: the history page of a\n"
    "                     scenario (see 'devnet history'), per metric the\n"
    "                     series in commit order with its change points\n"
    "  --scenario NAME    with --history (default: the only one stored)\n"
    "  --repo PATH        with --history: the git repository that orders\n"
    "                     the commits (default: the current directory)\n"
    "  --help             this text\n";

static int	cmd_report_exec(int, char **);

const struct cmd_entry cmd_report_entry = {
	.name = "report",
	.usage = "report [--db PATH] [--metric NAME]... [--threshold PCT] "
	    "[--unit UNIT] -o FILE A B | report --history [--scenario NAME] "
	    "-o FILE",
	.summary = "write an HTML report: verdict table and charts",
	.help = report_help,
	.help_more = cmd_help_metrics,
	.exec = cmd_report_exec,
};

static int
cmd_report_exec(int argc, char **argv)
{
	static const struct option own[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "history", no_argument, NULL, 'H' },
		{ "scenario", required_argument, NULL, 'S' },
		{ "repo", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	struct history_opts	 ho = { .metrics = NULL };
	int			 history = 0;
	const char		*output = NULL;
	struct cmd_args		 a;
	struct compare_result	*r = NULL;
	struct report_charts	*charts = NULL;
	struct dn_store		*s = NULL;
	char			*cause = NULL, *tmp = NULL;
	FILE			*out = NULL;
	int			 c, rc = 1;

	cmd_args_init(&a, CMD_A_DB | CMD_A_METRIC | CMD_A_VERDICT, own);
	/* named: a foreign node's own metrics are charted too */
	a.verdict.named = 1;
	while ((c = cmd_getopt(&a, &cmd_report_entry, "o:", argc,
	    argv)) != -1) {
		switch (c) {
		case CMD_GETOPT_EXIT:
			return (a.exit);
		case 'o':
			output = optarg;
			break;
		case 'H':
			history = 1;
			break;
		case 'S':
			ho.scenario = optarg;
			break;
		case 'r':
			ho.repo = optarg;
			break;
		}
	}
	if (history) {
		/* report-history.c: the page of devnet history. */
		if (argc != optind || output == NULL) {
			cmd_error("report --history: want -o FILE and no "
			    "sides (see 'devnet report --help')");
			return (CMD_EXIT_USAGE);
		}
		ho.metrics = a.metrics;
		ho.nmetrics = a.verdict.nmetrics;
		if (report_history_write(a.db, &ho, output, &cause) != 0) {
			cmd_error("%s", cause);
			free(cause);
			return (1);
		}
		printf("wrote %s\n", output);
		return (0);
	}
	if (argc - optind != 2 || output == NULL) {
		cmd_error("report: want -o FILE and two sides, A and B (see "
		    "'devnet report --help')");
		return (CMD_EXIT_USAGE);
	}
	if (dn_store_open(&s, a.db, DN_STORE_RDONLY, &cause) != 0)
		goto fail;
	/* one read of the samples for the verdict and the charts */
	charts = report_charts_new(s);
	a.verdict.feed = report_charts_feed(charts);
	if (compare_analyze(s, argv[optind], argv[optind + 1], &a.verdict, &r,
	    &cause) != 0)
		goto fail;
	if ((out = outfile_open(output, &tmp, &cause)) == NULL)
		goto fail;
	if (report_compare_write(s, r, charts, a.db, out, &cause) != 0)
		goto fail;
	c = outfile_commit(out, tmp, output, &cause);
	out = NULL;
	if (c != 0)
		goto fail;
	printf("wrote %s\n", output);
	rc = 0;
	goto out;
fail:
	cmd_error("%s", cause);
	if (out != NULL)
		outfile_abort(out, tmp);
out:
	free(tmp);
	free(cause);
	compare_result_free(r);
	report_charts_free(charts);
	dn_store_close(s);
	return (rc);
}
