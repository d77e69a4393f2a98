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

#include "scenario/scenario.h"
#include "xalloc.h"

int
plan_foreign_argv(const struct scenario *s, const struct scn_variant *var,
    int node, const struct plan_endpoints *ep, char ***argvp, char ***envp,
    char **cause)
{
	const struct scn_node	*o = &var->node;
	const char		*rd = ep->run_dir;
	const char		*sig, *bin, *slash;
	struct strv		 a = { 0 }, e = { 0 };
	size_t			 i;

	(void)cause;
	strv_add(&a, dn_xstrdup(ep->probe != NULL ? ep->probe :
	    "devnet-probe"));
	if (ep->metrics_url != NULL)
		strv_flag(&a, "--metrics", dn_xstrdup(ep->metrics_url));
	strv_flag(&a, "--token", dn_xasprintf("%016" PRIx64, ep->token));
	strv_flag(&a, "--index", dn_xasprintf("%d", node));
	strv_flag(&a, "--sample-interval", dn_xasprintf("%" PRId64,
	    s->sample_interval_ms));
	strv_flag(&a, "--out", dn_xasprintf("%s/node-%d.out", rd, node));
	if (o->count_allocs)
		strv_add(&a, dn_xstrdup("--count-allocs"));
	for (i = 0; i < o->nlogm; i++)
		strv_flag(&a, "--log-metric", dn_xasprintf("%s=%s",
		    o->logm[i].name, o->logm[i].regex));
	for (i = 0; i < o->nready; i++) {
		const struct scn_ready	*r = &o->ready[i];
		char			*x = r->arg != NULL ? plan_expand(s,
					    var, node, rd, r->arg) : NULL;

		switch (r->kind) {
		case SCN_READY_TCP:
			strv_flag(&a, "--ready", dn_xasprintf("tcp:%s", x));
			break;
		case SCN_READY_HTTP:
			strv_flag(&a, "--ready", dn_xasprintf("http:%s", x));
			break;
		case SCN_READY_LOG:	/* a regex: never expanded */
			strv_flag(&a, "--ready", dn_xasprintf("log:%s",
			    r->arg));
			break;
		case SCN_READY_DELAY:
			strv_flag(&a, "--ready", dn_xasprintf("delay:%" PRId64,
			    r->ms));
			break;
		}
		free(x);
	}
	if (ep->ready_timeout_ms > 0)
		strv_flag(&a, "--ready-timeout", dn_xasprintf("%" PRId64,
		    ep->ready_timeout_ms));
	sig = sigabbrev_np(o->stop_signal);
	strv_flag(&a, "--stop-signal", sig != NULL ? dn_xstrdup(sig) :
	    dn_xasprintf("%d", o->stop_signal));
	strv_flag(&a, "--stop-grace", dn_xasprintf("%" PRId64,
	    o->stop_grace_ms));
	for (i = 0; i < o->nenv; i++)
		strv_flag(&a, "--env", plan_expand(s, var, node, rd,
		    o->env[i]));
	if (o->cwd != NULL)
		strv_flag(&a, "--cwd", plan_expand(s, var, node, rd, o->cwd));
	if (o->prom_url != NULL) {
		strv_flag(&a, "--prom-url", plan_expand(s, var, node, rd,
		    o->prom_url));
		for (i = 0; i < o->nprom_map; i++)
			strv_flag(&a, "--prom-map",
			    dn_xstrdup(o->prom_map[i]));
		for (i = 0; i < o->nprom_keep; i++)
			strv_flag(&a, "--prom-keep",
			    dn_xstrdup(o->prom_keep[i]));
	}
	strv_add(&a, dn_xstrdup("--"));
	/* The program as written when it is a bare name that the load found
	 * on PATH (the probe searches PATH the same way, and argv[0] stays
	 * what the user wrote: multi-call programs choose by it); else the
	 * path resolved at load time (relative paths, variants.X.binary),
	 * its symlinks kept. */
	bin = var->set.binary;
	if (bin == NULL || (strchr(o->command[0], '/') == NULL &&
	    (slash = strrchr(bin, '/')) != NULL &&
	    strcmp(slash + 1, o->command[0]) == 0))
		bin = o->command[0];
	strv_add(&a, dn_xstrdup(bin));
	for (i = 1; i < o->ncommand; i++)
		strv_add(&a, plan_expand(s, var, node, rd, o->command[i]));
	strv_add(&e, NULL);	/* an empty environment is still an array */
	e.n = 0;
	*argvp = a.v;
	*envp = e.v;
	return (0);
}
