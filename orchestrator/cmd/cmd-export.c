/*
 * cmd-export.c: `devnet export RUN`, a run's samples in a wide CSV: one row
 * per (node, t_ms), one column per metric (pandas.read_csv-ready; node -1
 * is the load generator, empty cells are samples not taken).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd-args.h"
#include "metric-table.h"
#include "sys/outfile.h"
#include "store.h"
#include "units.h"
#include "xalloc.h"

static const char export_help[] =
    "options:\n"
    "  --db PATH       database (default devnet.db)\n"
    "  --format csv    the only format (default)\n"
    "  -o, --output F  write to F instead of standard output\n"
    "  --help          this text\n\n"
    "Columns: run_id, node (-1 = load generator), t_ms (since the trial's\n"
    "t=0), warmup (1 inside the warmup window), run_uuid (the run's\n"
    "runs.uuid, the same in every copy of the database), then one column\n"
    "per metric\n"
    "(counters cumulative, as stored).  pandas: pd.read_csv(F).\n";

static int	cmd_export_exec(int, char **);

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.usage = "export [--db PATH] [--format csv] [-o FILE] RUN",
	.summary = "export a run's samples as a wide CSV",
	.help = export_help,
	.exec = cmd_export_exec,
};

struct key {
	int	node;
	int64_t	t_ms;
};

static int
key_cmp(const void *a, const void *b)
{
	const struct key	*x = a, *y = b;

	if (x->node != y->node)
		return (x->node < y->node ? -1 : 1);
	if (x->t_ms != y->t_ms)
		return (x->t_ms < y->t_ms ? -1 : 1);
	return (0);
}

struct timing {
	int64_t	 warmup;	/* -1: no such run */
	char	 uuid[64];	/* "" for a run of an older file */
};

static int
timing_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct timing	*tm = arg;

	(void)ncols;
	(void)names;
	(void)types;
	tm->warmup = values[0] ? strtoll(values[0], NULL, 10) : 0;
	snprintf(tm->uuid, sizeof(tm->uuid), "%s", values[2] ? values[2] :
	    "");
	return (1);
}

/* Write the CSV of RUN to OUT.  */
static int
export_run(struct dn_store *s, int64_t run, FILE *out, char **cause)
{
	struct dn_series	*ser[DN_METRIC_COUNT] = { 0 };
	size_t			 nser[DN_METRIC_COUNT] = { 0 };
	size_t			 pos[DN_METRIC_COUNT][2];
	struct key		*keys = NULL;
	size_t			 nkeys = 0, i, j, k;
	struct timing		 tm = { -1, "" };
	char			 id[32];
	int			 m, rc = -1;

	snprintf(id, sizeof(id), "%lld", (long long)run);
	if (dn_store_read(s, DN_READ_RUN_TIMING, run, timing_row, &tm,
	    cause) != 0)
		return (-1);
	if (tm.warmup < 0) {
		*cause = dn_xasprintf("no run %s in '%s' (see 'devnet runs')",
		    id, dn_store_path(s));
		return (-1);
	}
	for (m = 0; m < DN_METRIC_COUNT; m++) {
		if (dn_store_series(s, run, m, INT64_MIN, &ser[m], &nser[m],
		    cause) != 0)
			goto out;
		for (i = 0; i < nser[m]; i++) {
			keys = dn_xreallocarray(keys, nkeys + ser[m][i].n + 1,
			    sizeof(*keys));
			for (j = 0; j < ser[m][i].n; j++)
				keys[nkeys++] = (struct key){ ser[m][i].node,
				    ser[m][i].t_ms[j] };
		}
	}
	qsort(keys, nkeys, sizeof(*keys), key_cmp);
	fputs("run_id,node,t_ms,warmup,run_uuid", out);
	for (m = 0; m < DN_METRIC_COUNT; m++)
		if (nser[m] > 0)
			fprintf(out, ",%s", dn_metric_defs[m].name);
	fputc('\n', out);
	memset(pos, 0, sizeof(pos));
	for (k = 0; k < nkeys; k++) {
		if (k > 0 && key_cmp(&keys[k], &keys[k - 1]) == 0)
			continue;
		fprintf(out, "%s,%d,%lld,%d,%s", id, keys[k].node,
		    (long long)keys[k].t_ms, keys[k].t_ms < tm.warmup,
		    tm.uuid);
		for (m = 0; m < DN_METRIC_COUNT; m++) {
			size_t	*p = pos[m];	/* series, point */

			if (nser[m] == 0)
				continue;
			fputc(',', out);
			/* Keys and series both go in (node, t_ms) order:
			 * advance this metric's cursor up to the key. */
			while (p[0] < nser[m]) {
				const struct dn_series	*q = &ser[m][p[0]];

				if (q->node > keys[k].node)
					break;
				if (q->node < keys[k].node || p[1] >= q->n) {
					p[0]++;
					p[1] = 0;
				} else if (q->t_ms[p[1]] < keys[k].t_ms)
					p[1]++;
				else
					break;
			}
			if (p[0] < nser[m] && ser[m][p[0]].node ==
			    keys[k].node && p[1] < ser[m][p[0]].n &&
			    ser[m][p[0]].t_ms[p[1]] == keys[k].t_ms)
				fprintf(out, "%.15g", ser[m][p[0]].v[p[1]]);
		}
		fputc('\n', out);
	}
	rc = 0;
out:
	for (m = 0; m < DN_METRIC_COUNT; m++)
		dn_series_free(ser[m], nser[m]);
	free(keys);
	return (rc);
}

static int
cmd_export_exec(int argc, char **argv)
{
	static const struct option own[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*output = NULL;
	struct cmd_args	 a;
	struct dn_store	*s = NULL;
	char		*cause = NULL, *tmp = NULL;
	FILE		*out = stdout;
	int64_t		 run;
	int		 c, rc = 1;

	cmd_args_init(&a, CMD_A_DB, own);
	while ((c = cmd_getopt(&a, &cmd_export_entry, "o:", argc,
	    argv)) != -1) {
		switch (c) {
		case CMD_GETOPT_EXIT:
			return (a.exit);
		case 'f':
			if (strcmp(optarg, "csv") != 0) {
				cmd_error("unknown format '%s' (csv)", optarg);
				return (CMD_EXIT_USAGE);
			}
			break;
		case 'o':
			output = optarg;
			break;
		}
	}
	if (argc - optind != 1 || dn_parse_i64(argv[optind], &run) != 0 ||
	    run <= 0) {
		cmd_error("export: want one run id (see 'devnet runs')");
		return (CMD_EXIT_USAGE);
	}
	if (dn_store_open(&s, a.db, DN_STORE_RDONLY, &cause) != 0)
		goto fail;
	/* Written beside and renamed into place: no half-written file. */
	if (output != NULL && (out = outfile_open(output, &tmp,
	    &cause)) == NULL)
		goto fail;
	if (export_run(s, run, out, &cause) != 0)
		goto fail;
	if (output != NULL) {
		FILE	*f = out;

		out = NULL;
		if (outfile_commit(f, tmp, output, &cause) != 0)
			goto fail;
	}
	rc = 0;
	goto out;
fail:
	cmd_error("%s", cause);
	if (out != NULL && out != stdout)
		outfile_abort(out, tmp);
out:
	free(tmp);
	free(cause);
	dn_store_close(s);
	return (rc);
}
