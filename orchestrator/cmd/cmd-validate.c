/*
 * cmd-validate.c: `devnet validate SCENARIO [--set K=V]...` loads a scenario
 * strictly and prints the resolved plan: trials in run order and every
 * node's full command line per variant.  Spawns nothing.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/spawn.h"
#include "cmd/cmd.h"
#include "cmd/scenario-find.h"
#include "net/topo.h"
#include "node-kind/node-kind.h"
#include "plan/plan.h"
#include "provider/provider.h"
#include "run/runner.h"
#include "scenario/scenario.h"
#include "xalloc.h"

static const char *const wl_names[] = { "transfer", "readrandom", "cf-churn",
	"idle", "http", "command" };

static void
put_ms(FILE *out, int64_t ms)
{
	char	buf[32];

	scenario_fmt_ms(buf, sizeof(buf), ms);
	fputs(buf, out);
}

/* Each assertion as devnet understood it (scenario-assert-text.c). */
static void
print_asserts(FILE *out, const struct scenario *s)
{
	char	buf[1024];
	size_t	i;

	if (s->nasserts == 0)
		return;
	fprintf(out, "\nassertions (%zu):\n", s->nasserts);
	for (i = 0; i < s->nasserts; i++) {
		scn_assert_describe(buf, sizeof(buf), s, &s->asserts[i]);
		fprintf(out, "  '%s': %s\n", s->asserts[i].name, buf);
	}
}

/* One event of S as validate lists it: "at 1s: clock_skew node 1 ...". */
static void
print_event(FILE *out, const struct scenario *s, const struct scn_event *ev)
{
	fputs("  at ", out);
	put_ms(out, ev->at_ms);
	fprintf(out, ": %s", scenario_action_name(ev->action));
	if (ev->node >= 0)
		fprintf(out, " node %d", ev->node);
	if (ev->action == SCN_EV_UPGRADE)
		fprintf(out, " to %s", s->variants[ev->to].name);
	if (ev->action == SCN_EV_CLOCK_SKEW && ev->has_offset)
		fprintf(out, " offset %+.3fs", (double)ev->offset_ms / 1e3);
	if (ev->action == SCN_EV_CLOCK_SKEW && ev->drift_ppm != 0)
		fprintf(out, " drift %+gppm", ev->drift_ppm);
	if (ev->action == SCN_EV_DISK)
		fprintf(out, " %s rate %llu B/s iops %u", ev->full ? "full" :
		    "not full", (unsigned long long)ev->rate_bps, ev->iops);
	fprintf(out, "%s%s%s%s%s\n", ev->variant ? " in variant " : "",
	    ev->variant ? ev->variant : "", ev->name ? " ('" : "",
	    ev->name ? ev->name : "", ev->name ? "')" : "");
}

static int
print_plan(FILE *out, const struct scenario *s, char **cause)
{
	struct plan_trial	*t = NULL;
	struct plan_endpoints	 ep = { .run_dir = "RUN_DIR",
				    .metrics_url = "ipc://RUN_DIR/collector",
				    .probe = foreign_probe_path() };
	char			**argv = NULL, **env = NULL, **hosts;
	size_t			 nt, i, j;
	int			 k, rc = -1;

	/* under network conditions each node's {addr} is its namespace's */
	hosts = dn_xcalloc((size_t)s->network.nodes + 1, sizeof(*hosts));
	for (k = 0; k < s->network.nodes && scenario_has_conditions(s); k++) {
		hosts[k] = dn_xcalloc(1, 16);
		dn_net_addr_str(k, hosts[k], 16);
		ep.hosts = (const char *const *)hosts;
	}
	fprintf(out, "scenario '%s' (%s)\n", s->name, s->path);
	fputs("  duration ", out);
	put_ms(out, s->duration_ms);
	fputs(", warmup ", out);
	put_ms(out, s->warmup_ms);
	fputs(", sample interval ", out);
	put_ms(out, s->sample_interval_ms);
	fprintf(out, ", seed %" PRIu64 "\n", s->seed);
	fprintf(out, "  %d nodes (%s), block interval ", s->network.nodes,
	    s->network.listen);
	put_ms(out, s->network.block_interval_ms);
	fprintf(out, ", workload %s", wl_names[s->workload.kind]);
	if (s->workload.tps > 0)
		fprintf(out, " at %g TPS", s->workload.tps);
	fprintf(out, "\n  %zu variant(s), %d repeat(s), order %s\n",
	    s->nvariants, s->repeats,
	    s->order == SCN_ORDER_ABBA ? "abba" : "concurrent");
	if (plan_trials(s, &t, &nt) != 0) {
		*cause = dn_xstrdup("the scenario has no trials");
		goto out;
	}
	fprintf(out, "\ntrials (%zu):\n  %-6s %-16s %-7s %s\n", nt, "trial",
	    "variant", "repeat", "slot");
	for (i = 0; i < nt; i++)
		fprintf(out, "  %-6d %-16s %-7d %d\n", t[i].index,
		    t[i].variant->name, t[i].repeat, t[i].slot);
	if (s->nevents > 0) {
		fprintf(out, "\nevents (%zu):\n", s->nevents);
		for (i = 0; i < s->nevents; i++)
			print_event(out, s, &s->events[i]);
	}
	print_asserts(out, s);
	fprintf(out, "\nnode command lines (RUN_DIR, the collector URL and "
	    "the token are chosen\nat run time):\n");
	for (i = 0; i < s->nvariants; i++) {
		fprintf(out, "\nvariant %s:\n", s->variants[i].name);
		if (s->variants[i].set.rev != NULL) {
			size_t	c;

			/* Built by `run` and `ab` before any trial (build.c);
			 * validate builds nothing. */
			fprintf(out, "  rev %s: built in a worktree of %s "
			    "with", s->variants[i].set.rev, s->build.repo);
			for (c = 0; c < s->build.ncommand; c++) {
				fputc(' ', out);
				plan_put_quoted(out, s->build.command[c]);
			}
			fprintf(out, "; the node is its %s\n",
			    s->build.binary);
		}
		for (k = 0; k < s->network.nodes; k++) {
			if (plan_node_argv(s, &s->variants[i], k, &ep, &argv,
			    &env, cause) != 0)
				goto out;
			fprintf(out, "  node %d:", k);
			for (j = 0; env[j] != NULL; j++) {
				const char *eq = strchr(env[j], '=');

				/* NAME='value', as a shell would take it */
				fprintf(out, " %.*s=", (int)(eq - env[j]),
				    env[j]);
				plan_put_quoted(out, eq + 1);
			}
			for (j = 0; argv[j] != NULL; j++) {
				fputc(' ', out);
				plan_put_quoted(out, argv[j]);
			}
			fputc('\n', out);
			plan_argv_free(argv);
			plan_argv_free(env);
			argv = env = NULL;
		}
	}
	rc = 0;
out:
	plan_argv_free(argv);
	plan_argv_free(env);
	plan_argv_free(hosts);
	free(t);
	return (rc);
}

static int
cmd_validate_exec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "set", required_argument, NULL, 's' },
		{ "provider", required_argument, NULL, 'p' },
		{ "order", required_argument, NULL, 'o' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct scenario	 *s = NULL;
	char		**sets = NULL, *cause = NULL, *pset = NULL;
	char		 *path = NULL;
	int		  order = -1, repeats = 0, shipped = 0;
	size_t		  nsets = 0;
	int		  ch, rc = 1;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "s:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			if (cmd_provider_arg(optarg) != 0) {
				free(sets);
				free(pset);
				return (CMD_EXIT_USAGE);
			}
			/* --set provider=X, after the others (it wins) */
			free(pset);
			pset = dn_xasprintf("provider=%s", optarg);
			break;
		case 's':
			sets = dn_xreallocarray(sets, nsets + 1,
			    sizeof(*sets));
			sets[nsets++] = optarg;
			break;
		case 'o':
		case 'r':
			/* run's --order and --repeats, parsed as run parses
			 * them and applied after the load as run applies
			 * them (over the file's order: and repeats:) */
			if ((ch == 'o' ? cmd_order_arg(optarg, &order) :
			    cmd_repeats_arg(optarg, &repeats)) != 0) {
				free(sets);
				free(pset);
				return (CMD_EXIT_USAGE);
			}
			break;
		case 'h':
			cmd_usage(&cmd_validate_entry, stdout);
			free(sets);
			return (0);
		default:
			free(sets);
			if (optopt == 's') {
				cmd_error("--set needs KEY.PATH=VALUE");
				return (CMD_EXIT_USAGE);
			}
			return (cmd_bad_option(&cmd_validate_entry,
			    argv[optind - 1]));
		}
	}
	if (optind != argc - 1) {
		cmd_error("validate: %s (see 'devnet validate --help')",
		    optind == argc ? "which scenario? give a SCENARIO.yaml" :
		    "one scenario at a time");
		free(sets);
		return (CMD_EXIT_USAGE);
	}
	if (pset != NULL) {
		sets = dn_xreallocarray(sets, nsets + 1, sizeof(*sets));
		sets[nsets++] = pset;
	}
	if ((path = scenario_find(argv[optind], &shipped, &cause)) ==
	    NULL || scenario_load(&s, path, sets, nsets,
	    spawn_default_node_binary(), &cause) != 0) {
		fprintf(stderr, "%s%s\n", path == NULL ? "devnet: " : "",
		    cause);
		goto out;
	}
	if (shipped)
		fprintf(stderr, "devnet: scenario '%s': the shipped %s\n",
		    argv[optind], path);
	if (repeats > 0)
		s->repeats = repeats;
	if (order >= 0)
		s->order = (enum scn_order)order;
	/* The one check, as run and ab make it before anything starts. */
	if (run_check(s, &cause) != 0) {
		cmd_error("%s", cause);
		goto out;
	}
	run_check_warn(s, stderr);
	if (print_plan(stdout, s, &cause) != 0 ||
	    provider_describe(stdout, s, &cause) != 0) {
		cmd_error("%s", cause);
		goto out;
	}
	rc = 0;
out:
	free(cause);
	free(path);
	free(sets);
	free(pset);
	scenario_free(s);
	return (rc);
}

const struct cmd_entry cmd_validate_entry = {
	.name = "validate",
	.usage = "validate SCENARIO [--set KEY.PATH=VALUE]...",
	.summary = "check a scenario strictly and print the resolved plan",
	.help =
"  --set KEY.PATH=VALUE  override a value of the scenario, with the\n"
"                        same checks (e.g. --set workload.tps=100,\n"
"                        --set variants.B.read_options=per-call)\n"
"  --provider local|docker|swarm\n"
"                        where the nodes run (--set provider=X); with\n"
"                        swarm the generated Compose file is printed\n"
"  --order abba|concurrent, --repeats N\n"
"                        as run and ab take them (over the file's\n"
"                        order: and repeats:)\n"
"  --help                this text\n"
"\nPrints the trials in run order and each node's command line per\n"
"variant.  Makes the one check 'devnet run' and 'ab' make before\n"
"anything starts, with the same words ('devnet run --dry-run' makes\n"
"it too); exits 0 when the scenario is valid, 1 when it is not\n"
"(the message names FILE:LINE:COL), 2 on a usage error.\n"
"Reference: docs/scenarios.md.\n",
	.exec = cmd_validate_exec,
};
