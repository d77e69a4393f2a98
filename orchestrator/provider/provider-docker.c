/*
 * provider-docker.c: the `docker` provider (see provider.h): every node
 * is a container on the local Docker engine.
 *
 * A node's container is started by an attached `docker run --rm` that
 * the runner spawns like a local node (spawn.h): the CLI lives as long
 * as the container, its output goes to node-K.out, and it exits with the
 * container's status (128 + N for a signal, turned back into "killed by
 * SIGN" here).  Signals go through the engine (docker kill, pause,
 * unpause), never to the CLI.  Host network, so the nodes keep their
 * 127.0.0.1 ports and ipc paths; the trial dir (and a /tmp socket dir)
 * bind-mounted at the same path, so --dir, --log and the ipc endpoints
 * need no change; the orchestrator's uid:gid, so the files stay the
 * user's.  The container's memory cgroup file is named in
 * $DN_CGROUP_MEM_FILE for the node's sampler (cgroup_mem_bytes).
 *
 * Teardown: the containers carry devnet.run/trial/owner labels; the
 * trial's are removed at its end (also after Ctrl-C), and `prepare`
 * removes those of devnets that were killed (PR_SET_PDEATHSIG kills the
 * CLI, not the container).
 *
 * Network conditions: the trial's emulated network (orchestrator/net/)
 * needs a namespace per node that lives as long as the trial, restarts
 * included.  Node K's is that of a holder container ("...-K-net",
 * `--network none`, devnet's own image running `devnet-probe --hold`)
 * started before any node; devnet wires it to the hub through
 * /proc/PID/ns/net, and node K's container (and any restart of it) joins
 * it with `--network container:HOLDER`, so the node program starts with
 * its address and route already there.  The holders carry the same
 * labels: teardown and the sweep remove them with the nodes.
 *
 * Not here: the docker CLI (docker.c), the image (image.c).
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/docker.h"
#include "provider/provider.h"
#include "sys/spawn.h"
#include "protocol.h"
#include "xalloc.h"

/* How long a CLI may take to exit after its container was killed. */
#define CLI_EXIT_MS	15000
/* Teardown passes, 0.5 s apart, until one removes nothing new. */
#define TEARDOWN_PASSES	6

static char *
ctr_name(const struct provider_trial *t, int k)
{
	return (dn_xasprintf("devnet-%d-%lld-%d", (int)getpid(),
	    (long long)t->run_id, k));
}

/* The holder of node K's network namespace (network conditions). */
static char *
holder_name(const struct provider_trial *t, int k)
{
	return (dn_xasprintf("devnet-%d-%lld-%d-net", (int)getpid(),
	    (long long)t->run_id, k));
}

/* Start node K's holder: a detached `docker run`, spawned so that the
 * trial's holders start side by side (each CLI takes seconds on a loaded
 * machine).  Its output in holder-K.out. */
static int
holder_start(struct provider_trial *t, int k, const char *image, char **labels,
    struct proc *p, char **cause)
{
	struct dk_container	 c;
	char			 a0[] = "devnet-probe", a1[] = "--hold";
	char			*argv[] = { a0, a1, NULL }, **dargv, *out;
	int			 rv;

	memset(&c, 0, sizeof(c));
	c.name = holder_name(t, k);
	c.image = image;
	c.argv = argv;
	c.labels = labels;
	c.network = "none";
	c.detach = 1;
	dargv = dk_run_argv(&c);
	out = dn_xasprintf("%s/holder-%d.out", t->run_dir, k);
	rv = spawn_start(p, dargv, NULL, out, cause);
	free(out);
	dk_argv_free(dargv);
	free((char *)c.name);
	return (rv);
}

static int
docker_netns(struct provider_trial *t, int **fdsp, char **cause)
{
	struct proc	*ps;
	char		**labels, **names, *image, *out, *tail, st[64], path[64];
	int		*fds, k, left, started, rv = -1;
	long		*pids;

	fds = dn_xcalloc((size_t)t->nnodes, sizeof(*fds));
	ps = dn_xcalloc((size_t)t->nnodes, sizeof(*ps));
	names = dn_xcalloc((size_t)t->nnodes + 1, sizeof(*names));
	pids = dn_xcalloc((size_t)t->nnodes, sizeof(*pids));
	for (k = 0; k < t->nnodes; k++)
		fds[k] = -1;
	labels = provider_labels(t);
	image = provider_holder_image();
	for (k = 0, started = 1; k < t->nnodes && started; k++) {
		names[k] = holder_name(t, k);
		started = holder_start(t, k, image, labels, &ps[k], cause) == 0;
	}
	/* every CLI started is waited for, even after a failure */
	do {
		for (left = 0, k = 0; k < t->nnodes; k++)
			left += ps[k].pid != 0 && !spawn_poll(&ps[k]);
		if (left > 0)
			nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 },
			    NULL);
	} while (left > 0);
	if (!started)
		goto out;
	for (k = 0; k < t->nnodes; k++) {
		if (WIFEXITED(ps[k].status) && WEXITSTATUS(ps[k].status) == 0)
			continue;
		out = dn_xasprintf("%s/holder-%d.out", t->run_dir, k);
		tail = spawn_tail(out, 1);
		*cause = dn_xasprintf("network holder '%s' (docker run, %s): "
		    "%s", names[k], spawn_status_str(ps[k].status, st,
		    sizeof(st)), tail != NULL ? tail : "no output");
		free(tail);
		free(out);
		goto out;
	}
	if (dk_container_pids((const char *const *)names, t->nnodes, pids,
	    cause) != 0)
		goto out;
	for (k = 0; k < t->nnodes; k++) {
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pids[k]);
		if ((fds[k] = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			*cause = dn_xasprintf("network namespace of container "
			    "'%s' (%s): %s", names[k], path, strerror(errno));
			goto out;
		}
	}
	rv = 0;
out:
	if (rv != 0) {
		for (k = 0; k < t->nnodes; k++)
			if (fds[k] >= 0)
				close(fds[k]);
		free(fds);
		fds = NULL;
	}
	*fdsp = fds;
	dk_argv_free(names);
	free(ps);
	free(pids);
	free(image);
	dk_argv_free(labels);
	return (rv);
}

static int
docker_prepare(const struct scenario *s, const struct provider_opts *o,
    char **cause)
{
	char	*version = NULL;
	int	 n = 0;

	if (dk_engine_check(&version, cause) != 0)
		return (-1);
	free(version);
	if (dk_sweep(NULL, &n, cause) != 0)
		return (-1);
	if (n > 0 && !o->quiet)
		fprintf(stderr, "devnet: removed %d Docker object(s) left by "
		    "a devnet that was killed\n", n);
	if (provider_check_images(s, o->quiet, cause) != 0)
		return (-1);
	return (provider_check_ports(s, "127.0.0.1", cause));
}

static int
docker_start(struct provider_trial *t, int k, char **cause)
{
	struct trial_node	*n = &t->nodes[k];
	struct dk_container	 c;
	char			*mounts[3] = { NULL }, **env, **argv, **dargv;
	char			*name, *image, **labels, *tok[3] = { 0 };
	char			*net = NULL;
	const char		*base;
	size_t			 i, ne = 0, na = 0, nt;
	int			 rc;

	memset(&c, 0, sizeof(c));
	while (n->env != NULL && n->env[ne] != NULL)
		ne++;
	env = dn_xcalloc(ne + 2, sizeof(*env));
	for (i = 0; i < ne; i++)
		env[i] = n->env[i];
	env[ne] = dn_xasprintf("DN_CGROUP_MEM_FILE=%s",
	    provider_cgroup_mem_file());
	while (n->argv[na] != NULL)
		na++;
	argv = dn_xcalloc(na + 1, sizeof(*argv));
	/* The image has the binary on its PATH, not at our path. */
	base = strrchr(n->argv[0], '/');
	argv[0] = base != NULL ? (char *)base + 1 : n->argv[0];
	for (i = 1; i < na; i++)
		argv[i] = n->argv[i];
	mounts[0] = (char *)t->run_dir;	/* dk_container: read only */
	if (t->own_net_dir)
		mounts[1] = (char *)t->net_dir;
	name = ctr_name(t, k);
	image = provider_node_image(t->scn, t->var, k);
	labels = provider_labels(t);
	c.name = name;
	c.image = image;
	c.argv = argv;
	c.env = env;
	c.mounts = mounts;
	c.labels = labels;
	provider_node_limits(t->scn, t->var, k, &c.cpus, &c.memory);
	if (t->net != NULL) {	/* its holder's namespace (netcond.c) */
		char *h = holder_name(t, k);

		net = dn_xasprintf("container:%s", h);
		free(h);
		c.network = net;
	}
	dargv = dk_run_argv(&c);
	/* docker run --env=DN_PROBE_TOKEN (DN_NODE_TOKEN) takes the value
	 * from here. */
	for (i = 0, nt = 0; i < ne && nt < 2; i++)
		if (dk_env_secret(env[i]))
			tok[nt++] = env[i];
	rc = spawn_start(&n->proc, dargv, nt > 0 ? tok : NULL,
	    n->out_path, cause);
	dk_argv_free(dargv);
	dk_argv_free(labels);
	free(image);
	free(name);
	free(net);
	free(env[ne]);
	free(env);
	free(argv);
	return (rc);
}

static int
docker_poll(struct provider_trial *t, int k)
{
	struct proc	*p = &t->nodes[k].proc;

	if (!spawn_poll(p))
		return (0);
	/* docker run exits 128 + N when the container died of signal N. */
	if (WIFEXITED(p->status) && WEXITSTATUS(p->status) > 128 &&
	    WEXITSTATUS(p->status) < 128 + 32)
		p->status = WEXITSTATUS(p->status) - 128;
	return (1);
}

static int
docker_signal(struct provider_trial *t, int k, int sig)
{
	char	*name = ctr_name(t, k), *cause = NULL;
	int	 rc;

	if (docker_poll(t, k)) {
		free(name);
		return (-1);
	}
	rc = dk_signal(NULL, name, sig, &cause);
	if (rc != 0)
		trial_ref_event(t->ref, k, "docker", "%s", cause);
	free(cause);
	free(name);
	return (rc);
}

/* provider_kill_running: node K's container, on this engine. */
static char *
ctr_of(struct provider_trial *t, int k, const char **engine)
{
	*engine = NULL;
	return (ctr_name(t, k));
}

static int
docker_stop_all(struct provider_trial *t, int grace_ms)
{
	struct proc	**ps;
	int		  k, killed;

	provider_kill_running(&provider_docker, t, SIGTERM, ctr_of);
	killed = provider_wait_all(&provider_docker, t, grace_ms, 10, NULL);
	if (killed > 0) {
		provider_kill_running(&provider_docker, t, SIGKILL, ctr_of);
		if (provider_wait_all(&provider_docker, t, CLI_EXIT_MS, 10,
		    NULL) > 0) {
			/* A CLI that hangs: end it; teardown removes its
			 * container. */
			ps = dn_xcalloc((size_t)t->nnodes, sizeof(*ps));
			for (k = 0; k < t->nnodes; k++)
				ps[k] = &t->nodes[k].proc;
			spawn_stop_all(ps, t->nnodes, 0);
			free(ps);
		}
	}
	return (killed);
}

static void
docker_teardown(struct provider_trial *t)
{
	char		*run = dn_xasprintf(DK_LABEL_RUN "=%lld",
			    (long long)t->run_id);
	char		*own = dn_xasprintf(DK_LABEL_OWNER "=%s", dk_owner());
	const char	*f[] = { run, own, NULL };
	char		*cause = NULL;
	int		 n = 0, i, before;

	/* A CLI killed while dockerd was still creating its container
	 * leaves one that appears after the first pass: look again. */
	for (i = 0; i < TEARDOWN_PASSES; i++) {
		before = n;
		if (dk_remove_labelled(NULL, f, 0, &n, &cause) != 0)
			break;
		if (i > 0 && n == before)
			break;
		nanosleep(&(struct timespec){ 0, 500 * 1000 * 1000 }, NULL);
	}
	if (cause != NULL) {
		trial_ref_event(t->ref, -1, "teardown", "%s", cause);
		fprintf(stderr, "devnet: run %lld: teardown: %s\n",
		    (long long)t->run_id, cause);
		free(cause);
	} else if (n > 0)
		trial_ref_event(t->ref, -1, "teardown",
		    "removed %d Docker object(s)", n);
	free(run);
	free(own);
}

const struct provider_ops provider_docker = {
	.name = "docker",
	.prepare = docker_prepare,
	.start = docker_start,
	.poll = docker_poll,
	.signal = docker_signal,
	.stop_all = docker_stop_all,
	.teardown = docker_teardown,
	.netns = docker_netns,
};
