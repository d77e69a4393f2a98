/*
 * provider-swarm.c: the `swarm` provider (see provider.h): one Docker
 * Swarm stack per trial, from a generated Compose file (swarm_compose,
 * also printed by `devnet validate --provider swarm`).
 *
 * A trial's stack: the Compose file written to STACK.yml in the trial
 * dir, `docker stack deploy --resolve-image never` (images by local ID:
 * nothing is pulled), one service per node (one replica, no restarts,
 * host network, the trial dir bound at the same path, limits, placement,
 * devnet labels on services and containers).  Task states come from one
 * `docker stack ps` per trial at most every POLL_MS; a task that ended
 * is the node's exit (exit code 128 + N: killed by signal N), its host
 * goes to nodes.host, its output (`docker service logs`) to node-K.out.
 * Signals go to the task's container through this engine (kill, pause,
 * unpause); restart is `docker service update --force`.  The stack is
 * removed (`docker stack rm`, then every object with the trial's labels)
 * when the trial ends, also after Ctrl-C; a killed devnet's is swept by
 * the next run (docker.c).
 *
 * Several hosts: `prepare` lists the hosts the placement allows and
 * pins node K to the K mod N-th of them (sorted by hostname), so that
 * every node's address is known before any node dials: node K's service
 * is constrained to that host (`node.id == ID`), and the host's address
 * (the manager's: the advertise address) goes to the nodes
 * (--peer-hosts) and to the runner's URLs (provider_node_addr).  Signals
 * need the engine of the host a container runs on: this one, or the
 * host's swarm.engines URL; events on a node of a host with neither are
 * refused before any trial, and at the end such nodes are stopped by
 * scaling their services to 0.  Before any trial, a task on each
 * other host checks its images, ports and the way to the collector
 * (swarm-preflight.c).  docs/providers.md, "swarm".
 *
 * Not here: writing the Compose file (swarm-compose.c), the docker CLI
 * (docker.c).
 */
#include <sys/socket.h>
#include <sys/wait.h>

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
#include "mkdirs.h"
#include "provider/provider.h"
#include "provider/swarm-internal.h"
#include "xalloc.h"

/* Task states are read at most this often (one docker CLI call). */
#define POLL_MS		500
/* How long containers may take to exit after SIGKILL. */
#define KILL_WAIT_MS	15000
/* Teardown passes, 0.5 s apart, until one finds nothing left. */
#define TEARDOWN_PASSES	40

/* --- the stack of a trial ---------------------------------------------- */

struct snode {
	char		*task;		/* the current task's ID, or NULL */
	char		*old;		/* IDs of tasks replaced by restarts */
	char		*state;		/* its state: "running", "failed" */
	char		*err;		/* its error, if any */
	char		*host;		/* hostname of the host it runs on */
	int		 started;	/* provider_start was called */
	int		 host_stored;	/* nodes.host was set */
	int		 logs;		/* node-K.out was written */
	int		 scaled;	/* its service scaled to 0 (stop) */
};

struct stack {
	const struct provider_trial	*t;
	char			*name;	/* devnet-PID-RUN */
	int			 deployed;
	uint64_t		 polled_ns;
	struct snode		*n;
	struct stack		*next;
};

/* The stacks of the trials in flight (the runner runs one at a time
 * with tcp endpoints, but nothing here depends on it). */
static struct stack	*stacks;
/* The swarm's advertise address, found by prepare. */
static char		 advertise[64];
/* The hosts the placement allows (prepare), and node K's: hosts[pin[K]]
 * (NULL: not pinned, as for validate). */
static struct dk_host	*hosts;
static int		 nhosts;
static int		*pin;
static int		 npin;
/* The real network between hosts[H] and this one, timed by the
 * preflight (n == 0: not measured; this host's own is never timed). */
static struct swarm_rtt	*host_rtt;

static struct stack *
stack_of(const struct provider_trial *t)
{
	struct stack	*st;

	for (st = stacks; st != NULL; st = st->next) {
		if (st->t == t)
			return (st);
	}
	st = dn_xcalloc(1, sizeof(*st));
	st->t = t;
	st->name = dn_xasprintf("devnet-%d-%lld", (int)getpid(),
	    (long long)t->run_id);
	st->n = dn_xcalloc((size_t)t->nnodes, sizeof(*st->n));
	st->next = stacks;
	stacks = st;
	return (st);
}

static void
stack_free(struct stack *st)
{
	struct stack	**pp;
	int		  k;

	for (pp = &stacks; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == st) {
			*pp = st->next;
			break;
		}
	}
	for (k = 0; k < st->t->nnodes; k++) {
		free(st->n[k].task);
		free(st->n[k].old);
		free(st->n[k].state);
		free(st->n[k].err);
		free(st->n[k].host);
	}
	free(st->n);
	free(st->name);
	free(st);
}

static char *
service_name(const struct stack *st, int k)
{
	return (dn_xasprintf("%s_n%d", st->name, k));
}

/* The name swarm gives node K's container (SERVICE.SLOT.TASK). */
static char *
container_name(const struct stack *st, int k)
{
	return (dn_xasprintf("%s_n%d.1.%s", st->name, k, st->n[k].task));
}

static void
set_str(char **p, const char *v)
{
	free(*p);
	*p = dn_xstrdup(v);
}

/* Read the state of every task of the stack (now when FORCE, else at
 * most every POLL_MS). */
static void
refresh(struct stack *st, int force)
{
	const char	*args[] = { "stack", "ps", "--no-trunc", "--format",
			    "{{.ID}}\t{{.Name}}\t{{.Node}}\t{{.CurrentState}}"
			    "\t{{.Error}}", st->name, NULL };
	char		*out = NULL, *cause = NULL, *p, *nl, *seen;
	uint64_t	 now = dn_now_ns();
	size_t		 plen = strlen(st->name);
	int		 j;

	if (!st->deployed || (!force && now - st->polled_ns <
	    (uint64_t)POLL_MS * 1000000u))
		return;
	st->polled_ns = now;
	if (dk_cmd(args, NULL, &out, &cause) != 0) {
		/* Nothing yet ("nothing found in stack"): still coming. */
		free(cause);
		return;
	}
	seen = dn_xcalloc((size_t)st->t->nnodes, 1);
	for (p = out; p != NULL && *p != '\0'; p = nl) {
		char	*f[5] = { NULL }, *q = p, *end;
		size_t	 nf;
		long	 k;

		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		for (nf = 0; nf < 5 && q != NULL; nf++) {
			f[nf] = q;
			if ((q = strchr(q, '\t')) != NULL)
				*q++ = '\0';
		}
		/* f[1] is STACK_nK.1 */
		if (nf < 4 || strncmp(f[1], st->name, plen) != 0 ||
		    strncmp(f[1] + plen, "_n", 2) != 0)
			continue;
		k = strtol(f[1] + plen + 2, &end, 10);
		if (end == f[1] + plen + 2 || k < 0 || k >= st->t->nnodes)
			continue;
		if (st->n[k].old != NULL && strstr(st->n[k].old, f[0]) != NULL)
			continue;
		set_str(&st->n[k].task, f[0]);
		seen[k] = 1;
		/* "Running 3 seconds ago": the first word, lower case */
		f[3][strcspn(f[3], " ")] = '\0';
		for (q = f[3]; *q != '\0'; q++)
			if (*q >= 'A' && *q <= 'Z')
				*q = (char)(*q - 'A' + 'a');
		set_str(&st->n[k].state, f[3]);
		set_str(&st->n[k].err, nf > 4 ? f[4] : "");
		if (f[2][0] != '\0')
			set_str(&st->n[k].host, f[2]);
	}
	/* A task of a service scaled to 0 is gone from the list a moment
	 * after its container stopped (its "Shutdown" may never be seen). */
	for (j = 0; j < st->t->nnodes; j++) {
		if (st->n[j].scaled && st->n[j].task != NULL && !seen[j])
			set_str(&st->n[j].state, "shutdown");
	}
	free(seen);
	free(out);
}

/* A task state after which its container runs no more. */
static int
state_ended(const char *s)
{
	static const char *const ended[] = { "complete", "failed", "shutdown",
		"rejected", "orphaned", "remove", NULL };
	size_t	i;

	for (i = 0; s != NULL && ended[i] != NULL; i++) {
		if (strcmp(s, ended[i]) == 0)
			return (1);
	}
	return (0);
}

/* The wait status of an ended task: "task: non-zero exit (137)" is
 * SIGKILL, as `docker run` reports it; no exit code is exit 125 (the
 * task never ran, like docker run's own errors). */
static int
task_status(struct provider_trial *t, const struct snode *n, int k)
{
	const char	*p;
	int		 code;

	if (strcmp(n->state, "complete") == 0)
		return (0);
	if (n->scaled && strcmp(n->state, "shutdown") == 0) {
		/* stopped by scaling down: the container's own exit code */
		const char *const args[] = { "inspect", "--type", "task",
			"--format", "{{if .Status.ContainerStatus}}"
			"{{.Status.ContainerStatus.ExitCode}}{{end}}", n->task,
			NULL };
		char	*out = NULL, *cause = NULL;

		if (dk_cmd(args, NULL, &out, &cause) == 0 &&
		    sscanf(out, "%d", &code) == 1 && code >= 0) {
			free(out);
			if (code > 128 && code < 128 + 32)
				return (code - 128);
			return ((code & 0xff) << 8);
		}
		free(out);
		free(cause);
		/* the task is gone: its final sample says it stopped
		 * cleanly, else the swarm's SIGKILL ended it */
		return (trial_ref_final_seen(t->ref, k) ? 0 : SIGKILL);
	}
	if (n->err != NULL && (p = strstr(n->err, "exit (")) != NULL &&
	    sscanf(p, "exit (%d)", &code) == 1) {
		if (code > 128 && code < 128 + 32)
			return (code - 128);		/* signalled */
		return ((code & 0xff) << 8);
	}
	return (125 << 8);
}

static void
store_host(struct provider_trial *t, struct snode *n, int k)
{
	char	*cause = NULL;

	if (trial_ref_node_host(t->ref, k, n->host, &cause) != 0) {
		trial_ref_event(t->ref, k, "store", "nodes.host: %s", cause);
		free(cause);
	}
	n->host_stored = 1;
}

/* Node K's output so far (every task of its service) to node-K.out. */
static void
save_logs(struct provider_trial *t, struct stack *st, int k)
{
	char	*svc = service_name(st, k), *cause = NULL;

	if (dk_service_logs(svc, t->nodes[k].out_path, &cause) != 0) {
		trial_ref_event(t->ref, k, "docker", "%s", cause);
		free(cause);
	}
	st->n[k].logs = 1;
	free(svc);
}

/* ---------------------------------------------------------------------- */

static const char *
swarm_listen_addr(void)
{
	return (advertise);
}

static const struct dk_host *
host_of(int k)
{
	return (pin != NULL && k >= 0 && k < npin ? &hosts[pin[k]] : NULL);
}

/* Node K's host's address: the manager's is the advertise address (its
 * Status.Addr may read 0.0.0.0). */
static const char *
swarm_node_addr(int k)
{
	const struct dk_host	*h = host_of(k);

	if (h == NULL)
		return (NULL);
	return (h->self ? advertise : h->addr);
}

/* The engine node K's container is on: 0 with *ENGINE (NULL: this one),
 * or -1 when devnet has none for its host (no swarm.engines entry). */
static int
node_engine(const struct scenario *s, int k, const char **engine)
{
	const struct dk_host	*h = host_of(k);

	*engine = NULL;
	if (h == NULL || h->self)
		return (0);
	*engine = scn_engine_of(s, h->name);
	return (*engine != NULL ? 0 : -1);
}

/* Is ADDR an IPv4 address of this machine (one the collector can
 * listen on)? */
static int
local_addr(const char *addr)
{
	struct sockaddr_in	sa;
	int			fd, ok;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return (0);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return (1);	/* cannot tell: the collector will say */
	ok = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ||
	    errno != EADDRNOTAVAIL;
	close(fd);
	return (ok);
}


/* An address a node on another host cannot reach this host at. */
static int
loopback_addr(const char *a)
{
	return (a[0] == '\0' || strcmp(a, "0.0.0.0") == 0 ||
	    strncmp(a, "127.", 4) == 0 || strcmp(a, "localhost") == 0);
}

/* Pin every node to a host (K mod N, in hostname order) and check what
 * several hosts need: addresses the others can reach, an engine for
 * each host with events, those engines answering. */
static int
place_nodes(const struct scenario *s, const struct provider_opts *o,
    char **cause)
{
	const char	*eng;
	char		 at[32];
	size_t		 i;
	int		 k;

	free(pin);
	npin = s->network.nodes;
	pin = dn_xcalloc((size_t)npin, sizeof(*pin));
	for (k = 0; k < npin; k++)
		pin[k] = k % nhosts;
	for (k = 0; nhosts > 1 && k < nhosts; k++) {
		const char *a = hosts[k].self ? advertise : hosts[k].addr;

		if (!loopback_addr(a))
			continue;
		*cause = dn_xasprintf("host %s of the swarm is at '%s', but "
		    "with %d hosts every node must reach the others and the "
		    "collector at its host's address, and '%s' is each "
		    "host's own: give the swarm routable addresses (`docker "
		    "swarm init --advertise-addr ADDR` on the manager, "
		    "`docker swarm join --advertise-addr ADDR ...` on the "
		    "others), or keep the devnet on one host with placement: "
		    "LABEL=VALUE", hosts[k].name, a, nhosts, a);
		return (-1);
	}
	for (i = 0; i < s->nevents; i++) {
		const struct scn_event	*e = &s->events[i];
		const struct dk_host	*h = host_of(e->node);

		if (node_engine(s, e->node, &eng) == 0)
			continue;
		scenario_fmt_ms(at, sizeof(at), e->at_ms);
		*cause = dn_xasprintf("event %s at %s on node %d: node %d "
		    "runs on host %s, and devnet signals a container through "
		    "the Docker engine of its host, which it knows for this "
		    "host only: name %s's engine with `swarm: {engines: {%s: "
		    "URL}}` (ssh://USER@%s, tcp://ADDR:2376 or unix://...; "
		    "or --set swarm.engines.%s=URL), or move the event to a "
		    "node of this host (docs/providers.md, \"Events on other "
		    "hosts\")", scenario_action_name(e->action), at, e->node, e->node,
		    h->name, h->name, h->name, h->name, h->name);
		return (-1);
	}
	/* the engines of hosts with nodes: answering, and swept */
	return (swarm_check_engines(s, hosts, nhosts < npin ? nhosts : npin,
	    o->quiet, cause));
}

static int
swarm_prepare(const struct scenario *s, const struct provider_opts *o,
    char **cause)
{
	char	*version = NULL, *addr = NULL, *root = NULL;
	int	 rc = -1, n = 0;

	if (s->network.tcp_base_port <= 0) {
		*cause = dn_xstrdup("provider swarm needs network.listen: tcp "
		    "and network.tcp_base_port (the collector and the nodes "
		    "are reached over TCP from every host)");
		return (-1);
	}
	if (dk_engine_check(&version, cause) != 0)
		goto out;
	if (dk_swarm_manager(&addr, cause) != 0)
		goto out;
	if (addr == NULL || addr[0] == '\0' || strlen(addr) >=
	    sizeof(advertise) || !local_addr(addr)) {
		*cause = dn_xasprintf("the swarm's advertise address '%s' is "
		    "not an IPv4 address of this machine, so the collector "
		    "cannot listen where the nodes would dial it: run devnet "
		    "on the manager whose address it is", addr ? addr : "");
		goto out;
	}
	snprintf(advertise, sizeof(advertise), "%s", addr);
	dk_hosts_free(hosts, nhosts);
	hosts = NULL;
	nhosts = 0;
	free(host_rtt);
	host_rtt = NULL;
	if (dk_swarm_hosts(s->placement != NULL && strcmp(s->placement,
	    "spread") != 0 ? s->placement : NULL, &hosts, &nhosts,
	    cause) != 0)
		goto out;
	if (nhosts == 0) {
		*cause = dn_xasprintf("no host of the swarm can run a node "
		    "(placement %s: none is Ready, Active%s): see "
		    "`docker node ls`", s->placement ? s->placement : "spread",
		    s->placement && strcmp(s->placement, "spread") != 0 ?
		    " and labelled so" : "");
		goto out;
	}
	if (place_nodes(s, o, cause) != 0)
		goto out;
	if (dk_sweep(NULL, &n, cause) != 0)
		goto out;
	if (n > 0 && !o->quiet)
		fprintf(stderr, "devnet: removed %d Docker object(s) left by "
		    "a devnet that was killed\n", n);
	if (provider_check_images(s, o->quiet, cause) != 0)
		goto out;
	if (provider_check_ports(s, advertise, cause) != 0)
		goto out;
	/* the other hosts: images, ports, the collector, the run dir (a
	 * task there); the run dir made now, as the first trial would */
	if (dn_mkdir_p(o->run_dir, 0755) != 0 ||
	    (root = realpath(o->run_dir, NULL)) == NULL) {
		*cause = dn_xasprintf("cannot create the run directory '%s': "
		    "%s (use --run-dir)", o->run_dir, strerror(errno));
		goto out;
	}
	host_rtt = dn_xcalloc((size_t)nhosts, sizeof(*host_rtt));
	if (swarm_preflight(s, hosts, pin, npin, advertise, root, o->quiet,
	    host_rtt, cause) != 0)
		goto out;
	rc = 0;
out:
	free(version);
	free(addr);
	free(root);
	return (rc);
}

/* Write the trial's Compose file and deploy it. */
static int
deploy(struct provider_trial *t, struct stack *st, char **cause)
{
	char			*path;
	const char		**ids = NULL, **names = NULL;
	int			 rc, k;

	if (pin != NULL) {
		ids = dn_xcalloc((size_t)t->nnodes + 1, sizeof(*ids));
		names = dn_xcalloc((size_t)t->nnodes + 1, sizeof(*names));
		for (k = 0; k < t->nnodes; k++) {
			ids[k] = host_of(k)->id;
			names[k] = host_of(k)->name;
		}
	}
	path = dn_xasprintf("%s/%s.yml", t->run_dir, st->name);
	rc = swarm_compose_trial(t, path, ids, names, cause);
	free(ids);
	free(names);
	if (rc == 0) {
		/* never ask a registry: the images are local, by ID */
		const char *const args[] = { "stack", "deploy",
			"--resolve-image", "never", "--prune", "-c", path,
			st->name, NULL };

		rc = dk_cmd(args, NULL, NULL, cause);
	}
	if (rc == 0) {
		st->deployed = 1;
		trial_ref_event(t->ref, -1, "deploy", "stack %s from %s",
		    st->name, path);
		swarm_base_facts(t, hosts, pin, npin, host_rtt, advertise);
	}
	free(path);
	return (rc);
}

static int
swarm_start(struct provider_trial *t, int k, char **cause)
{
	struct stack	*st = stack_of(t);
	struct snode	*n = &st->n[k];
	struct proc	*p = &t->nodes[k].proc;
	char		*svc, *old;

	p->pid = 0;	/* no process here: a task of the swarm */
	p->status = 0;
	p->exited = 0;
	if (!n->started) {
		/* The first start deploys every node's service. */
		n->started = 1;
		return (st->deployed ? 0 : deploy(t, st, cause));
	}
	/* restart: a new task of the same service */
	if (n->task != NULL) {
		old = n->old == NULL ? dn_xstrdup(n->task) :
		    dn_xasprintf("%s %s", n->old, n->task);
		free(n->old);
		n->old = old;
		free(n->task);
		n->task = NULL;
	}
	free(n->state);
	n->state = NULL;
	n->logs = 0;
	svc = service_name(st, k);
	{
		const char *const args[] = { "service", "update", "--force",
			"--detach", "--quiet", svc, NULL };

		if (dk_cmd(args, NULL, NULL, cause) != 0) {
			free(svc);
			return (-1);
		}
	}
	free(svc);
	return (0);
}

static int
swarm_poll(struct provider_trial *t, int k)
{
	struct stack	*st = stack_of(t);
	struct snode	*n = &st->n[k];
	struct proc	*p = &t->nodes[k].proc;

	if (p->exited)
		return (1);
	refresh(st, 0);
	if (n->host != NULL && !n->host_stored)
		store_host(t, n, k);
	if (n->task == NULL || !state_ended(n->state))
		return (0);
	p->exited = 1;
	p->status = task_status(t, n, k);
	if (!n->logs)
		save_logs(t, st, k);
	if (p->status == 125 << 8)
		trial_ref_event(t->ref, k, "docker", "task %s %s: %s", n->task,
		    n->state, n->err != NULL ? n->err : "");
	return (1);
}

static int
swarm_signal(struct provider_trial *t, int k, int sig)
{
	struct stack	*st = stack_of(t);
	const char	*eng;
	char		*name, *cause = NULL;
	int		 rc;

	if (swarm_poll(t, k))
		return (-1);
	if (node_engine(t->scn, k, &eng) != 0) {
		/* prepare refused events here: only the end comes here */
		trial_ref_event(t->ref, k, "docker", "signal %d: no Docker "
		    "engine known for host %s (swarm.engines)", sig,
		    host_of(k)->name);
		return (-1);
	}
	if (st->n[k].task == NULL) {
		refresh(st, 1);
		if (st->n[k].task == NULL) {
			trial_ref_event(t->ref, k, "docker",
			    "signal %d: no task yet", sig);
			return (-1);
		}
	}
	name = container_name(st, k);
	rc = dk_signal(eng, name, sig, &cause);
	if (rc != 0)
		trial_ref_event(t->ref, k, "docker", "%s", cause);
	free(cause);
	free(name);
	st->polled_ns = 0;	/* look again soon */
	return (rc);
}

static void
look(struct provider_trial *t)
{
	refresh(stack_of(t), 1);
}

/* provider_kill_running: node K's container and its engine; NULL for a
 * node on a host whose engine devnet does not know (stop_all scales its
 * service down instead). */
static char *
ctr_of(struct provider_trial *t, int k, const char **engine)
{
	struct stack	*st = stack_of(t);

	if (st->n[k].task == NULL || node_engine(t->scn, k, engine) != 0)
		return (NULL);
	return (container_name(st, k));
}

/* `docker service scale S_nK=0 ...` for the running nodes on hosts
 * without a known engine: the swarm sends SIGTERM, then SIGKILL after
 * the service's stop grace period (10 s). */
static void
scale_down_unreachable(struct provider_trial *t)
{
	struct stack	 *st = stack_of(t);
	const char	**args, *eng;
	char		**svcs, *cause = NULL;
	size_t		  a = 0;
	int		  k;

	args = dn_xcalloc((size_t)t->nnodes + 5, sizeof(*args));
	svcs = dn_xcalloc((size_t)t->nnodes, sizeof(*svcs));
	args[a++] = "service";
	args[a++] = "scale";
	args[a++] = "--detach";
	for (k = 0; k < t->nnodes; k++) {
		if (swarm_poll(t, k) || node_engine(t->scn, k, &eng) == 0)
			continue;
		svcs[k] = dn_xasprintf("%s_n%d=0", st->name, k);
		args[a++] = svcs[k];
		st->n[k].scaled = 1;
	}
	if (a > 3 && dk_cmd(args, NULL, NULL, &cause) != 0) {
		trial_ref_event(t->ref, -1, "docker", "%s", cause);
		free(cause);
	}
	for (k = 0; k < t->nnodes; k++)
		free(svcs[k]);
	free(svcs);
	free(args);
}

static int
swarm_stop_all(struct provider_trial *t, int grace_ms)
{
	struct stack	*st = stack_of(t);
	int		 killed;

	if (!st->deployed)
		return (0);
	refresh(st, 1);
	scale_down_unreachable(t);
	provider_kill_running(&provider_swarm, t, SIGTERM, ctr_of);
	killed = provider_wait_all(&provider_swarm, t, grace_ms, 100, look);
	if (killed > 0) {
		provider_kill_running(&provider_swarm, t, SIGKILL, ctr_of);
		/* what still runs now is removed by teardown */
		provider_wait_all(&provider_swarm, t, KILL_WAIT_MS, 100, look);
	}
	return (killed);
}

static void
swarm_teardown(struct provider_trial *t)
{
	struct stack	*st = stack_of(t);
	char		*run = dn_xasprintf(DK_LABEL_RUN "=%lld",
			    (long long)t->run_id);
	char		*own = dn_xasprintf(DK_LABEL_OWNER "=%s", dk_owner());
	const char	*f[] = { run, own, NULL };
	const char	*rm[] = { "stack", "rm", st->name, NULL };
	char		*cause = NULL, *c2 = NULL;
	int		 n = 0, i, k, before;

	if (st->deployed) {
		for (k = 0; k < t->nnodes; k++) {
			if (!st->n[k].logs)
				save_logs(t, st, k);
		}
		if (dk_cmd(rm, NULL, NULL, &c2) != 0)
			free(c2);	/* the sweep below says what failed */
	}
	/* The swarm removes a service's containers after the service,
	 * on every host: look until a pass finds nothing with the trial's
	 * labels, here and on the other hosts whose engine is known. */
	for (i = 0; i < TEARDOWN_PASSES; i++) {
		before = n;
		if (dk_remove_labelled(NULL, f, 0, &n, &cause) != 0)
			break;
		for (k = 0; k < nhosts && k < npin && cause == NULL; k++) {
			const char *eng = hosts[k].self ? NULL :
			    scn_engine_of(t->scn, hosts[k].name);

			if (eng != NULL)
				(void)dk_remove_labelled(eng, f, 0, &n,
				    &cause);
		}
		if (cause != NULL || n == before)
			break;
		nanosleep(&(struct timespec){ 0, 500 * 1000 * 1000 }, NULL);
	}
	if (cause != NULL) {
		trial_ref_event(t->ref, -1, "teardown", "%s", cause);
		fprintf(stderr, "devnet: run %lld: teardown: %s\n",
		    (long long)t->run_id, cause);
		free(cause);
	} else if (st->deployed)
		trial_ref_event(t->ref, -1, "teardown", "removed stack %s",
		    st->name);
	free(run);
	free(own);
	stack_free(st);
}

const struct provider_ops provider_swarm = {
	.name = "swarm",
	.check = swarm_check,
	.prepare = swarm_prepare,
	.start = swarm_start,
	.poll = swarm_poll,
	.signal = swarm_signal,
	.stop_all = swarm_stop_all,
	.teardown = swarm_teardown,
	.listen_addr = swarm_listen_addr,
	.node_addr = swarm_node_addr,
	.describe = swarm_describe,
};
