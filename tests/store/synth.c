/*
 * synth.c: dn-store-synth, a generator of synthetic devnet databases written
 * through the store API (metrics/store/store.h).  Used by the compare tests (A/A
 * and known-effect databases) and by the benchmarks in tools/bench/ (ingest
 * rate, compare time on 2 M samples per side).  Not a user command.
 *
 * Every metric gets a realistic shape: a per-trial and per-node level
 * (lognormal noise), AR(1) autocorrelated per-sample noise, counters stored
 * cumulative, occasional lag spikes.  --effect NAME=PCT scales variant B's
 * level (gauges) or rate (counters) of metric NAME by PCT percent.
 * --shared-walk SD adds what a concurrent slot's runs share: a random
 * walk (step SD a sample, on the log scale) that moves every level of
 * both variants' runs of one slot alike, as a machine's drift or a
 * growth through the run would.
 *
 * Each run stores a scenario text that loads (`devnet validate` takes it):
 * the synthetic runs' own shape (nodes, rate, duration, warmup, interval,
 * variants, repeats), so that `devnet compare` of a synthetic file reads
 * it back like a real run's; --relative METRIC:CLAIM adds the claim "B vs
 * A on METRIC" to its assertions, for compare to judge.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metric-table.h"
#include "store.h"
#include "clock.h"
#include "rng.h"
#include "xalloc.h"

#define MAX_EFFECTS	16
#define MAX_RELATIVE	4

/* Time spent inside dn_store_sample and dn_store_commit (--time). */
static uint64_t	store_ns;

struct synth {
	const char	*db;
	int		 trials;	/* per variant */
	int		 nodes;
	int64_t		 seconds;
	int64_t		 interval_ms;
	int64_t		 warmup_s;
	int		 nmetrics;	/* first N node metrics */
	uint64_t	 seed;
	double		 trial_sd;	/* between-trial level noise */
	double		 node_sd;	/* between-node level noise */
	double		 sample_sd;	/* per-sample noise */
	double		 walk_sd;	/* a slot's shared random walk */
	int		 neffects;
	int		 effect_metric[MAX_EFFECTS];
	double		 effect_pct[MAX_EFFECTS];
	int		 timed;
	int64_t		 batch;	/* rows per commit */
	int		 events;
	int		 crash;	/* an unplanned crash in B */
	int		 rate_missed;	/* B's loadgen missed its rate */
	double		 tps;		/* runs.tps */
	int		 running;	/* leave the runs running (no run end) */
	const char	*label;
	const char	*primary;	/* --primary: fact compare_primary */
	const char	*scenario;
	const char	*commit;	/* stored as runs.git_commit */
	const char	*machine;	/* runs.machine (a simulated one) */
	const char	*relative[MAX_RELATIVE];	/* METRIC:CLAIM */
	int		 nrelative;
	char		*yaml;		/* the scenario every run stores */
};

/* A plausible level per metric: gauges a value, counters a rate per s. */
static double
base_level(int m)
{
	switch (m) {
	case DN_M_RSS_BYTES:
	case DN_M_HWM_BYTES:
		return (250e6);
	case DN_M_THREADS:
		return (24);
	case DN_M_ALLOCS:
	case DN_M_FREES:
		return (20000);
	case DN_M_ALLOC_BYTES:
		return (4e6);
	case DN_M_LAG_BLOCKS:
		return (0.5);
	case DN_M_LAG_MS:
		return (300);
	case DN_M_HEIGHT:
		return (100);
	case DN_M_TX_LATENCY_P50_MS:
		return (400);
	case DN_M_TX_LATENCY_P99_MS:
	case DN_M_TX_LATENCY_MAX_MS:
		return (1200);
	case DN_M_ACHIEVED_TPS:
		return (25);
	default:
		return (50.0 * (m % 7 + 1));
	}
}

static double
effect_of(const struct synth *sy, int m)
{
	int	i;

	for (i = 0; i < sy->neffects; i++) {
		if (sy->effect_metric[i] == m)
			return (1.0 + sy->effect_pct[i] / 100.0);
	}
	return (1.0);
}

struct series_state {
	double	level;	/* gauge level or counter rate */
	double	ar;	/* AR(1) noise state */
	double	cum;	/* counter cumulative */
};

static int
write_trial(struct synth *sy, struct dn_store *s, int64_t gid,
    const char *variant, int trial, int repeat, uint64_t *rng,
    uint64_t walk_seed, int64_t *nsamples, int64_t *run_out)
{
	struct dn_run_info	 ri = {
		.group_id = gid, .scenario_name = sy->scenario,
		.scenario_path = "synthetic.yaml",
		.scenario_yaml = sy->yaml,
		.variant = variant, .trial = trial, .repeat = repeat,
		.label = sy->label, .binary = "/usr/bin/devnet-node",
		.binary_sha256 = "0123456789abcdef", .run_dir = "/tmp/synth",
		.nodes = sy->nodes, .tps = sy->tps,
		.duration_ms = sy->seconds * 1000,
		.warmup_ms = sy->warmup_s * 1000,
		.sample_interval_ms = sy->interval_ms, .token = 42,
		.git_commit = sy->commit, .git_describe = sy->commit };
	struct dn_machine_info	 mi = { .fingerprint = sy->machine,
		.cpu_model = "synthetic CPU", .cores = -1, .threads = -1,
		.mem_bytes = -1, .provider = "local", .limits = "none",
		.devnet_version = "synthetic", .hostname = sy->machine,
		.load1 = NAN };
	struct series_state	*ss;
	char			*cause = NULL;
	int64_t			 rid, t, n = 0;
	uint64_t		 t1;
	int			 node, m, nnode = sy->nodes + 1, k;
	int			 isb = strcmp(variant, "B") == 0;
	double			 dt = sy->interval_ms / 1000.0;
	double			 trial_f, walk = 0;
	uint64_t		 wrng = walk_seed;

	if (sy->machine != NULL)
		ri.machine = &mi;
	if (dn_store_run_begin(s, &ri, &rid, &cause) != 0)
		goto fail;
	for (node = 0; node < sy->nodes; node++) {
		if (dn_store_node_add(s, rid, node, 1000 + node, ri.binary,
		    ri.binary_sha256, "devnet-node --synthetic", &cause) != 0)
			goto fail;
	}
	ss = dn_xcalloc((size_t)nnode * DN_METRIC_COUNT, sizeof(*ss));
	for (m = 0; m < DN_METRIC_COUNT; m++) {
		trial_f = exp(sy->trial_sd * dn_rand_gauss(rng));
		for (k = 0; k < nnode; k++) {
			struct series_state *p = &ss[k * DN_METRIC_COUNT + m];

			p->level = base_level(m) * trial_f *
			    exp(sy->node_sd * dn_rand_gauss(rng)) *
			    (isb ? effect_of(sy, m) : 1.0);
		}
	}
	for (t = 0; t < sy->seconds * 1000; t += sy->interval_ms) {
		/* the slot's walk: the same seed, the same steps in A and B */
		if (sy->walk_sd > 0)
			walk += sy->walk_sd * dn_rand_gauss(&wrng);
		for (node = -1; node < sy->nodes; node++) {
			k = node + 1;
			for (m = 0; m < DN_METRIC_COUNT; m++) {
				const struct dn_metric_def *d =
				    &dn_metric_defs[m];
				struct series_state *p =
				    &ss[k * DN_METRIC_COUNT + m];
				double	 v, noise;

				if ((node < 0) != (d->source == DN_SOURCE_L))
					continue;
				if (node >= 0 && m >= sy->nmetrics)
					continue;
				p->ar = 0.8 * p->ar + 0.6 * dn_rand_gauss(rng);
				noise = (1.0 + sy->sample_sd * p->ar) *
				    exp(walk);
				if (d->kind == DN_KIND_C) {
					p->cum += p->level * dt * noise;
					v = floor(p->cum);
				} else {
					v = p->level * noise;
					if (m == DN_M_RSS_BYTES)
						v *= 1.0 + 0.02 * t / 3.6e6;
					if (m == DN_M_LAG_MS &&
					    dn_rand01(rng) < 0.01)
						v *= 5;
				}
				t1 = dn_now_ns();
				if (dn_store_sample(s, rid, node, m, t, v,
				    &cause) != 0)
					goto fail;
				if (++n % sy->batch == 0 &&
				    dn_store_commit(s, &cause) != 0)
					goto fail;
				store_ns += dn_now_ns() - t1;
			}
		}
	}
	free(ss);
	t1 = dn_now_ns();
	if (dn_store_commit(s, &cause) != 0)
		goto fail;
	store_ns += dn_now_ns() - t1;
	if (sy->events && dn_store_event(s, rid, 0, sy->warmup_s * 1000 + 500,
	    "restart", "planned", &cause) != 0)
		goto fail;
	if (sy->crash && isb && dn_store_event(s, rid, 1,
	    sy->warmup_s * 1000 + 1500, "crash", "signal 11 (SIGSEGV)",
	    &cause) != 0)
		goto fail;
	if (sy->rate_missed && isb && dn_store_event(s, rid, -1,
	    sy->seconds * 1000, "rate_missed", "achieved 20.00 tx/s of 25.00",
	    &cause) != 0)
		goto fail;
	if (sy->primary != NULL) {
		char	 fact[512];

		snprintf(fact, sizeof(fact), "scenario:%s", sy->primary);
		if (dn_store_fact(s, rid, -1, "compare_primary", fact,
		    &cause) != 0)
			goto fail;
	}
	if (dn_store_fact(s, rid, -1, "achieved_tps", "25.0", &cause) != 0 ||
	    (!sy->running && dn_store_run_end(s, rid, "ok", NULL, &cause) !=
	    0))
		goto fail;
	*nsamples += n;
	*run_out = rid;
	return (0);
fail:
	fprintf(stderr, "dn-store-synth: %s\n", cause);
	free(cause);
	return (-1);
}

/* S + TEXT, S freed (NULL: TEXT alone). */
static char *
append(char *s, const char *text)
{
	char	*r = dn_xasprintf("%s%s", s ? s : "", text);

	free(s);
	return (r);
}

/*
 * The scenario of the synthetic runs (into SY->yaml): a devnet-node
 * scenario of their shape, which loads, so that what reads a run's
 * scenario back (compare's relative assertions) finds a real one.  -1
 * when a --relative is not METRIC:CLAIM.
 */
static int
scenario_text(struct synth *sy, char *const *names, int nv)
{
	char	*y, *line, *metric;
	int	 i;

	y = dn_xasprintf("# written by dn-store-synth: the shape of its "
	    "synthetic runs (no node ran them)\n"
	    "name: %s\nduration: %llds\nwarmup: %llds\n"
	    "sample_interval: %lldms\nnetwork:\n  nodes: %d\n",
	    sy->scenario, (long long)sy->seconds, (long long)sy->warmup_s,
	    (long long)sy->interval_ms, sy->nodes);
	line = sy->tps > 0 ? dn_xasprintf("workload:\n  kind: transfer\n"
	    "  tps: %g\nvariants:\n", sy->tps) :
	    dn_xstrdup("workload:\n  kind: idle\nvariants:\n");
	y = append(y, line);
	free(line);
	for (i = 0; i < nv; i++) {
		line = dn_xasprintf("  %s: {}\n", names[i]);
		y = append(y, line);
		free(line);
	}
	line = dn_xasprintf("repeats: %d\norder: abba\n", sy->trials);
	y = append(y, line);
	free(line);
	if (sy->nrelative > 0)
		y = append(y, "assert:\n");
	for (i = 0; i < sy->nrelative; i++) {
		const char *claim = strchr(sy->relative[i], ':');

		if (claim == NULL || claim == sy->relative[i]) {
			fprintf(stderr, "dn-store-synth: --relative '%s': "
			    "want METRIC:CLAIM, e.g. 'allocs_per_s:<= "
			    "-10%%'\n", sy->relative[i]);
			free(y);
			return (-1);
		}
		metric = dn_xstrndup(sy->relative[i],
		    (size_t)(claim - sy->relative[i]));
		line = dn_xasprintf("  - name: B vs A on %s\n    relative: "
		    "{metric: %s, B_vs_A: \"%s\"}\n", metric, metric,
		    claim + 1);
		y = append(y, line);
		free(line);
		free(metric);
	}
	sy->yaml = y;
	return (0);
}

static void
usage(void)
{
	fprintf(stderr, "usage: dn-store-synth --db PATH [--trials N] "
	    "[--nodes N] [--seconds S] [--interval-ms MS] [--warmup S]\n"
	    "    [--metrics N] [--seed N] [--trial-sd X] [--node-sd X] "
	    "[--sample-sd X] [--shared-walk SD]\n    [--effect METRIC=PCT]... [--variants A,B] "
	    "[--label L] [--primary M,M] [--events] [--crash] [--time]\n    [--batch ROWS] "
	    "[--running] [--rate-missed] [--tps X]\n    [--scenario NAME] [--commit ID] "
	    "[--relative METRIC:CLAIM]...\n");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "trials", required_argument, NULL, 't' },
		{ "nodes", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 'S' },
		{ "trial-sd", required_argument, NULL, 'T' },
		{ "node-sd", required_argument, NULL, 'N' },
		{ "sample-sd", required_argument, NULL, 'P' },
		{ "shared-walk", required_argument, NULL, 'W' },
		{ "effect", required_argument, NULL, 'e' },
		{ "variants", required_argument, NULL, 'v' },
		{ "label", required_argument, NULL, 'l' },
		{ "primary", required_argument, NULL, 'p' },
		{ "events", no_argument, NULL, 'E' },
		{ "crash", no_argument, NULL, 'C' },
		{ "time", no_argument, NULL, 'z' },
		{ "batch", required_argument, NULL, 'b' },
		{ "running", no_argument, NULL, 'R' },
		{ "rate-missed", no_argument, NULL, 'M' },
		{ "tps", required_argument, NULL, 'x' },
		{ "scenario", required_argument, NULL, 'c' },
		{ "commit", required_argument, NULL, 'g' },
		{ "machine", required_argument, NULL, 'F' },
		{ "relative", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 }
	};
	struct synth	 sy = { .trials = 4, .nodes = 4, .seconds = 120,
			    .interval_ms = 1000, .warmup_s = 10,
			    .nmetrics = DN_METRIC_COUNT, .seed = 1,
			    .trial_sd = 0.02, .node_sd = 0.03,
			    .sample_sd = 0.02, .label = "synthetic",
			    .tps = 25,
			    .scenario = "synthetic",
			    .batch = 10000 };
	const char	*variants = "A,B";
	struct dn_store	*s = NULL;
	char		*cause = NULL, *vlist, *v, *save = NULL, *eq;
	int64_t		 gid, nsamples = 0, rid;
	uint64_t	 t0, rng;
	int		 c, trial, r, vi, nv = 0;
	char		*names[8];

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': sy.db = optarg; break;
		case 't': sy.trials = atoi(optarg); break;
		case 'n': sy.nodes = atoi(optarg); break;
		case 's': sy.seconds = atoll(optarg); break;
		case 'i': sy.interval_ms = atoll(optarg); break;
		case 'w': sy.warmup_s = atoll(optarg); break;
		case 'm': sy.nmetrics = atoi(optarg); break;
		case 'S': sy.seed = strtoull(optarg, NULL, 10); break;
		case 'T': sy.trial_sd = atof(optarg); break;
		case 'N': sy.node_sd = atof(optarg); break;
		case 'P': sy.sample_sd = atof(optarg); break;
		case 'W': sy.walk_sd = atof(optarg); break;
		case 'l': sy.label = optarg; break;
		case 'p': sy.primary = optarg; break;
		case 'E': sy.events = 1; break;
		case 'C': sy.crash = 1; break;
		case 'z': sy.timed = 1; break;
		case 'b': sy.batch = atoll(optarg); break;
		case 'R': sy.running = 1; break;
		case 'M': sy.rate_missed = 1; break;
		case 'x': sy.tps = atof(optarg); break;
		case 'v': variants = optarg; break;
		case 'c': sy.scenario = optarg; break;
		case 'g': sy.commit = optarg; break;
		case 'F': sy.machine = optarg; break;
		case 'r':
			if (sy.nrelative == MAX_RELATIVE) {
				usage();
				return (2);
			}
			sy.relative[sy.nrelative++] = optarg;
			break;
		case 'e':
			if (sy.neffects == MAX_EFFECTS ||
			    (eq = strchr(optarg, '=')) == NULL) {
				usage();
				return (2);
			}
			*eq = '\0';
			if ((sy.effect_metric[sy.neffects] =
			    dn_metric_lookup(optarg)) < 0) {
				fprintf(stderr, "dn-store-synth: unknown "
				    "metric '%s'\n", optarg);
				return (2);
			}
			sy.effect_pct[sy.neffects++] = atof(eq + 1);
			break;
		default:
			usage();
			return (2);
		}
	}
	if (sy.db == NULL || sy.interval_ms <= 0 || sy.nodes <= 0 ||
	    sy.batch <= 0) {
		usage();
		return (2);
	}
	vlist = dn_xstrdup(variants);
	save = vlist;
	while ((v = strsep(&save, ",")) != NULL && nv < 8) {
		if (*v != '\0')
			names[nv++] = v;
	}
	if (scenario_text(&sy, names, nv) != 0) {
		free(vlist);
		return (2);
	}
	rng = sy.seed;
	if (dn_store_open(&s, sy.db, 0, &cause) != 0 ||
	    dn_store_group_create(s, sy.scenario, sy.label, &gid,
	    &cause) != 0) {
		fprintf(stderr, "dn-store-synth: %s\n", cause);
		free(cause);
		dn_store_close(s);
		free(vlist);
		free(sy.yaml);
		return (1);
	}
	t0 = dn_now_ns();
	/* ABBA-like interleaving: trial k runs the variants in rotation. */
	for (trial = 0, r = 0; r < sy.trials; r++) {
		for (vi = 0; vi < nv; vi++) {
			const char *name = names[(r % 2) ? nv - 1 - vi : vi];

			if (write_trial(&sy, s, gid, name, trial++, r, &rng,
			    sy.seed * 1000003 + (uint64_t)r + 1, &nsamples,
			    &rid) != 0) {
				dn_store_close(s);
				free(vlist);
				free(sy.yaml);
				return (1);
			}
		}
	}
	if (sy.timed) {
		double	secs = (dn_now_ns() - t0) / 1e9;

		printf("samples %lld seconds %.3f samples_per_s %.0f "
		    "store_seconds %.3f store_samples_per_s %.0f\n",
		    (long long)nsamples, secs, nsamples / secs,
		    store_ns / 1e9, nsamples / (store_ns / 1e9));
	}
	printf("group %lld\n", (long long)gid);
	dn_store_close(s);
	free(vlist);
	free(sy.yaml);
	return (0);
}
