/*
 * cmd-logs.c: `devnet logs RUN`, a run's stored output: each node's
 * node-K.out (what the node, or a foreign node's command and its probe,
 * printed) or the command load's load-command.out, found from the run's
 * facts (fact `output` per node) or its run dir, without the user
 * hunting for RUN_DIR/ID-VARIANT.  --follow goes on printing what is
 * added until the run has ended.
 *
 * Not here: the run's events and facts (cmd-show.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd-args.h"
#include "escape.h"
#include "store.h"
#include "units.h"
#include "xalloc.h"

static const char logs_help[] =
    "options:\n"
    "  --db PATH       database (default devnet.db)\n"
    "  --node N        node N's output only (default: every node's, each\n"
    "                  under a '==> node N: PATH <==' line)\n"
    "  --load          the command load's output (load-command.out)\n"
    "  --follow, -f    go on printing what is added, until the run has\n"
    "                  ended (or Ctrl-C)\n"
    "  --help          this text\n\n"
    "RUN is a run id ('devnet runs'); each trial is its own run.  On a\n"
    "terminal control bytes are shown as \\xHH; piped, the bytes are as\n"
    "written.\n";

static int	cmd_logs_exec(int, char **);

const struct cmd_entry cmd_logs_entry = {
	.name = "logs",
	.usage = "logs [--db PATH] [--node N | --load] [--follow] RUN",
	.summary = "print a run's node output (node-K.out) or load output",
	.help = logs_help,
	.exec = cmd_logs_exec,
};

#define MAX_FILES	1024

/* What the run's rows say of where its files are. */
struct where {
	char	*run_dir;	/* runs.run_dir (the base) */
	char	*variant;
	char	*status;
	int	 nodes;
	char	*out[MAX_FILES];	/* fact output per node */
};

static int
header_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct where	*w = arg;
	int		 i;

	(void)types;
	for (i = 0; i < ncols; i++) {
		if (values[i] == NULL)
			continue;
		if (strcmp(names[i], "run_dir") == 0)
			w->run_dir = dn_xstrdup(values[i]);
		else if (strcmp(names[i], "variant") == 0)
			w->variant = dn_xstrdup(values[i]);
		else if (strcmp(names[i], "status") == 0)
			w->status = dn_xstrdup(values[i]);
		else if (strcmp(names[i], "nodes") == 0)
			w->nodes = atoi(values[i]);
	}
	return (0);
}

static int
fact_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct where	*w = arg;
	int		 node;

	(void)names;
	(void)types;
	if (ncols < 3 || values[0] == NULL || values[1] == NULL ||
	    values[2] == NULL || strcmp(values[1], "output") != 0)
		return (0);
	node = atoi(values[0]);
	if (node >= 0 && node < MAX_FILES && w->out[node] == NULL)
		w->out[node] = dn_xstrdup(values[2]);
	return (0);
}

static void
where_release(struct where *w)
{
	int	i;

	free(w->run_dir);
	free(w->variant);
	free(w->status);
	for (i = 0; i < MAX_FILES; i++)
		free(w->out[i]);
}

/* The path of node NODE's output (-1: the load's) of run RUN; a new
 * string.  Runs before the fact `output` had their trial dir as
 * RUN_DIR/ID-VARIANT (docs/schema.md, runs.run_dir). */
static char *
file_of(const struct where *w, int64_t run, int node)
{
	char	*dir, *slash;

	if (node >= 0 && node < MAX_FILES && w->out[node] != NULL)
		return (dn_xstrdup(w->out[node]));
	if (node < 0 && w->out[0] != NULL) {
		/* beside node 0's: the trial dir */
		dir = dn_xstrdup(w->out[0]);
		if ((slash = strrchr(dir, '/')) != NULL)
			*slash = '\0';
	} else
		dir = dn_xasprintf("%s/%lld-%s", w->run_dir ? w->run_dir : ".",
		    (long long)run, w->variant ? w->variant : "?");
	slash = node < 0 ? dn_xasprintf("%s/load-command.out", dir) :
	    dn_xasprintf("%s/node-%d.out", dir, node);
	free(dir);
	return (slash);
}

/* Print what FD has from where it is to its end: escaped on a terminal
 * (line by line, so an escape never splits), raw otherwise. */
static void
copy_out(int fd, int tty)
{
	char	 buf[65536], *e;
	ssize_t	 n;

	while ((n = read(fd, buf, sizeof(buf) - 1)) > 0) {
		if (!tty) {
			fwrite(buf, 1, (size_t)n, stdout);
			continue;
		}
		/* a NUL would end the text early: shown as the others */
		for (e = buf; e < buf + n; e++)
			if (*e == '\0')
				*e = '\x01';
		buf[n] = '\0';
		e = dn_escape_ctl(buf);
		fputs(e, stdout);
		free(e);
	}
	fflush(stdout);
}

/* Is run RUN over (its status no longer 'running')?  Read anew. */
static int
run_over(const char *db, int64_t run)
{
	struct dn_store	*s = NULL;
	struct where	 w = { 0 };
	char		*cause = NULL;
	int		 over = 1;

	if (dn_store_open(&s, db, DN_STORE_RDONLY, &cause) == 0 &&
	    dn_store_read(s, DN_READ_RUN_HEADER, run, header_row, &w,
	    &cause) == 0)
		over = w.status == NULL || strcmp(w.status, "running") != 0;
	free(cause);
	dn_store_close(s);
	where_release(&w);
	return (over);
}

/* Follow FDS (N) until the run is over and nothing more came. */
static void
follow(const char *db, int64_t run, int *fds, char **paths, int n, int tty)
{
	struct timespec	 ts = { 0, 200000000 };
	off_t		 was[MAX_FILES + 1], now;
	int		 i, last = -1, grew, polls = 0, over = 0;

	for (i = 0; i < n; i++)
		was[i] = fds[i] >= 0 ? lseek(fds[i], 0, SEEK_CUR) : 0;
	for (;;) {
		grew = 0;
		for (i = 0; i < n; i++) {
			if (fds[i] < 0 && (fds[i] = open(paths[i], O_RDONLY |
			    O_CLOEXEC)) < 0)
				continue;
			now = lseek(fds[i], 0, SEEK_END);
			if (now == was[i])
				continue;
			lseek(fds[i], was[i], SEEK_SET);
			if (n > 1 && last != i)
				printf("\n==> %s <==\n", paths[i]);
			last = i;
			copy_out(fds[i], tty);
			was[i] = lseek(fds[i], 0, SEEK_CUR);
			grew = 1;
		}
		/* once over, one more round reads what the end wrote */
		if (over && !grew)
			return;
		if (++polls % 5 == 0 || over)
			over = run_over(db, run);
		nanosleep(&ts, NULL);
	}
}

static int
cmd_logs_exec(int argc, char **argv)
{
	static const struct option own[] = {
		{ "node", required_argument, NULL, 'n' },
		{ "load", no_argument, NULL, 'l' },
		{ "follow", no_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 } };
	struct cmd_args	 a;
	struct dn_store	*s = NULL;
	struct where	 w = { 0 };
	char		*cause = NULL, *paths[MAX_FILES + 1] = { 0 };
	int		 fds[MAX_FILES + 1];
	int64_t		 run, v;
	int		 c, rc = 1, node = -2, fol = 0, first, last, i, n = 0;
	int		 tty = isatty(STDOUT_FILENO);

	cmd_args_init(&a, CMD_A_DB, own);
	while ((c = cmd_getopt(&a, &cmd_logs_entry, "f", argc, argv)) != -1) {
		switch (c) {
		case CMD_GETOPT_EXIT:
			return (a.exit);
		case 'n':
			if (dn_parse_i64(optarg, &v) != 0 || v < 0 ||
			    v >= MAX_FILES) {
				cmd_error("logs: --node '%s' is not a node "
				    "index (0, 1, ...)", optarg);
				return (CMD_EXIT_USAGE);
			}
			node = (int)v;
			break;
		case 'l':
			node = -1;
			break;
		case 'f':
			fol = 1;
			break;
		}
	}
	if (argc - optind != 1) {
		cmd_error("logs: want one run id (see 'devnet runs')");
		return (CMD_EXIT_USAGE);
	}
	if (dn_parse_i64(argv[optind], &run) != 0 || run <= 0) {
		cmd_error("logs: '%s' is not a run id (see 'devnet runs')",
		    argv[optind]);
		return (CMD_EXIT_USAGE);
	}
	if (dn_store_open(&s, a.db, DN_STORE_RDONLY, &cause) != 0 ||
	    dn_store_read(s, DN_READ_RUN_HEADER, run, header_row, &w,
	    &cause) != 0 || dn_store_read(s, DN_READ_RUN_FACTS, run,
	    fact_row, &w, &cause) != 0)
		goto fail;
	if (w.variant == NULL) {
		cause = dn_xasprintf("no run %lld in '%s' (see 'devnet runs')",
		    (long long)run, a.db);
		goto fail;
	}
	if (node >= w.nodes) {
		cause = dn_xasprintf("run %lld has %d node(s): --node 0 to "
		    "%d", (long long)run, w.nodes, w.nodes - 1);
		goto fail;
	}
	first = node == -2 ? 0 : node;
	last = node == -2 ? w.nodes - 1 : node;
	for (i = first; i <= last && n <= MAX_FILES; i++) {
		paths[n] = file_of(&w, run, i);
		fds[n] = open(paths[n], O_RDONLY | O_CLOEXEC);
		if (fds[n] < 0 && !(fol && errno == ENOENT)) {
			cause = dn_xasprintf("cannot read '%s': %s (the run "
			    "dir was removed or is on another machine?)",
			    paths[n], strerror(errno));
			n++;
			goto fail;
		}
		if (fds[n] >= 0 && node == -2)
			printf("%s==> node %d: %s <==\n", i > first ? "\n" :
			    "", i, paths[n]);
		if (fds[n] >= 0)
			copy_out(fds[n], tty);
		n++;
	}
	if (fol)
		follow(a.db, run, fds, paths, n, tty);
	rc = 0;
	goto out;
fail:
	cmd_error("%s", cause);
out:
	for (i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		free(paths[i]);
	}
	free(cause);
	where_release(&w);
	dn_store_close(s);
	return (rc);
}
