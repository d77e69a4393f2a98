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
#include <errno.h>
#include <limits.h>
#include <pwd.h>
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
	"user", "port_base", "ports_per_node", "peer", "ready", "stop",
	"exit", "count_allocs", "log_limit", "metrics", NULL };
static const char *const kind_names[] = { "devnet-node", "command", NULL };
static const char *const ready_keys[] = { "tcp", "http", "log", "delay",
	NULL };
static const char *const stop_keys[] = { "signal", "grace", NULL };
static const char *const exit_names[] = { "crash", "expected", NULL };

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
	expand_one(&o->json_url, var);
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
			rc = scn_check_regex(c, v, w, 0);
		}
		free(w);
		if (rc != 0)
			return (-1);
	}
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
	scn_strv_free(o->env, o->nenv);
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

/* node.user: an account of this host that is not root (a server that
 * refuses to run as root, or one run as its packaged user). */
static int
get_user(struct ctx *c, const struct ynode *v, struct scn_node *o)
{
	struct passwd	*pw;

	if (scn_get_str(c, v, "node.user", &o->user) != 0)
		return (-1);
	errno = 0;
	if ((pw = getpwnam(o->user)) == NULL)
		return (scn_fail(c, v, "node.user: no user '%s' on this host%s"
		    " (a name from /etc/passwd: the command runs as it, with "
		    "its groups)", o->user, errno != 0 ? ": cannot read the "
		    "user database" : ""));
	if (pw->pw_uid == 0)
		return (scn_fail(c, v, "node.user: '%s' is root; drop the "
		    "key to run the command as devnet's user", o->user));
	return (0);
}

/* Fill O from mapping N (keys present replace what O held). */
static int
load_map(struct ctx *c, const struct ynode *n, struct scn_node *o,
    struct nload *l)
{
	const struct ynode	*v, *m, *urls[2];
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
		if (scn_get_strv(c, v, "node.command", &o->command, &o->ncommand,
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
	if ((v = ymap_get(n, "user")) != NULL && get_user(c, v, o) != 0)
		return (-1);
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
		if (scn_load_metrics(c, v, o, urls) != 0)
			return (-1);
		for (k = 0; k < 2; k++)
			if (urls[k] != NULL)
				want_tmpl(l, urls[k], 0);
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
		if (o->user != NULL) {
			rc = scn_fail(c, where, "variant %s: node.user is for "
			    "node.command (devnet-node runs as devnet's "
			    "user)", var->name);
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
	if (o->json_url != NULL && o->prom_url != NULL && o->json_every > 0 &&
	    o->prom_every > 0 && o->json_every != o->prom_every) {
		rc = scn_fail(c, where, "variant %s: node.metrics.json.every "
		    "%d and prometheus.every %d: both pages are read in the "
		    "same scrape; give one 'every'", var->name,
		    o->json_every, o->prom_every);
		goto out;
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

	scn_strv_free(o->command, o->ncommand);
	scn_strv_free(o->env, o->nenv);
	free(o->cwd);
	free(o->user);
	free(o->peer);
	for (i = 0; i < o->nready; i++)
		free(o->ready[i].arg);
	free(o->ready);
	scn_metrics_release(o);
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
