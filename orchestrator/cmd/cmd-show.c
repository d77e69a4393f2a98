/*
 * cmd-show.c: `devnet show RUN`, everything stored about one run: what ran
 * (scenario text, node binaries and their sha256), what happened (events,
 * facts) and a per-node summary of the steady-state window.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "verdict/compare.h"
#include "report/qtab.h"
#include "store.h"
#include "units.h"
#include "xalloc.h"

static const char show_help[] =
    "options:\n"
    "  --db PATH       database (default devnet.db)\n"
    "  --help          this text\n\n"
    "Prints the run's settings, its nodes (binary, sha256, command line),\n"
    "events, facts, a per-node summary after warmup (max/avg RSS,\n"
    "allocations/s, max lag) and the scenario text.\n";

static int	cmd_show_exec(int, char **);

const struct cmd_entry cmd_show_entry = {
	.name = "show",
	.usage = "show [--db PATH] RUN",
	.summary = "show one stored run: settings, nodes, events, summary",
	.help = show_help,
	.exec = cmd_show_exec,
};

/* Print "key: value" lines of a one-row result. */
static int
print_kv(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	int	i;

	(void)arg;
	(void)types;
	for (i = 0; i < ncols; i++) {
		if (values[i] != NULL)
			printf("%-18s %s\n", names[i], values[i]);
	}
	return (0);
}

static int
section(struct dn_store *s, const char *title, const char *sql,
    const char *id, char **cause)
{
	struct qtab	t = { 0 };
	const char	*params[1] = { id };

	if (dn_store_query(s, sql, params, 1, qtab_row, &t, cause) != 0)
		return (-1);
	printf("\n%s:\n", title);
	if (t.nrows == 0)
		printf("  (none)\n");
	else
		qtab_print(&t, COMPARE_TABLE, stdout);
	qtab_release(&t);
	return (0);
}

static int
print_yaml(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	(void)arg;
	(void)ncols;
	(void)names;
	(void)types;
	printf("\nscenario (%s):\n%s", values[0] ? values[0] : "?",
	    values[1] ? values[1] : "(not stored)\n");
	return (0);
}

static int
found_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	(void)ncols;
	(void)names;
	(void)values;
	(void)types;
	*(int *)arg = 1;
	return (1);
}

static int
cmd_show_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*db = CMD_DEFAULT_DB, *params[1];
	struct dn_store	*s = NULL;
	char		*cause = NULL, id[32];
	int64_t		 run;
	int		 c, rc = 1, found = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'h':
			cmd_usage(&cmd_show_entry, stdout);
			return (0);
		default:
			return (cmd_bad_option(&cmd_show_entry,
			    argv[optind - 1]));
		}
	}
	if (argc - optind != 1) {
		cmd_error("show: want one run id (see 'devnet runs')");
		return (CMD_EXIT_USAGE);
	}
	if (dn_parse_i64(argv[optind], &run) != 0 || run <= 0) {
		cmd_error("show: '%s' is not a run id (see 'devnet runs')",
		    argv[optind]);
		return (CMD_EXIT_USAGE);
	}
	snprintf(id, sizeof(id), "%lld", (long long)run);
	params[0] = id;
	if (dn_store_open(&s, db, DN_STORE_RDONLY, &cause) != 0 ||
	    dn_store_query(s, "SELECT 1 FROM runs WHERE id = ?1", params, 1,
	    found_row, &found, &cause) != 0)
		goto fail;
	if (!found) {
		cause = dn_xasprintf("no run %s in '%s' (see 'devnet runs')",
		    id, db);
		goto fail;
	}
	if (dn_store_query(s, "SELECT id AS run, ab_group AS \"group\", "
	    "scenario, scenario_path, variant, trial, repeat, label, status, "
	    "reason, strftime('%Y-%m-%d %H:%M:%S', start_ms / 1000, "
	    "'unixepoch') || ' UTC' AS start, round((end_ms - start_ms) / "
	    "1000.0, 1) || ' s' AS duration, nodes, tps, warmup_ms, "
	    "duration_ms AS planned_ms, sample_interval_ms, binary, "
	    "binary_sha256, git_describe, host, pid, run_dir, token "
	    "FROM runs WHERE id = ?1", params, 1, print_kv, NULL,
	    &cause) != 0)
		goto fail;
	if (section(s, "nodes", "SELECT node, pid, sha256, binary, cmdline "
	    "FROM nodes WHERE run_id = ?1 ORDER BY node, rowid", id,
	    &cause) != 0 ||
	    section(s, "events", "SELECT t_ms, node, kind, detail FROM events "
	    "WHERE run_id = ?1 ORDER BY t_ms, id", id, &cause) != 0 ||
	    section(s, "facts", "SELECT node, key, value FROM run_facts WHERE "
	    "run_id = ?1 ORDER BY node, key", id, &cause) != 0 ||
	    section(s, "per-node summary after warmup", "SELECT node, "
	    "printf('%.1f MiB', max(CASE WHEN metric = 'rss_bytes' THEN max "
	    "END) / 1048576.0) AS rss_max, "
	    "printf('%.1f MiB', max(CASE WHEN metric = 'rss_bytes' THEN avg "
	    "END) / 1048576.0) AS rss_avg, "
	    "printf('%.0f', max(CASE WHEN metric = 'allocs' THEN rate_per_s "
	    "END)) AS allocs_per_s, "
	    "round(max(CASE WHEN metric = 'lag_blocks' THEN max END), 2) AS "
	    "lag_blocks_max, "
	    "round(max(CASE WHEN metric = 'lag_ms' THEN max END), 1) AS "
	    "lag_ms_max, "
	    "max(CASE WHEN metric = 'height' THEN CAST(max AS INTEGER) END) "
	    "AS height, "
	    "max(n) AS samples "
	    "FROM node_summary WHERE run_id = ?1 AND node >= 0 "
	    "GROUP BY node ORDER BY node", id, &cause) != 0 ||
	    dn_store_query(s, "SELECT scenario_path, scenario_yaml FROM runs "
	    "WHERE id = ?1", params, 1, print_yaml, NULL, &cause) != 0)
		goto fail;
	rc = 0;
	goto out;
fail:
	cmd_error("%s", cause);
out:
	free(cause);
	dn_store_close(s);
	return (rc);
}
