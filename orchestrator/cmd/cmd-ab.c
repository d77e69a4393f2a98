/*
 * cmd-ab.c: `devnet ab SCENARIO`: run every variant `repeats` times in the
 * chosen order as one A/B group, then print the comparison of the first
 * variant against each other one (compare.h).  Without a trial count
 * (--repeats, or the scenario's `repeats:`), or with --until decided,
 * look after every ABBA block and stop when decided (ab-seq.c).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assert/assert.h"
#include "cmd/ab-seq.h"
#include "cmd/cmd.h"
#include "cmd/relative.h"
#include "verdict/compare.h"
#include "cmd/run-args.h"
#include "scenario/scenario.h"
#include "store.h"
#include "xalloc.h"
#include "markup.h"

static const char ab_help_extra[] =
    "  --metric NAME        compare only these metrics, all primary\n"
    "                       (repeatable; else the scenario's\n"
    "                       compare.primary, or the node kind's default)\n"
    "  --format table|markdown|csv|json|junit\n"
    "                       comparison output (default table; markdown\n"
    "                       for a pull-request comment, junit for CI)\n"
    "  --threshold PCT      smallest change that counts, and the band of\n"
    "                       'equivalent' (default 1)\n"
    "  --unit auto|trial|node\n"
    "                       unit of the statistical test (docs/statistics.md)\n"
    "  --aa GROUP           the A/A group --unit node must pass\n"
    "  --target-effect PCT  trials per side that would detect a PCT% change\n"
    "  --strict             runs that differ in setup or missed their load\n"
    "                       rate make the comparison an error (exit 1)\n"
    "  --fail-on worse|changed|not-shown[:all]\n"
    "                       exit 3 after the comparison when a primary\n"
    "                       metric is worse (changed: better or worse;\n"
    "                       not-shown: not shown better or not-worse);\n"
    "                       :all counts the secondary metrics too\n"
    "  --until decided      run ABBA blocks until every primary metric is\n"
    "                       decided (group-sequential, docs/statistics.md\n"
    "                       section 8): the default when neither --repeats\n"
    "                       nor the scenario's `repeats:` gives a count\n"
    "  --max-trials N       at most N trials of both variants (default 20;\n"
    "                       whole blocks of 4); asks for --until decided\n"
    "  --budget DUR         no block that would end after DUR (default\n"
    "                       30m); asks for --until decided\n"
    "  --require not-worse:PCT\n"
    "                       also decide whether B is at most PCT% worse\n"
    "\nA variant may name a git revision: --set variants.B.rev=HEAD builds\n"
    "it before any trial (docs/scenarios.md, build).\n"
    "\nexit status: 0 ran and compared, 1 a trial failed or an error (a\n"
    "build that failed: before any trial), 2 usage, 3 --fail-on tripped,\n"
    "4 an assertion failed, 5 none failed but one was inconclusive,\n"
    "6 --fail-on refuses to pass (a variant without finished runs, or\n"
    "runs that differ in setup or machine class), 130/143 interrupted by\n"
    "SIGINT/SIGTERM.\n";

static char ab_help[sizeof(ab_help_extra) + 2048];

/* --until decided: the looks after every block (ab-seq.c), within
 * --budget or the default one; ORDER the trial order the run uses. */
static void
until_setup(struct run_args *a, struct compare_opts *co, struct ab_seq *sq,
    int order)
{
	int	dflt = a->budget_ms == 0;

	/* The looks' analysis uses the trial unit; their own format is
	 * the table's words on stderr.  Concurrent blocks keep the auto
	 * unit, which pairs the slots at each look (compare-seq.c), unless
	 * --unit trial asked for the independent design by name. */
	if (order != SCN_ORDER_CONCURRENT || co->unit == COMPARE_UNIT_NODE)
		co->unit = COMPARE_UNIT_TRIAL;
	a->repeats = ab_seq_init(sq, co, a->max_trials, dflt ?
	    AB_SEQ_BUDGET_MS : a->budget_ms, a->ro.quiet ? NULL : stderr);
	sq->budget_default = dflt;
	sq->co.format = COMPARE_TABLE;
	a->ro.after_slot = ab_seq_after_slot;
	a->ro.after_arg = sq;
}

struct ab_design {
	struct compare_opts	*co;
	struct ab_seq		*sq;
};

/*
 * run_args.design: the sequential design unless the user gave a trial
 * count (--repeats, or `repeats:` in the scenario or a --set): a count
 * is a guess, too few for an answer or more than it needs (issue 35).
 * Scenarios of more than two variants, and those whose first block of
 * 4 trials would overrun the default budget, keep the fixed design and
 * say so.
 */
static void
ab_design(struct run_args *a, const struct scenario *scn, void *arg)
{
	struct ab_design	*d = arg;
	int			 order, slots;
	FILE			*say = a->ro.quiet ? NULL : stderr;

	order = a->order >= 0 ? a->order : (int)scn->order;
	if (!a->until) {
		if (a->repeats > 0 || scn->repeats_set)
			return;
		slots = order == SCN_ORDER_CONCURRENT ? 2 : 4;
		if (scn->nvariants != 2) {
			if (say != NULL)
				fprintf(say, "devnet: %zu variants: %d "
				    "trial(s) each (the design that runs "
				    "until decided compares two; --repeats "
				    "N for more)\n",
				    scn->nvariants, scn->repeats);
			return;
		}
		if ((int64_t)slots * scn->duration_ms > AB_SEQ_BUDGET_MS) {
			if (say != NULL)
				fprintf(say, "devnet: one block of %d trials "
				    "would overrun the default budget of "
				    "%d min: %d trial(s) per variant "
				    "(--until decided --budget DUR for "
				    "blocks, --repeats N to choose)\n", 4,
				    AB_SEQ_BUDGET_MS / 60000, scn->repeats);
			return;
		}
		a->until = 1;
		if (say != NULL)
			fprintf(say, "devnet: no --repeats: ABBA blocks until "
			    "the primary metrics are decided, at most %d "
			    "trials within %d min (--repeats N for a fixed "
			    "count)\n", a->max_trials > 0 ? a->max_trials :
			    AB_SEQ_MAX_TRIALS, (int)((a->budget_ms > 0 ?
			    a->budget_ms : AB_SEQ_BUDGET_MS) / 60000));
	}
	until_setup(a, d->co, d->sq, order);
}

/* Store the design with the runs: 0, or -1 (said why). */
static int
until_finish(struct ab_seq *sq, struct dn_store *store,
    const struct runner_result *res)
{
	char	*cause = NULL;

	if (ab_seq_finish(sq, store, res, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		return (-1);
	}
	return (sq->failed ? -1 : 0);
}

/*
 * The scenario's relative assertions, judged by the verdict on this
 * group (cmd/relative.c, as compare does): one row per assertion per
 * run of the group, a line each on stderr, then every assertion of the
 * group on OUT (how ab ends); STATUS raised to 4 (one failed) or 5 (one
 * inconclusive) as run_args_execute does for the others.
 */
static int
judge_relative(struct dn_store *store, const struct scenario *scn,
    const struct runner_result *res, int status, FILE *out)
{
	struct relative_counts	  c = { 0 };
	const char		**names;
	char			**specs, *cause = NULL;
	size_t			  v;

	names = dn_xcalloc(scn->nvariants + 1, sizeof(*names));
	specs = dn_xcalloc(scn->nvariants + 1, sizeof(*specs));
	for (v = 0; v < scn->nvariants; v++) {
		names[v] = scn->variants[v].name;
		specs[v] = dn_xasprintf("%lld:%s", (long long)res->group_id,
		    scn->variants[v].name);
	}
	relative_judge(store, scn, names, (const char *const *)specs,
	    scn->nvariants, res->run_ids, res->nruns, stderr, &c);
	for (v = 0; v < scn->nvariants; v++)
		free(specs[v]);
	free(specs);
	free(names);
	fflush(stdout);
	if (dn_store_commit(store, &cause) != 0 ||
	    assert_summary(out, store, res->run_ids, res->nruns, 0,
	    &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
	}
	/* ab's JUnit comes from the stored rows (assert_junit), not C */
	status = relative_status(status, &c);
	relative_counts_release(&c);
	return (status);
}

/* The assertions' JUnit suites beside the verdict's; STATUS, or 1 when
 * they cannot be read. */
static int
junit_asserts(struct dn_store *store, const struct runner_result *res,
    int status)
{
	char	*cause = NULL;

	if (assert_junit(stdout, store, res->run_ids, res->nruns,
	    &cause) == 0)
		return (status);
	cmd_error("%s", cause);
	free(cause);
	return (status == 0 || status == RUNNER_EXIT_ASSERT_FAILED ||
	    status == RUNNER_EXIT_ASSERT_INCONCLUSIVE ? 1 : status);
}

/*
 * The exit status once every comparison is printed: the gate's refusal
 * (a variant without runs, setups or machines that differ) or its 3 over
 * the assertions' 4 and 5; a failed trial or an interruption says more
 * than either.
 */
static int
gate_status(int status, int any_refused, int any_tripped, int fail_on)
{
	int	over = status == 0 || status == RUNNER_EXIT_ASSERT_FAILED ||
		    status == RUNNER_EXIT_ASSERT_INCONCLUSIVE;

	if (any_refused) {
		cmd_error("--fail-on refuses to pass: a variant has no "
		    "finished runs, or the runs differ in setup or machine "
		    "class");
		return (over ? COMPARE_EXIT_REFUSED : status);
	}
	if (any_tripped) {
		cmd_error("--fail-on %s", compare_fail_on_says(fail_on));
		return (over ? COMPARE_EXIT_GATE : status);
	}
	return (status);
}

static int
cmd_ab_exec(int argc, char **argv)
{
	struct run_args		 a;
	struct runner_result	 res;
	struct compare_opts	 co;
	struct ab_seq		 sq;
	struct ab_design	 design = { &co, &sq };
	struct dn_store		*store = NULL;
	struct scenario		*scn = NULL;
	char			*cause = NULL, *sa = NULL, *sb = NULL;
	char			*title;
	size_t			 v;
	int			 status, junit = 0, fail_on = 0, tripped;
	int			 any_tripped = 0, any_refused = 0;

	snprintf(ab_help, sizeof(ab_help), "%s%s", run_args_help,
	    ab_help_extra);
	if (run_args_parse(&a, &cmd_ab_entry, argc, argv, 1, &status) != 0)
		return (status);
	memset(&co, 0, sizeof(co));
	co.named = 1;
	co.metrics = a.metrics;
	co.nmetrics = a.nmetrics;
	/* Checked before anything runs: a typo must not cost a run. */
	if (a.format != NULL && strcmp(a.format, "junit") == 0) {
		junit = 1;
		/* A machine format: run output goes to stderr below. */
		co.format = COMPARE_JSON;
	} else if (a.format != NULL && compare_opt_set(&co, 'f', a.format,
	    &cause) != 0)
		goto bad;
	if (a.fail_on != NULL && compare_fail_on_parse(a.fail_on,
	    &fail_on) != 0)
		cause = dn_xasprintf("unknown --fail-on '%s' (worse, changed "
		    "or not-shown, each with :all to count secondary metrics "
		    "too)", a.fail_on);
	co.not_shown = COMPARE_FAIL_KIND(fail_on) == COMPARE_FAIL_NOT_SHOWN;
	if (cause != NULL || (a.require != NULL && compare_opt_set(&co, 'r',
	    a.require, &cause) != 0) || (a.threshold != NULL &&
	    compare_opt_set(&co,
	    't', a.threshold, &cause) != 0) || (a.unit != NULL &&
	    compare_opt_set(&co, 'u', a.unit, &cause) != 0) ||
	    (a.target != NULL && compare_opt_set(&co, 'e', a.target,
	    &cause) != 0)) {
bad:
		cmd_error("%s (see 'devnet ab --help')", cause);
		free(cause);
		run_args_free(&a);
		return (CMD_EXIT_USAGE);
	}
	co.strict = a.strict;
	/* With a machine format, stdout holds only the comparison. */
	if (co.format != COMPARE_TABLE)
		a.ro.out = stderr;
	a.design = ab_design;
	a.design_arg = &design;
	status = run_args_execute(&a, &res, &store, &scn);
	if (a.until && store != NULL && until_finish(&sq, store, &res) != 0)
		status = 1;
	if (store == NULL)
		goto out;
	if (res.store_failed)
		goto out;	/* said why; the plan did not finish */
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
	if (junit)
		dn_junit_begin(stdout);
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
		title = dn_xasprintf("%s: %s vs %s", scn->name,
		    scn->variants[0].name, scn->variants[v].name);
		if (compare_gate_print(store, sa, sb, &co, junit, fail_on,
		    title, stdout, &tripped, &cause) != 0) {
			cmd_error("%s", cause);
			free(cause);
			cause = NULL;
			if (status == 0 && tripped != COMPARE_GATE_REFUSED)
				status = 1;
		}
		any_refused |= tripped == COMPARE_GATE_REFUSED;
		any_tripped |= tripped == COMPARE_GATE_TRIPPED;
		free(title);
		free(sa);
		free(sb);
	}
	status = judge_relative(store, scn, &res, status,
	    co.format == COMPARE_TABLE && !junit ? stdout : stderr);
	if (junit) {
		status = junit_asserts(store, &res, status);
		dn_junit_end(stdout);
	}
	fflush(stdout);
	/* After the whole comparison is printed; a failed trial or an
	 * interruption says more than the gate. */
	status = gate_status(status, any_refused, any_tripped, fail_on);
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
	    "[--db PATH] [--format table|markdown|csv|json|junit] "
	    "[--fail-on worse|changed|not-shown[:all]] [--until decided] "
	    "[--max-trials N] [--budget DUR] [--require not-worse:PCT]",
	.summary = "run variants A and B as one group and print the verdict",
	.help = ab_help,
	.help_more = cmd_help_metrics,
	.exec = cmd_ab_exec,
};
