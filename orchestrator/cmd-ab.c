/*
 * cmd-ab.c: `devnet ab SCENARIO`: run every variant `repeats` times in the
 * chosen order as one A/B group, then print the comparison of the first
 * variant against each other one (compare.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"
#include "run-args.h"
#include "scenario.h"
#include "store.h"
#include "xalloc.h"

static const char ab_help_extra[] =
    "  --metric NAME        compare only these metrics (repeatable)\n"
    "  --format table|markdown|csv|json\n"
    "                       comparison output (default table)\n"
    "  --threshold PCT      smallest change that counts (default 1)\n"
    "  --unit auto|trial|node\n"
    "                       unit of the statistical test (docs/statistics.md)\n";

static char ab_help[sizeof(ab_help_extra) + 2048];

static int
cmd_ab_exec(int argc, char **argv)
{
	struct run_args		 a;
	struct runner_result	 res;
	struct compare_opts	 co;
	struct dn_store		*store = NULL;
	struct scenario		*scn = NULL;
	char			*cause = NULL, *sa = NULL, *sb = NULL;
	size_t			 v;
	int			 status;

	snprintf(ab_help, sizeof(ab_help), "%s%s", run_args_help,
	    ab_help_extra);
	if (run_args_parse(&a, &cmd_ab_entry, argc, argv, 1, &status) != 0)
		return (status);
	memset(&co, 0, sizeof(co));
	co.named = 1;
	co.metrics = a.metrics;
	co.nmetrics = a.nmetrics;
	/* Checked before anything runs: a typo must not cost a run. */
	if ((a.format != NULL && compare_opt_set(&co, 'f', a.format,
	    &cause) != 0) || (a.threshold != NULL && compare_opt_set(&co,
	    't', a.threshold, &cause) != 0) || (a.unit != NULL &&
	    compare_opt_set(&co, 'u', a.unit, &cause) != 0)) {
		cmd_error("%s (see 'devnet ab --help')", cause);
		free(cause);
		run_args_free(&a);
		return (CMD_EXIT_USAGE);
	}
	/* With a machine format, stdout holds only the comparison. */
	if (co.format != COMPARE_TABLE)
		a.ro.out = stderr;
	status = run_args_execute(&a, &res, &store, &scn);
	if (store == NULL)
		goto out;
	if (res.signal != 0) {
		fprintf(stderr, "devnet: interrupted: no comparison (the runs "
		    "so far are stored)\n");
		goto out;
	}
	if (scn->nvariants < 2) {
		fprintf(stderr, "devnet: the scenario has one variant: nothing "
		    "to compare (add `variants:` with A and B)\n");
		goto out;
	}
	for (v = 1; v < scn->nvariants; v++) {
		sa = dn_xasprintf("%lld:%s", (long long)res.group_id,
		    scn->variants[0].name);
		sb = dn_xasprintf("%lld:%s", (long long)res.group_id,
		    scn->variants[v].name);
		if (co.format == COMPARE_TABLE)
			printf("\n%s vs %s (group %lld):\n",
			    scn->variants[0].name, scn->variants[v].name,
			    (long long)res.group_id);
		fflush(stdout);
		if (compare_print(store, sa, sb, &co, stdout, &cause) != 0) {
			cmd_error("%s", cause);
			free(cause);
			cause = NULL;
			if (status == 0)
				status = 1;
		}
		free(sa);
		free(sb);
	}
out:
	dn_store_close(store);
	scenario_free(scn);
	free(res.run_ids);
	run_args_free(&a);
	return (status);
}

const struct cmd_entry cmd_ab_entry = {
	.name = "ab",
	.usage = "ab SCENARIO [--repeats N] [--order abba|concurrent] "
	    "[--db PATH] [--format table|markdown|csv|json]",
	.summary = "run variants A and B as one group and print the verdict",
	.help = ab_help,
	.exec = cmd_ab_exec,
};
