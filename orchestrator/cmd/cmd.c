/* cmd.c: helpers shared by the command files (see cmd.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "units.h"
#include "scenario/scenario.h"
#include "verdict/compare.h"

void
cmd_usage(const struct cmd_entry *e, FILE *out)
{
	fprintf(out, "usage: devnet %s\n\n%s\n", e->usage, e->summary);
	if (e->help != NULL)
		fprintf(out, "\n%s", e->help);
	if (e->help_more != NULL)
		e->help_more(out);
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

int
cmd_provider_arg(const char *arg)
{
	char	names[128] = "";
	size_t	i, u = 0;

	for (i = 0; scenario_provider_names[i] != NULL; i++) {
		if (strcmp(scenario_provider_names[i], arg) == 0)
			return (0);
		u += (size_t)snprintf(names + u, sizeof(names) - u, "%s%s",
		    i == 0 ? "" : scenario_provider_names[i + 1] == NULL ?
		    " or " : ", ", scenario_provider_names[i]);
		if (u >= sizeof(names))
			u = sizeof(names) - 1;
	}
	cmd_error("--provider takes %s, not '%s'", names, arg);
	return (CMD_EXIT_USAGE);
}

int
cmd_order_arg(const char *arg, int *order)
{
	if (strcmp(arg, "abba") == 0)
		*order = SCN_ORDER_ABBA;
	else if (strcmp(arg, "concurrent") == 0)
		*order = SCN_ORDER_CONCURRENT;
	else {
		cmd_error("--order takes abba or concurrent, not '%s'", arg);
		return (CMD_EXIT_USAGE);
	}
	return (0);
}

int
cmd_repeats_arg(const char *arg, int *repeats)
{
	int64_t	v;

	if (dn_parse_i64(arg, &v) != 0 || v < 1 || v > 1000) {
		cmd_error("--repeats takes a number from 1 to 1000, not '%s'",
		    arg);
		return (CMD_EXIT_USAGE);
	}
	*repeats = (int)v;
	return (0);
}
