/*
 * setup.c: lay out and start one trial: its run row, trial dir, socket
 * dir, token, node command lines and endpoints (setup_prepare); then its
 * collector, its nodes and its load generator's sockets (setup_start);
 * and free it all at the end (setup_release).
 *
 * Not here: waiting for readiness and watching the nodes (watch.c),
 * stopping them and recording the outcome (finish.c).
 */
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assert/assert.h"
#include "trial/collector.h"
#include "trial/loadgen.h"
#include "provider/provider.h"
#include "run/runner-internal.h"
#include "protocol.h"
#include "store.h"
#include "trial/trial-store.h"
#include "sys/cgroup.h"
#include "sys/machine.h"
#include "clock.h"
#include "mkdirs.h"
#include "sha256.h"
#include "xalloc.h"

char *
setup_node_url(const struct trial *t, int k, int ctl)
{
	if (t->scn->network.tcp_base_port > 0)
		return (dn_xasprintf("tcp://%s:%d", t->nodes[k].addr,
		    t->scn->network.tcp_base_port + 2 * k + (ctl ? 1 : 0)));
	return (dn_xasprintf("ipc://%s/n%d.%s", t->net_dir, k,
	    ctl ? "ctl" : "in"));
}

/* HOSTS of setup_prepare: node addresses made by netcond_hosts when
 * EMULATED, else borrowed from the nodes. */
static void
free_hosts(char **hosts, int emulated, int n)
{
	int	k;

	for (k = 0; emulated && k < n; k++)
		free(hosts[k]);
	free(hosts);
}

/* The trial's ipc socket dir: DIR, or one in /tmp when DIR is too long
 * (ipc paths must fit in 107 bytes: "/n255.ctl" is the longest). */
static int
make_net_dir(struct trial *t, const char *dir, char **cause)
{
	char	tmpl[] = "/tmp/dn-XXXXXX";

	if (strlen(dir) + 16 < 100) {
		t->net_dir = dn_xstrdup(dir);
		return (0);
	}
	if (mkdtemp(tmpl) == NULL) {
		*cause = dn_xasprintf("cannot create a socket dir in /tmp: %s",
		    strerror(errno));
		return (-1);
	}
	t->net_dir = dn_xstrdup(tmpl);
	t->own_net_dir = 1;
	return (0);
}

/* Node I's argv and environment in VAR's build into *ARGV, *ENV, the
 * token where its binary reads it. */
static int
node_argv(struct trial *t, const struct scn_variant *var, int i,
    struct plan_endpoints *ep, char ***argv, char ***env, char **cause)
{
	ep->token_argv = 0;
	if (plan_node_argv(t->scn, var, i, ep, argv, env, cause) != 0)
		return (-1);
	if (node_kind_of(var)->token_in_env((*argv)[0]))
		return (0);
	plan_argv_free(*argv);
	plan_argv_free(*env);
	*argv = *env = NULL;
	ep->token_argv = 1;
	return (plan_node_argv(t->scn, var, i, ep, argv, env, cause));
}

/* The builds node I may be upgraded to in this trial (the `to:` of its
 * upgrade events), argv and env made now, on the same endpoints, run
 * and data directory; and the one it starts with (issue 39). */
static int
upgrade_argvs(struct trial *t, int i, struct plan_endpoints *ep,
    char **cause)
{
	const struct scenario	*s = t->scn;
	struct trial_node	*n = &t->nodes[i];
	size_t			 e;

	n->var = (int)(t->var - s->variants);
	for (e = 0; e < s->nevents; e++) {
		const struct scn_event *ev = &s->events[e];

		if (ev->action != SCN_EV_UPGRADE || ev->node != i ||
		    (ev->variant != NULL && strcmp(ev->variant,
		    t->var->name) != 0))
			continue;
		if (n->vargv == NULL) {
			n->vargv = dn_xcalloc(s->nvariants, sizeof(char **));
			n->venv = dn_xcalloc(s->nvariants, sizeof(char **));
		}
		if (n->vargv[ev->to] == NULL && node_argv(t,
		    &s->variants[ev->to], i, ep, &n->vargv[ev->to],
		    &n->venv[ev->to], cause) != 0)
			return (-1);
	}
	return (0);
}

void
setup_build_facts(struct trial *t, int k, int64_t t_ms)
{
	const struct scn_variant *v = &t->scn->variants[t->nodes[k].var];
	const char	*binary = plan_binary(t->scn, v);
	char		 key[48], sha[65] = "";
	int		 b = t->nodes[k].builds;

	dn_sha256_file(binary, sha);
	snprintf(key, sizeof(key), "build_%d_t_ms", b);
	trial_fact(t, k, key, "%lld", (long long)t_ms);
	snprintf(key, sizeof(key), "build_%d_variant", b);
	trial_fact(t, k, key, "%s", v->name);
	snprintf(key, sizeof(key), "build_%d_binary", b);
	trial_fact(t, k, key, "%s", binary);
	snprintf(key, sizeof(key), "build_%d_sha256", b);
	trial_fact(t, k, key, "%s", sha[0] ? sha : "not read");
	if (v->set.rev != NULL) {
		snprintf(key, sizeof(key), "build_%d_rev", b);
		trial_fact(t, k, key, "%s", v->set.rev);
	}
}

/* The gossip graph as stored (issue 40): node K's fact `peers`, its
 * neighbours "3,7,9", and `zone`, its zone's name when it is in one, so
 * that the report draws the graph by zone (docs/schema.md); none with
 * the full mesh. */
static void
store_peers(struct trial *t, int k)
{
	const int	*zone_of = t->scn->network.zone_of;
	char		*list;

	if (!node_kind(t)->peer_graph ||
	    (list = plan_peer_list(t->scn, k)) == NULL)
		return;
	trial_fact(t, k, "peers", "%s", list);
	if (zone_of != NULL && zone_of[k] >= 0)
		trial_fact(t, k, "zone", "%s",
		    t->scn->network.zones[zone_of[k]]);
	if (k == 0)
		trial_fact(t, -1, "gossip_peers", "%d", t->scn->network.peers);
	free(list);
}

static uint64_t
new_token(void)
{
	uint64_t	v = 0;

	while (v == 0) {
		if (getrandom(&v, sizeof(v), 0) != sizeof(v))
			v = dn_now_ns() ^ ((uint64_t)getpid() << 32);
	}
	return (v);
}

void
setup_release(struct trial *t)
{
	int	i, j;

	loadgen_free(t->lg);
	t->lg = NULL;
	assert_free(t);
	for (i = 0; i < t->nnodes && t->nodes != NULL; i++) {
		struct trial_node	*n = &t->nodes[i];

		if (n->builds == 0) {	/* else one of vargv (watch.c) */
			plan_argv_free(n->argv);
			plan_argv_free(n->env);
		}
		for (j = 0; n->vargv != NULL && j < (int)t->scn->nvariants;
		    j++) {
			plan_argv_free(n->vargv[j]);
			plan_argv_free(n->venv[j]);
		}
		free(n->vargv);
		free(n->venv);
		free(n->out_path);
		free(n->alloc_source);
		free(n->log_path);
		free(n->cmdline);
		free(n->in_url);
		free(n->addr);
		free(n->nlast);
		free(n->exit_note);
		dn_cgroup_destroy(n->cg);	/* teardown did, unless it
						   never ran */
	}
	if (t->own_net_dir && t->net_dir != NULL) {
		for (i = 0; i < t->nnodes; i++) {
			for (j = 0; j < 2; j++) {
				char *p = dn_xasprintf("%s/n%d.%s", t->net_dir,
				    i, j ? "ctl" : "in");
				unlink(p);
				free(p);
			}
		}
		{
			char *p = dn_xasprintf("%s/collector", t->net_dir);
			unlink(p);
			free(p);
		}
		rmdir(t->net_dir);
	}
	free(t->prov);
	t->prov = NULL;
	free(t->nodes);
	free(t->run_dir);
	free(t->net_dir);
	free(t->metrics_url);
	free(t->fail_reason);
	free(t->store_error);
	for (i = 0; i < (int)t->nunmeasured; i++) {
		free(t->unmeasured[i].name);
		free(t->unmeasured[i].why);
	}
	free(t->unmeasured);
	foreign_lag_free(t->flag);
	pthread_mutex_destroy(&t->mu);
}

struct provider_trial *
setup_provider_view(struct trial *t)
{
	struct provider_trial	*v = dn_xcalloc(1, sizeof(*v));

	v->scn = t->scn;
	v->var = t->var;
	v->run_id = t->run_id;
	v->token = t->token;
	v->index = t->pt.index;
	v->run_dir = t->run_dir;
	v->net_dir = t->net_dir;
	v->own_net_dir = t->own_net_dir;
	v->metrics_url = t->metrics_url;
	v->pin_cpus = t->pin_cpus;
	v->net = t->net;
	v->nnodes = t->nnodes;
	v->nodes = t->nodes;
	v->ref = trial_ref(t);
	return (v);
}

/* The run row of trial T (its id comes back from the store). */
static void
fill_run_info(struct dn_run_info *ri, const struct trial *t,
    const struct runner_opts *o, int64_t group_id, const char *binary,
    const char *sha)
{
	const struct scenario	*scn = t->scn;

	memset(ri, 0, sizeof(*ri));
	ri->group_id = group_id;
	ri->scenario_name = scn->name;
	ri->scenario_path = scn->path;
	ri->scenario_yaml = scn->text;
	ri->variant = t->var->name;
	ri->trial = t->pt.index;
	ri->repeat = t->pt.repeat;
	ri->label = o->label;
	ri->binary = binary;
	ri->binary_sha256 = sha;
	ri->git_describe = t->var->git_describe;
	ri->git_commit = t->var->git_commit;
	ri->nodes = t->nnodes;
	ri->tps = scn->workload.kind == SCN_WL_TRANSFER ||
	    scn->workload.kind == SCN_WL_HTTP ? scn->workload.tps : 0;
	ri->duration_ms = scn->duration_ms;
	ri->warmup_ms = scn->warmup_ms;
	ri->sample_interval_ms = scn->sample_interval_ms;
	ri->token = t->token;
}

/* The machine of trial T's run: this one, with the provider and the
 * variant's container limits (docs/schema.md, "machines"). */
static void
fill_machine(struct dn_machine_info *mi, struct machine *m,
    const struct trial *t)
{
	const struct scenario	*scn = t->scn;
	double			 cpus = scn->container.cpus;
	uint64_t		 mem = scn->container.memory;
	const char		*cs = provider_node_cpuset(scn, t->var, 0);
	char			 lim[64];

	if (t->var->set.cpus > 0)
		cpus = t->var->set.cpus;
	if (t->var->set.memory > 0)
		mem = t->var->set.memory;

	/* What is applied, and only that: provider local refuses
	 * resources it cannot apply (provider.c, issue 36); a cpuset
	 * (local only) is part of the machine the nodes had. */
	if (cpus > 0 || mem > 0 || cs != NULL)
		snprintf(lim, sizeof(lim), "cpus=%g memory=%llu%s%s", cpus,
		    (unsigned long long)mem, cs != NULL ? " cpuset=" : "",
		    cs != NULL ? cs : "");
	/* the duet (run/duet.c): how many CPUs each side had, the same
	 * for A and B whichever set a slot gave them (fact duet_cpus) */
	else if (t->pin_cpus[0] != '\0')
		snprintf(lim, sizeof(lim), "cpus=0 memory=0 duet=%d",
		    t->pin_ncpus);
	machine_probe(m, provider_name(scn), cpus > 0 || mem > 0 ||
	    cs != NULL || t->pin_cpus[0] != '\0' ? lim : NULL, DN_VERSION);
	memset(mi, 0, sizeof(*mi));
	mi->fingerprint = m->fingerprint;
	mi->cpu_model = m->cpu_model[0] ? m->cpu_model : NULL;
	mi->cores = m->cores;
	mi->threads = m->threads;
	mi->mem_bytes = m->mem_bytes;
	mi->kernel = m->kernel[0] ? m->kernel : NULL;
	mi->arch = m->arch[0] ? m->arch : NULL;
	mi->provider = m->provider;
	mi->limits = m->limits;
	mi->devnet_version = m->version;
	mi->hostname = m->hostname[0] ? m->hostname : NULL;
	mi->load1 = m->load1;
	mi->governor = m->governor[0] ? m->governor : NULL;
}

/* The trial's own directory under BASE, RUNID-VARIANT (.N when taken). */
static char *
make_trial_dir(const struct trial *t, const char *base, char **cause)
{
	char	*dir;
	int	 i;

	for (i = 0;; i++) {
		dir = i == 0 ? dn_xasprintf("%s/%lld-%s", base,
		    (long long)t->run_id, t->var->name) :
		    dn_xasprintf("%s/%lld-%s.%d", base, (long long)t->run_id,
		    t->var->name, i);
		if (mkdir(dir, 0700) == 0)
			return (dir);
		if (errno != EEXIST || i > 100) {
			*cause = dn_xasprintf("cannot create '%s': %s", dir,
			    strerror(errno));
			free(dir);
			return (NULL);
		}
		free(dir);
	}
}

/* Lay out the trial: dirs, token, run row, node command lines.  Nothing
 * is started. */
int
setup_prepare(struct trial *t, const struct runner_opts *o,
    int64_t group_id, char **cause)
{
	const struct scenario	*scn = t->scn;
	struct dn_run_info	 ri;
	struct dn_machine_info	 mi;
	struct machine		 mach;
	struct plan_endpoints	 ep;
	const char		*binary = plan_binary(scn, t->var);
	char			 sha[65] = "", base[PATH_MAX];
	char			**hosts;
	int			 i;

	t->nnodes = scn->network.nodes;
	t->token = new_token();
	pthread_mutex_init(&t->mu, NULL);
	atomic_init(&t->t0_ns, 0);
	if (dn_sha256_file(binary, sha) != 0) {
		*cause = dn_xasprintf("cannot read node binary '%s': %s",
		    binary, strerror(errno));
		return (-1);
	}
	if (dn_mkdir_p(o->run_dir, 0755) != 0 ||
	    realpath(o->run_dir, base) == NULL) {
		*cause = dn_xasprintf("cannot create run directory '%s': %s "
		    "(use --run-dir)", o->run_dir, strerror(errno));
		return (-1);
	}

	fill_run_info(&ri, t, o, group_id, binary, sha);
	fill_machine(&mi, &mach, t);
	ri.machine = &mi;
	/* The run id names the trial dir, so insert first, then fix the
	 * dir in (run_dir is informational). */
	ri.run_dir = base;
	if (trial_store_run_begin(t, &ri, cause) != 0)
		return (-1);

	if ((t->run_dir = make_trial_dir(t, base, cause)) == NULL ||
	    make_net_dir(t, t->run_dir, cause) != 0)
		return (-1);
	/* swarm: on the advertise address, where every host reaches it */
	if (scn->network.tcp_base_port > 0)
		t->metrics_url = dn_xasprintf("tcp://%s:%d",
		    provider_listen_addr(scn),
		    scn->network.tcp_base_port + 2 * t->nnodes);
	else
		t->metrics_url = dn_xasprintf("ipc://%s/collector", t->net_dir);

	memset(&ep, 0, sizeof(ep));
	ep.run_dir = t->run_dir;
	ep.net_dir = t->net_dir;
	ep.metrics_url = t->metrics_url;
	ep.token = t->token;
	ep.tcp_base_port = scn->network.tcp_base_port;
	/* the emulated network: each node at its own address (a foreign
	 * node's {addr}); the kind's prepare says on which port */
	ep.emulated = scenario_has_conditions(scn);
	node_kind_of(t->var)->prepare(t, o->ready_timeout_ms, &ep);
	t->nodes = dn_xcalloc((size_t)t->nnodes, sizeof(*t->nodes));
	t->prov = setup_provider_view(t);
	/* where each node's host is reached: --peer-hosts, and our URLs */
	hosts = dn_xcalloc((size_t)t->nnodes + 1, sizeof(*hosts));
	for (i = 0; i < t->nnodes; i++) {
		t->nodes[i].addr = dn_xstrdup(provider_node_addr(scn, i));
		hosts[i] = t->nodes[i].addr;
		/* on another host: another clock (collector.c) */
		t->nodes[i].remote_clock = strcmp(hosts[i], "127.0.0.1") !=
		    0 && strcmp(hosts[i], provider_listen_addr(scn)) != 0;
	}
	if (ep.emulated)
		netcond_hosts(t, hosts);
	ep.hosts = (const char *const *)hosts;
	for (i = 0; i < t->nnodes; i++) {
		struct trial_node	*n = &t->nodes[i];

		atomic_init(&n->up, 0);
		ep.clock_preload = faults_clock_preload(t, i);
		if (node_argv(t, t->var, i, &ep, &n->argv, &n->env,
		    cause) != 0 || upgrade_argvs(t, i, &ep, cause) != 0) {
			free_hosts(hosts, ep.emulated, t->nnodes);
			return (-1);
		}
		n->out_path = dn_xasprintf("%s/node-%d.out", t->run_dir, i);
		n->log_path = dn_xasprintf("%s/node-%d.log", t->run_dir, i);
		/* where its output is, for `devnet show` (issue 37 #4) */
		trial_fact(t, i, "output", "%s", n->out_path);
		store_peers(t, i);
		n->cmdline = plan_quote_argv(n->argv);
		/* the load crosses the emulated network: the node's own
		 * address and port (trial_load_ns, loadgen-tcp.c) */
		n->in_url = ep.emulated ? dn_xasprintf("tcp://%s:%d",
		    ep.hosts[i], NODE_KIND_NET_PORT + 2 * i) :
		    setup_node_url(t, i, 0);
		/* the node's base port for workload templates */
		n->port = node_kind(t)->port(t, i);
	}
	free_hosts(hosts, ep.emulated, t->nnodes);
	node_kind(t)->columns(t);
	return (0);
}

/* Start the collector, the nodes and (transfer) the load generator's
 * sockets. */
int
setup_start(struct trial *t, char **cause)
{
	const char	*binary = plan_binary(t->scn, t->var);
	char		 sha[65] = "";
	int		 i;

	t->spawn_ns = dn_now_ns();
	t->cpu0_s = dn_cpu_s();
	if (netcond_start(t, cause) != 0 || faults_start(t, cause) != 0)
		return (-1);
	if (node_kind(t)->start(t, cause) != 0 ||
	    collector_start(t, &t->col, cause) != 0)
		return (-1);
	/* Every node first, their rows after: the nodes' start is the
	 * trial's wait, the rows are not (issue 26). */
	for (i = 0; i < t->nnodes; i++) {
		if (provider_start(t->prov, i, cause) != 0)
			return (-1);
	}
	dn_sha256_file(binary, sha);
	for (i = 0; i < t->nnodes; i++) {
		struct trial_node	*n = &t->nodes[i];

		if (trial_store_node_add(t, i, binary, sha, cause) != 0)
			return (-1);
		if (n->vargv != NULL)	/* to be upgraded: build 0 */
			setup_build_facts(t, i, 0);
	}
	if ((t->scn->workload.kind == SCN_WL_TRANSFER ||
	    t->scn->workload.kind == SCN_WL_HTTP ||
	    t->scn->workload.kind == SCN_WL_COMMAND) &&
	    loadgen_create(t, &t->lg, cause) != 0)
		return (-1);
	return (0);
}
