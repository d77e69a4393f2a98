/*
 * main.c: devnet-probe's entry point.  Parses the command line and hands
 * over to the event loop (loop.c), or to the preflight check or the
 * namespace holder (preflight.c); the only place that exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

int
main(int argc, char **argv)
{
	struct probe_opts	 o;
	char			*cause = NULL;
	int			 rv;

	if (argc > 1 && strncmp(argv[1], "--preflight-", 12) == 0)
		return (probe_preflight(argc, argv));
	if (argc == 2 && strcmp(argv[1], "--hold") == 0)
		return (probe_hold());
	rv = probe_args_parse(&o, argc, argv, &cause);
	if (rv == 1) {
		fputs(probe_usage, stdout);
		probe_args_release(&o);
		return (0);
	}
	if (rv != 0) {
		fprintf(stderr, "devnet-probe: %s\n", cause);
		free(cause);
		probe_args_release(&o);
		return (PROBE_EXIT_ERROR);
	}
	rv = probe_run(&o);
	probe_args_release(&o);
	return (rv);
}
