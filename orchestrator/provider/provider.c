/*
 * provider.c: the provider calls the runner makes (see provider.h), the
 * `local` provider (fork/exec through spawn.h, devnet's behaviour without
 * Docker; `resources` through a control group per node, sys/cgroup.h:
 * made at the node's first start, joined by the child before its exec,
 * read and removed at teardown, swept by prepare after a killed devnet).
 *
 * Not here: Docker containers (provider-docker.c), swarm stacks
 * (provider-swarm.c), what those two share (provider-common.c), the
 * docker CLI (docker.c).
 */
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "sys/docker.h"
#include "net/topo.h"
#include "provider/image.h"
#include "provider/provider.h"
#include "sys/cgroup.h"
#include "sys/spawn.h"
#include "xalloc.h"

/* --- local ------------------------------------------------------------- */

static int
local_prepare(const struct scenario *s, const struct provider_opts *o,
    char **cause)
{
	const char	*why = NULL;
	int		 n = 0, cpuset;

	if (dn_cgroup_mode(&why) != 0 && dn_cgroup_sweep(&n, cause) != 0)
		return (-1);
	if (n > 0 && !o->quiet)
		fprintf(stderr, "devnet: removed %d cgroup(s) left by a "
		    "devnet that was killed\n", n);
	/* resources that would not be applied are refused, never taken
	 * and recorded (issue 36) */
	if (provider_any_limits(s, &cpuset) && dn_cgroup_mode(&why) == 0) {
		*cause = dn_xasprintf("resources (cpus, memory, cpuset) on "
		    "provider local need cgroups: %s; drop resources or use "
		    "--provider docker", why);
		return (-1);
	}
	return (0);
}

/* Node K's control group, at its first start, when it has resources;
 * its memory file to its sampler (cgroup_mem_bytes, as in a
 * container). */
static int
local_cgroup(struct provider_trial *t, int k, char **cause)
{
	struct trial_node	*n = &t->nodes[k];
	struct dn_cg_limits	 l;
	const char		*cs, *mf;
	char			 name[64], cpu[16];
	size_t			 ne = 0;

	if (n->cg != NULL)
		return (0);
	memset(&l, 0, sizeof(l));
	provider_node_limits(t->scn, t->var, k, &l.cpus, &l.memory);
	cs = provider_node_cpuset(t->scn, t->var, k);
	/* order: concurrent's duet (run/duet.c): the trial's CPU set */
	if (t->pin_cpus[0] != '\0')
		cs = t->pin_cpus;
	if (cs != NULL && strcmp(cs, "auto") == 0) {
		snprintf(cpu, sizeof(cpu), "%d", provider_auto_cpu(k));
		cs = cpu;
	}
	l.cpuset = cs;
	if (l.cpus <= 0 && l.memory == 0 && l.cpuset == NULL)
		return (0);
	snprintf(name, sizeof(name), "%lld-%d", (long long)t->run_id, k);
	if (dn_cgroup_create(name, &l, &n->cg, cause) != 0)
		return (-1);
	trial_ref_event(t->ref, k, "cgroup", "%s", dn_cgroup_applied(n->cg));
	if ((mf = dn_cgroup_mem_file(n->cg)) != NULL) {
		while (n->env != NULL && n->env[ne] != NULL)
			ne++;
		n->env = dn_xreallocarray(n->env, ne + 2, sizeof(*n->env));
		n->env[ne] = dn_xasprintf("DN_CGROUP_MEM_FILE=%s", mf);
		n->env[ne + 1] = NULL;
	}
	return (0);
}

static int
local_start(struct provider_trial *t, int k, char **cause)
{
	struct trial_node	*n = &t->nodes[k];
	int			 fds[4], nfd;

	if (local_cgroup(t, k, cause) != 0)
		return (-1);
	nfd = dn_cgroup_join_fds(n->cg, fds, 4);
	/* the emulated network: the node runs in its own namespace */
	return (spawn_start_cg(&n->proc, n->argv, n->env, n->out_path,
	    t->net != NULL ? dn_net_ns_fd(t->net, k) : -1, fds, nfd, cause));
}

static int
local_poll(struct provider_trial *t, int k)
{
	return (spawn_poll(&t->nodes[k].proc));
}

static int
local_signal(struct provider_trial *t, int k, int sig)
{
	return (spawn_signal(&t->nodes[k].proc, sig));
}

static int
local_stop_all(struct provider_trial *t, int grace_ms)
{
	struct proc	**ps;
	int		  k, killed;

	ps = dn_xcalloc((size_t)t->nnodes, sizeof(*ps));
	for (k = 0; k < t->nnodes; k++)
		ps[k] = &t->nodes[k].proc;
	killed = spawn_stop_all(ps, t->nnodes, grace_ms);
	free(ps);
	return (killed);
}

/* The nodes' groups: their counters kept, then removed (anything still
 * in one is SIGKILLed: a child that left its node's process group). */
static void
local_teardown(struct provider_trial *t)
{
	int	k;

	for (k = 0; k < t->nnodes && t->nodes != NULL; k++) {
		struct trial_node *n = &t->nodes[k];

		if (n->cg == NULL)
			continue;
		n->have_cgc = dn_cgroup_read(n->cg, &n->cgc) == 0;
		dn_cgroup_destroy(n->cg);
		n->cg = NULL;
	}
}

static char *
local_exit_note(struct provider_trial *t, int k)
{
	struct trial_node	*n = &t->nodes[k];
	struct dn_cg_counters	 c;
	double			 cpus;
	uint64_t		 mem;

	if (n->cg == NULL || dn_cgroup_read(n->cg, &c) != 0 ||
	    c.oom_kills <= n->oom_told)
		return (NULL);
	n->oom_told = c.oom_kills;
	provider_node_limits(t->scn, t->var, k, &cpus, &mem);
	return (dn_xasprintf("out of memory: the kernel's OOM killer ended "
	    "a task of the node's cgroup (resources.memory %.1f MiB, "
	    "high-water %.1f MiB, oom_kill %llu)", mem / 1048576.0,
	    c.mem_peak / 1048576.0, (unsigned long long)c.oom_kills));
}

static void
local_facts(struct provider_trial *t)
{
	int	k;

	for (k = 0; k < t->nnodes; k++) {
		const struct trial_node *n = &t->nodes[k];

		if (!n->have_cgc)
			continue;
		trial_ref_fact(t->ref, k, "cgroup_cpu_s", "%.3f",
		    n->cgc.cpu_s);
		trial_ref_fact(t->ref, k, "cgroup_throttled_s", "%.3f",
		    n->cgc.throttled_s);
		trial_ref_fact(t->ref, k, "cgroup_nr_throttled", "%llu",
		    (unsigned long long)n->cgc.nr_throttled);
		trial_ref_fact(t->ref, k, "cgroup_mem_peak_bytes", "%llu",
		    (unsigned long long)n->cgc.mem_peak);
		trial_ref_fact(t->ref, k, "cgroup_oom_kills", "%llu",
		    (unsigned long long)n->cgc.oom_kills);
	}
}

const struct provider_ops provider_local = {
	.name = "local",
	.start = local_start,
	.poll = local_poll,
	.signal = local_signal,
	.stop_all = local_stop_all,
	.prepare = local_prepare,
	.teardown = local_teardown,
	.exit_note = local_exit_note,
	.facts = local_facts,
};

/* --- the calls --------------------------------------------------------- */

/* Indexed by enum scn_provider, as scenario_provider_names is. */
static const struct provider_ops *const providers[] = {
	[SCN_PROV_LOCAL] = &provider_local,
	[SCN_PROV_DOCKER] = &provider_docker,
	[SCN_PROV_SWARM] = &provider_swarm,
};

static const struct provider_ops *
provider_of(const struct scenario *s)
{
	if ((size_t)s->provider >= sizeof(providers) / sizeof(providers[0]) ||
	    providers[s->provider] == NULL)
		return (&provider_local);
	return (providers[s->provider]);
}

const char *
provider_name(const struct scenario *s)
{
	return (provider_of(s)->name);
}

int
provider_prepare(const struct scenario *s, const struct provider_opts *o,
    char **cause)
{
	const struct provider_ops *p = provider_of(s);

	return (p->prepare != NULL ? p->prepare(s, o, cause) : 0);
}

/*
 * Swarm nodes are reached over TCP from every host: without
 * network.tcp_base_port, devnet chooses TCP and a base whose 2 x nodes + 1
 * ports are free here (the preflight checks the other hosts), and says
 * so, rather than refusing what it can choose itself (issue 19).
 */
int
provider_choose_ports(struct scenario *s, int quiet, char **cause)
{
	int	span = 2 * s->network.nodes + 1, i, base;
	char	*why = NULL;

	if (s->provider != SCN_PROV_SWARM || s->network.tcp_base_port > 0)
		return (0);
	/* more than 20000 ports: refused by swarm's check op */
	for (i = 0; i < 200; i++) {
		base = 30000 + (int)(((unsigned)getpid() * 7919u +
		    (unsigned)i * 104729u) % (unsigned)(30000 - span));
		s->network.tcp_base_port = base;
		free(why);
		why = NULL;
		if (provider_check_ports(s, "0.0.0.0", &why) == 0)
			break;
	}
	if (i == 200) {
		s->network.tcp_base_port = 0;
		*cause = dn_xasprintf("provider swarm: no %d free TCP ports "
		    "found (last: %s); set network.tcp_base_port", span, why);
		free(why);
		return (-1);
	}
	free(s->network.listen);
	s->network.listen = dn_xstrdup("tcp");
	if (!quiet)
		fprintf(stderr, "devnet: provider swarm: the nodes listen "
		    "over TCP, ports %d..%d (network.listen: tcp, "
		    "network.tcp_base_port: %d chosen, free here; set them to "
		    "choose)\n", base, base + span - 1, base);
	return (0);
}

int
provider_start(struct provider_trial *t, int k, char **cause)
{
	return (provider_of(t->scn)->start(t, k, cause));
}

int
provider_poll(struct provider_trial *t, int k)
{
	return (provider_of(t->scn)->poll(t, k));
}

int
provider_signal(struct provider_trial *t, int k, int sig)
{
	return (provider_of(t->scn)->signal(t, k, sig));
}

int
provider_stop_all(struct provider_trial *t, int grace_ms)
{
	return (provider_of(t->scn)->stop_all(t, grace_ms));
}

void
provider_teardown(struct provider_trial *t)
{
	const struct provider_ops *p = provider_of(t->scn);

	if (p->teardown != NULL)
		p->teardown(t);
}

char *
provider_exit_note(struct provider_trial *t, int k)
{
	const struct provider_ops *p = provider_of(t->scn);

	return (p->exit_note != NULL ? p->exit_note(t, k) : NULL);
}

void
provider_facts(struct provider_trial *t)
{
	const struct provider_ops *p = provider_of(t->scn);

	if (p->facts != NULL)
		p->facts(t);
}

int
provider_check(const struct scenario *s, char **cause)
{
	const struct provider_ops *p = provider_of(s);
	size_t	i;
	int	cpuset;

	if (p != &provider_local && provider_any_limits(s, &cpuset) &&
	    cpuset) {
		*cause = dn_xasprintf("resources.cpuset is carried out by "
		    "provider local only; drop it for provider %s", p->name);
		return (-1);
	}
	for (i = 0; p != &provider_local && i < s->nvariants; i++) {
		if (s->variants[i].node.user != NULL) {
			*cause = dn_xasprintf("variant %s: node.user is carried "
			    "out by provider local only (a container runs as "
			    "its image's USER); drop it for provider %s",
			    s->variants[i].name, p->name);
			return (-1);
		}
	}
	for (i = 0; p != &provider_local && i < s->nevents; i++) {
		const struct scn_event *ev = &s->events[i];

		if (ev->action == SCN_EV_CLOCK_SKEW ||
		    ev->action == SCN_EV_DISK) {
			*cause = dn_xasprintf("%s:%d:%d: action %s is carried "
			    "out by provider local only (libfaketime and a "
			    "loop disk on this host, not in a container); "
			    "run it with --provider local", s->path, ev->line,
			    ev->col, scenario_action_name(ev->action));
			return (-1);
		}
		if (ev->action == SCN_EV_UPGRADE) {
			*cause = dn_xasprintf("action upgrade is carried out "
			    "by provider local only (a container would need "
			    "the other build's image); run it with --provider "
			    "local");
			return (-1);
		}
	}
	return (p->check != NULL ? p->check(s, cause) : 0);
}

int
provider_can_pin(const struct scenario *s)
{
	return (provider_of(s) == &provider_local);
}

int
provider_netns(struct provider_trial *t, int **fds, char **cause)
{
	const struct provider_ops *p = provider_of(t->scn);

	*fds = NULL;
	return (p->netns != NULL ? p->netns(t, fds, cause) : 0);
}

int
provider_describe(FILE *out, const struct scenario *s, char **cause)
{
	const struct provider_ops *p = provider_of(s);

	return (p->describe != NULL ? p->describe(out, s, cause) : 0);
}

const char *
provider_listen_addr(const struct scenario *s)
{
	const struct provider_ops *p = provider_of(s);
	const char	*a = p->listen_addr != NULL ? p->listen_addr() : NULL;

	return (a != NULL && a[0] != '\0' ? a : "127.0.0.1");
}

const char *
provider_node_addr(const struct scenario *s, int k)
{
	const struct provider_ops *p = provider_of(s);
	const char	*a = p->node_addr != NULL ? p->node_addr(k) : NULL;

	return (a != NULL && a[0] != '\0' ? a : "127.0.0.1");
}
