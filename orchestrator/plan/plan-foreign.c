/*
 * plan-foreign.c: the command line of a foreign node (node.command): the
 * devnet-probe that runs it (docs/probe.md) with the trial's collector,
 * token, index, sample interval and output file, the node's readiness,
 * stop, allocation, log and Prometheus settings as probe flags, then
 * "--" and the node's own command with its placeholders expanded.  Pure
 * computation like plan.c: no I/O, no processes, no shell.
 *
 * Also a foreign node's ports and the expansion of its templates in the
 * one template language (scenario/template.c).
 *
 * Not here: checking the templates (scenario/scenario-node.c),
 * devnet-node's command line (plan.c), running the probe
 * (node-kind/foreign.c).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "protocol.h"
#include "scenario/template.h"
#include "sys/strv.h"
#include "xalloc.h"

int
plan_is_foreign(const struct scn_variant *v)
{
	return (v->node.kind == SCN_NODE_COMMAND);
}

const struct scn_settings *
plan_node_override(const struct scenario *s, int node)
{
	size_t	i;

	for (i = 0; i < s->network.noverrides; i++)
		if (s->network.overrides[i].node == node)
			return (&s->network.overrides[i].set);
	return (NULL);
}

int
plan_node_port(const struct scenario *s, const struct scn_variant *v,
    int node)
{
	int	base = v->node.port_base;

	if (s->order == SCN_ORDER_CONCURRENT)
		base += v->node.ports_per_node * s->network.nodes *
		    (int)(v - s->variants);
	return (base + node * v->node.ports_per_node);
}

/* What a node template's placeholders stand for. */
struct expand {
	const struct scenario		*s;
	const struct scn_variant	*v;
	int				 node;
	const struct plan_endpoints	*ep;
};

/* Where node NODE is reached: its host's address, its own namespace's
 * under network conditions (ep->hosts), 127.0.0.1 on this host. */
static const char *
node_addr(const struct plan_endpoints *ep, int node)
{
	return (ep->hosts != NULL && ep->hosts[node] != NULL ?
	    ep->hosts[node] : "127.0.0.1");
}

static void expand_into(const struct expand *, const char *tmpl,
    struct dn_buf *b);

static void
fill(void *arg, const struct load_part *pt, struct dn_buf *b)
{
	const struct expand	*x = arg;
	struct expand		 peer = *x;
	char			*v = NULL;
	int			 k;

	switch (pt->ph) {
	case LPH_INDEX:
		v = dn_xasprintf("%d", x->node);
		break;
	case LPH_NODES:
		v = dn_xasprintf("%d", x->s->network.nodes);
		break;
	case LPH_DIR:
		v = dn_xasprintf("%s/node-%d", x->ep->run_dir, x->node);
		break;
	case LPH_RUN_DIR:
		dn_buf_add(b, x->ep->run_dir, strlen(x->ep->run_dir));
		break;
	case LPH_ADDR:		/* {addr}, or {addr:K}: node K's */
		v = dn_xstrdup(node_addr(x->ep, pt->node >= 0 ? pt->node :
		    x->node));
		break;
	case LPH_PORT:
		v = dn_xasprintf("%ld", plan_node_port(x->s, x->v,
		    pt->node >= 0 ? pt->node : x->node) + pt->off);
		break;
	case LPH_PEERS:
		for (k = 0; k < x->s->network.nodes && x->v->node.peer !=
		    NULL; k++) {
			if (k > 0)
				dn_buf_add(b, ",", 1);
			peer.node = k;
			expand_into(&peer, x->v->node.peer, b);
		}
		break;
	default:	/* not a node placeholder: refused at load */
		break;
	}
	if (v != NULL)
		dn_buf_add(b, v, strlen(v));
	free(v);
}

/* Append the expansion of TMPL to B. */
static void
expand_into(const struct expand *x, const char *tmpl, struct dn_buf *b)
{
	struct load_tmpl	t;
	struct dn_buf		one = { 0 };

	load_tmpl_compile(&t, tmpl, LOAD_TMPL_NODE);
	load_tmpl_expand(&t, &one, fill, (void *)x);
	dn_buf_add(b, one.p, one.len);
	load_tmpl_free(&t);
	free(one.p);
}

/* Expand node template TMPL (scenario/template.h) for node NODE of
 * VARIANT (EP: the trial dir, the nodes' addresses).  Caller frees.
 * Templates were checked at load: unknown placeholders cannot reach
 * here. */
static char *
expand_tmpl(const struct scenario *s, const struct scn_variant *v, int node,
    const struct plan_endpoints *ep, const char *tmpl)
{
	struct expand	x = { s, v, node, ep };
	struct dn_buf	b = { 0 };

	expand_into(&x, tmpl, &b);
	return (b.p);
}

int
plan_foreign_argv(const struct scenario *s, const struct scn_variant *var,
    int node, const struct plan_endpoints *ep, char ***argvp, char ***envp,
    char **cause)
{
	const struct scn_node	*o = &var->node;
	const struct scn_settings *ov = plan_node_override(s, node);
	const char		*rd = ep->run_dir;
	const char		*sig, *bin, *slash;
	struct strv		 a = { 0 }, e = { 0 };
	size_t			 i;

	(void)cause;
	strv_add(&a, dn_xstrdup(ep->probe != NULL ? ep->probe :
	    "devnet-probe"));
	if (ep->metrics_url != NULL)
		strv_flag(&a, "--metrics", dn_xstrdup(ep->metrics_url));
	strv_flag(&a, "--index", dn_xasprintf("%d", node));
	strv_flag(&a, "--sample-interval", dn_xasprintf("%" PRId64,
	    s->sample_interval_ms));
	strv_flag(&a, "--out", dn_xasprintf("%s/node-%d.out", rd, node));
	if (o->count_allocs)
		strv_add(&a, dn_xstrdup("--count-allocs"));
	for (i = 0; i < o->nlogm; i++)	/* log lines or JSON fields */
		if (o->logm[i].regex != NULL)
			strv_flag(&a, "--log-metric", dn_xasprintf("%s=%s",
			    o->logm[i].name, o->logm[i].regex));
		else
			strv_flag(&a, "--json-map", dn_xasprintf("%s=%s",
			    o->logm[i].name, o->logm[i].path));
	for (i = 0; i < o->nlogm; i++)
		if (o->logm[i].counter)
			strv_flag(&a, "--counter", dn_xstrdup(o->logm[i].name));
	if (o->json_url != NULL)
		strv_flag(&a, "--json-url", expand_tmpl(s, var, node, ep,
		    o->json_url));
	if (o->json_url != NULL && o->json_every > 1 && (o->prom_url == NULL ||
	    o->prom_every == 0))
		strv_flag(&a, "--scrape-every", dn_xasprintf("%d",
		    o->json_every));
	for (i = 0; i < o->nready; i++) {
		const struct scn_ready	*r = &o->ready[i];
		char			*x = r->arg != NULL ? expand_tmpl(s,
					    var, node, ep, r->arg) : NULL;

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
		strv_flag(&a, "--env", expand_tmpl(s, var, node, ep,
		    o->env[i]));
	/* network.overrides[].env: after the node's, so it wins */
	for (i = 0; ov != NULL && i < ov->nenv; i++)
		strv_flag(&a, "--env", expand_tmpl(s, var, node, ep,
		    ov->env[i]));
	/* a clock_skew event's node: libfaketime for the command only, the
	 * probe's own clock stays true; a Go or static command gets its
	 * clock from the probe, from the same file (issue 39) */
	plan_clock_probe(ep, node, &a);
	if (o->cwd != NULL)
		strv_flag(&a, "--cwd", expand_tmpl(s, var, node, ep, o->cwd));
	if (o->user != NULL)
		strv_flag(&a, "--user", dn_xstrdup(o->user));
	if (o->prom_url != NULL) {
		strv_flag(&a, "--prom-url", expand_tmpl(s, var, node, ep,
		    o->prom_url));
		for (i = 0; i < o->nprom_map; i++)
			strv_flag(&a, "--prom-map",
			    dn_xstrdup(o->prom_map[i]));
		for (i = 0; i < o->nprom_keep; i++)
			strv_flag(&a, "--prom-keep",
			    dn_xstrdup(o->prom_keep[i]));
		if (o->prom_every > 1)
			strv_flag(&a, "--scrape-every",
			    dn_xasprintf("%d", o->prom_every));
	}
	strv_add(&a, dn_xstrdup("--"));
	/* The program as written when it is a bare name that the load found
	 * on PATH (the probe searches PATH the same way, and argv[0] stays
	 * what the user wrote: multi-call programs choose by it); else the
	 * path resolved at load time (relative paths, variants.X.binary),
	 * its symlinks kept. */
	bin = ov != NULL && ov->binary != NULL ? ov->binary :
	    var->set.binary;
	if (bin == NULL || (strchr(o->command[0], '/') == NULL &&
	    (slash = strrchr(bin, '/')) != NULL &&
	    strcmp(slash + 1, o->command[0]) == 0))
		bin = o->command[0];
	strv_add(&a, dn_xstrdup(bin));
	for (i = 1; i < o->ncommand; i++)
		strv_add(&a, expand_tmpl(s, var, node, ep, o->command[i]));
	/* network.overrides[].args: this node's, after the command's */
	for (i = 0; ov != NULL && i < ov->nargs; i++)
		strv_add(&a, expand_tmpl(s, var, node, ep, ov->args[i]));
	/* The token in the environment, not on the command line that any
	 * local user can read in /proc/PID/cmdline (the probe reads it and
	 * does not pass it on to the command). */
	strv_add(&e, dn_xasprintf("%s=%016" PRIx64, DN_PROBE_TOKEN_ENV,
	    ep->token));
	*argvp = a.v;
	*envp = e.v;
	return (0);
}
