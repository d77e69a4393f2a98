/*
 * peer-graph.c: devnet-node's gossip graph (network.peers, issue 40),
 * made from the scenario's seed: every node gets exactly D peers, the
 * graph connected and undirected.  Pure computation, like plan.c.  Not
 * here: the relaying itself (node/gossip.c, node/sync.c), nor storing
 * the graph (run/setup.c, facts `peers`).
 *
 * The construction: a circulant graph (node at position i joined to
 * i +- 1 .. D/2, and to i + N/2 when D is odd) on an order of the nodes
 * drawn from the seed, then 10 * N * D random double-edge swaps (a-b,
 * c-d -> a-c, b-d), each kept only when it makes no loop nor a second
 * edge.  Swaps keep every degree, and enough of them make the graph a
 * near-uniform random D-regular one; the circulant start makes it
 * connected, and the result is checked (a disconnected one is drawn
 * again, and after 8 tries the circulant itself is taken).
 * With zones the order puts each zone's nodes together and a swap is
 * kept only when it adds no edge across zones: peers are mostly inside
 * the zone, and the few edges across (where the ring passes from one
 * zone to the next) keep the zones joined.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "rng.h"
#include "xalloc.h"

#define GRAPH_TRIES	8

struct graph {
	int		 n, d;
	uint8_t		*m;	/* n x n adjacency */
	int		*ea, *eb;	/* the n * d / 2 edges */
	int		 ne;
	const int	*zone;	/* [n] or NULL */
};

static int
across(const struct graph *g, int a, int b)
{
	return (g->zone != NULL && g->zone[a] != g->zone[b]);
}

static void
edge(struct graph *g, int a, int b)
{
	g->m[(size_t)a * g->n + b] = g->m[(size_t)b * g->n + a] = 1;
	g->ea[g->ne] = a;
	g->eb[g->ne++] = b;
}

/* The circulant on ORDER: connected for D >= 2. */
static void
circulant(struct graph *g, const int *order)
{
	int	i, off, n = g->n;

	memset(g->m, 0, (size_t)n * n);
	g->ne = 0;
	for (off = 1; off <= g->d / 2; off++)
		for (i = 0; i < n; i++)
			edge(g, order[i], order[(i + off) % n]);
	if (g->d % 2 == 1)
		for (i = 0; i < n / 2; i++)
			edge(g, order[i], order[i + n / 2]);
}

static void
swaps(struct graph *g, uint64_t *rs)
{
	long	 k, rounds = 10L * g->n * g->d;
	int	 i, j, a, b, c, d, t;
	size_t	 n = (size_t)g->n;

	for (k = 0; k < rounds; k++) {
		i = (int)(dn_rand64(rs) % (uint64_t)g->ne);
		j = (int)(dn_rand64(rs) % (uint64_t)g->ne);
		a = g->ea[i], b = g->eb[i], c = g->ea[j], d = g->eb[j];
		if (dn_rand64(rs) & 1)
			t = c, c = d, d = t;
		/* a-b, c-d -> a-c, b-d */
		if (a == c || b == d || a == d || b == c ||
		    g->m[a * n + c] || g->m[b * n + d])
			continue;
		if (across(g, a, c) + across(g, b, d) >
		    across(g, a, b) + across(g, c, d))
			continue;
		g->m[a * n + b] = g->m[b * n + a] = 0;
		g->m[c * n + d] = g->m[d * n + c] = 0;
		g->m[a * n + c] = g->m[c * n + a] = 1;
		g->m[b * n + d] = g->m[d * n + b] = 1;
		g->ea[i] = a, g->eb[i] = c;
		g->ea[j] = b, g->eb[j] = d;
	}
}

/* 1 when the N x N adjacency M is one connected graph. */
static int
graph_connected(const uint8_t *m, int n)
{
	int	*queue, head = 0, tail = 0, v, w, ok;
	uint8_t	*seen;

	if (n <= 1)
		return (1);
	queue = dn_xcalloc((size_t)n, sizeof(int));
	seen = dn_xcalloc((size_t)n, 1);
	seen[0] = 1;
	queue[tail++] = 0;
	while (head < tail) {
		v = queue[head++];
		for (w = 0; w < n; w++)
			if (m[(size_t)v * n + w] && !seen[w]) {
				seen[w] = 1;
				queue[tail++] = w;
			}
	}
	ok = tail == n;
	free(queue);
	free(seen);
	return (ok);
}

/* A zone's nodes together (no zone: last), shuffled inside each. */
static void
draw_order(int *order, int n, const int *zone, uint64_t *rs)
{
	int	i, j, t, lo, hi;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n - 1; i > 0; i--) {
		j = (int)(dn_rand64(rs) % (uint64_t)(i + 1));
		t = order[i], order[i] = order[j], order[j] = t;
	}
	if (zone == NULL)
		return;
	/* a stable insertion sort by zone keeps the shuffle inside it */
	for (i = 1; i < n; i++) {
		t = order[i];
		lo = zone[t] < 0 ? INT32_MAX : zone[t];
		for (j = i - 1; j >= 0; j--) {
			hi = zone[order[j]] < 0 ? INT32_MAX : zone[order[j]];
			if (hi <= lo)
				break;
			order[j + 1] = order[j];
		}
		order[j + 1] = t;
	}
}

/* The N x N adjacency (caller frees), or NULL when D is not in
 * 2..N-2 or N * D is odd. */
static uint8_t *
peer_graph(int n, int d, const int *zone, uint64_t seed)
{
	struct graph	 g = { .n = n, .d = d, .zone = zone };
	uint64_t	 rs = seed ^ 0x70656572733a3430ull;	/* "peers:40" */
	int		*order, i, nz = 0;

	if (n < 1 || d < 2 || d >= n - 1 || (n * d) % 2 != 0)
		return (NULL);
	for (i = 0; zone != NULL && i < n; i++)
		nz |= zone[i] >= 0;
	if (!nz)
		g.zone = NULL;
	g.m = dn_xcalloc((size_t)n * n, 1);
	g.ea = dn_xcalloc((size_t)n * d / 2, sizeof(int));
	g.eb = dn_xcalloc((size_t)n * d / 2, sizeof(int));
	order = dn_xcalloc((size_t)n, sizeof(int));
	draw_order(order, n, g.zone, &rs);
	for (i = 0; i < GRAPH_TRIES; i++) {
		circulant(&g, order);
		swaps(&g, &rs);
		if (graph_connected(g.m, n))
			break;
	}
	if (i == GRAPH_TRIES)
		circulant(&g, order);
	free(order);
	free(g.ea);
	free(g.eb);
	return (g.m);
}

/*
 * The last graph made: a plan asks for one node's list at a time, once
 * per node and variant (400 graphs of 200 nodes for devnet-200.yaml, most
 * of `devnet validate`'s 0.23 s).  Kept while the nodes, the degree, the
 * seed and the zones are the same; the graph is a function of them.
 */
static pthread_mutex_t	 graph_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int		 n, d;
	uint64_t	 seed;
	int		*zone;	/* [n] or NULL */
	uint8_t		*m;
} graph_last;

uint8_t *
plan_peer_graph(const struct scenario *s)
{
	const int	*zone = s->network.zone_of;
	int		 n = s->network.nodes, d = s->network.peers;
	size_t		 zlen = (size_t)n * sizeof(int);
	uint8_t		*m;

	if (d == 0)
		return (NULL);
	pthread_mutex_lock(&graph_mu);
	if (graph_last.m != NULL && graph_last.n == n && graph_last.d == d &&
	    graph_last.seed == s->seed &&
	    (zone == NULL) == (graph_last.zone == NULL) &&
	    (zone == NULL || memcmp(zone, graph_last.zone, zlen) == 0)) {
		m = dn_xmemdup(graph_last.m, (size_t)n * n);
		pthread_mutex_unlock(&graph_mu);
		return (m);
	}
	pthread_mutex_unlock(&graph_mu);
	if ((m = peer_graph(n, d, zone, s->seed)) == NULL)
		return (NULL);
	pthread_mutex_lock(&graph_mu);
	free(graph_last.zone);
	free(graph_last.m);
	graph_last.n = n;
	graph_last.d = d;
	graph_last.seed = s->seed;
	graph_last.zone = zone != NULL ? dn_xmemdup(zone, zlen) : NULL;
	graph_last.m = dn_xmemdup(m, (size_t)n * n);
	pthread_mutex_unlock(&graph_mu);
	return (m);
}

char *
plan_peer_list(const struct scenario *s, int node)
{
	uint8_t	*m;
	char	*list = NULL, *t;
	int	 k, n = s->network.nodes;

	if ((m = plan_peer_graph(s)) == NULL)
		return (NULL);
	for (k = 0; k < n; k++) {
		if (!m[(size_t)node * n + k])
			continue;
		t = list == NULL ? dn_xasprintf("%d", k) :
		    dn_xasprintf("%s,%d", list, k);
		free(list);
		list = t;
	}
	free(m);
	return (list);
}
