/* cmd.c: helpers shared by the command files (see cmd.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "verdict/compare.h"

void
cmd_usage(const struct cmd_entry *e, FILE *out)
{
	fprintf(out, "usage: devnet %s\n\n%s\n", e->usage, e->summary);
	if (e->help != NULL)
		fprintf(out, "\n%s", e->help);
}

void
cmd_error(const char *fmt, ...)
{
	va_list	ap;

	fputs("devnet: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
cmd_bad_option(const struct cmd_entry *e, const char *arg)
{
	cmd_error("%s: unknown option or missing value '%s' (see 'devnet %s "
	    "--help')", e->name, arg, e->name);
	return (CMD_EXIT_USAGE);
}

int
cmd_add_metric(const char **metrics, size_t *n, const char *arg)
{
	if (*n == CMD_MAX_METRICS) {
		cmd_error("too many --metric options (at most %d)",
		    CMD_MAX_METRICS);
		return (CMD_EXIT_USAGE);
	}
	metrics[(*n)++] = arg;
	return (0);
}

int
cmd_list_format(const char *arg, int *format)
{
	if (compare_format_parse(arg, format) != 0 ||
	    *format == COMPARE_MARKDOWN) {
		cmd_error("unknown format '%s' (table, csv or json)", arg);
		return (CMD_EXIT_USAGE);
	}
	return (0);
}
