/*
 * cmd-history.c: `devnet history`: every stored run of a scenario in
 * commit order, one series per metric, and the change points found in
 * each, with the commit range each falls in (history.c does the work;
 * method: docs/statistics.md).  This file parses options and prints the
 * table, CSV or JSON.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd-args.h"
#include "verdict/compare.h"
#include "verdict/history.h"
#include "store.h"
#include "json-write.h"


static const char history_help[] =
    "Every finished run of the scenario, in commit order (runs built from\n"
    "a `rev:` or run with --commit know their commit; the others are in\n"
    "time order, grouped by build: label, else git describe, else\n"
    "binary sha256), on one machine class (--machine), one\n"
    "series per metric (the per-trial values `devnet compare` tests), and\n"
    "the change points of each series (E-divisive means with Hunter's\n"
    "t-test, p < 0.001; docs/statistics.md).\n\n"
    "options:\n"
    "  --db PATH          database (default devnet.db)\n"
    "  --scenario NAME    the scenario (default: the only one stored)\n"
    "  --variant NAME     only this variant's runs\n"
    "  --metric NAME      only this metric (repeatable; default all)\n"
    "  --format FMT       table (default), json or csv\n"
    "  --repo PATH        git repository that orders the commits\n"
    "                     (default: the current directory)\n"
    "  --machine FP       only the runs of machine class FP (a\n"
    "                     fingerprint from 'devnet runs', or its prefix;\n"
    "                     'unknown': runs stored before schema 3); runs\n"
    "                     of several classes are refused without it\n"
    "  --search-kappa     also search the end of the window after a\n"
    "                     split: finds A B A patterns, more false alarms\n"
    "                     in long flat histories (docs/statistics.md)\n"
    "  --help             this text\n\n"
    "exit status: 0 printed (with or without change points), 1 error,\n"
    "2 usage.\n";

static int	cmd_history_exec(int, char **);

const struct cmd_entry cmd_history_entry = {
	.name = "history",
	.usage = "history [--db PATH] [--scenario NAME] [--variant NAME] "
	    "[--metric M]... [--machine FP] [--format table|json|csv]",
	.summary = "a scenario's runs in commit order and where metrics "
	    "changed",
	.help = history_help,
	.help_more = cmd_help_metrics,
	.exec = cmd_history_exec,
};

static const char *
short_desc(const struct history_run *r, char *buf, size_t cap)
{
	if (r->describe != NULL && r->commit != NULL)
		return (r->describe);
	snprintf(buf, cap, "%s", r->build);
	return (buf);
}

/* The runs either side of change point C of SR (*A before, *B after) and
 * its commit range in RANGE (LEN bytes). */
static void
change_ends(const struct history *h, const struct history_series *sr,
    const struct history_change *c, const struct history_run **a,
    const struct history_run **b, char *range, size_t len)
{
	*a = &h->runs[sr->run[c->cp.index - 1]];
	*b = &h->runs[sr->run[c->cp.index]];
	history_range(h, sr, c->cp.index, range, len);
}

static void
print_table(const struct history *h, FILE *out)
{
	const struct history_series	*sr;
	const struct history_run	*a, *b;
	char				 range[64], mb[32], ma[32], da[64];
	char				 db[64];
	size_t				 i, j, nch = 0, nflat = 0, col = 0;
	int				 w;

	fprintf(out, "history of %s: %zu runs, %zu commits, %zu builds; %s\n",
	    h->scenario, h->nruns, h->ncommits, h->nbuilds, h->order);
	fprintf(out, "machine: %s\n\n", h->machine ? h->machine :
	    "unknown (runs stored before schema version 3)");
	for (j = 0; j < h->nseries; j++)
		nch += h->series[j].nchanges;
	if (nch == 0)
		fprintf(out, "no change points.\n");
	else
		fprintf(out, "%-17s %-22s %5s %15s %15s %7s %8s  %s\n",
		    "metric", "commits", "point", "before", "after",
		    "change", "p", "");
	for (j = 0; j < h->nseries; j++) {
		sr = &h->series[j];
		for (i = 0; i < sr->nchanges; i++) {
			const struct history_change *c = &sr->changes[i];

			change_ends(h, sr, c, &a, &b, range, sizeof(range));
			compare_fmt_value(c->cp.mean_before, sr->unit, mb,
			    sizeof(mb));
			compare_fmt_value(c->cp.mean_after, sr->unit, ma,
			    sizeof(ma));
			fprintf(out, "%-17s %-22s %5zu %15s %15s %+6.1f%% "
			    "%8.2g  %s\n", sr->name, range, c->cp.index, mb,
			    ma, c->cp.change_pct, c->cp.p, c->direction);
			fprintf(out, "%-17s   runs %lld (%s) -> %lld (%s)\n",
			    "", (long long)a->id, short_desc(a, da,
			    sizeof(da)), (long long)b->id, short_desc(b, db,
			    sizeof(db)));
		}
	}
	fprintf(out, "\n");
	for (j = 0; j < h->nseries; j++) {
		sr = &h->series[j];
		if (sr->nchanges != 0)
			continue;
		if (nflat++ == 0)
			col = (size_t)fprintf(out, "no change point in:");
		w = snprintf(range, sizeof(range), " %s%s", sr->name,
		    sr->n < 6 ? " (too few points)" : "");
		if (w > 0 && col + (size_t)w > 78) {
			fprintf(out, "\n ");
			col = 1;
		}
		fputs(range, out);
		col += w > 0 ? (size_t)w : 0;
	}
	if (nflat != 0)
		fprintf(out, "\n");
}

static void
print_json(const struct history *h, FILE *out)
{
	const struct history_series	*sr;
	size_t				 i, j;
	char				 range[64];

	fputs("{\"scenario\":", out);
	dn_json_str(out, h->scenario);
	fputs(",\"order\":", out);
	dn_json_str(out, h->order);
	fputs(",\"machine\":", out);
	dn_json_optstr(out, h->machine);
	fputs(",\"runs\":[", out);
	for (i = 0; i < h->nruns; i++) {
		const struct history_run *r = &h->runs[i];

		fprintf(out, "%s{\"id\":%lld,\"variant\":", i ? "," : "",
		    (long long)r->id);
		dn_json_str(out, r->variant);
		fputs(",\"commit\":", out);
		dn_json_optstr(out, r->commit);
		fputs(",\"describe\":", out);
		dn_json_optstr(out, r->describe);
		fputs(",\"build\":", out);
		dn_json_str(out, r->build);
		fprintf(out, ",\"start_ms\":%lld}", (long long)r->start_ms);
	}
	fputs("],\"metrics\":[", out);
	for (j = 0; j < h->nseries; j++) {
		sr = &h->series[j];
		fprintf(out, "%s{\"name\":", j ? "," : "");
		dn_json_str(out, sr->name);
		fputs(",\"unit\":", out);
		dn_json_str(out, sr->unit);
		fputs(",\"better\":", out);
		dn_json_str(out, sr->better);
		fputs(",\"points\":[", out);
		for (i = 0; i < sr->n; i++) {
			fprintf(out, "%s{\"run\":%lld,\"value\":", i ? "," :
			    "", (long long)h->runs[sr->run[i]].id);
			dn_json_num(out, sr->v[i]);
			fputs("}", out);
		}
		fputs("],\"change_points\":[", out);
		for (i = 0; i < sr->nchanges; i++) {
			const struct history_change *c = &sr->changes[i];
			const struct history_run *a, *b;

			change_ends(h, sr, c, &a, &b, range, sizeof(range));
			fprintf(out, "%s{\"index\":%zu,\"range\":", i ? "," :
			    "", c->cp.index);
			dn_json_str(out, range);
			fprintf(out, ",\"run_before\":%lld,\"run_after\":%lld,"
			    "\"commit_before\":", (long long)a->id,
			    (long long)b->id);
			dn_json_optstr(out, a->commit);
			fputs(",\"commit_after\":", out);
			dn_json_optstr(out, b->commit);
			fputs(",\"build_before\":", out);
			dn_json_str(out, a->build);
			fputs(",\"build_after\":", out);
			dn_json_str(out, b->build);
			fprintf(out, ",\"n_before\":%zu,\"n_after\":%zu,"
			    "\"mean_before\":", c->cp.n_before,
			    c->cp.n_after);
			dn_json_num(out, c->cp.mean_before);
			fputs(",\"mean_after\":", out);
			dn_json_num(out, c->cp.mean_after);
			fputs(",\"change_pct\":", out);
			dn_json_num(out, c->cp.change_pct);
			fputs(",\"p\":", out);
			dn_json_num(out, c->cp.p);
			fputs(",\"direction\":", out);
			dn_json_str(out, c->direction);
			fputs("}", out);
		}
		fputs("]}", out);
	}
	fputs("]}\n", out);
}

static void
print_csv(const struct history *h, FILE *out)
{
	const struct history_series	*sr;
	size_t				 i, j, k;
	char				 range[64];

	fputs("metric,index,range,run_before,run_after,commit_before,"
	    "commit_after,mean_before,mean_after,change_pct,p,direction,"
	    "build_before,build_after\n",
	    out);
	for (j = 0; j < h->nseries; j++) {
		sr = &h->series[j];
		for (i = 0; i < sr->nchanges; i++) {
			const struct history_change *c = &sr->changes[i];
			const struct history_run *a, *b;

			change_ends(h, sr, c, &a, &b, range, sizeof(range));
			fprintf(out, "%s,%zu,%s,%lld,%lld,%s,%s,", sr->name,
			    c->cp.index, range, (long long)a->id,
			    (long long)b->id, a->commit ? a->commit : "",
			    b->commit ? b->commit : "");
			/* the numbers as JSON writes them (dn_csv_num) */
			for (k = 0; k < 4; k++) {
				dn_csv_num(out, (const double[]){
				    c->cp.mean_before, c->cp.mean_after,
				    c->cp.change_pct, c->cp.p }[k]);
				fputc(',', out);
			}
			fprintf(out, "%s,%s,%s\n", c->direction, a->build,
			    b->build);
		}
	}
}

static int
cmd_history_exec(int argc, char **argv)
{
	static const struct option own[] = {
		{ "scenario", required_argument, NULL, 's' },
		{ "variant", required_argument, NULL, 'v' },
		{ "repo", required_argument, NULL, 'r' },
		{ "search-kappa", no_argument, NULL, 'k' },
		{ "machine", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 }
	};
	struct cmd_args		 a;
	struct history_opts	 o;
	struct history		*h = NULL;
	struct dn_store		*s = NULL;
	char			*cause = NULL;
	int			 c, rc = 1;

	memset(&o, 0, sizeof(o));
	cmd_args_init(&a, CMD_A_DB | CMD_A_LIST | CMD_A_METRIC, own);
	while ((c = cmd_getopt(&a, &cmd_history_entry, NULL, argc,
	    argv)) != -1) {
		switch (c) {
		case CMD_GETOPT_EXIT:
			return (a.exit);
		case 's':
			o.scenario = optarg;
			break;
		case 'v':
			o.variant = optarg;
			break;
		case 'r':
			o.repo = optarg;
			break;
		case 'k':
			o.search_kappa = 1;
			break;
		case 'm':
			o.machine = optarg;
			break;
		}
	}
	o.metrics = a.metrics;
	o.nmetrics = a.verdict.nmetrics;
	if (optind != argc) {
		cmd_error("history: unexpected argument '%s' (see 'devnet "
		    "history --help')", argv[optind]);
		return (CMD_EXIT_USAGE);
	}
	if (dn_store_open(&s, a.db, DN_STORE_RDONLY, &cause) != 0 ||
	    history_load(s, &o, &h, &cause) != 0) {
		cmd_error("%s", cause);
		goto out;
	}
	if (a.format == COMPARE_JSON)
		print_json(h, stdout);
	else if (a.format == COMPARE_CSV)
		print_csv(h, stdout);
	else
		print_table(h, stdout);
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	free(cause);
	history_free(h);
	dn_store_close(s);
	return (rc);
}
