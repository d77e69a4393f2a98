/*
 * scenario-node.c: the node: section, at the top level and per variant (a
 * variant's keys replace the top level's, key by key): which program a
 * node runs and how devnet starts, watches, stops and measures it.  The
 * default kind is devnet-node; `command:` makes every node of the variant
 * a foreign node run by devnet-probe (docs/foreign-nodes.md).
 *
 * Its templates ({index}, {port+1}, {peers}, ...) are checked here, in
 * the one template language (template.c), with a bad one an error at
 * FILE:LINE:COL.  Not here: expanding them and the probe's command line
 * (plan/plan-foreign.c), running it (node-kind/foreign.c).
 */
#include <sys/stat.h>

#include <ctype.h>
#include <limits.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metric-table.h"
#include "protocol.h"
#include "scenario/scenario-internal.h"
#include "scenario/template.h"
#include "xalloc.h"

#define DEFAULT_PORT_BASE	20000
#define DEFAULT_PORTS		10
#define DEFAULT_GRACE_MS	5000

static const char *const node_keys[] = { "kind", "command", "env", "cwd",
	"port_base", "ports_per_node", "peer", "ready", "stop", "exit",
	"count_allocs", "log_limit", "metrics", NULL };
static const char *const kind_names[] = { "devnet-node", "command", NULL };
static const char *const ready_keys[] = { "tcp", "http", "log", "delay",
	NULL };
static const char *const stop_keys[] = { "signal", "grace", NULL };
static const char *const exit_names[] = { "crash", "expected", NULL };
static const char *const metrics_keys[] = { "log", "prometheus", NULL };
static const char *const logm_keys[] = { "regex", "better", NULL };
static const char *const better_names[] = { "higher", "lower", "neutral",
	NULL };
static const char *const prom_keys[] = { "url", "map", "keep", "every",
	NULL };

/* --- templates --------------------------------------------------------- */

/* Check node template N (a scalar) in the one template language
 * (template.c): {peers} only where PEERS allows, {port+N} below PORTS,
 * {addr:K} and {port:K} below NODES. */
static int
check_tmpl(struct ctx *c, const struct ynode *n, const char *what,
    int peers, int ports, int nodes, const struct scn_variant *var)
{
	char	*why = NULL, *x = scn_vars_expand(var, n->value);
	int	 rv;

	rv = load_tmpl_check_node(x, peers, ports, nodes, &why);
	free(x);
	if (rv == 0)
		return (0);
	rv = scn_fail(c, n, "%s: %s%s", what, why, var->nvars > 0 ?
	    " or a name of vars:" : "");
	free(why);
	return (rv);
}

static void
expand_one(char **sp, const struct scn_variant *var)
{
	char	*x;

	if (*sp == NULL)
		return;
	x = scn_vars_expand(var, *sp);
	free(*sp);
	*sp = x;
}

/* VAR's vars put into every template of its node: the command's
 * arguments, env, cwd, peer, ready checks, the Prometheus URL. */
static void
expand_vars(struct scn_node *o, const struct scn_variant *var)
{
	size_t	i;

	if (var->nvars == 0)
		return;
	for (i = 1; i < o->ncommand; i++)
		expand_one(&o->command[i], var);
	for (i = 0; i < o->nenv; i++)
		expand_one(&o->env[i], var);
	for (i = 0; i < o->nready; i++)
		expand_one(&o->ready[i].arg, var);
	expand_one(&o->cwd, var);
	expand_one(&o->peer, var);
	expand_one(&o->prom_url, var);
}

/* The templates met while loading, checked once the merged section is
 * known (ports_per_node may come after them, or from the top level). */
struct tmpl {
	const struct ynode	*n;
	int			 peers;
};

struct nload {
	struct tmpl	*t;
	size_t		 nt;
	const struct ynode *command;	/* for binary resolution */
	const struct ynode *peer;
};

static void
want_tmpl(struct nload *l, const struct ynode *n, int peers)
{
	l->t = dn_xreallocarray(l->t, l->nt + 1, sizeof(*l->t));
	l->t[l->nt].n = n;
	l->t[l->nt++].peers = peers;
}

/* --- the section -------------------------------------------------------- */

static void
list_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int
get_bool(struct ctx *c, const struct ynode *n, const char *what, int *out)
{
	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	if (n->plain && (strcmp(n->value, "true") == 0 ||
	    strcmp(n->value, "yes") == 0)) {
		*out = 1;
		return (0);
	}
	if (n->plain && (strcmp(n->value, "false") == 0 ||
	    strcmp(n->value, "no") == 0)) {
		*out = 0;
		return (0);
	}
	return (scn_fail(c, n, "%s must be true or false (got '%s')", what,
	    n->value));
}

/* A list of strings into *V / *N (replacing them). */
static int
get_list(struct ctx *c, const struct ynode *n, const char *what,
    char ***v, size_t *nv, int min)
{
	size_t	i;

	if (n->type != Y_SEQ || n->nkids < (size_t)min)
		return (scn_fail(c, n, "%s must be a list of strings%s, e.g. "
		    "[prog, --flag, '{index}'], not a %s", what, min ?
		    " (at least one)" : "", ynode_type_name(n)));
	list_free(*v, *nv);
	*v = dn_xcalloc(n->nkids + 1, sizeof(**v));
	*nv = 0;
	for (i = 0; i < n->nkids; i++) {
		if (scn_get_str(c, n->kids[i], what, &(*v)[*nv]) != 0)
			return (-1);
		(*nv)++;
	}
	return (0);
}

static int
get_signal(struct ctx *c, const struct ynode *n, int *sig)
{
	const char	*name;
	int		 i;

	if (scn_want_scalar(c, n, "node.stop.signal") != 0)
		return (-1);
	name = n->value;
	if (strncmp(name, "SIG", 3) == 0)
		name += 3;
	for (i = 1; i < NSIG; i++) {
		const char	*abbrev = sigabbrev_np(i);

		if (abbrev != NULL && strcmp(abbrev, name) == 0 &&
		    i != SIGSTOP && i != SIGCHLD) {
			*sig = i;
			return (0);
		}
	}
	return (scn_fail(c, n, "node.stop.signal: unknown signal '%s' (e.g. "
	    "TERM, INT, QUIT, KILL)", n->value));
}

static int
check_regex(struct ctx *c, const struct ynode *n, const char *what,
    int one_capture)
{
	regex_t	re;
	char	err[200];
	int	rv;

	if ((rv = regcomp(&re, n->value, REG_EXTENDED)) != 0) {
		regerror(rv, &re, err, sizeof(err));
		return (scn_fail(c, n, "%s: bad regex '%s': %s", what,
		    n->value, err));
	}
	rv = one_capture && re.re_nsub != 1;
	if (rv)
		scn_fail(c, n, "%s: regex '%s' has %zu capture groups; it "
		    "needs exactly one, around the number", what, n->value,
		    (size_t)re.re_nsub);
	regfree(&re);
	return (rv ? -1 : 0);
}

static int
load_ready(struct ctx *c, const struct ynode *n, struct scn_node *o,
    struct nload *l)
{
	size_t	i;

	if (scn_check_map(c, n, "node.ready", ready_keys) != 0)
		return (-1);
	if (n->nkids == 0)
		return (scn_fail(c, n, "node.ready needs one of tcp, http, "
		    "log or delay"));
	for (i = 0; i < o->nready; i++)
		free(o->ready[i].arg);
	free(o->ready);
	o->ready = dn_xcalloc(n->nkids / 2, sizeof(*o->ready));
	o->nready = 0;
	for (i = 0; i + 1 < n->nkids; i += 2) {
		const struct ynode	*k = n->kids[i], *v = n->kids[i + 1];
		struct scn_ready	*r = &o->ready[o->nready++];
		char			*w = dn_xasprintf("node.ready.%s",
					    k->value);
		int			 rc = 0;

		if (strcmp(k->value, "delay") == 0) {
			r->kind = SCN_READY_DELAY;
			rc = scn_get_duration(c, v, w, 0, 3600000, &r->ms);
		} else if (scn_get_str(c, v, w, &r->arg) != 0) {
			rc = -1;
		} else if (strcmp(k->value, "tcp") == 0) {
			const char *colon = strrchr(r->arg, ':');

			r->kind = SCN_READY_TCP;
			if (colon == NULL || colon == r->arg ||
			    colon[1] == '\0')
				rc = scn_fail(c, v, "%s must be HOST:PORT, "
				    "e.g. '127.0.0.1:{port}'", w);
			else
				want_tmpl(l, v, 0);
		} else if (strcmp(k->value, "http") == 0) {
			r->kind = SCN_READY_HTTP;
			if (strncmp(r->arg, "http://", 7) != 0 &&
			    strncmp(r->arg, "https://", 8) != 0)
				rc = scn_fail(c, v, "%s must be an http:// "
				    "URL", w);
			else
				want_tmpl(l, v, 0);
		} else {
			r->kind = SCN_READY_LOG;
			rc = check_regex(c, v, w, 0);
		}
		free(w);
		if (rc != 0)
			return (-1);
	}
	return (0);
}

/* devnet-probe sends its own count of failed scrapes under this name. */
#define RESERVED	"node.metrics.%s: '%s' is reserved (devnet-probe's " \
			"count of failed Prometheus scrapes); choose another " \
			"name"

static int
load_logm(struct ctx *c, const struct ynode *n, struct scn_node *o)
{
	size_t	i, j;

	if (n->type != Y_MAP || n->nkids == 0)
		return (scn_fail(c, n, "node.metrics.log must be a mapping of "
		    "NAME: 'regex with one capture', not a %s",
		    ynode_type_name(n)));
	for (i = 0; i < o->nlogm; i++) {
		free(o->logm[i].name);
		free(o->logm[i].regex);
		free(o->logm[i].better);
	}
	free(o->logm);
	o->logm = dn_xcalloc(n->nkids / 2, sizeof(*o->logm));
	o->nlogm = 0;
	for (i = 0; i + 1 < n->nkids; i += 2) {
		const struct ynode	*k = n->kids[i], *v = n->kids[i + 1];
		const struct ynode	*re = v, *b;
		struct scn_log_metric	*m = &o->logm[o->nlogm++];
		char			*w;
		int			 id, bi, rc;

		m->name = dn_xstrdup(k->value);
		id = dn_metric_lookup(k->value);
		if (id >= 0 && dn_metric_defs[id].source != DN_SOURCE_N)
			return (scn_fail(c, k, "node.metrics.log: '%s' comes "
			    "from the load generator, not a node", k->value));
		if (id < 0 && !dn_named_name_ok(k->value))
			return (scn_fail(c, k, "node.metrics.log: bad metric "
			    "name '%s' (letters, digits, _ : ., not starting "
			    "with a digit or '.')", k->value));
		if (strcmp(k->value, DN_NAME_SCRAPE_FAILURES) == 0)
			return (scn_fail(c, k, RESERVED, "log", k->value));
		w = dn_xasprintf("node.metrics.log.%s", k->value);
		if (v->type == Y_MAP) {
			if (scn_check_map(c, v, w, logm_keys) != 0 ||
			    (re = ymap_get(v, "regex")) == NULL) {
				rc = re == NULL && c->cause == NULL ?
				    scn_fail(c, v, "%s needs 'regex'", w) : -1;
				free(w);
				return (rc);
			}
			if ((b = ymap_get(v, "better")) != NULL) {
				if (id >= 0) {
					free(w);
					return (scn_fail(c, b, "node.metrics."
					    "log.%s: a table metric's "
					    "direction is fixed", k->value));
				}
				if (scn_get_enum(c, b, "better", better_names,
				    &bi) != 0) {
					free(w);
					return (-1);
				}
				m->better = dn_xstrdup(better_names[bi]);
			}
		}
		rc = scn_get_str(c, re, w, &m->regex) != 0 ||
		    check_regex(c, re, w, 1) != 0 ? -1 : 0;
		free(w);
		if (rc != 0)
			return (-1);
		for (j = 0; j + 1 < o->nlogm; j++)
			if (strcmp(o->logm[j].name, m->name) == 0)
				return (scn_fail(c, k, "node.metrics.log: "
				    "'%s' twice", k->value));
	}
	return (0);
}

static int
load_prom(struct ctx *c, const struct ynode *n, struct scn_node *o,
    struct nload *l)
{
	const struct ynode	*v;
	size_t			 i;

	if (scn_check_map(c, n, "node.metrics.prometheus", prom_keys) != 0)
		return (-1);
	if ((v = ymap_get(n, "url")) == NULL)
		return (scn_fail(c, n, "node.metrics.prometheus needs 'url' "
		    "(e.g. 'http://127.0.0.1:{port}/metrics')"));
	if (scn_get_str(c, v, "node.metrics.prometheus.url", &o->prom_url) !=
	    0)
		return (-1);
	if (strncmp(o->prom_url, "http://", 7) != 0 &&
	    strncmp(o->prom_url, "https://", 8) != 0)
		return (scn_fail(c, v, "node.metrics.prometheus.url must be "
		    "an http:// URL"));
	want_tmpl(l, v, 0);
	o->prom_every = 0;
	if ((v = ymap_get(n, "every")) != NULL &&
	    scn_get_int32(c, v, "node.metrics.prometheus.every", 1, 1000,
	    &o->prom_every) != 0)
		return (-1);
	list_free(o->prom_map, o->nprom_map);
	o->prom_map = NULL;
	o->nprom_map = 0;
	if ((v = ymap_get(n, "map")) != NULL) {
		if (v->type != Y_MAP)
			return (scn_fail(c, v, "node.metrics.prometheus.map "
			    "must be a mapping of DEVNET_NAME: "
			    "exposition_name, not a %s", ynode_type_name(v)));
		o->prom_map = dn_xcalloc(v->nkids / 2 + 1,
		    sizeof(*o->prom_map));
		for (i = 0; i + 1 < v->nkids; i += 2) {
			const struct ynode *k = v->kids[i];

			if (dn_metric_lookup(k->value) < 0 &&
			    !dn_named_name_ok(k->value))
				return (scn_fail(c, k, "node.metrics."
				    "prometheus.map: bad metric name '%s'",
				    k->value));
			if (strcmp(k->value, DN_NAME_SCRAPE_FAILURES) == 0)
				return (scn_fail(c, k, RESERVED,
				    "prometheus.map", k->value));
			if (scn_want_scalar(c, v->kids[i + 1],
			    "node.metrics.prometheus.map") != 0)
				return (-1);
			o->prom_map[o->nprom_map++] = dn_xasprintf("%s=%s",
			    k->value, v->kids[i + 1]->value);
		}
	}
	list_free(o->prom_keep, o->nprom_keep);
	o->prom_keep = NULL;
	o->nprom_keep = 0;
	if ((v = ymap_get(n, "keep")) != NULL &&
	    get_list(c, v, "node.metrics.prometheus.keep", &o->prom_keep,
	    &o->nprom_keep, 1) != 0)
		return (-1);
	for (i = 0; i < o->nprom_keep; i++)
		if (!dn_named_name_ok(o->prom_keep[i]))
			return (scn_fail(c, v->kids[i], "node.metrics."
			    "prometheus.keep: '%s' cannot be stored under "
			    "that name", o->prom_keep[i]));
		else if (strcmp(o->prom_keep[i], DN_NAME_SCRAPE_FAILURES) == 0)
			return (scn_fail(c, v->kids[i], RESERVED,
			    "prometheus.keep", o->prom_keep[i]));
	return (0);
}

static int
load_env(struct ctx *c, const struct ynode *n, struct scn_node *o,
    struct nload *l)
{
	size_t	i;

	if (n->type != Y_MAP)
		return (scn_fail(c, n, "node.env must be a mapping of NAME: "
		    "value, not a %s", ynode_type_name(n)));
	list_free(o->env, o->nenv);
	o->env = dn_xcalloc(n->nkids / 2 + 1, sizeof(*o->env));
	o->nenv = 0;
	for (i = 0; i + 1 < n->nkids; i += 2) {
		const struct ynode	*k = n->kids[i], *v = n->kids[i + 1];
		const char		*p = k->value;

		if (!(isalpha((unsigned char)*p) || *p == '_') ||
		    strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrs"
		    "tuvwxyz0123456789_") != strlen(p))
			return (scn_fail(c, k, "'%s' is not a valid "
			    "environment variable name", p));
		if (scn_want_scalar(c, v, "node.env") != 0)
			return (-1);
		want_tmpl(l, v, 1);
		o->env[o->nenv++] = dn_xasprintf("%s=%s", p, v->value);
	}
	return (0);
}

/* Fill O from mapping N (keys present replace what O held). */
static int
load_map(struct ctx *c, const struct ynode *n, struct scn_node *o,
    struct nload *l)
{
	const struct ynode	*v, *m;
	size_t			 i;
	int			 k;

	if (scn_check_map(c, n, "node", node_keys) != 0)
		return (-1);
	if ((v = ymap_get(n, "kind")) != NULL) {
		if (scn_get_enum(c, v, "node.kind", kind_names, &k) != 0)
			return (-1);
		o->kind = (enum scn_node_kind)k;
	}
	if ((v = ymap_get(n, "command")) != NULL) {
		if (get_list(c, v, "node.command", &o->command, &o->ncommand,
		    1) != 0)
			return (-1);
		if (strchr(o->command[0], '{') != NULL)
			return (scn_fail(c, v->kids[0], "node.command: the "
			    "program ('%s') cannot hold placeholders",
			    o->command[0]));
		for (i = 1; i < v->nkids; i++)
			want_tmpl(l, v->kids[i], 1);
		l->command = v;
		if (ymap_get(n, "kind") == NULL)
			o->kind = SCN_NODE_COMMAND;
	}
	if ((v = ymap_get(n, "env")) != NULL && load_env(c, v, o, l) != 0)
		return (-1);
	if ((v = ymap_get(n, "cwd")) != NULL) {
		if (scn_get_str(c, v, "node.cwd", &o->cwd) != 0)
			return (-1);
		want_tmpl(l, v, 0);
	}
	if ((v = ymap_get(n, "port_base")) != NULL &&
	    scn_get_int32(c, v, "node.port_base", 1024, 65535,
	    &o->port_base) != 0)
		return (-1);
	if ((v = ymap_get(n, "ports_per_node")) != NULL &&
	    scn_get_int32(c, v, "node.ports_per_node", 1, 1000,
	    &o->ports_per_node) != 0)
		return (-1);
	if ((v = ymap_get(n, "peer")) != NULL) {
		if (scn_get_str(c, v, "node.peer", &o->peer) != 0)
			return (-1);
		want_tmpl(l, v, 0);
		l->peer = v;
	}
	if ((v = ymap_get(n, "ready")) != NULL && load_ready(c, v, o, l) != 0)
		return (-1);
	if ((v = ymap_get(n, "stop")) != NULL) {
		if (scn_check_map(c, v, "node.stop", stop_keys) != 0)
			return (-1);
		if ((m = ymap_get(v, "signal")) != NULL &&
		    get_signal(c, m, &o->stop_signal) != 0)
			return (-1);
		if ((m = ymap_get(v, "grace")) != NULL &&
		    scn_get_duration(c, m, "node.stop.grace", 0, 3600000,
		    &o->stop_grace_ms) != 0)
			return (-1);
	}
	if ((v = ymap_get(n, "exit")) != NULL) {
		if (scn_get_enum(c, v, "node.exit", exit_names, &k) != 0)
			return (-1);
		o->exit_expected = k == 1;
	}
	if ((v = ymap_get(n, "count_allocs")) != NULL &&
	    get_bool(c, v, "node.count_allocs", &o->count_allocs) != 0)
		return (-1);
	if ((v = ymap_get(n, "log_limit")) != NULL &&
	    scn_get_size(c, v, "node.log_limit", 4096, 1ULL << 50,
	    &o->log_limit) != 0)
		return (-1);
	if ((v = ymap_get(n, "metrics")) != NULL) {
		if (scn_check_map(c, v, "node.metrics", metrics_keys) != 0)
			return (-1);
		if ((m = ymap_get(v, "log")) != NULL &&
		    load_logm(c, m, o) != 0)
			return (-1);
		if ((m = ymap_get(v, "prometheus")) != NULL &&
		    load_prom(c, m, o, l) != 0)
			return (-1);
	}
	return (0);
}

/* PATH search for PROG as execvp would: an absolute path or NULL.  The
 * name is kept, symlinks and all: a multi-call program (redis-server ->
 * redis-check-rdb, busybox applets) picks its job by the name it was
 * started under (issue 25). */
static char *
which(const char *prog)
{
	const char	*path = getenv("PATH"), *p, *e;
	char		*cand, cwd[PATH_MAX];
	struct stat	 st;

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return (NULL);
	if (strchr(prog, '/') != NULL) {
		cand = prog[0] == '/' ? dn_xstrdup(prog) :
		    dn_xasprintf("%s/%s", cwd, prog);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return (cand);
		free(cand);
		return (NULL);
	}
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p != '\0'; p = *e ? e + 1 : e) {
		e = strchrnul(p, ':');
		if (e == p || *p != '/')	/* "" or relative: from cwd */
			cand = dn_xasprintf("%s/%.*s%s%s", cwd, (int)(e - p),
			    p, e == p ? "" : "/", prog);
		else
			cand = dn_xasprintf("%.*s/%s", (int)(e - p), p, prog);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(cand, X_OK) == 0)
			return (cand);
		free(cand);
	}
	return (NULL);
}

int
scn_load_node(struct ctx *c, struct scenario *s, const struct ynode *top,
    const struct ynode *own, struct scn_variant *var)
{
	struct scn_node	*o = &var->node;
	struct nload	 l = { 0 };
	const struct ynode *where = own != NULL ? own : top;
	size_t		 i;
	int		 rc = -1, span;

	o->port_base = DEFAULT_PORT_BASE;
	o->ports_per_node = DEFAULT_PORTS;
	o->stop_signal = SIGTERM;
	o->stop_grace_ms = DEFAULT_GRACE_MS;
	if (top != NULL && load_map(c, top, o, &l) != 0)
		goto out;
	if (own != NULL && load_map(c, own, o, &l) != 0)
		goto out;
	if (o->kind == SCN_NODE_DEVNET) {
		if (where != NULL && o->ncommand > 0) {
			rc = scn_fail(c, where, "variant %s: node.kind "
			    "devnet-node with a node.command; remove one",
			    var->name);
			goto out;
		}
		rc = 0;
		goto out;
	}
	if (o->ncommand == 0) {
		rc = scn_fail(c, where, "variant %s: node.kind command needs "
		    "node.command (a list: program and arguments)",
		    var->name);
		goto out;
	}
	if (var->set.binary != NULL || var->set.nargs > 0 ||
	    var->set.read_options != NULL || var->set.rocksdb_options !=
	    NULL) {
		rc = scn_fail(c, where, "variant %s runs node.command; its "
		    "devnet-node settings (binary, args, read_options, "
		    "rocksdb) do not apply; put them in the command",
		    var->name);
		goto out;
	}
	for (i = 0; i < l.nt; i++)
		if (check_tmpl(c, l.t[i].n, "node", l.t[i].peers,
		    o->ports_per_node, s->network.nodes, var) != 0)
			goto out;
	expand_vars(o, var);
	for (i = 0; i < l.nt; i++) {
		if (strstr(l.t[i].n->value, "{peers}") != NULL &&
		    o->peer == NULL) {
			rc = scn_fail(c, l.t[i].n, "{peers} needs node.peer, "
			    "the template of one peer's address (e.g. "
			    "'n{index}=http://127.0.0.1:{port+1}')");
			goto out;
		}
	}
	span = o->ports_per_node * s->network.nodes *
	    (s->order == SCN_ORDER_CONCURRENT ? (int)s->nvariants : 1);
	if (o->port_base + span > 65536) {
		rc = scn_fail(c, where, "node.port_base %d + %d ports (nodes "
		    "x ports_per_node%s) passes 65535; lower it", o->port_base,
		    span, s->order == SCN_ORDER_CONCURRENT ? " x variants" :
		    "");
		goto out;
	}
	if (c->default_binary != NULL) {
		free(var->set.binary);
		if ((var->set.binary = which(o->command[0])) == NULL) {
			rc = scn_fail(c, l.command != NULL ?
			    l.command->kids[0] : where, "node.command: "
			    "program '%s' not found or not executable "
			    "(PATH is searched; install it or give a path)",
			    o->command[0]);
			goto out;
		}
	}
	rc = 0;
out:
	free(l.t);
	return (rc);
}

void
scn_node_release(struct scn_node *o)
{
	size_t	i;

	list_free(o->command, o->ncommand);
	list_free(o->env, o->nenv);
	free(o->cwd);
	free(o->peer);
	for (i = 0; i < o->nready; i++)
		free(o->ready[i].arg);
	free(o->ready);
	for (i = 0; i < o->nlogm; i++) {
		free(o->logm[i].name);
		free(o->logm[i].regex);
		free(o->logm[i].better);
	}
	free(o->logm);
	free(o->prom_url);
	list_free(o->prom_map, o->nprom_map);
	list_free(o->prom_keep, o->nprom_keep);
}

int
scn_check_foreign_overrides(struct ctx *c, const struct scenario *s,
    const struct ynode *ov, const struct scn_variant *var)
{
	static const char *const dn_only[] = { "read_options",
		"write_options", "rocksdb", NULL };
	const struct ynode	*e, *v;
	size_t			 i, j;

	if (var->node.kind != SCN_NODE_COMMAND || ov == NULL ||
	    ov->type != Y_SEQ)
		return (0);
	for (i = 0; i < ov->nkids; i++) {
		e = ov->kids[i];
		for (j = 0; dn_only[j] != NULL; j++)
			if ((v = ymap_get(e, dn_only[j])) != NULL)
				return (scn_fail(c, v, "network.overrides[%zu]."
				    "%s is a devnet-node setting, but variant "
				    "%s runs node.command; give that node its "
				    "own args or env here instead", i,
				    dn_only[j], var->name));
		if ((v = ymap_get(e, "args")) != NULL && v->type == Y_SEQ)
			for (j = 0; j < v->nkids; j++)
				if (check_tmpl(c, v->kids[j],
				    "network.overrides[].args", 0,
				    var->node.ports_per_node,
				    s->network.nodes, var) != 0)
					return (-1);
		if ((v = ymap_get(e, "env")) != NULL && v->type == Y_MAP)
			for (j = 1; j < v->nkids; j += 2)
				if (check_tmpl(c, v->kids[j],
				    "network.overrides[].env", 0,
				    var->node.ports_per_node,
				    s->network.nodes, var) != 0)
					return (-1);
	}
	return (0);
}
