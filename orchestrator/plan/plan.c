/*
 * plan.c: turn a loaded scenario into trials in run order and, per trial
 * and node, the exact devnet-node argv (docs/node.md) and environment
 * additions (a foreign node's: plan-foreign.c).  Pure computation: no
 * I/O, no processes, no shell — argv arrays only.  Not here: loading
 * (scenario/), spawning (provider/, node-kind/).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "protocol.h"
#include "sys/strv.h"
#include "xalloc.h"

/*
 * ABBA, generalised by mirroring: repeat k runs the variants in file order
 * when k is even and in reverse order when k is odd (A B | B A | A B ...;
 * A B C | C B A | ...).  Over every two repeats each variant's mean
 * position is the same, so a slow drift of the machine (thermal, page
 * cache, disk) does not favour one variant.  Concurrent: repeat k of every
 * variant shares slot k and the orchestrator runs a slot side by side.
 */
int
plan_trials(const struct scenario *s, struct plan_trial **trials,
    size_t *ntrials)
{
	struct plan_trial	*t;
	size_t			 n, i, v, nv = s->nvariants;
	int			 k;

	*trials = NULL;
	*ntrials = 0;
	if (nv == 0 || s->repeats < 1)
		return (-1);
	n = nv * (size_t)s->repeats;
	t = dn_xcalloc(n, sizeof(*t));
	i = 0;
	for (k = 0; k < s->repeats; k++) {
		for (v = 0; v < nv; v++) {
			size_t	which = v;

			if (s->order == SCN_ORDER_ABBA && k % 2 == 1)
				which = nv - 1 - v;
			t[i].index = (int)i;
			t[i].repeat = k;
			t[i].variant = &s->variants[which];
			t[i].slot = s->order == SCN_ORDER_CONCURRENT ? k :
			    (int)i;
			i++;
		}
	}
	*trials = t;
	*ntrials = n;
	return (0);
}

const char *
plan_binary(const struct scenario *s, const struct scn_variant *v)
{
	(void)s;
	if (v->set.binary == NULL && plan_is_foreign(v))
		return (v->node.command[0]);
	return (v->set.binary != NULL ? v->set.binary : "devnet-node");
}

int
plan_tcp_base(const struct scenario *s, const struct scn_variant *v)
{
	if (s->network.listen == NULL || strcmp(s->network.listen, "tcp") != 0)
		return (0);
	if (s->order != SCN_ORDER_CONCURRENT)
		return (s->network.tcp_base_port);
	return (s->network.tcp_base_port +
	    2 * s->network.nodes * (int)(v - s->variants));
}

/* The first non-NULL of override, variant, base. */
static const char *
pick(const char *over, const char *var, const char *base)
{
	if (over != NULL)
		return (over);
	if (var != NULL)
		return (var);
	return (base);
}

static uint64_t
pick_u64(uint64_t over, uint64_t var, uint64_t base)
{
	if (over != 0)
		return (over);
	if (var != 0)
		return (var);
	return (base);
}

/* --peer-hosts H0,...: only when some node is not at 127.0.0.1 (the
 * node's default), so that one-host devnets keep their command line. */
static void
peer_hosts(struct strv *a, const struct scenario *s,
    const char *const *hosts)
{
	char	*list = NULL, *t;
	int	 k, other = 0;

	for (k = 0; k < s->network.nodes; k++)
		other |= strcmp(hosts[k], "127.0.0.1") != 0;
	if (!other)
		return;
	for (k = 0; k < s->network.nodes; k++) {
		t = list == NULL ? dn_xstrdup(hosts[k]) :
		    dn_xasprintf("%s,%s", list, hosts[k]);
		free(list);
		list = t;
	}
	strv_flag(a, "--peer-hosts", list);
}

/* Indexed by enum scn_workload: with http or command load, devnet-node
 * itself runs idle (the load comes from outside it). */
static const char *const wl_flag[] = { "transfer", "readrandom", "cf-churn",
	"idle", "idle", "idle" };

int
plan_node_argv(const struct scenario *s, const struct scn_variant *var,
    int node, const struct plan_endpoints *ep, char ***argvp, char ***envp,
    char **cause)
{
	const struct scn_settings	*o = plan_node_override(s, node);
	const struct scn_settings	 none = { 0 };
	const struct scn_settings	*vs = &var->set;
	struct strv			 a = { 0 }, e = { 0 };
	const char			*opt, *net_dir;
	char				*peers;
	uint64_t			 cache;
	size_t				 i;

	*argvp = NULL;
	*envp = NULL;
	*cause = NULL;
	if (node < 0 || node >= s->network.nodes) {
		*cause = dn_xasprintf("node %d is not in the devnet (0..%d)",
		    node, s->network.nodes - 1);
		return (-1);
	}
	if (ep == NULL || ep->run_dir == NULL) {
		*cause = dn_xstrdup("no run directory for the trial");
		return (-1);
	}
	if (plan_is_foreign(var))
		return (plan_foreign_argv(s, var, node, ep, argvp, envp,
		    cause));
	if (o == NULL)
		o = &none;
	strv_add(&a, dn_xstrdup(pick(o->binary, plan_binary(s, var), NULL)));
	strv_flag(&a, "--index", dn_xasprintf("%d", node));
	strv_flag(&a, "--nodes", dn_xasprintf("%d", s->network.nodes));
	strv_flag(&a, "--dir", dn_xasprintf("%s/node-%d", ep->run_dir, node));
	strv_flag(&a, "--log", dn_xasprintf("%s/node-%d.log", ep->run_dir,
	    node));
	net_dir = ep->net_dir != NULL ? ep->net_dir : ep->run_dir;
	if (ep->tcp_base_port != 0)
		strv_flag(&a, "--tcp-base", dn_xasprintf("%d",
		    ep->tcp_base_port));
	else if (plan_tcp_base(s, var) != 0)
		strv_flag(&a, "--tcp-base", dn_xasprintf("%d",
		    plan_tcp_base(s, var)));
	if (ep->emulated || (ep->tcp_base_port == 0 &&
	    plan_tcp_base(s, var) == 0))
		strv_flag(&a, "--net", dn_xstrdup(net_dir));
	if (ep->tcp_base_port != 0 && ep->hosts != NULL)
		peer_hosts(&a, s, ep->hosts);
	if (ep->metrics_url != NULL)
		strv_flag(&a, "--metrics", dn_xstrdup(ep->metrics_url));
	/* The token in the environment (DN_NODE_TOKEN), not on the command
	 * line that any local user can read in /proc/PID/cmdline (issue
	 * 38); on it only for a binary from before that (token_argv). */
	if (ep->token_argv)
		strv_flag(&a, "--token", dn_xasprintf("%016" PRIx64,
		    ep->token));
	strv_flag(&a, "--sample-interval", dn_xasprintf("%" PRId64,
	    s->sample_interval_ms));
	strv_flag(&a, "--block-interval", dn_xasprintf("%" PRId64,
	    s->network.block_interval_ms));
	strv_flag(&a, "--block-max-txs", dn_xasprintf("%" PRIu32,
	    s->network.block_max_txs));
	strv_flag(&a, "--block-reads", dn_xasprintf("%" PRIu32,
	    s->network.block_reads));
	strv_flag(&a, "--accounts", dn_xasprintf("%" PRIu32,
	    s->network.accounts));
	strv_flag(&a, "--seed", dn_xasprintf("%" PRIu64, s->seed));
	if ((peers = plan_peer_list(s, node)) != NULL)
		strv_flag(&a, "--peers", peers);
	strv_flag(&a, "--read-options", dn_xstrdup(pick(o->read_options,
	    vs->read_options, s->read_options != NULL ? s->read_options :
	    "cached")));
	strv_flag(&a, "--write-options", dn_xstrdup(pick(o->write_options,
	    vs->write_options, s->write_options != NULL ? s->write_options :
	    "cached")));
	opt = pick(o->rocksdb_options, vs->rocksdb_options,
	    s->rocksdb_options);
	if (opt != NULL)
		strv_flag(&a, "--rocksdb-options", dn_xstrdup(opt));
	cache = pick_u64(o->block_cache, vs->block_cache, s->block_cache);
	if (cache != 0)
		strv_flag(&a, "--block-cache", dn_xasprintf("%" PRIu64,
		    cache));
	strv_flag(&a, "--workload", dn_xstrdup(wl_flag[s->workload.kind]));
	if (s->workload.kind == SCN_WL_READRANDOM) {
		strv_flag(&a, "--read-rate", dn_xasprintf("%.17g",
		    s->workload.read_rate));
		if (s->workload.read_keys != 0)
			strv_flag(&a, "--keys", dn_xasprintf("%" PRIu64,
			    s->workload.read_keys));
		if (s->workload.reads != 0)
			strv_flag(&a, "--reads", dn_xasprintf("%" PRIu64,
			    s->workload.reads));
	}
	if (s->workload.kind == SCN_WL_CF_CHURN) {
		strv_flag(&a, "--cf-count", dn_xasprintf("%" PRIu32,
		    s->workload.cf_count));
		if (s->workload.cf_options != NULL)
			strv_flag(&a, "--cf-options",
			    dn_xstrdup(s->workload.cf_options));
		if (s->workload.cf_cycles != 0)
			strv_flag(&a, "--cf-cycles", dn_xasprintf("%" PRIu32,
			    s->workload.cf_cycles));
	}
	/* Extra args last: the node's getopt lets a later flag win. */
	for (i = 0; i < vs->nargs; i++)
		strv_add(&a, dn_xstrdup(vs->args[i]));
	for (i = 0; i < o->nargs; i++)
		strv_add(&a, dn_xstrdup(o->args[i]));
	strv_add(&e, NULL);	/* an empty environment is still an array */
	e.n = 0;
	if (!ep->token_argv)
		strv_add(&e, dn_xasprintf("%s=%016" PRIx64, DN_NODE_TOKEN_ENV,
		    ep->token));
	for (i = 0; i < vs->nenv; i++)
		strv_add(&e, dn_xstrdup(vs->env[i]));
	for (i = 0; i < o->nenv; i++)
		strv_add(&e, dn_xstrdup(o->env[i]));
	plan_clock_env(ep, node, &e, NULL);
	*argvp = a.v;
	*envp = e.v;
	return (0);
}

void
plan_argv_free(char **v)
{
	strv_free(v);
}

/* Print S shell-quoted (for display only: nothing is ever run by a shell). */
void
plan_put_quoted(FILE *out, const char *s)
{
	const char	*safe = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_@%+=:,./-";

	if (*s != '\0' && strspn(s, safe) == strlen(s)) {
		fputs(s, out);
		return;
	}
	fputc('\'', out);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			fputs("'\\''", out);
		else
			fputc(*s, out);
	}
	fputc('\'', out);
}

char *
plan_quote_argv(char *const *argv)
{
	char	*buf = NULL;
	size_t	 len = 0;
	FILE	*f;
	size_t	 i;

	if ((f = open_memstream(&buf, &len)) == NULL)
		return (dn_xstrdup("?"));
	for (i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			fputc(' ', f);
		plan_put_quoted(f, argv[i]);
	}
	fclose(f);
	return (buf);
}
