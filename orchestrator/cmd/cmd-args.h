/*
 * cmd-args.h: the options several commands share, parsed in one place
 * (cmd-args.c), so that `--db`, `--format`, `--metric`, the verdict's
 * `--threshold --unit --strict --target-effect --fail-on` and `--help`
 * mean the same and fail with the same words everywhere.
 *
 * A command names the shared options it takes and its own:
 *
 *	static const struct option own[] = {
 *		{ "output", required_argument, NULL, 'o' }, { NULL, 0, 0, 0 } };
 *	struct cmd_args	a;
 *
 *	cmd_args_init(&a, CMD_A_DB | CMD_A_METRIC, own);
 *	while ((c = cmd_getopt(&a, &cmd_frob_entry, "o:", argc, argv)) != -1)
 *		switch (c) {
 *		case CMD_GETOPT_EXIT: return (a.exit);
 *		case 'o': output = optarg; break;
 *		}
 *
 * cmd_getopt handles the shared ones itself and returns only the command's
 * own; after -1, optind is at the first operand.  `devnet run` and `ab`
 * keep their own table (run-args.c): their options are a language of
 * their own.
 */
#ifndef DN_CMD_ARGS_H
#define DN_CMD_ARGS_H

#include <getopt.h>

#include "cmd/cmd.h"
#include "verdict/compare.h"

#define CMD_A_DB	0x01	/* --db PATH */
#define CMD_A_LIST	0x02	/* --format table|csv|json */
#define CMD_A_VFORMAT	0x04	/* --format of a verdict (+ markdown, junit) */
#define CMD_A_METRIC	0x08	/* --metric NAME, repeatable */
#define CMD_A_VERDICT	0x10	/* --threshold PCT, --unit UNIT, --strict,
				   --require, --aa GROUP */
#define CMD_A_TARGET	0x20	/* --target-effect PCT */
#define CMD_A_FAIL_ON	0x40	/* --fail-on worse|changed */

/* cmd_getopt's "return a.exit now": after --help (0) or a usage error
 * (CMD_EXIT_USAGE, already said). */
#define CMD_GETOPT_EXIT	(-2)

#define CMD_ARGS_MAXOPT	40

struct cmd_args {
	const char		*db;		/* CMD_DEFAULT_DB */
	int			 format;	/* COMPARE_*, COMPARE_TABLE */
	int			 junit;		/* --format junit */
	int			 fail_on;	/* COMPARE_FAIL_*, 0 */
	const char		*metrics[CMD_MAX_METRICS];
	/* the verdict's options; .metrics/.nmetrics are the --metric list
	 * (do not copy a cmd_args: .metrics points into it) */
	struct compare_opts	 verdict;
	int			 exit;		/* after CMD_GETOPT_EXIT */
	/* private */
	unsigned		 which;
	int			 started;
	struct option		 longopts[CMD_ARGS_MAXOPT];
};

/* Ready A for a command taking the shared options WHICH (CMD_A_*; --help
 * always) and its OWN (a table ending in a zero entry, may be NULL; own
 * option values must be below 0x1000). */
void	 cmd_args_init(struct cmd_args *a, unsigned which,
	    const struct option *own);
/* getopt_long over ARGV of E with SHORTOPTS (may be NULL): the next own
 * option's value, -1 at the end, or CMD_GETOPT_EXIT. */
int	 cmd_getopt(struct cmd_args *a, const struct cmd_entry *e,
	    const char *shortopts, int argc, char **argv);

#endif
