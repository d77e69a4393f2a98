/*
 * cmd-serve.c: `devnet serve [--db FILE] [--serve [ADDR:]PORT]`: the
 * stored runs of a database over HTTP (serve/, docs/live.md): the runs,
 * the report of two sides, their verdict and series as JSON, until
 * SIGINT or SIGTERM.
 */
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "cmd/cmd-args.h"
#include "serve/serve.h"
#include "store.h"

static const char serve_help[] =
    "options:\n"
    "  --db PATH             database (default devnet.db), read-only\n"
    "  --serve [ADDR:]PORT   where to listen (default 127.0.0.1:8080; a\n"
    "                        bare port is 127.0.0.1 only)\n"
    "  --help                this text\n"
    "\n"
    "/ lists the runs and each group's comparison, /report?a=A&b=B is the\n"
    "page of 'devnet report A B', /api/runs, /api/series?run=&metric=,\n"
    "/api/verdict?a=&b= the JSON (docs/live.md).  Stops on SIGINT or\n"
    "SIGTERM.\n";

static int	cmd_serve_exec(int, char **);

const struct cmd_entry cmd_serve_entry = {
	.name = "serve",
	.usage = "serve [--db PATH] [--serve [ADDR:]PORT]",
	.summary = "serve stored runs over HTTP: runs, reports, verdicts, JSON",
	.help = serve_help,
	.exec = cmd_serve_exec,
};

static int
cmd_serve_exec(int argc, char **argv)
{
	static const struct option own[] = {
		{ "serve", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 }
	};
	const char	*addr = "127.0.0.1:8080";
	struct cmd_args	 a;
	struct dn_store	*s = NULL;
	struct serve	*srv = NULL;
	char		*cause = NULL;
	sigset_t	 set;
	int		 c, sig;

	cmd_args_init(&a, CMD_A_DB, own);
	while ((c = cmd_getopt(&a, &cmd_serve_entry, NULL, argc, argv)) != -1) {
		if (c == CMD_GETOPT_EXIT)
			return (a.exit);
		if (c == 'S')
			addr = optarg;
	}
	if (optind != argc) {
		cmd_error("serve: unexpected argument '%s' (see 'devnet serve "
		    "--help')", argv[optind]);
		return (CMD_EXIT_USAGE);
	}
	/* the database must be there now, not at the first request */
	if (dn_store_open(&s, a.db, DN_STORE_RDONLY, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		return (1);
	}
	dn_store_close(s);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL);	/* the server's thread too */
	signal(SIGPIPE, SIG_IGN);
	if (serve_start(&srv, addr, NULL, a.db, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		return (1);
	}
	fprintf(stderr, "devnet: serving %s at %s (Ctrl-C stops)\n", a.db,
	    serve_url(srv));
	sigwait(&set, &sig);
	serve_stop(srv);
	return (0);
}
