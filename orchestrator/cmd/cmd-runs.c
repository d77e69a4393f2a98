/* cmd-runs.c: `devnet runs`, the list of stored runs. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd-args.h"
#include "report/qtab.h"
#include "store.h"

static const char runs_help[] =
    "options:\n"
    "  --db PATH       database (default devnet.db)\n"
    "  --format FMT    table (default), csv or json\n"
    "  --help          this text\n\n"
    "Columns: id, group, scenario, variant, trial, label, status, start\n"
    "(UTC), duration_s, nodes.  Compare runs with 'devnet compare' using\n"
    "run ids or GROUP:VARIANT.\n";

static int	cmd_runs_exec(int, char **);

const struct cmd_entry cmd_runs_entry = {
	.name = "runs",
	.usage = "runs [--db PATH] [--format table|csv|json]",
	.summary = "list the stored runs",
	.help = runs_help,
	.exec = cmd_runs_exec,
};

static int
cmd_runs_exec(int argc, char **argv)
{
	struct cmd_args	 a;
	struct dn_store	*s = NULL;
	struct qtab	 t = { 0 };
	char		*cause = NULL;
	int		 rc = 1;

	cmd_args_init(&a, CMD_A_DB | CMD_A_LIST, NULL);
	if (cmd_getopt(&a, &cmd_runs_entry, NULL, argc, argv) != -1)
		return (a.exit);
	if (optind != argc) {
		cmd_error("runs: unexpected argument '%s'", argv[optind]);
		return (CMD_EXIT_USAGE);
	}
	if (dn_store_open(&s, a.db, DN_STORE_RDONLY, &cause) != 0 ||
	    dn_store_read(s, DN_READ_RUNS, 0, qtab_row, &t, &cause) != 0) {
		cmd_error("%s", cause);
		goto out;
	}
	if (t.nrows == 0 && a.format == COMPARE_TABLE)
		printf("no runs in '%s' (store some with 'devnet run')\n",
		    a.db);
	else
		qtab_print(&t, a.format, stdout);
	rc = 0;
out:
	qtab_release(&t);
	free(cause);
	dn_store_close(s);
	return (rc);
}
