/*
 * cmd-compare.c: `devnet compare A B`, the A/B verdict between two sets of
 * stored runs.  The analysis lives in compare.c; this file parses options,
 * opens the database read-only and prints, then the relative assertions
 * of the runs' scenario on the two sides (cmd/relative.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assert/assert.h"
#include "cmd/cmd-args.h"
#include "cmd/relative.h"
#include "scenario/scenario.h"
#include "store.h"
#include "xalloc.h"
#include "markup.h"


static const char compare_help[] =
    "A and B are each a run id (12), a comma list of run ids (12,14), or\n"
    "GROUP:VARIANT (3:A; see 'devnet runs').\n\n"
    "options:\n"
    "  --db PATH          database (default devnet.db)\n"
    "  --metric NAME      compare only NAME, as a primary metric\n"
    "                     (repeatable; else the runs' compare.primary,\n"
    "                     or the node kind's default)\n"
    "  --format FMT       table (default), markdown (a pull-request\n"
    "                     comment), csv, json or junit (JUnit XML: one\n"
    "                     test case per metric, a failure per worse,\n"
    "                     and one per relative assertion)\n"
    "  --threshold PCT    practical threshold: smaller changes are never\n"
    "                     better or worse, and within +-PCT a metric can\n"
    "                     be shown equivalent (default 1)\n"
    "  --unit UNIT        auto (default), trial or node: what one\n"
    "                     observation is (docs/statistics.md); auto\n"
    "                     pairs concurrent runs by slot, trial does not\n"
    "  --aa GROUP         with --unit node: the stored A/A group of this\n"
    "                     scenario and machine it must pass (no primary\n"
    "                     metric better or worse on nodes), else the\n"
    "                     trial unit decides\n"
    "  --target-effect PCT\n"
    "                     say for every metric how many trials per side\n"
    "                     would detect a PCT% change\n"
    "  --strict           runs that differ in scenario, node count, rate,\n"
    "                     duration, warmup or machine class, or that\n"
    "                     missed their load rate, are an error (exit 1),\n"
    "                     not a warning\n"
    "  --require not-worse:PCT\n"
    "                     also test that B is at most PCT% worse (one-\n"
    "                     sided; docs/statistics.md, section 8)\n"
    "  --machine FP       only the runs of machine class FP (a\n"
    "                     fingerprint from 'devnet runs' or its prefix;\n"
    "                     'unknown' for runs stored before schema 3)\n"
    "  --fail-on worse|changed|not-shown[:all]\n"
    "                     exit 3 after printing when a primary metric is\n"
    "                     worse (changed: better or worse; not-shown: not\n"
    "                     shown better or not-worse); :all counts the\n"
    "                     secondary (exploratory) metrics too\n"
    "  --help             this text\n\n"
    "Verdicts: better/worse, equivalent (shown within +-threshold),\n"
    "undecided (neither: the table says what would decide it), changed\n"
    "(a neutral metric moved); the first line says it in words.\n\n"
    "A group run with `devnet ab --until decided` is analysed as the\n"
    "sequential design it was (p corrected for its looks), and says so.\n\n"
    "The relative assertions of the runs' scenario (assert: ... relative:)\n"
    "are judged on the two sides as 'devnet ab' judges them, when each\n"
    "side's runs are one of the claim's variants, and printed after the\n"
    "verdict (stdout with the table, else stderr); with --format junit\n"
    "also a test case each (a failure, or skipped with why it was not\n"
    "decided); not stored.\n\n"
    "exit status: 0 compared (and the gate did not trip), 1 error (a bad\n"
    "side, no data, a store error), 2 usage, 3 --fail-on tripped, 4 a\n"
    "relative assertion failed, 5 none failed but one was inconclusive,\n"
    "6 --fail-on refuses to pass: a side has no runs, or the runs differ\n"
    "in setup or machine class (printed first).\n";

static int	cmd_compare_exec(int, char **);

/*
 * The relative assertions of the runs' scenario on these two sides, as
 * ab judges them (cmd/relative.c), after the verdict on OUT; printed,
 * never stored (compare opens the database read-only).  With JUNIT, also
 * a test suite of them there (a case each: failed, or skipped with why
 * it was not decided), OUT then being for people.  RC raised to 4 or 5;
 * a scenario that does not load is said and changes nothing.
 */
static int
judge_relative(struct dn_store *s, const char *side_a, const char *side_b,
    FILE *out, FILE *junit, int rc)
{
	struct relative_counts	 c = { 0 };
	struct assert_case	 none;
	struct scenario		*scn = NULL;
	char			*v[2], *cause = NULL, *title;
	const char		*specs[2] = { side_a, side_b };
	size_t			 i;
	int			 nrel = 0;

	if (relative_sides(s, side_a, side_b, &scn, v, &cause) != 0) {
		cmd_error("relative assertions not judged: %s", cause);
		if (junit != NULL) {
			/* which claims there were is in the text that
			 * did not load: one case says so */
			none.name = dn_xstrdup("relative assertions");
			none.status = "not judged";
			none.message = cause;
			assert_junit_suite(junit, "relative assertions of "
			    "the runs' scenario", NULL, &none, 1);
			free(none.name);
		}
		free(cause);
		return (rc);
	}
	for (i = 0; scn != NULL && i < scn->nasserts; i++)
		nrel += scn->asserts[i].form == SCN_AF_RELATIVE;
	if (nrel > 0) {
		fprintf(out, "\nrelative assertions of scenario '%s' (A = %s, "
		    "B = %s):\n", scn->name, v[0] ? v[0] : "mixed variants",
		    v[1] ? v[1] : "mixed variants");
		fflush(out);
		relative_judge(s, scn, (const char *const *)v, specs, 2, NULL,
		    0, out, &c);
		fprintf(out, "%d passed, %d failed, %d inconclusive, %d not "
		    "judged (printed only; 'devnet ab' stores them)\n",
		    c.judged - c.failed - c.inconclusive, c.failed,
		    c.inconclusive, nrel - c.judged);
		if (junit != NULL) {
			title = dn_xasprintf("relative assertions of scenario "
			    "'%s' (A = %s, B = %s)", scn->name, side_a,
			    side_b);
			assert_junit_suite(junit, title, scn->name, c.cases,
			    c.ncases);
			free(title);
		}
	}
	free(v[0]);
	free(v[1]);
	scenario_free(scn);
	rc = relative_status(rc, &c);
	relative_counts_release(&c);
	return (rc);
}

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "compare [--db PATH] [--metric NAME]... [--format FMT] "
	    "[--threshold PCT] [--unit auto|trial|node] "
	    "[--target-effect PCT] [--strict] [--require not-worse:PCT] "
	    "[--fail-on worse|changed|not-shown[:all]] [--machine FP] A B",
	.summary = "compare two runs or sets of runs: the A/B verdict",
	.help = compare_help,
	.help_more = cmd_help_metrics,
	.exec = cmd_compare_exec,
};

static int
cmd_compare_exec(int argc, char **argv)
{
	struct cmd_args		 a;
	struct dn_store		*s = NULL;
	char			*cause = NULL, *title = NULL;
	int			 rc = 1, tripped = 0;

	static const struct option own[] = {
		{ "machine", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 }
	};
	int			 c;

	cmd_args_init(&a, CMD_A_DB | CMD_A_VFORMAT | CMD_A_METRIC |
	    CMD_A_VERDICT | CMD_A_TARGET | CMD_A_FAIL_ON, own);
	/* named: a foreign node's own metrics are compared too */
	a.verdict.named = 1;
	while ((c = cmd_getopt(&a, &cmd_compare_entry, NULL, argc,
	    argv)) != -1) {
		if (c == CMD_GETOPT_EXIT)
			return (a.exit);
		if (c == 'm')
			a.verdict.machine = optarg;
	}
	if (argc - optind != 2) {
		cmd_error("compare: want two sides, A and B (see 'devnet "
		    "compare --help')");
		return (CMD_EXIT_USAGE);
	}
	title = dn_xasprintf("%s vs %s", argv[optind], argv[optind + 1]);
	if (a.junit)
		dn_junit_begin(stdout);
	if (dn_store_open(&s, a.db, DN_STORE_RDONLY, &cause) != 0 ||
	    compare_gate_print(s, argv[optind], argv[optind + 1], &a.verdict,
	    a.junit, a.fail_on, title, stdout, &tripped, &cause) != 0) {
		cmd_error("%s", cause);
		if (tripped == COMPARE_GATE_REFUSED) {
			cmd_error("--fail-on refuses to pass: a side has no "
			    "runs, so there is nothing to gate against");
			rc = COMPARE_EXIT_REFUSED;
		}
		goto out;
	}
	rc = tripped == COMPARE_GATE_REFUSED ? COMPARE_EXIT_REFUSED :
	    tripped ? COMPARE_EXIT_GATE : 0;
	/* JUnit: the claims are test cases beside the metrics' (stderr has
	 * the lines for people); other formats keep stdout theirs alone */
	rc = judge_relative(s, argv[optind], argv[optind + 1],
	    a.verdict.format == COMPARE_TABLE && !a.junit ? stdout : stderr,
	    a.junit ? stdout : NULL, rc);
	if (a.junit)
		dn_junit_end(stdout);
	/* The verdict is printed whole before the gate says no. */
	fflush(stdout);
	if (tripped == COMPARE_GATE_REFUSED)
		cmd_error("--fail-on refuses to pass: the runs differ in setup "
		    "or machine class (the warnings above say how); compare "
		    "like with like");
	else if (tripped)
		cmd_error("--fail-on %s", compare_fail_on_says(a.fail_on));
out:
	free(title);
	free(cause);
	dn_store_close(s);
	return (rc);
}
