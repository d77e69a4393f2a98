/*
 * compare-render.c: print a struct compare_result as a benchstat-like
 * table, markdown, CSV or JSON (the JSON shape is stable:
 * docs/statistics.md), and the value formatting (KiB, k) that `devnet
 * report` shares.  The escapes (JSON, markup) are metrics/util's
 * (json-write.c, markup.c).
 *
 * Not here: the analysis (compare.c); `devnet report`'s HTML
 * (cmd-report.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "verdict/compare.h"
#include "verdict/compare-internal.h"
#include "json-write.h"

void
compare_fmt_value(double v, const char *unit, char *buf, size_t len)
{
	static const char *const	bin[] = { "B", "KiB", "MiB", "GiB",
					    "TiB" };
	static const char *const	dec[] = { "", "k", "M", "G", "T" };
	double				a = fabs(v);
	int				i = 0;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (strncmp(unit, "bytes", 5) == 0) {
		while (a >= 1024 && i < 4) {
			a /= 1024;
			v /= 1024;
			i++;
		}
		snprintf(buf, len, "%.4g %s%s", v, bin[i], unit + 5);
		return;
	}
	while (a >= 1000 && i < 4) {
		a /= 1000;
		v /= 1000;
		i++;
	}
	snprintf(buf, len, "%.4g%s %s", v, dec[i], unit);
}

static const char *
side_runs(const struct compare_side *sd, char *buf, size_t len)
{
	size_t	i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < sd->nruns && off + 24 < len; i++)
		off += snprintf(buf + off, len - off, "%s%lld", i ? "," : "",
		    (long long)sd->runs[i].id);
	return (buf);
}

static void
fmt_delta(const struct compare_row *row, char *buf, size_t len)
{
	if (isnan(row->delta_pct))
		snprintf(buf, len, "-");
	else if (!row->significant)
		snprintf(buf, len, "~");
	else
		snprintf(buf, len, "%+.2f%%", row->delta_pct);
}

static void
fmt_ci(const struct compare_row *row, char *buf, size_t len)
{
	if (isnan(row->delta_ci_low))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "[%+.1f%%, %+.1f%%]", row->delta_ci_low,
		    row->delta_ci_high);
}

static void
fmt_mde(const struct compare_row *row, char *buf, size_t len)
{
	if (isnan(row->mde_pct) && row->mde_note != NULL &&
	    strncmp(row->mde_note, "A is 0", 6) == 0)
		snprintf(buf, len, "A is 0");
	else if (isnan(row->mde_pct))
		snprintf(buf, len, "-");
	else if (isinf(row->mde_pct))
		snprintf(buf, len, "never");
	else if (row->mde_pct < 100)
		snprintf(buf, len, "%.3g%%", row->mde_pct);
	else if (row->mde_pct < 1e5)
		snprintf(buf, len, "%.0f%%", row->mde_pct);
	else
		snprintf(buf, len, ">1e5%%");
}

void
compare_fmt_decide(const struct compare_result *r,
    const struct compare_row *row, char *buf, size_t len)
{
	if (strcmp(row->verdict, "undecided") != 0)
		snprintf(buf, len, "-");
	else if (compare_row_a_zero(row))
		/* before "out of reach": a change of 0 is no percentage
		 * at any trial count (lag_blocks_* of a quiet run) */
		snprintf(buf, len, "A is 0");
	else if (r->seq != NULL && row->seq_needed < 0)
		snprintf(buf, len, "out of reach");
	else if (r->seq != NULL && row->seq_needed > 0)
		snprintf(buf, len, "%ld/side", row->seq_needed);
	else if (row->a.n < 2 || row->b.n < 2)
		snprintf(buf, len, ">=2/side");
	else if (row->decide_by == NULL)
		snprintf(buf, len, "?");
	else if (row->trials_needed < 0)
		snprintf(buf, len, "out of reach");
	else
		snprintf(buf, len, "%ld%s/side%s", row->trials_needed,
		    compare_row_blocks(row) ? " blk" : "",
		    strcmp(row->decide_by, "equivalence") == 0 ? " eq" : "");
}

const char compare_adj_legend[] = "adj/unit: -N% rR: variance removed "
    "by the adjustment on the warmup window, its correlation; NxSs blk: "
    "decided on N time blocks of S s a side; NxSs pblk: the same, each "
    "block's B/A paired (a paired t-test: over the same minutes); "
    "paired N: a paired t-test on N slots' B/A (A and B ran at the same "
    "time)";

void
compare_fmt_adj(const struct compare_row *row, char *buf, size_t len)
{
	if (row->design != NULL && row->adj.block_paired)
		snprintf(buf, len, "%zux%.3gs pblk", row->adj.blocks_a,
		    row->adj.block_s);
	else if (row->design != NULL)
		snprintf(buf, len, "%s %zu", row->design, row->pairs);
	else if (row->adj.adjusted)
		snprintf(buf, len, "-%.0f%% r%.2f", row->adj.var_removed_pct,
		    row->adj.r);
	else if (compare_row_blocks(row))
		snprintf(buf, len, "%zux%.3gs blk", row->adj.blocks_a,
		    row->adj.block_s);
	else
		snprintf(buf, len, "-");
}

/* The --target-effect notes under the table (section 4 of
 * docs/statistics.md). */
static void
render_notes(const struct compare_result *r, FILE *out, int md)
{
	char	n[64];
	size_t	i;
	int	any = 0;

	if (!(r->target_pct > 0))
		return;
	for (i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];

		if (row->trials_needed == 0 || row->decide_by == NULL ||
		    strcmp(row->decide_by, "difference") != 0)
			continue;
		if (row->trials_needed < 0)
			snprintf(n, sizeof(n), "more than %d trials per side",
			    COMPARE_MAX_TRIALS);
		else
			snprintf(n, sizeof(n), "about %ld trials per side",
			    row->trials_needed);
		fputs(any ? "" : "\n", out);
		any = 1;
		fprintf(out, "%snote: %s: a %.3g%% change needs %s (power "
		    "%.0f%%, at this spread)\n", md ? "- " : "", row->name,
		    row->target_pct, n, 100 * COMPARE_POWER);
	}
}

/* The rows [I0, I1) of R: a table under its heading. */
static void
render_rows(const struct compare_result *r, size_t i0, size_t i1, FILE *out,
    int md)
{
	char	va[48], vb[48], d[32], ci[48], pn[48], mde[32], dc[32];
	char	aj[48];
	size_t	i;
	int	w = 18;

	/* a long name (a Prometheus series') widens the first column of
	 * both tables alike, rather than pushing its row out of line */
	for (i = 0; i < r->nrows; i++)
		if (strlen(r->rows[i].name) > (size_t)w)
			w = (int)strlen(r->rows[i].name);
	if (md)
		fprintf(out, "| metric | A | B | delta | 95%% CI | p | n "
		    "| verdict | MDE | to decide | adj/unit |\n"
		    "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n");
	else
		fprintf(out, "%-*s %17s %17s %8s %18s %7s %6s  %-10s %7s "
		    "%12s %13s\n", w, "metric", "A median", "B median",
		    "delta", "95% CI", "p", "n", "verdict", "MDE", "to decide",
		    "adj/unit");
	for (i = i0; i < i1; i++) {
		const struct compare_row *row = &r->rows[i];

		compare_fmt_value(row->a.median, row->unit, va, sizeof(va));
		compare_fmt_value(row->b.median, row->unit, vb, sizeof(vb));
		fmt_delta(row, d, sizeof(d));
		fmt_ci(row, ci, sizeof(ci));
		snprintf(pn, sizeof(pn), "%zu+%zu", row->a.n, row->b.n);
		fmt_mde(row, mde, sizeof(mde));
		compare_fmt_decide(r, row, dc, sizeof(dc));
		compare_fmt_adj(row, aj, sizeof(aj));
		if (md)
			fprintf(out, "| %s | %s | %s | %s | %s | %.3g | %s "
			    "| %s | %s | %s | %s |\n", row->name, va, vb, d,
			    ci, row->p, pn, row->verdict, mde, dc, aj);
		else
			fprintf(out, "%-*s %17s %17s %8s %18s %7.2g %6s  "
			    "%-10s %7s %12s %13s\n", w, row->name, va, vb, d,
			    ci, row->p, pn, row->verdict, mde, dc, aj);
	}
}

static void
render_text(const struct compare_result *r, FILE *out, int md)
{
	char	ra[256], rb[256];
	size_t	i, nsec = r->nrows - r->nprimary;

	fprintf(out, "%s%s%s\n", md ? "**" : "", r->headline, md ? "**\n" :
	    "");
	fprintf(out, "A = %s (runs %s), B = %s (runs %s)\n", r->a.spec,
	    side_runs(&r->a, ra, sizeof(ra)), r->b.spec,
	    side_runs(&r->b, rb, sizeof(rb)));
	fprintf(out, "%s; threshold %.3g%%; primary metrics: %s\n",
	    r->unit_note, r->threshold_pct, r->primary_from);
	if (r->a.alloc_source != NULL || r->b.alloc_source != NULL)
		fprintf(out, "allocations counted by: A: %s; B: %s\n",
		    r->a.alloc_source ? r->a.alloc_source : "not recorded",
		    r->b.alloc_source ? r->b.alloc_source : "not recorded");
	if (r->a.net_conditions != NULL || r->b.net_conditions != NULL)
		fprintf(out, "network: A: %s; B: %s\n", r->a.net_conditions ?
		    r->a.net_conditions : "loopback", r->b.net_conditions ?
		    r->b.net_conditions : "loopback");
	fprintf(out, "\n%sprimary (%zu metrics, Holm over them)%s\n",
	    md ? "#### " : "", r->nprimary, md ? "\n" : ":");
	if (r->nprimary > 0)
		render_rows(r, 0, r->nprimary, out, md);
	if (nsec > 0) {
		fprintf(out, "\n%ssecondary (%zu metrics, exploratory: Holm "
		    "among themselves; --fail-on ...:all to gate on them)%s\n",
		    md ? "#### " : "", nsec, md ? "\n" : ":");
		render_rows(r, r->nprimary, r->nrows, out, md);
	}
	render_notes(r, out, md);
	compare_seq_render_text(r, out, md);
	if (r->nwarnings > 0)
		fputc('\n', out);
	for (i = 0; i < r->nwarnings; i++)
		fprintf(out, "%swarning: %s\n", md ? "- " : "",
		    r->warnings[i]);
	if (!md)
		fprintf(out, "\n~: not significant (p >= %.2f after Holm, "
		    "|delta| < %.3g%%, or the CI spans 0); p is "
		    "Holm-adjusted; n = A+B observations\nequivalent: shown "
		    "within +-%.3g%% (two one-sided tests, Holm); undecided: "
		    "neither, 'to decide' says the trials per side that would "
		    "decide it (eq: show it equivalent)\nMDE: the smallest "
		    "change (%% of A) the test would detect %.0f%% of the "
		    "time at this spread and n; never: not at this n "
		    "(docs/statistics.md)\n%s\n", COMPARE_ALPHA,
		    r->threshold_pct, r->threshold_pct, 100 * COMPARE_POWER,
		    compare_adj_legend);
}

static void
json_stat(FILE *out, const char *key, const struct compare_stat *st)
{
	fprintf(out, "\"%s\": {\"n\": %zu, \"median\": ", key, st->n);
	dn_json_num(out, st->median);
	fputs(", \"mean\": ", out);
	dn_json_num(out, st->mean);
	fputs(", \"ci_low\": ", out);
	dn_json_num(out, st->ci_low);
	fputs(", \"ci_high\": ", out);
	dn_json_num(out, st->ci_high);
	fputc('}', out);
}

static void
json_side(FILE *out, const char *key, const struct compare_side *sd)
{
	size_t	i, j;
	int	first;

	fprintf(out, "    \"%s\": {\"spec\": ", key);
	dn_json_str(out, sd->spec);
	fputs(", \"alloc_source\": ", out);
	if (sd->alloc_source != NULL)
		dn_json_str(out, sd->alloc_source);
	else
		fputs("null", out);
	fputs(", \"net_conditions\": ", out);
	if (sd->net_conditions != NULL)
		dn_json_str(out, sd->net_conditions);
	else
		fputs("null", out);
	fputs(", \"runs\": [", out);
	for (i = 0; i < sd->nruns; i++)
		fprintf(out, "%s%lld", i ? ", " : "",
		    (long long)sd->runs[i].id);
	fputs("], \"faulted_runs\": [", out);
	for (i = 0, first = 1; i < sd->nruns; i++) {
		if (sd->runs[i].faults == NULL)
			continue;
		fprintf(out, "%s{\"run\": %lld, \"faults\": ",
		    first ? "" : ", ", (long long)sd->runs[i].id);
		dn_json_str(out, sd->runs[i].faults);
		fputs("}", out);
		first = 0;
	}
	fputs("], \"rate_missed_runs\": [", out);
	for (i = 0, first = 1; i < sd->nruns; i++) {
		if (sd->runs[i].rate_missed == NULL)
			continue;
		fprintf(out, "%s{\"run\": %lld, \"detail\": ",
		    first ? "" : ", ", (long long)sd->runs[i].id);
		dn_json_str(out, sd->runs[i].rate_missed);
		fputs("}", out);
		first = 0;
	}
	fputs("], \"interference_runs\": [", out);
	for (i = 0, first = 1; i < sd->nruns; i++) {
		if (sd->runs[i].interference == NULL)
			continue;
		fprintf(out, "%s{\"run\": %lld, \"detail\": ",
		    first ? "" : ", ", (long long)sd->runs[i].id);
		dn_json_str(out, sd->runs[i].interference);
		fputs("}", out);
		first = 0;
	}
	/* declared metrics no node measured (issue 37) */
	fputs("], \"unmeasured\": [", out);
	for (i = 0, first = 1; i < sd->nruns; i++) {
		for (j = 0; j < sd->runs[i].nunmeasured; j++) {
			fprintf(out, "%s{\"run\": %lld, \"metric\": ",
			    first ? "" : ", ", (long long)sd->runs[i].id);
			dn_json_str(out, sd->runs[i].unmeasured[j]);
			fputs(", \"reason\": ", out);
			dn_json_str(out, sd->runs[i].unmeasured_why[j]);
			fputs("}", out);
			first = 0;
		}
	}
	fputs("]}", out);
}

/* A row's adjustment and unit (compare.h, struct compare_adjust). */
static void
json_adjust(FILE *out, const struct compare_adjust *a)
{
	fprintf(out, ", \"adjusted\": %s, \"adjust_r\": ", a->adjusted ?
	    "true" : "false");
	dn_json_num(out, a->r);
	fputs(", \"adjust_theta\": ", out);
	dn_json_num(out, a->theta);
	fputs(", \"adjust_var_removed_pct\": ", out);
	dn_json_num(out, a->var_removed_pct);
	fputs(", \"mde_unadjusted_pct\": ", out);
	dn_json_num(out, a->mde_unadjusted_pct);
	fputs(", \"adjust_note\": ", out);
	dn_json_optstr(out, a->note);
	fprintf(out, ", \"decided_unit\": \"%s\", \"unit_why\": ",
	    a->unit != NULL ? a->unit : "trial");
	dn_json_optstr(out, a->unit_why);
	fputs(", \"block_s\": ", out);
	dn_json_num(out, a->block_s);
	fputs(", \"block_lag1\": ", out);
	dn_json_num(out, a->block_r1);
	fprintf(out, ", \"blocks\": [%zu, %zu], \"blocks_paired\": %s",
	    a->blocks_a, a->blocks_b, a->block_paired ? "true" : "false");
	fputs(", \"blocks_lag1_allowed\": ", out);
	dn_json_num(out, a->block_ar1 > 0 ? a->block_ar1 : NAN);
}

/* A row's design (compare-paired.c): paired by slot or independent. */
static void
json_design(FILE *out, const struct compare_row *row)
{
	fprintf(out, ", \"design\": \"%s\", \"pairs\": %zu, "
	    "\"mde_unpaired_pct\": ", row->design != NULL ? row->design :
	    "independent", row->design != NULL ? row->pairs : 0);
	dn_json_num(out, row->design != NULL ? row->mde_unpaired_pct : NAN);
}

static void
render_json(const struct compare_result *r, FILE *out)
{
	size_t	i;

	fputs("{\n  \"version\": 1,\n  \"headline\": ", out);
	dn_json_str(out, r->headline);
	fputs(",\n  \"primary_from\": ", out);
	dn_json_str(out, r->primary_from);
	fputs(",\n  \"sides\": {\n", out);
	json_side(out, "a", &r->a);
	fputs(",\n", out);
	json_side(out, "b", &r->b);
	fprintf(out, "\n  },\n  \"unit\": \"%s\",\n  \"unit_note\": ",
	    r->unit == COMPARE_UNIT_NODE ? "node" : "trial");
	dn_json_str(out, r->unit_note);
	fprintf(out, ",\n  \"design\": \"%s\",\n  \"pairs\": %zu",
	    r->npairs > 0 ? "paired" : "independent", r->npairs);
	fprintf(out, ",\n  \"alpha\": %g,\n  \"threshold_pct\": %g,\n"
	    "  \"power\": %g,\n  \"target_effect_pct\": ", COMPARE_ALPHA,
	    r->threshold_pct, COMPARE_POWER);
	dn_json_num(out, r->target_pct > 0 ? r->target_pct : NAN);
	fputs(",\n  \"warnings\": [", out);
	for (i = 0; i < r->nwarnings; i++) {
		fputs(i ? ", " : "", out);
		dn_json_str(out, r->warnings[i]);
	}
	fputs("],\n  \"metrics\": [\n", out);
	for (i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];

		fprintf(out, "    {\"name\": \"%s\", \"unit\": \"%s\", "
		    "\"better\": \"%s\", \"primary\": %s, ", row->name,
		    row->unit, row->better, row->primary ? "true" : "false");
		json_stat(out, "a", &row->a);
		fputs(", ", out);
		json_stat(out, "b", &row->b);
		fputs(", \"delta_pct\": ", out);
		dn_json_num(out, row->delta_pct);
		fputs(", \"delta_ci_low\": ", out);
		dn_json_num(out, row->delta_ci_low);
		fputs(", \"delta_ci_high\": ", out);
		dn_json_num(out, row->delta_ci_high);
		fputs(", \"p\": ", out);
		dn_json_num(out, row->p);
		fputs(", \"p_raw\": ", out);
		dn_json_num(out, row->p_raw);
		fputs(", \"deff\": ", out);
		dn_json_num(out, row->deff);
		fprintf(out, ", \"test\": \"%s\", \"significant\": %s, "
		    "\"verdict\": \"%s\", \"constant\": %s, \"mde_pct\": ",
		    row->test, row->significant ? "true" : "false",
		    row->verdict, row->constant ? "true" : "false");
		dn_json_num(out, row->mde_pct);
		fputs(", \"mde_note\": ", out);
		if (row->mde_note != NULL)
			dn_json_str(out, row->mde_note);
		else
			fputs("null", out);
		fputs(", \"p_equivalent\": ", out);
		dn_json_num(out, row->p_eq);
		fputs(", \"decide_by\": ", out);
		if (row->decide_by != NULL)
			fprintf(out, "\"%s\"", row->decide_by);
		else
			fputs("null", out);
		fputs(", \"target_pct\": ", out);
		dn_json_num(out, row->target_pct);
		fputs(", \"trials_needed\": ", out);
		dn_json_num(out, row->trials_needed > 0 ?
		    (double)row->trials_needed : NAN);
		json_adjust(out, &row->adj);
		json_design(out, row);
		if (r->seq != NULL) {
			fputs(", \"p_not_worse\": ", out);
			dn_json_num(out, r->require_pct > 0 ? row->p_ni : NAN);
			fputs(", \"trials_to_decide\": ", out);
			dn_json_num(out, row->seq_needed > 0 ?
			    (double)row->seq_needed : NAN);
			fprintf(out, ", \"futile\": %s", row->futile ?
			    "true" : "false");
		}
		fprintf(out, "}%s\n", i + 1 < r->nrows ? "," : "");
	}
	fputs("  ],\n  \"sequential\": ", out);
	compare_seq_render_json(r, out);
	fputs("\n}\n", out);
}

/* ",V" for each of the N values of V, as JSON writes them (dn_csv_num). */
static void
csv_nums(FILE *out, const double *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		fputc(',', out);
		dn_csv_num(out, v[i]);
	}
}

static void
render_csv(const struct compare_result *r, FILE *out)
{
	size_t	i;

	fputs("name,unit,better,a_n,a_median,a_mean,a_ci_low,a_ci_high,"
	    "b_n,b_median,b_mean,b_ci_low,b_ci_high,delta_pct,delta_ci_low,"
	    "delta_ci_high,p,p_raw,significant,verdict,mde_pct,target_pct,"
	    "trials_needed,primary,p_equivalent,decide_by,adjusted,adjust_r,"
	    "adjust_var_removed_pct,mde_unadjusted_pct,decided_unit,design\n",
	    out);
	for (i = 0; i < r->nrows; i++) {
		const struct compare_row	*row = &r->rows[i];
		const struct compare_stat	*st[2] = { &row->a, &row->b };
		int				 j;

		fprintf(out, "%s,%s,%s", row->name, row->unit, row->better);
		for (j = 0; j < 2; j++) {
			fprintf(out, ",%zu", st[j]->n);
			csv_nums(out, (const double[]){ st[j]->median,
			    st[j]->mean, st[j]->ci_low, st[j]->ci_high }, 4);
		}
		csv_nums(out, (const double[]){ row->delta_pct,
		    row->delta_ci_low, row->delta_ci_high, row->p,
		    row->p_raw }, 5);
		fprintf(out, ",%s,%s", row->significant ? "true" : "false",
		    row->verdict);
		csv_nums(out, (const double[]){ row->mde_pct, row->target_pct },
		    2);
		fputc(',', out);
		if (row->trials_needed > 0)
			fprintf(out, "%ld", row->trials_needed);
		fprintf(out, ",%s", row->primary ? "true" : "false");
		csv_nums(out, &row->p_eq, 1);
		fprintf(out, ",%s,%s", row->decide_by ? row->decide_by : "",
		    row->adj.adjusted ? "true" : "false");
		csv_nums(out, (const double[]){ row->adj.r,
		    row->adj.var_removed_pct, row->adj.mde_unadjusted_pct }, 3);
		fprintf(out, ",%s,%s\n", row->adj.unit != NULL ? row->adj.unit :
		    "trial", row->design != NULL ? row->design : "independent");
	}
}

void
compare_render(const struct compare_result *r, int format, FILE *out)
{
	switch (format) {
	case COMPARE_JSON:
		render_json(r, out);
		break;
	case COMPARE_CSV:
		render_csv(r, out);
		break;
	case COMPARE_MARKDOWN:
		render_text(r, out, 1);
		break;
	default:
		render_text(r, out, 0);
		break;
	}
}
