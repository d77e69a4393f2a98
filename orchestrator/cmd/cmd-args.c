/* cmd-args.c: the options several commands share (cmd-args.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd-args.h"

enum {
	A_DB = 0x1000, A_FORMAT, A_METRIC, A_THRESHOLD, A_UNIT, A_STRICT,
	A_TARGET, A_FAIL_ON, A_REQUIRE, A_AA, A_HELP
};

static const struct shared {
	unsigned	which;
	struct option	opt;
} shared[] = {
	{ CMD_A_DB, { "db", required_argument, NULL, A_DB } },
	{ CMD_A_LIST | CMD_A_VFORMAT,
	    { "format", required_argument, NULL, A_FORMAT } },
	{ CMD_A_METRIC, { "metric", required_argument, NULL, A_METRIC } },
	{ CMD_A_VERDICT,
	    { "threshold", required_argument, NULL, A_THRESHOLD } },
	{ CMD_A_VERDICT, { "unit", required_argument, NULL, A_UNIT } },
	{ CMD_A_VERDICT, { "strict", no_argument, NULL, A_STRICT } },
	{ CMD_A_VERDICT, { "require", required_argument, NULL, A_REQUIRE } },
	{ CMD_A_VERDICT, { "aa", required_argument, NULL, A_AA } },
	{ CMD_A_TARGET,
	    { "target-effect", required_argument, NULL, A_TARGET } },
	{ CMD_A_FAIL_ON, { "fail-on", required_argument, NULL, A_FAIL_ON } },
	{ ~0u, { "help", no_argument, NULL, A_HELP } },
};

void
cmd_args_init(struct cmd_args *a, unsigned which, const struct option *own)
{
	size_t	n = 0, i;

	memset(a, 0, sizeof(*a));
	a->db = CMD_DEFAULT_DB;
	a->format = COMPARE_TABLE;
	a->verdict.metrics = a->metrics;
	a->which = which;
	/* The command's own first: the caller's name wins a clash. */
	for (; own != NULL && own->name != NULL; own++)
		a->longopts[n++] = *own;
	for (i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
		if (shared[i].which & which)
			a->longopts[n++] = shared[i].opt;
	/* the zero entry that ends the table is already there (memset) */
	if (n >= CMD_ARGS_MAXOPT)
		abort();
}

/* Apply the shared option C: 0, or -1 with A->exit set. */
static int
apply(struct cmd_args *a, const struct cmd_entry *e, int c)
{
	char	*cause = NULL;
	int	 o = 0;

	switch (c) {
	case A_DB:
		a->db = optarg;
		return (0);
	case A_HELP:
		cmd_usage(e, stdout);
		a->exit = 0;
		return (-1);
	case A_METRIC:
		a->exit = cmd_add_metric(a->metrics, &a->verdict.nmetrics,
		    optarg);
		return (a->exit != 0 ? -1 : 0);
	case A_FAIL_ON:
		if (compare_fail_on_parse(optarg, &a->fail_on) == 0) {
			a->verdict.not_shown = COMPARE_FAIL_KIND(a->fail_on) ==
			    COMPARE_FAIL_NOT_SHOWN;
			return (0);
		}
		cmd_error("unknown --fail-on '%s' (worse, changed or "
		    "not-shown, each with :all to count secondary metrics "
		    "too)", optarg);
		a->exit = CMD_EXIT_USAGE;
		return (-1);
	case A_FORMAT:
		if (!(a->which & CMD_A_VFORMAT)) {
			a->exit = cmd_list_format(optarg, &a->format);
			return (a->exit != 0 ? -1 : 0);
		}
		a->junit = strcmp(optarg, "junit") == 0;
		if (a->junit)
			return (0);
		o = 'f';
		break;
	case A_THRESHOLD:
		o = 't';
		break;
	case A_UNIT:
		o = 'u';
		break;
	case A_STRICT:
		o = 's';
		break;
	case A_TARGET:
		o = 'e';
		break;
	case A_REQUIRE:
		o = 'r';
		break;
	case A_AA:
		o = 'a';
		break;
	}
	if (compare_opt_set(&a->verdict, o, optarg, &cause) == 0) {
		if (o == 'f')
			a->format = a->verdict.format;
		return (0);
	}
	cmd_error("%s", cause);
	free(cause);
	a->exit = CMD_EXIT_USAGE;
	return (-1);
}

int
cmd_getopt(struct cmd_args *a, const struct cmd_entry *e,
    const char *shortopts, int argc, char **argv)
{
	int	c;

	if (!a->started) {
		optind = 1;
		opterr = 0;
		a->started = 1;
	}
	for (;;) {
		c = getopt_long(argc, argv, shortopts != NULL ? shortopts :
		    "", a->longopts, NULL);
		if (c == '?' || c == ':') {
			a->exit = cmd_bad_option(e, argv[optind - 1]);
			return (CMD_GETOPT_EXIT);
		}
		if (c < A_DB || c > A_HELP)
			return (c);
		if (apply(a, e, c) != 0)
			return (CMD_GETOPT_EXIT);
	}
}
