/*
 * plan-foreign.c: the command line of a foreign node (node.command): the
 * devnet-probe that runs it (docs/probe.md) with the trial's collector,
 * token, index, sample interval and output file, the node's readiness,
 * stop, allocation, log and Prometheus settings as probe flags, then
 * "--" and the node's own command with its placeholders expanded.  Pure
 * computation like plan.c: no I/O, no processes, no shell.
 *
 * Not here: the placeholders themselves (scenario-node.c, plan_expand),
 * devnet-node's command line (plan.c), running the probe (foreign.c).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"
#include "xalloc.h"

struct av {
	char	**v;
	size_t	  n, cap;
};

static void
add(struct av *a, char *s)
{
	if (a->n + 2 > a->cap) {
		a->cap = a->cap ? a->cap * 2 : 64;
		a->v = dn_xreallocarray(a->v, a->cap, sizeof(*a->v));
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void
flag(struct av *a, const char *f, char *value)
{
	add(a, dn_xstrdup(f));
	add(a, value);
}

int
plan_foreign_argv(const struct scenario *s, const struct scn_variant *var,
    int node, const struct plan_endpoints *ep, char ***argvp, char ***envp,
    char **cause)
{
	const struct scn_node	*o = &var->node;
	const char		*rd = ep->run_dir;
	const char		*sig;
	struct av		 a = { 0 }, e = { 0 };
	size_t			 i;

	(void)cause;
	add(&a, dn_xstrdup(ep->probe != NULL ? ep->probe : "devnet-probe"));
	if (ep->metrics_url != NULL)
		flag(&a, "--metrics", dn_xstrdup(ep->metrics_url));
	flag(&a, "--token", dn_xasprintf("%016" PRIx64, ep->token));
	flag(&a, "--index", dn_xasprintf("%d", node));
	flag(&a, "--sample-interval", dn_xasprintf("%" PRId64,
	    s->sample_interval_ms));
	flag(&a, "--out", dn_xasprintf("%s/node-%d.out", rd, node));
	if (o->count_allocs)
		add(&a, dn_xstrdup("--count-allocs"));
	for (i = 0; i < o->nlogm; i++)
		flag(&a, "--log-metric", dn_xasprintf("%s=%s",
		    o->logm[i].name, o->logm[i].regex));
	for (i = 0; i < o->nready; i++) {
		const struct scn_ready	*r = &o->ready[i];
		char			*x = r->arg != NULL ? plan_expand(s,
					    var, node, rd, r->arg) : NULL;

		switch (r->kind) {
		case SCN_READY_TCP:
			flag(&a, "--ready", dn_xasprintf("tcp:%s", x));
			break;
		case SCN_READY_HTTP:
			flag(&a, "--ready", dn_xasprintf("http:%s", x));
			break;
		case SCN_READY_LOG:	/* a regex: never expanded */
			flag(&a, "--ready", dn_xasprintf("log:%s", r->arg));
			break;
		case SCN_READY_DELAY:
			flag(&a, "--ready", dn_xasprintf("delay:%" PRId64,
			    r->ms));
			break;
		}
		free(x);
	}
	if (ep->ready_timeout_ms > 0)
		flag(&a, "--ready-timeout", dn_xasprintf("%" PRId64,
		    ep->ready_timeout_ms));
	sig = sigabbrev_np(o->stop_signal);
	flag(&a, "--stop-signal", sig != NULL ? dn_xstrdup(sig) :
	    dn_xasprintf("%d", o->stop_signal));
	flag(&a, "--stop-grace", dn_xasprintf("%" PRId64, o->stop_grace_ms));
	for (i = 0; i < o->nenv; i++)
		flag(&a, "--env", plan_expand(s, var, node, rd, o->env[i]));
	if (o->cwd != NULL)
		flag(&a, "--cwd", plan_expand(s, var, node, rd, o->cwd));
	if (o->prom_url != NULL) {
		flag(&a, "--prom-url", plan_expand(s, var, node, rd,
		    o->prom_url));
		for (i = 0; i < o->nprom_map; i++)
			flag(&a, "--prom-map", dn_xstrdup(o->prom_map[i]));
		for (i = 0; i < o->nprom_keep; i++)
			flag(&a, "--prom-keep", dn_xstrdup(o->prom_keep[i]));
	}
	add(&a, dn_xstrdup("--"));
	/* The program as resolved at load time (PATH, relative paths). */
	add(&a, dn_xstrdup(var->set.binary != NULL ? var->set.binary :
	    o->command[0]));
	for (i = 1; i < o->ncommand; i++)
		add(&a, plan_expand(s, var, node, rd, o->command[i]));
	add(&e, NULL);	/* an empty environment is still an array */
	e.n = 0;
	*argvp = a.v;
	*envp = e.v;
	return (0);
}
