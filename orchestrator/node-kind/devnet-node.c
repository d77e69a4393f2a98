/*
 * devnet-node.c: the devnet-node kind (node-kind.h): the runner's usual
 * handling is all it needs, so each operation but facts (each node's
 * allocation source) does nothing or says "not handled here".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node-kind/node-kind.h"
#include "trial/trial.h"
#include "xalloc.h"

static int
dn_declare(const struct scenario *s, struct dn_store *st, char **cause)
{
	(void)s;
	(void)st;
	(void)cause;
	return (0);
}

static void
dn_prepare(struct trial *t, int ready_timeout_ms, struct plan_endpoints *ep)
{
	(void)ready_timeout_ms;
	(void)ep;
	t->foreign = 0;
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
	.check = dn_check,
	.declare = dn_declare,
	.prepare = dn_prepare,
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
