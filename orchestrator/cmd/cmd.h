/*
 * cmd.h: the devnet command table.
 *
 * To add a command `devnet frob`:
 *   1. write orchestrator/cmd-frob.c exporting
 *        const struct cmd_entry cmd_frob_entry = {
 *            .name = "frob", .usage = "frob [--db PATH] RUN",
 *            .summary = "one line for `devnet --help`",
 *            .exec = cmd_frob_exec };
 *      where cmd_frob_exec(argc, argv) gets argv[0] == "frob", parses its
 *      own options (getopt_long; --help prints usage and returns 0), prints
 *      to the user, and returns the process exit status;
 *   2. declare it below and add it to cmd_table[] in devnet.c;
 *   3. add its --help to tests/e2e/help.sh (every command answers --help).
 * Only exec functions print to the user or choose exit statuses.
 */
#ifndef DN_CMD_H
#define DN_CMD_H

#include <stdio.h>

struct cmd_entry {
	const char	*name;
	const char	*usage;		/* after "usage: devnet " */
	const char	*summary;
	const char	*help;		/* option descriptions, may be NULL */
	void		(*help_more)(FILE *);	/* printed after help: lists
						   from a table; may be NULL */
	int		(*exec)(int argc, char **argv);
};

extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_ab_entry;
extern const struct cmd_entry cmd_validate_entry;
extern const struct cmd_entry cmd_runs_entry;
extern const struct cmd_entry cmd_show_entry;
extern const struct cmd_entry cmd_logs_entry;
extern const struct cmd_entry cmd_compare_entry;
extern const struct cmd_entry cmd_report_entry;
extern const struct cmd_entry cmd_serve_entry;
extern const struct cmd_entry cmd_query_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_image_entry;
extern const struct cmd_entry cmd_history_entry;
extern const struct cmd_entry cmd_import_entry;
extern const struct cmd_entry cmd_metrics_entry;

/* The verdict's metric names, wrapped, for the --help of a command that
 * takes --metric (cmd-metrics.c, from metric-table.h). */
void	 cmd_help_metrics(FILE *out);

/* Print "usage: devnet USAGE" and the help text of E to OUT. */
void	 cmd_usage(const struct cmd_entry *e, FILE *out);
/* Print "devnet: MESSAGE\n" to stderr. */
void	 cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Exit status for a usage error (unknown flag, missing argument). */
#define CMD_EXIT_USAGE	2
/* Say that ARG is an unknown or incomplete option of E; returns
 * CMD_EXIT_USAGE. */
int	 cmd_bad_option(const struct cmd_entry *e, const char *arg);

/* How many --metric options a command takes (compare, history, report). */
#define CMD_MAX_METRICS	64
/* Append the value ARG of a --metric option to METRICS (CMD_MAX_METRICS
 * entries, *N in use).  0, or says there are too many and returns
 * CMD_EXIT_USAGE. */
int	 cmd_add_metric(const char **metrics, size_t *n, const char *arg);
/* Parse the --format ARG of a command that prints a listing (table, csv
 * or json; no markdown) into *FORMAT (COMPARE_*).  0, or says what it
 * takes and returns CMD_EXIT_USAGE. */
int	 cmd_list_format(const char *arg, int *format);

/* Is ARG a provider's name (--provider of run, ab, validate)?  0, or
 * says which names there are and returns CMD_EXIT_USAGE. */
int	 cmd_provider_arg(const char *arg);

/* --order ARG (abba|concurrent) into *ORDER (enum scn_order), --repeats
 * ARG (1..1000) into *REPEATS, as run, ab and validate take them.  0, or
 * says what they take and returns CMD_EXIT_USAGE. */
int	 cmd_order_arg(const char *arg, int *order);
int	 cmd_repeats_arg(const char *arg, int *repeats);

/* Default database path. */
#define CMD_DEFAULT_DB	"devnet.db"

#endif
