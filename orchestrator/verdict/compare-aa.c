/*
 * compare-aa.c: --unit node backed by a stored A/A (--aa GROUP, issue
 * 35): the A/A compared on the node unit as the verdict will be, and the
 * node unit kept or refused by what it called.  Called by compare.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "xalloc.h"

/* The scenario (MACHINE 0) or machine class of SIDE's first run. */
static const char *
side_of(const struct compare_side *sd, int machine)
{
	const struct compare_run *run = sd->nruns > 0 ? &sd->runs[0] : NULL;
	const char	*v = run == NULL ? NULL : machine ? run->machine :
			    run->scenario;

	return (v != NULL ? v : machine ? "unknown" : "");
}

/*
 * --unit node is valid only where the nodes of a trial do not share its
 * luck so much that counting them apart finds differences in an A/A
 * (docs/statistics.md, section 5).  With --aa GROUP: GROUP:A vs GROUP:B,
 * an A/A of the same scenario and machine, compared on the node unit as
 * R will be, must call no primary metric better, worse or changed; else
 * R falls back to the trial unit; its unit note says why, or that
 * nothing checked it (no --aa: AA NULL).  AA is that A/A's result
 * (compare.c analyses it: compare_analyze is above this file); freed
 * here.  0, or -1 with *CAUSE.
 */
int
compare_node_unit_check(struct compare_result *r,
    const struct compare_opts *opts, struct compare_result *aa,
    char **cause)
{
	char			*bad = NULL, *t;
	double			 deff = 1;
	size_t			 i;

	if (aa == NULL) {
		t = dn_xasprintf("%s; nothing checked that here: --aa GROUP "
		    "names a stored A/A of this scenario and machine that it "
		    "must pass", r->unit_note);
		free(r->unit_note);
		r->unit_note = t;
		return (0);
	}
	if (strcmp(side_of(&aa->a, 0), side_of(&r->a, 0)) != 0 ||
	    strcmp(side_of(&aa->a, 1), side_of(&r->a, 1)) != 0) {
		*cause = dn_xasprintf("--aa %s: group %s ran '%s' on machine "
		    "%.12s, not '%s' on %.12s; name an A/A of this scenario "
		    "on this machine", opts->aa, opts->aa,
		    side_of(&aa->a, 0), side_of(&aa->a, 1),
		    side_of(&r->a, 0), side_of(&r->a, 1));
		compare_result_free(aa);
		return (-1);
	}
	for (i = 0; i < aa->nprimary; i++) {
		const struct compare_row *row = &aa->rows[i];

		if (!isnan(row->deff))
			deff = fmax(deff, row->deff);
		if (!row->significant)
			continue;
		t = dn_xasprintf("%s%s%s %s", bad ? bad : "", bad ? ", " : "",
		    row->name, row->verdict);
		free(bad);
		bad = t;
	}
	free(r->unit_note);
	if (bad != NULL) {
		r->unit = COMPARE_UNIT_TRIAL;
		r->unit_note = dn_xasprintf("unit: trial (%zu vs %zu trials; "
		    "--unit node refused: on the node unit the A/A of group "
		    "%s (%zu vs %zu trials) called %s: the nodes of a trial "
		    "share its luck here)", r->a.nruns, r->b.nruns, opts->aa,
		    aa->a.nruns, aa->b.nruns, bad);
		compare_warn(r, dn_xasprintf("--unit node is not valid for "
		    "'%s' on this machine: the A/A of group %s called %s on "
		    "it; decided on the trial unit", side_of(&r->a, 0),
		    opts->aa, bad));
	} else {
		char	 len[128] = "", de[64];
		double	 da, dr, unit;

		/* The gate is the primary family; a secondary metric the
		 * A/A called is no reason to refuse the unit, but its own
		 * rows are not decided on nodes (the 20-min devnet-10x25
		 * A/A: lag_ms_max worse +236 % on nodes). */
		for (i = aa->nprimary; i < aa->nrows; i++) {
			if (!aa->rows[i].significant)
				continue;
			t = dn_xasprintf("%s%s,", r->aa_secondary ?
			    r->aa_secondary : ",", aa->rows[i].name);
			free(r->aa_secondary);
			r->aa_secondary = t;
		}
		/* An A/A shorter than the runs it backs saw less of what a
		 * long trial's nodes share (the 2.5 h pair, backed by a
		 * 20 min A/A): said, not refused. */
		da = aa->a.nruns > 0 ? aa->a.runs[0].duration_ms : 0;
		dr = r->a.nruns > 0 ? r->a.runs[0].duration_ms : 0;
		unit = dr >= 120000 ? 60000 : 1000;	/* min, else s */
		if (da > 0 && dr > 1.1 * da)
			snprintf(len, sizeof(len), "; its trials ran %.0f "
			    "%s, these %.0f: a shorter A/A sees less of what "
			    "a long trial's nodes share", da / unit,
			    unit > 1000 ? "min" : "s", dr / unit);
		/* one trial a side: no trials to measure it between */
		if (aa->a.nruns < 2 || aa->b.nruns < 2)
			snprintf(de, sizeof(de), "its design effect not "
			    "measurable (one trial a side)");
		else
			snprintf(de, sizeof(de), "largest design effect "
			    "%.3g", deff);
		r->unit_note = dn_xasprintf("unit: trial x node (%zu vs %zu "
		    "trials; valid here: on the node unit the A/A of group "
		    "%s, same scenario and machine, %zu vs %zu trials, called "
		    "no primary metric better or worse; %s%s)", r->a.nruns,
		    r->b.nruns, opts->aa, aa->a.nruns, aa->b.nruns, de, len);
	}
	free(bad);
	compare_result_free(aa);
	return (0);
}

void
compare_aa_secondary(struct compare_result *r, const struct compare_opts *opts)
{
	char	 key[160], *names = NULL, *t;
	size_t	 i;

	if (r->aa_secondary == NULL || r->unit != COMPARE_UNIT_NODE)
		return;
	for (i = r->nprimary; i < r->nrows; i++) {
		struct compare_row *row = &r->rows[i];

		snprintf(key, sizeof(key), ",%s,", row->name);
		if (strstr(r->aa_secondary, key) == NULL)
			continue;
		row->adj.unit_why = "the stored A/A (--aa) called it on the "
		    "node unit: its nodes share their trial's luck, so nodes "
		    "do not decide it";
		if (strcmp(row->verdict, "undecided") == 0)
			continue;
		t = dn_xasprintf("%s%s%s (%s)", names ? names : "", names ?
		    ", " : "", row->name, row->verdict);
		free(names);
		names = t;
		row->significant = 0;
		row->verdict = "undecided";
	}
	if (names != NULL)
		compare_warn(r, dn_xasprintf("--aa %s: its A/A called these "
		    "secondary metrics on the node unit, so their calls here "
		    "are not made: %s", opts->aa, names));
	free(names);
}
