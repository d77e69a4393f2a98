/*
 * cmd-import.c: `devnet import FILE.db... --db TEAM.db`: the runs of other
 * devnet databases (CI jobs, laptops, nightly machines) merged into one,
 * each file all or nothing (metrics/store/store-import-src.c checks a
 * file, store-import.c copies it; docs/ci.md has the team workflow,
 * docs/security.md what a hostile file meets).  This file opens and
 * checks every file, then opens the target and prints what each file
 * added.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd-args.h"
#include "clock.h"
#include "store.h"
#include "units.h"

static const char import_help[] =
    "Each FILE is a devnet database of any schema version this devnet reads\n"
    "(a regular file, opened read-only, never changed).  Every file is\n"
    "checked whole before the --db database is opened: its tables real\n"
    "ones, every value of its column's type, numbers finite, metric ids\n"
    "known, uuids unique, each run's samples digest recomputed (a stated\n"
    "one that differs refuses the file).  Its runs are added to the --db\n"
    "database with their groups, nodes, events, facts, samples, machines\n"
    "and named metrics, under new ids.  A run is recognised by its uuid:\n"
    "one already in the target with the same samples digest is skipped (the\n"
    "message names it), so importing a file twice adds nothing; runs still\n"
    "running there are skipped too.  Each file lands in one transaction: a\n"
    "file that fails half way (a named metric whose direction contradicts\n"
    "the target's, a run whose samples differ from its copy in the target)\n"
    "adds nothing.  Another devnet may write the target meanwhile: each\n"
    "waits for the other's transaction; none waits while a file is\n"
    "checked.\n\n"
    "options:\n"
    "  --db PATH     the database to import into (default devnet.db;\n"
    "                created if missing)\n"
    "  --dry-run     say what each file would add; change nothing\n"
    "  --time-limit DUR  stop reading a file after DUR (30s, 10m;\n"
    "                default 60 s and 1 s per 2 MiB of the file)\n"
    "  --quiet       no progress lines\n"
    "  --help        this text\n\n"
    "exit status: 0 every file imported (or nothing to add), 1 a file was\n"
    "refused (the others are imported) or the target cannot be written,\n"
    "2 usage.\n";

static int	cmd_import_exec(int, char **);

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.usage = "import [--db PATH] [--dry-run] [--time-limit DUR] [--quiet] "
	    "FILE.db...",
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
	if (st->runs_present == 1)
		printf("; run %s already here, skipped", st->present_uuid);
	else if (st->runs_present > 1)
		printf("; %lld already here, skipped (run %s and %lld more)",
		    (long long)st->runs_present, st->present_uuid,
		    (long long)st->runs_present - 1);
	if (st->runs_running > 0)
		printf("; %lld still running there, skipped",
		    (long long)st->runs_running);
	printf(" in %.2f s\n", secs);
}

/*
 * The refusals that depend on the target DB, asked with it open
 * read-only: opening it for writing rewrites its header (the schema's
 * views are made anew), and a refused file must leave it as it was.  A
 * file refused here is closed (SRC[i] NULL).  Returns how many files are
 * left, -1 (said) when DB cannot be read, and sets *BAD when one is
 * refused.
 */
static int
conflicts(const char *db, struct dn_import_src **src, int from, int to,
    int *bad)
{
	struct dn_store	*s;
	char		*cause = NULL;
	int		 i, n = 0;

	if (dn_store_open(&s, db, DN_STORE_RDONLY, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		return (-1);
	}
	for (i = from; i < to; i++) {
		if (src[i] == NULL)
			continue;
		if (dn_store_import_conflicts(s, src[i], &cause) != 0) {
			cmd_error("import: %s", cause);
			free(cause);
			cause = NULL;
			dn_store_import_close(src[i]);
			src[i] = NULL;
			*bad = 1;
		} else
			n++;
	}
	dn_store_close(s);
	return (n);
}

static int
cmd_import_exec(int argc, char **argv)
{
	static const struct option own[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "time-limit", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	struct cmd_args		  a;
	struct dn_store		 *s = NULL;
	struct dn_import_src	**src = NULL;
	struct dn_import_stats	  st;
	struct prog		  p;
	char			 *cause = NULL;
	const char		 *why;
	int64_t			  limit_ms = 0;
	int			  c, i, dry_run = 0, quiet = 0, bad = 0;
	int			  nok = 0;

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
		case 't':
			if (dn_parse_duration_ms(optarg, &limit_ms,
			    &why) != 0 || limit_ms <= 0) {
				cmd_error("import: --time-limit '%s': %s "
				    "(e.g. 30s, 10m)", optarg, limit_ms <= 0 ?
				    "want more than 0" : why);
				return (CMD_EXIT_USAGE);
			}
			break;
		}
	}
	if (optind == argc) {
		cmd_error("import: want one or more database files (see "
		    "'devnet import --help')");
		return (CMD_EXIT_USAGE);
	}
	/* Every file is opened and checked whole before the target is
	 * opened: a refused one leaves the target as it was, byte for byte,
	 * and a slow one holds no lock of it. */
	src = calloc((size_t)argc, sizeof(*src));
	if (src == NULL)
		abort();
	for (i = optind; i < argc; i++) {
		if (dn_store_import_open(&src[i], argv[i], limit_ms,
		    &cause) != 0) {
			cmd_error("import: %s", cause);
			free(cause);
			cause = NULL;
			bad = 1;
		} else
			nok++;
	}
	if (nok > 0 && access(a.db, F_OK) == 0 && (nok = conflicts(a.db,
	    src, optind, argc, &bad)) < 0)
		bad = 1;
	if (nok <= 0)
		goto out;
	if (dn_store_open(&s, a.db, 0, &cause) != 0) {
		cmd_error("%s", cause);
		bad = 1;
		goto out;
	}
	for (i = optind; i < argc; i++) {
		if (src[i] == NULL)
			continue;
		p.file = argv[i];
		p.t0 = dn_now_ns();
		if (dn_store_import_from(s, src[i], dry_run, &st, quiet ?
		    NULL : progress, &p, &cause) != 0) {
			cmd_error("import: %s", cause);
			free(cause);
			cause = NULL;
			bad = 1;
		} else
			report(argv[i], &st, dry_run, (double)(dn_now_ns() -
			    p.t0) / 1e9);
		dn_store_import_close(src[i]);
		src[i] = NULL;
	}
out:
	for (i = optind; i < argc; i++)
		dn_store_import_close(src[i]);
	free(src);
	free(cause);
	dn_store_close(s);
	if (fflush(stdout) != 0)
		bad = 1;
	return (bad ? 1 : 0);
}
