/*
 * cmd-show.c: `devnet show RUN`, everything stored about one run: what ran
 * (scenario text, node binaries and their sha256), what happened (events,
 * facts) and a per-node summary of the steady-state window.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd-args.h"
#include "report/qtab.h"
#include "escape.h"
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

/* Print "key: value" lines of a one-row result; a value (a label, a
 * reason) stays on its line, its control bytes shown escaped. */
static int
print_kv(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	char	*v;
	int	 i;

	(void)arg;
	(void)types;
	for (i = 0; i < ncols; i++) {
		if (values[i] == NULL)
			continue;
		v = dn_escape_line(values[i]);
		printf("%-18s %s\n", names[i], v);
		free(v);
	}
	return (0);
}

static int
section(struct dn_store *s, const char *title, enum dn_read which,
    int64_t run, char **cause)
{
	struct qtab	t = { 0 };

	if (dn_store_read(s, which, run, qtab_row, &t, cause) != 0)
		return (-1);
	printf("\n%s:\n", title);
	if (t.nrows == 0)
		printf("  (none)\n");
	else
		qtab_print(&t, COMPARE_TABLE, stdout);
	qtab_release(&t);
	return (0);
}

/* One assertion: "  FAIL  name (form): message". */
static int
print_assert(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	int	*n = arg;
	char	*name, *form, *msg;

	(void)names;
	(void)types;
	if (ncols < 8)
		return (1);
	if ((*n)++ == 0)
		printf("\nassertions:\n");
	name = dn_escape_line(values[0] ? values[0] : "");
	form = dn_escape_line(values[1] ? values[1] : "");
	msg = dn_escape_line(values[7] ? values[7] : "");
	printf("  %-12s %s (%s): %s\n", values[2] != NULL &&
	    strcmp(values[2], "pass") == 0 ? "pass" : values[2] != NULL &&
	    strcmp(values[2], "fail") == 0 ? "FAIL" : "inconclusive", name,
	    form, msg);
	free(name);
	free(form);
	free(msg);
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

/* The machine the run ran on, "key value" lines (docs/schema.md,
 * "machines"). */
static int
machine_section(struct dn_store *s, int64_t run, char **cause)
{
	int	found = 0;

	printf("\nmachine:\n");
	if (dn_store_read(s, DN_READ_RUN_MACHINE, run, found_row, &found,
	    cause) != 0)
		return (-1);
	if (!found) {
		printf("  (not recorded)\n");
		return (0);
	}
	return (dn_store_read(s, DN_READ_RUN_MACHINE, run, print_kv, NULL,
	    cause));
}

static int
print_yaml(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	char	*path, *text;

	(void)arg;
	(void)ncols;
	(void)names;
	(void)types;
	/* the text keeps its lines; only control bytes are escaped */
	path = dn_escape_line(values[0] ? values[0] : "?");
	text = dn_escape_ctl(values[1] ? values[1] : "(not stored)\n");
	printf("\nscenario (%s):\n%s", path, text);
	free(path);
	free(text);
	return (0);
}

static int
cmd_show_exec(int argc, char **argv)
{
	struct cmd_args	 a;
	struct dn_store	*s = NULL;
	char		*cause = NULL;
	int64_t		 run;
	int		 rc = 1, found = 0, nasserts = 0;

	cmd_args_init(&a, CMD_A_DB, NULL);
	if (cmd_getopt(&a, &cmd_show_entry, NULL, argc, argv) != -1)
		return (a.exit);
	if (argc - optind != 1) {
		cmd_error("show: want one run id (see 'devnet runs')");
		return (CMD_EXIT_USAGE);
	}
	if (dn_parse_i64(argv[optind], &run) != 0 || run <= 0) {
		cmd_error("show: '%s' is not a run id (see 'devnet runs')",
		    argv[optind]);
		return (CMD_EXIT_USAGE);
	}
	if (dn_store_open(&s, a.db, DN_STORE_RDONLY, &cause) != 0 ||
	    dn_store_read(s, DN_READ_RUN_EXISTS, run, found_row, &found,
	    &cause) != 0)
		goto fail;
	if (!found) {
		cause = dn_xasprintf("no run %lld in '%s' (see 'devnet runs')",
		    (long long)run, a.db);
		goto fail;
	}
	if (dn_store_read(s, DN_READ_RUN_HEADER, run, print_kv, NULL,
	    &cause) != 0 || machine_section(s, run, &cause) != 0 ||
	    section(s, "nodes", DN_READ_RUN_NODES, run, &cause) != 0 ||
	    section(s, "events", DN_READ_RUN_EVENTS, run, &cause) != 0 ||
	    dn_store_read(s, DN_READ_RUN_ASSERTIONS, run, print_assert,
	    &nasserts, &cause) != 0 ||
	    section(s, "facts", DN_READ_RUN_FACTS, run, &cause) != 0 ||
	    section(s, "per-node summary after warmup",
	    DN_READ_RUN_NODE_SUMMARY, run, &cause) != 0 ||
	    dn_store_read(s, DN_READ_RUN_SCENARIO, run, print_yaml, NULL,
	    &cause) != 0)
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
