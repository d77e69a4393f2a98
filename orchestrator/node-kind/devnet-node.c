/*
 * devnet-node.c: the devnet-node kind (node-kind.h): the runner's usual
 * handling is most of what it needs, so most operations do nothing or
 * say "not handled here"; its own are its ports and token, its
 * post-mortem, its rejoin rule (as high as the others) and each node's
 * allocation source.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node-kind/node-kind.h"
#include "trial/trial.h"
#include "protocol.h"
#include "xalloc.h"

static int
dn_declare(const struct scenario *s, struct dn_store *st, char **cause)
{
	(void)s;
	(void)st;
	(void)cause;
	return (0);
}

/* Under network conditions devnet-node's gossip and sync go over TCP
 * between the nodes' namespaces, on one port of each node's address. */
static void
dn_prepare(struct trial *t, int ready_timeout_ms, struct plan_endpoints *ep)
{
	(void)ready_timeout_ms;
	t->kind = &node_kind_devnet;
	t->lag_from_heights = 0;	/* it sends its own lag */
	if (ep->emulated)
		ep->tcp_base_port = NODE_KIND_NET_PORT;
}

/*
 * 0 when the file at PATH (a node binary) is readable and holds no
 * DN_NODE_TOKEN: a devnet-node from before issue 38 (a `rev:` variant,
 * an old build), which knows the run token only as --token.  1 when it
 * names it, and when it cannot be read (a path inside a container's
 * image): today's nodes read it from the environment.
 */
static int
dn_token_in_env(const char *path)
{
	static const char	 needle[] = DN_NODE_TOKEN_ENV;
	const size_t		 nl = sizeof(needle) - 1;
	char			 buf[65536];
	size_t			 have = 0;
	ssize_t			 r;
	int			 fd, found = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (1);
	while (!found && (r = read(fd, buf + have, sizeof(buf) - have)) > 0) {
		have += (size_t)r;
		found = memmem(buf, have, needle, nl) != NULL;
		/* keep the tail that may hold the start of the name */
		if (have >= nl) {
			memmove(buf, buf + have - (nl - 1), nl - 1);
			have = nl - 1;
		}
	}
	close(fd);
	return (found);
}


static const char *
dn_program(const struct scenario *s, const struct scn_variant *v)
{
	return (plan_binary(s, v));
}

/* Its inbound port with listen: tcp (0 with ipc: no port). */
static int
dn_port(const struct trial *t, int k)
{
	return (t->scn->network.tcp_base_port > 0 ?
	    t->scn->network.tcp_base_port + 2 * k : 0);
}

static char *
dn_post_mortem(struct trial *t, int k, const char *what)
{
	return (trial_post_mortem(t, k, what, NULL));
}

/* Blocks are discrete: in step once it is as high as the highest other
 * node. */
static int
dn_in_step(const struct trial *t, int k, double h, double best,
    double lag_ms)
{
	(void)t;
	(void)k;
	(void)lag_ms;
	return (h >= best && best >= 0);
}

static void
dn_trial(struct trial *t)
{
	(void)t;
}

static int
dn_trial_no(struct trial *t)
{
	(void)t;
	return (0);
}

static int
dn_start(struct trial *t, char **cause)
{
	(void)t;
	(void)cause;
	return (0);
}

static int
dn_node_no(struct trial *t, int k)
{
	(void)t;
	(void)k;
	return (0);
}

static int
dn_pause(struct trial *t, int k, int stop)
{
	(void)t;
	(void)k;
	(void)stop;
	return (0);
}

static int
dn_pause_watch(struct trial *t, int k, uint64_t now, uint64_t last,
    uint64_t stall_ns, int have_h, double h)
{
	(void)t;
	(void)k;
	(void)now;
	(void)last;
	(void)stall_ns;
	(void)have_h;
	(void)h;
	return (0);
}

static void
dn_after_run(struct trial *t, int signalled)
{
	(void)t;
	(void)signalled;
}

static int
dn_grace(struct trial *t, int grace)
{
	(void)t;
	return (grace);
}

/*
 * Each node's allocation source (fact alloc_source, issue 25), from its
 * log's DN-NODE-START line, alloc-counter= (every devnet-node since the
 * counter was made optional says it, so rev: builds of older commits do
 * too): its own counter interposes glibc's malloc, and a build without
 * it (sanitizers) counts nothing.
 */
static void
dn_facts(struct trial *t)
{
	char	*line = NULL, *p;
	size_t	 cap = 0;
	FILE	*f;
	int	 k, on;

	for (k = 0; k < t->nnodes; k++) {
		if (t->nodes[k].log_path == NULL ||
		    (f = fopen(t->nodes[k].log_path, "r")) == NULL)
			continue;
		on = -1;
		while (getline(&line, &cap, f) > 0) {
			if (strstr(line, " DN-NODE-START ") == NULL ||
			    (p = strstr(line, " alloc-counter=")) == NULL)
				continue;
			on = strncmp(p + 15, "on", 2) == 0;
		}
		fclose(f);
		if (on < 0)
			continue;
		free(t->nodes[k].alloc_source);
		t->nodes[k].alloc_source = dn_xstrdup(on ? "malloc (glibc)" :
		    "not measured: devnet-node built without its allocation "
		    "counter (sanitizer build)");
		trial_fact(t, k, "alloc_source", "%s",
		    t->nodes[k].alloc_source);
	}
	free(line);
}

/* Network conditions move devnet-node's gossip and sync to TCP between
 * the nodes' namespaces, on ports of its own choosing. */
static int
dn_check(const struct scenario *s, const struct scn_variant *v, char **cause)
{
	(void)v;
	if (scenario_has_conditions(s) && s->network.tcp_base_port > 0) {
		*cause = dn_xstrdup("network conditions switch devnet-node's "
		    "gossip and sync to TCP between the nodes' namespaces "
		    "themselves; remove network.listen/tcp_base_port");
		return (-1);
	}
	return (0);
}

const struct node_kind_ops node_kind_devnet = {
	.name = "devnet-node",
	.runs = "devnet-node",
	.net_traffic = "devnet-node gossip and sync over TCP between them",
	.show_usage = 0,
	.peer_graph = 1,
	.check = dn_check,
	.declare = dn_declare,
	.prepare = dn_prepare,
	.program = dn_program,
	.token_in_env = dn_token_in_env,
	.port = dn_port,
	.post_mortem = dn_post_mortem,
	.in_step = dn_in_step,
	.columns = dn_trial,
	.start = dn_start,
	.ready_exit = dn_node_no,
	.exited = dn_node_no,
	.pause = dn_pause,
	.pause_watch = dn_pause_watch,
	.watch = dn_trial,
	.done = dn_trial_no,
	.after_run = dn_after_run,
	.skip_state_check = dn_trial_no,
	.grace = dn_grace,
	.reap = dn_trial,
	.facts = dn_facts,
};
