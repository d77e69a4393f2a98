/*
 * cmd-compare.c: `devnet compare A B`, the A/B verdict between two sets of
 * stored runs.  The analysis lives in compare.c; this file parses options,
 * opens the database read-only and prints.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"
#include "store.h"

#define MAX_METRICS	64

static const char compare_help[] =
    "A and B are each a run id (12), a comma list of run ids (12,14), or\n"
    "GROUP:VARIANT (3:A; see 'devnet runs').\n\n"
    "options:\n"
    "  --db PATH          database (default devnet.db)\n"
    "  --metric NAME      compare only NAME (repeatable)\n"
    "  --format FMT       table (default), markdown, csv or json\n"
    "  --threshold PCT    practical threshold: smaller changes are 'same'\n"
    "                     (default 1)\n"
    "  --unit UNIT        auto (default), trial or node: what one\n"
    "                     observation is (docs/statistics.md)\n"
    "  --help             this text\n\n"
    "metrics: rss_max rss_avg hwm_max rss_growth heap_live_avg\n"
    "  allocs_per_s alloc_bytes_per_s threads_avg threads_max minflt_per_s\n"
    "  majflt_per_s cpu_s_per_s ctx_per_s lag_blocks_mean lag_blocks_p99\n"
    "  lag_blocks_max lag_ms_mean lag_ms_p99 lag_ms_max log_lines_per_s\n"
    "  txs_applied_per_s reads_per_s writes_per_s wl_ops_per_s wl_op_us\n"
    "  tx_latency_p50_ms tx_latency_p99_ms tx_latency_max_ms achieved_tps\n";

static int	cmd_compare_exec(int, char **);

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "compare [--db PATH] [--metric NAME]... [--format FMT] "
	    "[--threshold PCT] [--unit auto|trial|node] A B",
	.summary = "compare two runs or sets of runs: the A/B verdict",
	.help = compare_help,
	.exec = cmd_compare_exec,
};

static int
cmd_compare_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "metric", required_argument, NULL, 'm' },
		{ "format", required_argument, NULL, 'f' },
		{ "threshold", required_argument, NULL, 't' },
		{ "unit", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char		*db = CMD_DEFAULT_DB, *metrics[MAX_METRICS];
	struct compare_opts	 opts = { .metrics = metrics, .named = 1 };
	struct dn_store		*s = NULL;
	char			*cause = NULL;
	int			 c, rc = 1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'm':
			if (opts.nmetrics == MAX_METRICS) {
				cmd_error("too many --metric options (at most "
				    "%d)", MAX_METRICS);
				return (CMD_EXIT_USAGE);
			}
			metrics[opts.nmetrics++] = optarg;
			break;
		case 'f':
		case 't':
		case 'u':
			if (compare_opt_set(&opts, c, optarg, &cause) != 0) {
				cmd_error("%s", cause);
				free(cause);
				return (CMD_EXIT_USAGE);
			}
			break;
		case 'h':
			cmd_usage(&cmd_compare_entry, stdout);
			return (0);
		default:
			return (cmd_bad_option(&cmd_compare_entry,
			    argv[optind - 1]));
		}
	}
	if (argc - optind != 2) {
		cmd_error("compare: want two sides, A and B (see 'devnet "
		    "compare --help')");
		return (CMD_EXIT_USAGE);
	}
	if (dn_store_open(&s, db, DN_STORE_RDONLY, &cause) != 0 ||
	    compare_print(s, argv[optind], argv[optind + 1], &opts, stdout,
	    &cause) != 0) {
		cmd_error("%s", cause);
		goto out;
	}
	rc = 0;
out:
	free(cause);
	dn_store_close(s);
	return (rc);
}
