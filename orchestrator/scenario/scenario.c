/*
 * scenario.c: load a scenario YAML file strictly into struct scenario, and
 * scenario_free.  Reference for every key: docs/scenarios.md.
 *
 * Two passes.  First libyaml's event API builds a small tree of scalars,
 * mappings and sequences, each node with its 1-based line and column;
 * anchors, aliases, tags, deep nesting and duplicate keys are refused here
 * (yaml-tree.c).  Then --set overrides are grafted onto the tree (marked
 * with their origin so that their errors name "--set K=V" instead of a
 * position; scenario-set.c), and a hand-written schema walk fills struct
 * scenario, checking every key, type and range.  This file reads the file,
 * runs the passes, walks the top level and resolves the node binaries; the
 * sections have their own loaders (scenario-network.c, -workload.c,
 * -variants.c, -build.c, -events.c, -settings.c, -node.c, -assert.c), built on the
 * key checks (scenario-keys.c) and the typed getters (scenario-get.c).  Internal
 * interfaces: scenario-internal.h.  Not here: the trial plan and node argv
 * (plan/plan.c).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario/scenario-internal.h"
#include "xalloc.h"

#define SCN_MAX_BYTES	(1024 * 1024)	/* larger files are refused unread */

/* --- pass 2: the schema ------------------------------------------------- */

/* KEY (better, type) of metrics.log.NAME or metrics.json.fields.NAME in
 * NODE (a node: mapping), or NULL. */
static const struct ynode *
opt_of(const struct ynode *node, const char *name, const char *key)
{
	const struct ynode	*m, *ms = ymap_get(node, "metrics");

	if ((m = ymap_get(ymap_get(ms, "log"), name)) == NULL)
		m = ymap_get(ymap_get(ymap_get(ms, "json"), "fields"), name);
	return (m != NULL && m->type == Y_MAP ? ymap_get(m, key) : NULL);
}

/* One name, one kind: a counter in one variant is a counter in all. */
static int
check_kinds(struct ctx *c, const struct scenario *s, size_t i,
    const struct ynode *top, const struct ynode *own)
{
	const struct scn_node	*a = &s->variants[i].node, *b;
	const struct ynode	*at;
	size_t			 j, k, l;

	for (k = 0; k < a->nlogm; k++) {
		for (j = 0; j < i; j++) {
			b = &s->variants[j].node;
			for (l = 0; l < b->nlogm; l++) {
				if (strcmp(b->logm[l].name,
				    a->logm[k].name) != 0 ||
				    b->logm[l].counter == a->logm[k].counter)
					continue;
				if ((at = opt_of(own, a->logm[k].name,
				    "type")) == NULL && (at = opt_of(top,
				    a->logm[k].name, "type")) == NULL &&
				    (at = own) == NULL)
					at = top;
				return (scn_fail(c, at, "node.metrics: '%s' is "
				    "a %s in variant %s and a %s in variant "
				    "%s; one name has one type (rename one)",
				    a->logm[k].name, a->logm[k].counter ?
				    "counter" : "gauge", s->variants[i].name,
				    b->logm[l].counter ? "counter" : "gauge",
				    s->variants[j].name));
			}
		}
	}
	return (0);
}

/*
 * One name, one direction: variant I's metrics.log directions against
 * the variants before it (compare reads one direction per name; the
 * database keeps it, store-names.c).  OWN is I's node: mapping, TOP the
 * top level's, for the position.
 */
static int
check_directions(struct ctx *c, const struct scenario *s, size_t i,
    const struct ynode *top, const struct ynode *own)
{
	const struct scn_node	*a = &s->variants[i].node, *b;
	const struct ynode	*at;
	size_t			 j, k, l;

	for (k = 0; k < a->nlogm; k++) {
		if (a->logm[k].better == NULL)
			continue;
		for (j = 0; j < i; j++) {
			b = &s->variants[j].node;
			for (l = 0; l < b->nlogm; l++) {
				if (b->logm[l].better == NULL ||
				    strcmp(b->logm[l].name,
				    a->logm[k].name) != 0 ||
				    strcmp(b->logm[l].better,
				    a->logm[k].better) == 0)
					continue;
				if ((at = opt_of(own, a->logm[k].name,
				    "better")) == NULL)
					at = opt_of(top, a->logm[k].name,
					    "better");
				return (scn_fail(c, at, "node.metrics.%s.%s."
				    "better: %s in variant %s, %s in variant "
				    "%s; one name has one direction (rename "
				    "one)", a->logm[k].path != NULL ?
				    "json.fields" : "log", a->logm[k].name,
				    a->logm[k].better, s->variants[i].name,
				    b->logm[l].better, s->variants[j].name));
			}
		}
	}
	return (0);
}

/* Every variant's node: the top level's node:, then its own (a variant's
 * keys replace the top level's).  Foreign nodes (node.command) have no
 * devnet-node inside: the workloads that need one are refused. */
static int
load_nodes(struct ctx *c, struct scenario *s, const struct ynode *root)
{
	const struct ynode	*top = ymap_get(root, "node");
	const struct ynode	*vars = ymap_get(root, "variants"), *own;
	size_t			 i;

	for (i = 0; i < s->nvariants; i++) {
		own = vars != NULL ? ymap_get(vars, s->variants[i].name) :
		    NULL;
		own = own != NULL && own->type == Y_MAP ? ymap_get(own,
		    "node") : NULL;
		if (scn_load_node(c, s, top, own, &s->variants[i]) != 0 ||
		    check_directions(c, s, i, top, own) != 0 ||
		    check_kinds(c, s, i, top, own) != 0 ||
		    scn_check_foreign_overrides(c, s, ymap_get(ymap_get(root,
		    "network"), "overrides"), &s->variants[i]) != 0)
			return (-1);
		if (s->variants[i].node.kind == SCN_NODE_COMMAND &&
		    s->workload.kind != SCN_WL_IDLE &&
		    s->workload.kind != SCN_WL_HTTP &&
		    s->workload.kind != SCN_WL_COMMAND)
			return (scn_fail(c, ymap_get(ymap_get(root,
			    "workload"), "kind"), "workload kind %s needs "
			    "devnet-node nodes, but variant %s runs "
			    "node.command (a foreign node); use kind none, "
			    "or http or command for a load from outside the "
			    "nodes",
			    ymap_get(ymap_get(root, "workload"),
			    "kind")->value, s->variants[i].name));
		if (s->variants[i].node.kind == SCN_NODE_COMMAND &&
		    s->workload.tps > 0 &&
		    s->workload.kind != SCN_WL_HTTP &&
		    s->workload.kind != SCN_WL_COMMAND)
			return (scn_fail(c, ymap_get(ymap_get(root,
			    "workload"), "tps"), "workload.tps sends devnet "
			    "transactions, which variant %s's foreign nodes "
			    "cannot take", s->variants[i].name));
	}
	return (0);
}

/* M's value at the dotted PATH ("ready.http"), or NULL. */
static const struct ynode *
path_get(const struct ynode *m, const char *path)
{
	char		 key[32];
	const char	*dot;
	size_t		 len;

	while (m != NULL && m->type == Y_MAP && *path != '\0') {
		dot = strchr(path, '.');
		len = dot != NULL ? (size_t)(dot - path) : strlen(path);
		if (len >= sizeof(key))
			return (NULL);
		memcpy(key, path, len);
		key[len] = '\0';
		m = ymap_get(m, key);
		path += len + (dot != NULL);
		if (dot == NULL)
			return (m);
	}
	return (NULL);
}

/* The first scalar under N (a scalar, or a list or map of them) that
 * names the loopback address, or NULL. */
static const struct ynode *
loopback_in(const struct ynode *n)
{
	const struct ynode	*hit;
	size_t			 i;

	if (n == NULL)
		return (NULL);
	if (n->value != NULL && (strstr(n->value, "127.0.0.1") != NULL ||
	    strstr(n->value, "localhost") != NULL))
		return (n);
	for (i = n->type == Y_MAP ? 1 : 0; i < n->nkids;
	    i += n->type == Y_MAP ? 2 : 1)
		if ((hit = loopback_in(n->kids[i])) != NULL)
			return (hit);
	return (NULL);
}

/* Under network conditions each foreign node runs in a network namespace
 * of its own (issue 20), where 127.0.0.1 is the node itself: a peer, a
 * ready check, a scrape or a request written with it would reach no
 * node, or the wrong one, and the trial would end in a ready timeout or
 * a cluster that never forms.  Refused where it is written, with what to
 * write instead. */
/* Under conditions each node and the load take an address 10.99.K.2 of
 * the emulated network: K is 0..254 (net/topo.h's DN_NET_MAX). */
static int
check_net_size(struct ctx *c, const struct scenario *s,
    const struct ynode *root)
{
	if (!scenario_has_conditions(s) ||
	    s->network.nodes <= SCN_NET_NODES_MAX)
		return (0);
	return (scn_fail(c, path_get(root, "network.nodes"), "network.nodes "
	    "%d under network conditions: at most %d (each node and the "
	    "load take an address 10.99.K.2, K up to 254); run fewer "
	    "nodes", s->network.nodes, SCN_NET_NODES_MAX));
}

static int
check_loopback(struct ctx *c, const struct scenario *s,
    const struct ynode *root)
{
	static const char *const keys[] = { "command", "env", "peer",
		"ready.tcp", "ready.http", "metrics.prometheus.url", NULL };
	const struct ynode	*nodes[2], *hit = NULL;
	const char		*what = "workload.url";
	size_t			 i, j, k;

	if (!scenario_has_conditions(s))
		return (0);
	for (i = 0; i < s->nvariants && hit == NULL; i++) {
		if (s->variants[i].node.kind != SCN_NODE_COMMAND)
			continue;
		if (s->workload.kind == SCN_WL_HTTP)
			hit = loopback_in(path_get(root, "workload.url"));
		if (s->workload.kind == SCN_WL_COMMAND && (hit =
		    loopback_in(path_get(root, "workload.command"))) != NULL)
			what = "workload.command";
		nodes[0] = ymap_get(root, "node");
		nodes[1] = path_get(path_get(root, "variants"),
		    s->variants[i].name);
		nodes[1] = path_get(nodes[1], "node");
		for (j = 0; j < 2 && hit == NULL; j++)
			for (k = 0; keys[k] != NULL && hit == NULL; k++)
				if ((hit = loopback_in(path_get(nodes[j],
				    keys[k]))) != NULL)
					what = keys[k];
	}
	if (hit == NULL)
		return (0);
	return (scn_fail(c, hit, "%s%s: '%s' under network conditions: each "
	    "node runs in a network namespace of its own, where 127.0.0.1 "
	    "is the node itself, out of its peers' and the load's reach; "
	    "write {addr}, the node's own address (10.99.K.2 under "
	    "conditions, 127.0.0.1 without; 0.0.0.0 to listen on every "
	    "address)", strncmp(what, "workload.", 9) == 0 ? "" : "node.",
	    what, hit->value));
}

static const char *const top_keys[] = { "name", "description", "duration",
	"warmup", "sample_interval", "seed", "network", "workload", "rocksdb",
	"read_options", "write_options", "variants", "build", "repeats",
	"order", "events", "provider", "image", "resources", "placement",
	"node", "swarm", "assert", "vars", "compare", "pin", NULL };
static const char *const order_names[] = { "abba", "concurrent", NULL };
/* indexed by enum scn_pin from 1 (0: not written) */
static const char *const pin_names[] = { "duet", "none", NULL };

static int
load_top(struct ctx *c, struct scenario *s, const struct ynode *root)
{
	const struct ynode *v;
	int64_t		    i64;
	int		    k;

	if (scn_check_map(c, root, "the scenario", top_keys) != 0)
		return (-1);
	if ((v = ymap_get(root, "name")) == NULL)
		return (scn_fail(c, root, "the scenario needs a 'name'"));
	if (scn_get_str(c, v, "name", &s->name) != 0)
		return (-1);
	if (s->name[0] == '\0')
		return (scn_fail(c, v, "name must not be empty"));
	if ((v = ymap_get(root, "description")) != NULL &&
	    scn_get_str(c, v, "description", &s->description) != 0)
		return (-1);
	if ((v = ymap_get(root, "duration")) == NULL)
		return (scn_fail(c, root, "the scenario needs a 'duration' "
		    "(e.g. 10s, 15m, 2h30m)"));
	if (scn_get_duration(c, v, "duration", 1, 30 * DAY_MS,
	    &s->duration_ms) != 0)
		return (-1);
	if ((v = ymap_get(root, "warmup")) != NULL) {
		if (scn_get_duration(c, v, "warmup", 0, 30 * DAY_MS,
		    &s->warmup_ms) != 0)
			return (-1);
		if (s->warmup_ms >= s->duration_ms)
			return (scn_fail(c, v, "warmup (%s) must be shorter "
			    "than duration", v->value));
	}
	if ((v = ymap_get(root, "sample_interval")) != NULL &&
	    scn_get_duration(c, v, "sample_interval", 100, 3600000,
	    &s->sample_interval_ms) != 0)
		return (-1);
	if (s->sample_interval_ms > s->duration_ms)
		return (scn_fail(c, v != NULL ? v : ymap_get(root, "duration"),
		    "sample_interval must not exceed duration (a run needs at "
		    "least one sample)"));
	if ((v = ymap_get(root, "seed")) != NULL) {
		if (scn_get_int(c, v, "seed", 0, INT64_MAX, &i64) != 0)
			return (-1);
		s->seed = (uint64_t)i64;
	}
	if ((v = ymap_get(root, "network")) == NULL)
		return (scn_fail(c, root, "the scenario needs 'network' with "
		    "at least 'nodes'"));
	if (scn_load_network(c, s, v) != 0)
		return (-1);
	if ((v = ymap_get(root, "workload")) != NULL) {
		if (scn_load_workload(c, s, v) != 0)
			return (-1);
	}
	if (s->workload.ramp_ms > s->duration_ms)
		return (scn_fail(c, ymap_get(ymap_get(root, "workload"),
		    "ramp"), "workload.ramp.over must not exceed duration"));
	if ((v = ymap_get(root, "rocksdb")) != NULL &&
	    scn_load_rocksdb(c, v, "rocksdb", &s->rocksdb_options,
	    &s->block_cache) != 0)
		return (-1);
	if ((v = ymap_get(root, "read_options")) != NULL &&
	    scn_get_mode(c, v, "read_options", &s->read_options) != 0)
		return (-1);
	if ((v = ymap_get(root, "write_options")) != NULL &&
	    scn_get_mode(c, v, "write_options", &s->write_options) != 0)
		return (-1);
	if (scn_load_variants(c, s, ymap_get(root, "variants")) != 0 ||
	    scn_load_vars(c, s, root) != 0 ||
	    scn_load_build(c, s, ymap_get(root, "build")) != 0)
		return (-1);
	if ((v = ymap_get(root, "repeats")) != NULL &&
	    scn_get_int32(c, v, "repeats", 1, 1000, &s->repeats) != 0)
		return (-1);
	s->repeats_set = v != NULL;
	k = SCN_ORDER_ABBA;
	if ((v = ymap_get(root, "order")) != NULL &&
	    scn_get_enum(c, v, "order", order_names, &k) != 0)
		return (-1);
	s->order = (enum scn_order)k;
	if (s->order == SCN_ORDER_CONCURRENT &&
	    s->network.tcp_base_port != 0 && s->network.tcp_base_port +
	    2 * s->network.nodes * (int)s->nvariants > 65536)
		return (scn_fail(c, ymap_get(ymap_get(root, "network"),
		    "tcp_base_port"), "network.tcp_base_port %d leaves too "
		    "few ports for %zu concurrent devnets of %d nodes (2 "
		    "ports per node); lower it", s->network.tcp_base_port,
		    s->nvariants, s->network.nodes));
	if ((v = ymap_get(root, "pin")) != NULL) {
		if (scn_get_enum(c, v, "pin", pin_names, &k) != 0)
			return (-1);
		s->pin = (enum scn_pin)(k + 1);
	}
	if ((v = ymap_get(root, "events")) != NULL &&
	    scn_load_events(c, s, v) != 0)
		return (-1);
	if (scn_load_provider(c, s, root) != 0 ||
	    load_nodes(c, s, root) != 0 || check_net_size(c, s, root) != 0 ||
	    check_loopback(c, s, root) != 0)
		return (-1);
	if (scn_load_compare(c, s, ymap_get(root, "compare")) != 0)
		return (-1);
	if ((v = ymap_get(root, "assert")) != NULL &&
	    scn_load_asserts(c, s, v) != 0)
		return (-1);
	return (0);
}

/* Every variant runs a binary: its own, the default one, or (rev) the one
 * built before the trials (plan/rev-build.c). */
static int
resolve_binaries(struct ctx *c, struct scenario *s)
{
	struct stat	 st;
	char		*abs;
	size_t		 i;

	if (c->default_binary == NULL)
		return (0);
	for (i = 0; i < s->nvariants; i++) {
		if (s->variants[i].set.binary != NULL ||
		    s->variants[i].set.rev != NULL)
			continue;
		if ((abs = realpath(c->default_binary, NULL)) == NULL ||
		    stat(abs, &st) != 0 || !S_ISREG(st.st_mode) ||
		    access(abs, X_OK) != 0) {
			free(abs);
			c->cause = dn_xasprintf("%s: node binary '%s' is "
			    "missing or not executable (build devnet-node, "
			    "or set variants.%s.binary)", c->name,
			    c->default_binary, s->variants[i].name);
			return (-1);
		}
		s->variants[i].set.binary = abs;
	}
	return (0);
}

void
scenario_free(struct scenario *s)
{
	size_t	i;

	if (s == NULL)
		return;
	for (i = 0; i < s->nprimary; i++)
		free(s->primary[i]);
	free(s->primary);
	free(s->path);
	free(s->text);
	free(s->name);
	free(s->description);
	free(s->network.listen);
	for (i = 0; i < s->network.noverrides; i++)
		scn_settings_release(&s->network.overrides[i].set);
	free(s->network.overrides);
	for (i = 0; i < s->network.nzones; i++)
		free(s->network.zones[i]);
	free(s->network.zones);
	free(s->network.zone_of);
	free(s->network.zlinks);
	free(s->workload.cf_options);
	free(s->workload.method);
	free(s->workload.url);
	free(s->workload.body);
	for (i = 0; i < s->workload.nheaders; i++)
		free(s->workload.headers[i]);
	free(s->workload.headers);
	free(s->workload.expect_status);
	for (i = 0; i < s->workload.ncommand; i++)
		free(s->workload.command[i]);
	free(s->workload.command);
	for (i = 0; i < s->workload.ncmd_env; i++)
		free(s->workload.cmd_env[i]);
	free(s->workload.cmd_env);
	free(s->rocksdb_options);
	free(s->read_options);
	free(s->write_options);
	for (i = 0; i < s->nvariants; i++) {
		free(s->variants[i].name);
		free(s->variants[i].git_commit);
		free(s->variants[i].git_describe);
		scn_settings_release(&s->variants[i].set);
		scn_node_release(&s->variants[i].node);
		scn_vars_release(&s->variants[i]);
	}
	scn_build_release(&s->build);
	free(s->variants);
	for (i = 0; i < s->nevents; i++) {
		free(s->events[i].variant);
		free(s->events[i].group_of);
		free(s->events[i].nodes);
		free(s->events[i].name);
	}
	for (i = 0; i < s->nasserts; i++)
		scn_assert_release(&s->asserts[i]);
	free(s->asserts);
	free(s->events);
	scn_settings_release(&s->container);
	free(s->placement);
	for (i = 0; i < s->nengines; i++) {
		free(s->engines[i].host);
		free(s->engines[i].url);
	}
	free(s->engines);
	free(s);
}

int
scenario_load_buffer(struct scenario **sp, const char *name, const char *buf,
    size_t len, char *const *sets, size_t nsets, const char *default_binary,
    char **cause)
{
	struct ctx	  c = { .name = name, .text = buf, .len = len,
			    .default_binary = default_binary };
	struct scenario	 *s = NULL;
	struct ynode	 *root = NULL;
	char		**origins = NULL;
	size_t		  i;
	int		  rc = -1;

	*sp = NULL;
	*cause = NULL;
	if (len > SCN_MAX_BYTES) {
		c.cause = dn_xasprintf("%s: %zu bytes is too large for a "
		    "scenario (at most 1 MiB); is it the right file?", name,
		    len);
		goto out;
	}
	for (i = 0; i < len && strchr(" \t\r\n", buf[i]) != NULL &&
	    buf[i] != '\0'; i++)
		continue;
	if (i == len) {
		c.cause = dn_xasprintf("%s:1:1: empty scenario; it needs at "
		    "least 'name', 'duration' and 'network' (see "
		    "docs/scenarios.md)", name);
		goto out;
	}
	if (memchr(buf, '\0', len) != NULL) {
		const char *z = memchr(buf, '\0', len);
		int	    line = 1, col = 1;
		const char *q;

		for (q = buf; q < z; q++, col++)
			if (*q == '\n') {
				line++;
				col = 0;
			}
		c.cause = dn_xasprintf("%s:%d:%d: a NUL byte; a scenario is a "
		    "YAML text file, is it the right file?", name, line, col);
		goto out;
	}
	if (ytree_parse(&c, &root) != 0)
		goto out;
	origins = dn_xcalloc(nsets ? nsets : 1, sizeof(*origins));
	for (i = 0; i < nsets; i++) {
		origins[i] = dn_xasprintf("--set %s", sets[i]);
		if (scn_apply_set(&c, root, sets[i], origins[i]) != 0)
			goto out;
	}
	s = dn_xcalloc(1, sizeof(*s));
	s->path = dn_xstrdup(name);
	s->text = dn_xstrndup(buf, len);
	s->sample_interval_ms = 1000;
	s->seed = 1;
	s->network.block_interval_ms = 1000;
	s->network.accounts = 10000;
	s->network.block_max_txs = 10000;
	s->network.listen = dn_xstrdup("ipc");
	s->workload.kind = SCN_WL_IDLE;
	s->workload.zipf_s = 1.1;
	s->workload.cf_count = 200;
	s->read_options = dn_xstrdup("cached");
	s->write_options = dn_xstrdup("cached");
	s->repeats = 1;
	if (load_top(&c, s, root) != 0 || resolve_binaries(&c, s) != 0)
		goto out;
	*sp = s;
	s = NULL;
	rc = 0;
out:
	if (rc != 0)
		*cause = c.cause != NULL ? c.cause :
		    dn_xasprintf("%s: invalid scenario", name);
	else
		free(c.cause);
	scenario_free(s);
	ynode_free(root);
	for (i = 0; origins != NULL && i < nsets; i++)
		free(origins[i]);
	free(origins);
	return (rc);
}

int
scenario_load(struct scenario **sp, const char *path, char *const *sets,
    size_t nsets, const char *default_binary, char **cause)
{
	struct stat	 st;
	char		*buf = NULL;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd, rc = -1;

	*sp = NULL;
	*cause = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		*cause = dn_xasprintf("%s: cannot open: %s", path,
		    strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		*cause = dn_xasprintf("%s: not a scenario file (a directory?)",
		    path);
		goto out;
	}
	if (S_ISREG(st.st_mode) && st.st_size > SCN_MAX_BYTES) {
		*cause = dn_xasprintf("%s: %lld bytes is too large for a "
		    "scenario (at most 1 MiB); is it the right file?", path,
		    (long long)st.st_size);
		goto out;
	}
	/* Read at most one byte past the limit: pipes have no size. */
	buf = dn_xmalloc(SCN_MAX_BYTES + 2);
	while (len < SCN_MAX_BYTES + 1) {
		n = read(fd, buf + len, SCN_MAX_BYTES + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*cause = dn_xasprintf("%s: cannot read: %s", path,
			    strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	rc = scenario_load_buffer(sp, path, buf, len, sets, nsets,
	    default_binary, cause);
out:
	free(buf);
	close(fd);
	return (rc);
}
