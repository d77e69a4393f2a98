/*
 * probe-links.c: which links of the emulated network the per-link probe
 * measures (issue 40).  A small network is probed on every directed link,
 * as before; past PLAN_PROBE_ALL_MAX links (55 endpoints) probing them
 * all costs more than the nodes' own traffic (100 nodes: 10,100 links,
 * 20,000 probes a second and as many echoes through the emulator), so a
 * sample is drawn from the seed that still holds every condition class
 * the proofs check.  Pure computation, like plan.c.  Not here: sending
 * the probes (net/probe.c), the proofs (run/netproof.c); why a sampled
 * proof stays sound and what it cannot see: docs/network.md.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "rng.h"
#include "xalloc.h"

/* A partition's every ordered group pair on this many links: a cut that
 * lets some of its links through (DN_TEST_BREAK=partition: half) is
 * missed only when every link drawn is one it kept cut, 1 in 256 for
 * half. */
#define GROUP_MIN	8

struct pick {
	const struct scenario	*s;
	int			 n;	/* endpoints; n - 1 is the load */
	uint8_t			*sel;	/* n x n */
	size_t			 nsel;
	uint64_t		 rs;
	int			*cand;	/* scratch: n x n link indices */
};

static void
take(struct pick *p, int s, int d)
{
	uint8_t *c = &p->sel[(size_t)s * p->n + d];

	if (s == d || *c)
		return;
	*c = 1;
	p->nsel++;
}

/* The condition class of S -> D: the load's links one class (they take
 * network.links' default), else the ordered pair of the zones (-1: in no
 * zone). */
static int
class_of(const struct pick *p, int s, int d)
{
	int	nz = (int)p->s->network.nzones + 1;
	int	zs, zd;

	if (s == p->n - 1 || d == p->n - 1)
		return (nz * nz);
	zs = p->s->network.zone_of[s] + 1;
	zd = p->s->network.zone_of[d] + 1;
	return (zs * nz + zd);
}

/* Which links MATCH(P, S, D, ARG) keeps (NULL: all): at least WANT of
 * them probed, taken at random from the seed among those not yet
 * probed.  A scan of every link: call it for what is missing. */
static void
at_least(struct pick *p, int want, int (*match)(const struct pick *, int,
    int, const void *), const void *arg)
{
	int	s, d, have = 0, nc = 0, i, j, t;

	for (s = 0; s < p->n; s++)
		for (d = 0; d < p->n; d++) {
			if (s == d || (match != NULL && !match(p, s, d, arg)))
				continue;
			if (p->sel[(size_t)s * p->n + d])
				have++;
			else
				p->cand[nc++] = s * p->n + d;
		}
	/* a partial Fisher-Yates: the first WANT - HAVE at random */
	for (i = 0; i < nc && have < want; i++, have++) {
		j = i + (int)(dn_rand64(&p->rs) % (uint64_t)(nc - i));
		t = p->cand[i], p->cand[i] = p->cand[j], p->cand[j] = t;
		take(p, p->cand[i] / p->n, p->cand[i] % p->n);
	}
}

static int
in_class(const struct pick *p, int s, int d, const void *arg)
{
	return (class_of(p, s, d) == *(const int *)arg);
}

static int
from_node(const struct pick *p, int s, int d, const void *arg)
{
	(void)p;
	(void)d;
	return (s == *(const int *)arg);
}

static int
to_node(const struct pick *p, int s, int d, const void *arg)
{
	(void)p;
	(void)s;
	return (d == *(const int *)arg);
}

/* A partition's groups GA -> GB (the group past the last: the nodes no
 * group names); the load stands outside them. */
struct gpair {
	const struct scn_event	*ev;
	int			 ga, gb;
};

static int
group_of(const struct scn_event *ev, int k)
{
	return (ev->group_of[k] < 0 ? ev->ngroups : ev->group_of[k]);
}

static int
across_groups(const struct pick *p, int s, int d, const void *arg)
{
	const struct gpair *g = arg;

	if (s == p->n - 1 || d == p->n - 1)
		return (0);
	return (group_of(g->ev, s) == g->ga && group_of(g->ev, d) == g->gb);
}

static void
cover_events(struct pick *p)
{
	const struct scn_event	*ev;
	struct gpair		 g;
	size_t			 i, j;
	int			 k;

	for (i = 0; i < p->s->nevents; i++) {
		ev = &p->s->events[i];
		if (ev->action == SCN_EV_LINK)
			for (j = 0; j < ev->nnodes; j++) {
				k = ev->nodes[j];
				at_least(p, PLAN_PROBE_CLASS_MIN, from_node,
				    &k);
				at_least(p, PLAN_PROBE_CLASS_MIN, to_node, &k);
			}
		if (ev->action != SCN_EV_PARTITION)
			continue;
		g.ev = ev;
		for (g.ga = 0; g.ga <= ev->ngroups; g.ga++)
			for (g.gb = 0; g.gb <= ev->ngroups; g.gb++)
				if (g.ga != g.gb)
					at_least(p, GROUP_MIN, across_groups,
					    &g);
	}
}

static int
clamp_hz(size_t links)
{
	size_t hz = PLAN_PROBE_TOTAL_HZ / (links + 1);

	return (hz > 20 ? 20 : hz < 2 ? 2 : (int)hz);
}

uint8_t *
plan_probe_links(const struct scenario *s, int endpoints, size_t *n,
    int *rate_hz)
{
	struct pick	 p = { .s = s, .n = endpoints };
	size_t		 all = (size_t)endpoints * (size_t)(endpoints - 1);
	uint8_t		*peers;
	int		 i, k, nodes = endpoints - 1;
	int		 nc = ((int)s->network.nzones + 1) *
			    ((int)s->network.nzones + 1) + 1;

	*n = all;
	*rate_hz = clamp_hz(all);
	if (s->network.probe_links == SCN_PROBE_ALL ||
	    (s->network.probe_links == SCN_PROBE_AUTO &&
	    all <= PLAN_PROBE_ALL_MAX))
		return (NULL);
	p.sel = dn_xcalloc(all + (size_t)endpoints, 1);
	p.cand = dn_xcalloc(all + 1, sizeof(int));
	p.rs = s->seed ^ 0x70726f62653a3430ull;		/* "probe:40" */
	/* the links in use: the gossip graph's, the load's to every node */
	if ((peers = plan_peer_graph(s)) != NULL)
		for (i = 0; i < nodes; i++)
			for (k = 0; k < nodes; k++)
				if (peers[(size_t)i * nodes + k])
					take(&p, i, k);
	free(peers);
	for (i = 0; i < nodes && s->network.peers > 0; i++) {
		take(&p, nodes, i);
		take(&p, i, nodes);
	}
	/* every condition class, every event's nodes and groups */
	for (k = 0; k < nc; k++)
		at_least(&p, PLAN_PROBE_CLASS_MIN, in_class, &k);
	cover_events(&p);
	/* every endpoint at least once each way */
	for (i = 0; i < endpoints; i++) {
		int out = 0, in = 0;

		for (k = 0; k < endpoints; k++) {
			out |= p.sel[(size_t)i * endpoints + k];
			in |= p.sel[(size_t)k * endpoints + i];
		}
		if (!out)
			at_least(&p, 1, from_node, &i);
		if (!in)
			at_least(&p, 1, to_node, &i);
	}
	/* then at random, up to the fill */
	if (p.nsel < PLAN_PROBE_FILL)
		at_least(&p, PLAN_PROBE_FILL, NULL, NULL);
	free(p.cand);
	*n = p.nsel;
	*rate_hz = clamp_hz(p.nsel);
	return (p.sel);
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t	x = *(const int64_t *)a, y = *(const int64_t *)b;

	return ((x > y) - (x < y));
}

int64_t
plan_probe_window_ms(const struct scenario *s, size_t variant)
{
	const char	*name = s->variants[variant].name;
	int64_t		*at, best = 0, w;
	size_t		 i, n = 0;

	at = dn_xcalloc(2 * s->nevents + 2, sizeof(*at));
	at[n++] = s->warmup_ms;
	at[n++] = s->duration_ms;
	for (i = 0; i < s->nevents; i++) {
		const struct scn_event *ev = &s->events[i];

		if (ev->action < SCN_EV_PARTITION || (ev->variant != NULL &&
		    strcmp(ev->variant, name) != 0) ||
		    ev->at_ms >= s->duration_ms)
			continue;
		at[n++] = ev->at_ms;
		if (ev->action == SCN_EV_LINK && ev->for_ms > 0 &&
		    ev->at_ms + ev->for_ms < s->duration_ms)
			at[n++] = ev->at_ms + ev->for_ms;
	}
	qsort(at, n, sizeof(*at), cmp_i64);
	/* the last window ends with the probe, at the trial's end; the
	 * others in flight before the next change */
	for (i = 0; i + 1 < n; i++) {
		w = at[i + 1] - at[i] - (i + 2 < n ? 2 : 1) *
		    PLAN_PROOF_SETTLE_MS;
		if (w > best)
			best = w;
	}
	free(at);
	return (best);
}
