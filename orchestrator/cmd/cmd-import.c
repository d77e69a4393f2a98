/*
 * cmd-import.c: `devnet import FILE.db... --db TEAM.db`: the runs of other
 * devnet databases (CI jobs, laptops, nightly machines) merged into one,
 * each file all or nothing (metrics/store/store-import.c does the work;
 * docs/ci.md has the team workflow).  This file checks the files, opens
 * the target and prints what each file added.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd-args.h"
#include "clock.h"
#include "store.h"

static const char import_help[] =
    "Each FILE is a devnet database of any schema version this devnet\n"
    "reads (opened read-only, never changed).  Its runs are added to the\n"
    "--db database with their groups, nodes, events, facts, samples,\n"
    "machines and named metrics, under new ids.  A run is recognised by\n"
    "its uuid: one already in the target with the same samples digest is\n"
    "skipped, so importing a file twice adds nothing; runs still running\n"
    "there are skipped too.  Each file lands in one transaction: a file\n"
    "that fails half way (damaged, a named metric whose direction\n"
    "contradicts the target's, a run whose samples differ from its copy\n"
    "in the target) adds nothing.  Another devnet may write the target\n"
    "meanwhile: each waits for the other's transaction.\n\n"
    "options:\n"
    "  --db PATH     the database to import into (default devnet.db;\n"
    "                created if missing)\n"
    "  --dry-run     say what each file would add; change nothing\n"
    "  --quiet       no progress lines\n"
    "  --help        this text\n\n"
    "exit status: 0 every file imported (or nothing to add), 1 a file was\n"
    "refused (the others are imported) or the target cannot be written,\n"
    "2 usage.\n";

static int	cmd_import_exec(int, char **);

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.usage = "import [--db PATH] [--dry-run] [--quiet] FILE.db...",
	.summary = "merge the runs of other devnet databases into one",
	.help = import_help,
	.exec = cmd_import_exec,
};

struct prog {
	const char	*file;
	uint64_t	 t0;
};

static void
progress(void *arg, const struct dn_import_stats *st)
{
	const struct prog	*p = arg;
	double			 s = (double)(dn_now_ns() - p->t0) / 1e9;

	fprintf(stderr, "import: %s: %lld/%lld runs, %.2f M samples added "
	    "(%.2f M/s)\n", p->file, (long long)st->runs_done,
	    (long long)st->runs_total, (double)st->samples / 1e6,
	    s > 0 ? (double)st->samples / 1e6 / s : 0.0);
}

static void
report(const char *file, const struct dn_import_stats *st, int dry_run,
    double secs)
{
	printf("%s: %s %lld run%s (%lld group%s, %lld samples, %lld rows)",
	    file, dry_run ? "would add" : "added", (long long)st->runs_added,
	    st->runs_added == 1 ? "" : "s", (long long)st->groups,
	    st->groups == 1 ? "" : "s", (long long)st->samples,
	    (long long)st->rows);
	if (st->runs_present > 0)
		printf("; %lld already here", (long long)st->runs_present);
	if (st->runs_running > 0)
		printf("; %lld still running there, skipped",
		    (long long)st->runs_running);
	printf(" in %.2f s\n", secs);
}

static int
cmd_import_exec(int argc, char **argv)
{
	static const struct option own[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ NULL, 0, NULL, 0 }
	};
	struct cmd_args		 a;
	struct dn_store		*s = NULL;
	struct dn_import_stats	 st;
	struct prog		 p;
	char			*cause = NULL, *ok;
	int			 c, i, dry_run = 0, quiet = 0, bad = 0, nok = 0;

	cmd_args_init(&a, CMD_A_DB, own);
	while ((c = cmd_getopt(&a, &cmd_import_entry, NULL, argc,
	    argv)) != -1) {
		switch (c) {
		case CMD_GETOPT_EXIT:
			return (a.exit);
		case 'n':
			dry_run = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		}
	}
	if (optind == argc) {
		cmd_error("import: want one or more database files (see "
		    "'devnet import --help')");
		return (CMD_EXIT_USAGE);
	}
	/* Every file is checked before the target is opened: a damaged one
	 * is refused without the target being touched at all. */
	ok = calloc((size_t)argc, 1);
	if (ok == NULL)
		abort();
	for (i = optind; i < argc; i++) {
		if (dn_store_import_check(argv[i], &cause) != 0) {
			cmd_error("import: %s", cause);
			free(cause);
			cause = NULL;
			bad = 1;
		} else {
			ok[i] = 1;
			nok++;
		}
	}
	if (nok == 0)
		goto out;
	if (dn_store_open(&s, a.db, 0, &cause) != 0) {
		cmd_error("%s", cause);
		bad = 1;
		goto out;
	}
	for (i = optind; i < argc; i++) {
		if (!ok[i])
			continue;
		p.file = argv[i];
		p.t0 = dn_now_ns();
		if (dn_store_import(s, argv[i], dry_run, &st, quiet ? NULL :
		    progress, &p, &cause) != 0) {
			cmd_error("import: %s", cause);
			free(cause);
			cause = NULL;
			bad = 1;
			continue;
		}
		report(argv[i], &st, dry_run, (double)(dn_now_ns() - p.t0) /
		    1e9);
	}
out:
	free(ok);
	free(cause);
	dn_store_close(s);
	if (fflush(stdout) != 0)
		bad = 1;
	return (bad ? 1 : 0);
}
