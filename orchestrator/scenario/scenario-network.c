/*
 * scenario-network.c: the network: section (nodes, gossip peers, the
 * probed links, block timing, accounts, ipc or tcp, per-node
 * overrides).  Not here: the override settings themselves
 * (scenario-settings.c), the node argv made from them (plan/plan.c).
 */
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "xalloc.h"

static const char *const network_keys[] = { "nodes", "peers",
	"block_interval",
	"accounts", "block_max_txs", "block_reads", "listen", "tcp_base_port",
	"overrides", "zones", "links", "probe_links", NULL };
static const char *const override_keys[] = { "node", "binary",
	"read_options", "write_options", "rocksdb", "args", "env", "image",
	"resources", NULL };
static const char *const listen_names[] = { "ipc", "tcp", NULL };
/* in the order of SCN_PROBE_* */
static const char *const probe_names[] = { "auto", "all", "sampled", NULL };

/* network.peers: D (2 and up; N - 1 or more is the full mesh) or all. */
static int
load_peers(struct ctx *c, struct scenario *s, const struct ynode *v)
{
	int	d, nodes = s->network.nodes;

	if (v->type == Y_SCALAR && strcmp(v->value, "all") == 0) {
		s->network.peers = 0;
		return (0);
	}
	if (scn_get_int32(c, v, "network.peers", 0, 4096, &d) != 0)
		return (-1);
	if (d == 1)
		return (scn_fail(c, v, "network.peers 1 cannot join %d nodes "
		    "into one graph; give 2 or more, or 'all'", nodes));
	if (d == 0 || d >= nodes - 1) {
		s->network.peers = 0;	/* every other node: the full mesh */
		return (0);
	}
	if ((d * nodes) % 2 != 0)
		return (scn_fail(c, v, "network.peers %d with %d nodes: every "
		    "edge joins two nodes, so peers times nodes must be even; "
		    "give %d or %d", d, nodes, d - 1, d + 1));
	s->network.peers = d;
	return (0);
}

int
scn_load_network(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	const struct ynode *v, *ov, *nodev = NULL;
	char		   *w;
	size_t		    i, j;
	int		    li = 0;

	if (scn_check_map(c, n, "network", network_keys) != 0)
		return (-1);
	if ((v = ymap_get(n, "nodes")) == NULL)
		return (scn_fail(c, n, "network needs 'nodes' (how many "
		    "devnet-node processes, 1..256)"));
	if (scn_get_int32(c, v, "network.nodes", 1, 256,
	    &s->network.nodes) != 0)
		return (-1);
	if ((v = ymap_get(n, "peers")) != NULL && load_peers(c, s, v) != 0)
		return (-1);
	if ((v = ymap_get(n, "probe_links")) != NULL &&
	    scn_get_enum(c, v, "network.probe_links", probe_names,
	    &s->network.probe_links) != 0)
		return (-1);
	if ((v = ymap_get(n, "block_interval")) != NULL &&
	    scn_get_duration(c, v, "network.block_interval", 10, 3600000,
	    &s->network.block_interval_ms) != 0)
		return (-1);
	if ((v = ymap_get(n, "accounts")) != NULL &&
	    scn_get_u32(c, v, "network.accounts", 2, 100000000,
	    &s->network.accounts) != 0)
		return (-1);
	if ((v = ymap_get(n, "block_max_txs")) != NULL &&
	    scn_get_u32(c, v, "network.block_max_txs", 1, 1000000,
	    &s->network.block_max_txs) != 0)
		return (-1);
	if ((v = ymap_get(n, "block_reads")) != NULL &&
	    scn_get_u32(c, v, "network.block_reads", 0, 10000000,
	    &s->network.block_reads) != 0)
		return (-1);
	if ((v = ymap_get(n, "listen")) != NULL &&
	    scn_get_enum(c, v, "network.listen", listen_names, &li) != 0)
		return (-1);
	free(s->network.listen);
	s->network.listen = dn_xstrdup(listen_names[li]);
	v = ymap_get(n, "tcp_base_port");
	if (li == 1 && v == NULL)
		return (scn_fail(c, ymap_get(n, "listen"), "network.listen "
		    "tcp needs network.tcp_base_port (nodes listen on "
		    "127.0.0.1, two ports per node from there)"));
	if (li == 0 && v != NULL)
		return (scn_fail(c, v, "network.tcp_base_port only applies "
		    "with 'listen: tcp'; remove it or set listen"));
	if (v != NULL && scn_get_int32(c, v, "network.tcp_base_port", 1024,
	    65535 - 2 * s->network.nodes + 1, &s->network.tcp_base_port) != 0)
		return (-1);
	if (scn_load_links(c, s, n) != 0)
		return (-1);
	if ((ov = ymap_get(n, "overrides")) == NULL)
		return (0);
	if (ov->type != Y_SEQ)
		return (scn_fail(c, ov, "network.overrides must be a list of "
		    "{node: K, ...settings}, not a %s", ynode_type_name(ov)));
	s->network.overrides = dn_xcalloc(ov->nkids ? ov->nkids : 1,
	    sizeof(*s->network.overrides));
	for (i = 0; i < ov->nkids; i++) {
		struct scn_override *o = &s->network.overrides[i];
		int		     rc;

		s->network.noverrides++;
		w = dn_xasprintf("network.overrides[%zu]", i);
		rc = scn_load_settings(c, ov->kids[i], w, override_keys,
		    &o->set);
		if (rc == 0 && (nodev = ymap_get(ov->kids[i], "node")) == NULL)
			rc = scn_fail(c, ov->kids[i], "%s needs 'node' (the "
			    "index of the node it changes)", w);
		free(w);
		if (rc != 0 || scn_get_int32(c, nodev,
		    "network.overrides[].node", 0, s->network.nodes - 1,
		    &o->node) != 0)
			return (-1);
		for (j = 0; j < i; j++)
			if (s->network.overrides[j].node == o->node)
				return (scn_fail(c, nodev, "node %d already "
				    "has an override (overrides[%zu]); merge "
				    "them", o->node, j));
	}
	return (0);
}
