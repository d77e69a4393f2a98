/*
 * run-args.c: the options `devnet run` and `devnet ab` share (run-args.h):
 * parsed in one place, and the run they describe executed in one place, so
 * that no command file depends on another.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/spawn.h"
#include "cmd/cmd.h"
#include "cmd/run-args.h"
#include "cmd/scenario-find.h"
#include "plan/rev-build.h"
#include "serve/serve.h"
#include "trial/snapshot.h"
#include "scenario/scenario.h"
#include "store.h"
#include "units.h"
#include "xalloc.h"

const char run_args_help[] =
    "  --db PATH            sqlite database (default devnet.db)\n"
    "  --label TEXT         a label stored with every run\n"
    "  --commit ID          the commit the node binary was built from,\n"
    "                       stored with the runs of variants without a\n"
    "                       `rev:` (a CI that builds its own binary):\n"
    "                       devnet history then orders them with git\n"
    "  --set KEY=VALUE      override a scenario key, e.g. workload.tps=100\n"
    "                       (repeatable; same checks as the file)\n"
    "  --run-dir DIR        where trial dirs go (default ./runs)\n"
    "  --repeats N          trials per variant (overrides `repeats`)\n"
    "  --order abba|concurrent\n"
    "                       trial order (overrides `order`)\n"
    "  --ready-timeout DUR  how long nodes may take to become ready\n"
    "                       (default 10s + 200ms per node)\n"
    "  --grace DUR          SIGTERM to SIGKILL at the end (default 5s)\n"
    "  --provider local|docker|swarm\n"
    "                       where the nodes run (overrides `provider`;\n"
    "                       docs/providers.md)\n"
    "  --serve [ADDR:]PORT  while the run lasts, serve a live page, /metrics\n"
    "                       (Prometheus) and /api (docs/live.md); a bare\n"
    "                       port listens on 127.0.0.1 only\n"
    "  --interference-max CORES\n"
    "                       other programs' CPU beside a trial (cores, on\n"
    "                       average) above which it is named in events,\n"
    "                       compare and report (default 0.25)\n"
    "  --machine-wait DUR   how long to wait for another devnet that holds\n"
    "                       this machine's network conditions or CPUs\n"
    "                       (default 10m; 0 refuses at once)\n"
    "  --strict             fail a trial that ran beside more than that\n"
    "                       (with ab: also compare --strict)\n"
    "  --quiet              no progress and no summaries\n"
    "  --dry-run            load and check the scenario with these\n"
    "                       options as the run would, say what would\n"
    "                       run, and start nothing (exit 0 or 1, with\n"
    "                       the words 'devnet validate' prints)\n"
    "  --help               this text\n";

enum {
	OPT_DB = 256, OPT_LABEL, OPT_SET, OPT_RUN_DIR, OPT_REPEATS, OPT_ORDER,
	OPT_READY, OPT_GRACE, OPT_QUIET, OPT_HELP, OPT_METRIC, OPT_FORMAT,
	OPT_THRESHOLD, OPT_UNIT, OPT_TARGET, OPT_STRICT, OPT_PROVIDER,
	OPT_FAIL_ON, OPT_SERVE, OPT_UNTIL, OPT_MAX_TRIALS, OPT_BUDGET,
	OPT_REQUIRE, OPT_COMMIT, OPT_DRY_RUN, OPT_ITF_MAX, OPT_MACHINE_WAIT
};

static int
usage_error(const struct cmd_entry *e, const char *msg, const char *arg)
{
	cmd_error("%s%s%s%s (see 'devnet %s --help')", msg, arg ? " '" : "",
	    arg ? arg : "", arg ? "'" : "", e->name);
	return (CMD_EXIT_USAGE);
}

/* The options about the machine the trials share with other programs
 * (--strict, --interference-max; issue 36), as parse_one. */
static int
parse_machine(struct run_args *a, const struct cmd_entry *e, int c,
    int *exit_status)
{
	if (c == OPT_STRICT) {
		/* ab: compare's --strict too */
		a->strict = 1;
		a->ro.strict = 1;
		return (0);
	}
	if (c == OPT_MACHINE_WAIT) {
		const char	*why;
		int64_t		 ms;

		if (dn_parse_duration_ms(optarg, &ms, &why) != 0 || ms < 0 ||
		    ms > 86400000) {
			*exit_status = usage_error(e, "--machine-wait takes a "
			    "duration like 10m (0 refuses at once), not",
			    optarg);
			return (-1);
		}
		a->ro.machine_wait_ms = (int)ms;
		return (0);
	}
	if (c == OPT_ITF_MAX) {
		if (dn_parse_double(optarg, &a->ro.itf_max) != 0 ||
		    !(a->ro.itf_max > 0) || a->ro.itf_max > 4096) {
			*exit_status = usage_error(e, "--interference-max "
			    "takes a number of cores like 0.25, not", optarg);
			return (-1);
		}
	}
	return (0);
}

/* The sequential options of devnet ab (--until, --max-trials, --budget,
 * --require), as parse_one. */
static int
parse_seq(struct run_args *a, const struct cmd_entry *e, int c,
    int *exit_status)
{
	const char	*why;
	int64_t		 v, ms;

	switch (c) {
	case OPT_UNTIL:
		if (strcmp(optarg, "decided") != 0) {
			*exit_status = usage_error(e, "--until takes "
			    "decided, not", optarg);
			return (-1);
		}
		a->until = 1;
		break;
	case OPT_MAX_TRIALS:
		if (dn_parse_i64(optarg, &v) != 0 || v < 4 || v > 256) {
			*exit_status = usage_error(e, "--max-trials takes "
			    "a number from 4 to 256 (trials of both "
			    "variants), not", optarg);
			return (-1);
		}
		a->max_trials = (int)v;
		break;
	case OPT_BUDGET:
		if (dn_parse_duration_ms(optarg, &ms, &why) != 0 ||
		    ms <= 0) {
			*exit_status = usage_error(e, "--budget takes a "
			    "duration like 45m, not", optarg);
			return (-1);
		}
		a->budget_ms = ms;
		break;
	case OPT_REQUIRE:
		a->require = optarg;
		break;
	}
	return (0);
}

/* --commit ID (in optarg): a commit id in hex. */
static int
parse_commit(struct run_args *a, const struct cmd_entry *e,
    int *exit_status)
{
	if (optarg[0] == '\0' || strspn(optarg, "0123456789abcdefABCDEF") !=
	    strlen(optarg)) {
		*exit_status = usage_error(e, "--commit takes a commit id in "
		    "hex, not", optarg);
		return (-1);
	}
	a->commit = optarg;
	return (0);
}

/* One option C of E (its argument in optarg) into A: 0, or -1 with
 * *EXIT_STATUS set (0 after --help, else a usage error, printed). */
static int
parse_one(struct run_args *a, const struct cmd_entry *e, int c, char **argv,
    int *exit_status)
{
	const char	*why;
	int64_t		 ms;

	if (c == OPT_COMMIT)
		return (parse_commit(a, e, exit_status));
	switch (c) {
	case OPT_DB:
		a->db = optarg;
		break;
	case OPT_LABEL:
		a->ro.label = optarg;
		break;
	case OPT_SET:
		if (strchr(optarg, '=') == NULL) {
			*exit_status = usage_error(e, "--set needs "
			    "KEY=VALUE, got", optarg);
			return (-1);
		}
		a->sets = dn_xreallocarray(a->sets, a->nsets + 1,
		    sizeof(*a->sets));
		a->sets[a->nsets++] = optarg;
		break;
	case OPT_RUN_DIR:
		a->ro.run_dir = optarg;
		break;
	case OPT_REPEATS:
		if (cmd_repeats_arg(optarg, &a->repeats) != 0) {
			*exit_status = CMD_EXIT_USAGE;
			return (-1);
		}
		break;
	case OPT_ORDER:
		if (cmd_order_arg(optarg, &a->order) != 0) {
			*exit_status = CMD_EXIT_USAGE;
			return (-1);
		}
		break;
	case OPT_READY:
	case OPT_GRACE:
		if (dn_parse_duration_ms(optarg, &ms, &why) != 0 ||
		    ms > 3600000) {
			*exit_status = usage_error(e, c == OPT_READY ?
			    "--ready-timeout takes a duration like "
			    "30s, not" : "--grace takes a duration like"
			    " 5s, not", optarg);
			return (-1);
		}
		if (c == OPT_READY)
			a->ro.ready_timeout_ms = ms > 0 ? (int)ms : 1;
		else
			a->ro.grace_ms = ms > 0 ? (int)ms : 1;
		break;
	case OPT_QUIET:
		a->ro.quiet = 1;
		break;
	case OPT_DRY_RUN:
		a->dry_run = 1;
		break;
	case OPT_SERVE:
		a->serve = optarg;
		break;
	case OPT_PROVIDER:
		if (cmd_provider_arg(optarg) != 0) {
			*exit_status = CMD_EXIT_USAGE;
			return (-1);
		}
		/* The same as --set provider=X (added after the
		 * options, so it wins); the last one counts. */
		free(a->provider_set);
		a->provider_set = dn_xasprintf("provider=%s", optarg);
		break;
	case OPT_HELP:
		cmd_usage(e, stdout);
		*exit_status = 0;
		return (-1);
	case OPT_METRIC:
		a->metrics = dn_xreallocarray(a->metrics,
		    a->nmetrics + 1, sizeof(*a->metrics));
		a->metrics[a->nmetrics++] = optarg;
		break;
	case OPT_FORMAT:
		a->format = optarg;
		break;
	case OPT_THRESHOLD:
		a->threshold = optarg;
		break;
	case OPT_UNIT:
		a->unit = optarg;
		break;
	case OPT_TARGET:
		a->target = optarg;
		break;
	case OPT_STRICT:
	case OPT_ITF_MAX:
	case OPT_MACHINE_WAIT:
		return (parse_machine(a, e, c, exit_status));
	case OPT_FAIL_ON:
		a->fail_on = optarg;
		break;
	case OPT_UNTIL:
	case OPT_MAX_TRIALS:
	case OPT_BUDGET:
	case OPT_REQUIRE:
		return (parse_seq(a, e, c, exit_status));
	default:
		*exit_status = cmd_bad_option(e, argv[optind - 1]);
		return (-1);
	}
	return (0);
}

int
run_args_parse(struct run_args *a, const struct cmd_entry *e, int argc,
    char **argv, int ab, int *exit_status)
{
	static const struct option	 opts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "set", required_argument, NULL, OPT_SET },
		{ "run-dir", required_argument, NULL, OPT_RUN_DIR },
		{ "repeats", required_argument, NULL, OPT_REPEATS },
		{ "order", required_argument, NULL, OPT_ORDER },
		{ "ready-timeout", required_argument, NULL, OPT_READY },
		{ "grace", required_argument, NULL, OPT_GRACE },
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "unit", required_argument, NULL, OPT_UNIT },
		{ "target-effect", required_argument, NULL, OPT_TARGET },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "provider", required_argument, NULL, OPT_PROVIDER },
		{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
		{ "serve", required_argument, NULL, OPT_SERVE },
		{ "until", required_argument, NULL, OPT_UNTIL },
		{ "max-trials", required_argument, NULL, OPT_MAX_TRIALS },
		{ "budget", required_argument, NULL, OPT_BUDGET },
		{ "require", required_argument, NULL, OPT_REQUIRE },
		{ "interference-max", required_argument, NULL, OPT_ITF_MAX },
		{ "machine-wait", required_argument, NULL, OPT_MACHINE_WAIT },
		{ NULL, 0, NULL, 0 }
	};
	int		 c;

	memset(a, 0, sizeof(*a));
	a->db = CMD_DEFAULT_DB;
	a->order = -1;
	a->ro.run_dir = "runs";
	a->ro.machine_wait_ms = -1;	/* the default wait */
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (!ab && (c == OPT_METRIC ||
		    c == OPT_THRESHOLD || c == OPT_UNIT || c == OPT_TARGET ||
		    c == OPT_FAIL_ON || c == OPT_UNTIL ||
		    c == OPT_MAX_TRIALS || c == OPT_BUDGET ||
		    c == OPT_REQUIRE))
			c = '?';
		if (parse_one(a, e, c, argv, exit_status) != 0)
			return (-1);
	}
	if (optind != argc - 1) {
		*exit_status = usage_error(e, optind >= argc ?
		    "missing the scenario file" : "unexpected argument",
		    optind >= argc ? NULL : argv[optind + 1]);
		return (-1);
	}
	a->scenario = argv[optind];
	a->ro.db_path = a->db;
	/* They bound the sequential design, ab's default without
	 * --repeats: naming them asks for it. */
	if ((a->max_trials > 0 || a->budget_ms > 0) && a->repeats > 0) {
		*exit_status = usage_error(e, "--max-trials and --budget "
		    "bound the sequential design (--until decided, the "
		    "default without --repeats): drop --repeats", NULL);
		return (-1);
	}
	if (a->max_trials > 0 || a->budget_ms > 0)
		a->until = 1;
	if (a->until && a->repeats > 0) {
		*exit_status = usage_error(e, "--until decided decides the "
		    "trials itself: use --max-trials, not --repeats", NULL);
		return (-1);
	}
	if (!ab && a->format != NULL && strcmp(a->format, "junit") != 0) {
		*exit_status = usage_error(e, "run --format takes junit (the "
		    "assertions as JUnit XML), not", a->format);
		return (-1);
	}
	if (a->provider_set != NULL) {
		a->sets = dn_xreallocarray(a->sets, a->nsets + 1,
		    sizeof(*a->sets));
		a->sets[a->nsets++] = a->provider_set;
	}
	return (0);
}

void
run_args_free(struct run_args *a)
{
	free(a->sets);
	free(a->metrics);
	free(a->provider_set);
}

/* --serve: the snapshot the runner fills and the server that shows it,
 * listening before the first trial (a port in use stops devnet here). */
static int
serve_begin(struct run_args *a, struct serve **srv)
{
	char	*cause = NULL;

	a->ro.snap = snapshot_new();
	if (serve_start(srv, a->serve, a->ro.snap, a->db, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		snapshot_free(a->ro.snap);
		a->ro.snap = NULL;
		return (-1);
	}
	fprintf(stderr, "devnet: serving %s (live page, /metrics, /api) "
	    "until the run ends\n", serve_url(*srv));
	return (0);
}

int
run_args_execute(struct run_args *a, struct runner_result *res,
    struct dn_store **storep, struct scenario **scnp)
{
	struct scenario	*scn = NULL;
	struct dn_store	*store = NULL;
	struct serve	*srv = NULL;
	char		*cause = NULL, *path = NULL;
	size_t		 i;
	int		 rv, shipped = 0;

	*storep = NULL;
	*scnp = NULL;
	memset(res, 0, sizeof(*res));
	/* Before any thread or socket exists (runner.h). */
	signals_block();
	if ((path = scenario_find(a->scenario, &shipped, &cause)) == NULL ||
	    scenario_load(&scn, path, a->sets, a->nsets,
	    spawn_default_node_binary(), &cause) != 0) {
		fprintf(stderr, "%s%s\n", path == NULL ? "devnet: " : "",
		    cause);
		free(cause);
		free(path);
		return (1);
	}
	if (shipped)
		fprintf(stderr, "devnet: scenario '%s': the shipped %s\n",
		    a->scenario, path);
	free(path);
	if (a->design != NULL)
		a->design(a, scn, a->design_arg);
	if (a->repeats > 0)
		scn->repeats = a->repeats;
	if (a->order >= 0)
		scn->order = (enum scn_order)a->order;
	/* The one check, as validate makes it, before anything starts. */
	if (run_check(scn, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		scenario_free(scn);
		return (1);
	}
	run_check_warn(scn, stderr);
	if (a->dry_run) {
		fprintf(stderr, "devnet: dry run: scenario '%s' passes the "
		    "checks of 'devnet validate'; it would run %zu variant(s) "
		    "%s %d trial(s)%s with provider %s; nothing started\n",
		    scn->name, scn->nvariants, a->until ? "until decided, at "
		    "most" : "x", scn->repeats, a->until ? " each" : "",
		    scenario_provider_names[scn->provider]);
		scenario_free(scn);
		return (0);
	}
	/* Every rev is built before the first trial: a revision that does
	 * not build stops here, with the build's last lines. */
	if (build_variants(scn, a->ro.quiet ? NULL : stderr, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		scenario_free(scn);
		return (1);
	}
	/* --commit: what the caller knows of a binary devnet did not
	 * build (a rev's own commit stays). */
	for (i = 0; a->commit != NULL && i < scn->nvariants; i++)
		if (scn->variants[i].git_commit == NULL)
			scn->variants[i].git_commit = dn_xstrdup(a->commit);
	/* listening first: a port in use leaves no database behind */
	if (a->serve != NULL && serve_begin(a, &srv) != 0) {
		scenario_free(scn);
		return (1);
	}
	if (dn_store_open(&store, a->db, 0, &cause) != 0) {
		cmd_error("%s", cause);
		free(cause);
		serve_stop(srv);
		snapshot_free(a->ro.snap);
		scenario_free(scn);
		return (1);
	}
	rv = runner_run(scn, store, &a->ro, res, &cause);
	serve_stop(srv);
	snapshot_free(a->ro.snap);
	a->ro.snap = NULL;
	if (rv != 0) {
		cmd_error("%s", cause);
		free(cause);
		if (res->nruns == 0) {
			dn_store_close(store);
			scenario_free(scn);
			free(res->run_ids);
			res->run_ids = NULL;
			return (1);
		}
		res->nfailed++;
	}
	if (res->store_failed && res->nruns > 0) {
		/* Not 'stored': the last runs lost samples and the rest of
		 * the plan did not run. */
		fprintf(stderr, "devnet: stopped: the database '%s' could not "
		    "be written (see above); run%s", a->db, res->nruns > 1 ?
		    "s" : "");
		for (i = 0; i < res->nruns; i++)
			fprintf(stderr, " %lld", (long long)res->run_ids[i]);
		fprintf(stderr, " recorded; those running then are "
		    "marked failed and keep the samples committed before "
		    "it\n");
	} else if (res->nruns > 0) {
		FILE	*f = a->ro.out != NULL ? a->ro.out : stdout;

		fprintf(f, "stored run%s", res->nruns > 1 ? "s" : "");
		for (i = 0; i < res->nruns; i++)
			fprintf(f, " %lld", (long long)res->run_ids[i]);
		fprintf(f, " in %s (group %lld)\n", a->db,
		    (long long)res->group_id);
		fflush(f);
	}
	/* The trials are over: from here a signal ends devnet at once (the
	 * comparison of `devnet ab` takes no more signals synchronously). */
	signals_unblock();
	*storep = store;
	*scnp = scn;
	return (runner_exit_status(res));
}

