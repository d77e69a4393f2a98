/*
 * netcond.c: a trial's emulated network (issue 20): the namespaces of
 * orchestrator/net/ made before its nodes start, the conditions of
 * network.links and of the partition, heal and link events turned into
 * the hub's rules (net/nft.c) and the emulator's links (net/delay.c), and
 * the proof that each took effect: the per-link probe (net/probe.c) and
 * the rules' counters, read when an event's window closes, written as
 * events and facts, and a failed trial when a condition did not hold.
 *
 * Not here: the namespaces, rules and probe themselves (net/), when an
 * event is due (watch.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/delay.h"
#include "net/nft.h"
#include "net/probe.h"
#include "net/shape.h"
#include "net/topo.h"
#include "run/runner-internal.h"
#include "store.h"
#include "clock.h"
#include "xalloc.h"

/* Probes per link per second: 20, fewer on large devnets (about 2,000
 * probes a second in all), at least 2. */
#define PROBE_TOTAL_HZ	2000
#define PROBE_HZ_MAX	20
#define PROBE_HZ_MIN	2
#define QUEUE		0
#define SETTLE_NS	300000000ull	/* after a change, before measuring */
#define STORE_EVERY_NS	10000000000ull	/* link_samples, every 10 s */

struct nc_link {
	const struct scn_event	*ev;
	uint64_t		 until_ns;	/* 0: until heal */
};

struct netcond {
	struct dn_net		*net;
	struct dn_delay		*delay;
	struct dn_probe		*probe;
	int			 n;
	const struct scn_event	*part;		/* in force, or NULL */
	struct nc_link		*links;
	size_t			 nlinks;
	const struct scn_event	*open;		/* the window being measured */
	uint64_t		 open_ns;
	uint64_t		 base_end_ns;	/* network.links alone until */
	int			 nev;		/* windows closed */
	int			 shaped;	/* some link had a bandwidth */
	uint64_t		*rates;		/* [d * n + s]: as shaped now */
	uint64_t		 stored_ns;	/* probes stored up to here */
};

static int
blocked(const struct scn_event *p, int s, int d)
{
	int gs, gd;

	if (p == NULL)
		return (0);
	gs = p->group_of[s] < 0 ? p->ngroups : p->group_of[s];
	gd = p->group_of[d] < 0 ? p->ngroups : p->group_of[d];
	return (gs != gd && (!p->one_way || gs == 0));
}

/* The conditions on S -> D now: network.links, then link events. */
static void
link_now(const struct trial *t, const struct netcond *nc, int s, int d,
    struct scn_link *l)
{
	size_t	i, j;

	scenario_link_of(t->scn, s, d, l);
	for (i = 0; i < nc->nlinks; i++) {
		const struct scn_event *ev = nc->links[i].ev;

		for (j = 0; j < ev->nnodes; j++)
			if (ev->nodes[j] == s || ev->nodes[j] == d)
				break;
		if (j == ev->nnodes)
			continue;
		if (ev->cond.latency_us > 0 || ev->cond.jitter_us > 0) {
			l->latency_us = ev->cond.latency_us;
			l->jitter_us = ev->cond.jitter_us;
		}
		if (ev->cond.loss_ppm > 0)
			l->loss_ppm = ev->cond.loss_ppm;
		if (ev->cond.bandwidth_bps > 0)
			l->bandwidth_bps = ev->cond.bandwidth_bps;
	}
}

static uint32_t
mark_of(const struct netcond *nc, int s, int d)
{
	return ((uint32_t)(s * nc->n + d + 1));
}

/* Bandwidth: on the hub's interface toward each node D, one class per
 * link S -> D that has a rate (marked by the hub's rules). */
static int
shape(struct trial *t, struct netcond *nc, char **cause)
{
	struct dn_shape_class	*c;
	struct scn_link		 l;
	char			 ifn[16], err[256];
	size_t			 n;
	int			 s, d, rv = 0;

	if (nc->rates == NULL)
		nc->rates = dn_xcalloc((size_t)nc->n * (size_t)nc->n,
		    sizeof(*nc->rates));
	c = dn_xcalloc((size_t)nc->n, sizeof(*c));
	for (d = 0; d < nc->n && rv == 0; d++) {
		int same = 1;

		for (n = 0, s = 0; s < nc->n; s++) {
			uint64_t *was = &nc->rates[d * nc->n + s];

			if (s == d)
				continue;
			link_now(t, nc, s, d, &l);
			same &= *was == l.bandwidth_bps;
			*was = l.bandwidth_bps;
			if (l.bandwidth_bps == 0)
				continue;
			c[n].mark = mark_of(nc, s, d);
			c[n].rate_bps = l.bandwidth_bps;
			n++;
		}
		/* unchanged: a new qdisc would drop what the old one holds */
		if (same)
			continue;
		nc->shaped = 1;
		dn_net_hub_ifname(d, ifn, sizeof(ifn));
		if (dn_shape_set(dn_net_ns_fd(nc->net, -1), ifn, c, n, err,
		    sizeof(err)) != 0) {
			*cause = dn_xasprintf("bandwidth: %s", err);
			rv = -1;
		}
	}
	free(c);
	return (rv);
}

/* What each bandwidth class did, as events (the proof: bytes through
 * it, and the times a packet had to wait for the rate). */
static void
shape_facts(struct trial *t, struct netcond *nc)
{
	struct dn_shape_stats	*st;
	char			 ifn[16], err[256];
	int			 d, k, m;

	if (!nc->shaped)
		return;
	st = dn_xcalloc((size_t)nc->n, sizeof(*st));
	for (d = 0; d < nc->n; d++) {
		dn_net_hub_ifname(d, ifn, sizeof(ifn));
		if ((m = dn_shape_read(dn_net_ns_fd(nc->net, -1), ifn, st,
		    (size_t)nc->n, err, sizeof(err))) < 0) {
			trial_event(t, -1, "bandwidth_proof", "to node %d: "
			    "not read: %s", d, err);
			continue;
		}
		for (k = 0; k < m; k++)
			trial_event(t, -1, "bandwidth_proof", "%d->%d: %llu "
			    "bytes in %llu packets through its class, %llu "
			    "waits for the rate, %llu dropped (queue full)",
			    (int)((st[k].mark - 1) / (uint32_t)nc->n), d,
			    (unsigned long long)st[k].bytes,
			    (unsigned long long)st[k].packets,
			    (unsigned long long)st[k].overlimits,
			    (unsigned long long)st[k].drops);
	}
	free(st);
}

/* Put the conditions in force: the emulator's links first, so that no
 * packet is queued with nobody there to let it go. */
static int
apply(struct trial *t, struct netcond *nc, char **cause)
{
	struct dn_nft_link	*nl;
	struct dn_delay_link	*dl;
	struct scn_link		 l;
	size_t			 nn = 0, nd = 0;
	char			 err[256];
	int			 s, d, rv = -1;

	nl = dn_xcalloc((size_t)nc->n * (size_t)nc->n, sizeof(*nl));
	dl = dn_xcalloc((size_t)nc->n * (size_t)nc->n, sizeof(*dl));
	for (s = 0; s < nc->n; s++)
		for (d = 0; d < nc->n; d++) {
			if (s == d)
				continue;
			link_now(t, nc, s, d, &l);
			nl[nn].src = s;
			nl[nn].dst = d;
			nl[nn].blocked = blocked(nc->part, s, d);
			nl[nn].loss_ppm = l.loss_ppm;
			if (l.latency_us > 0 || l.jitter_us > 0) {
				nl[nn].mark = mark_of(nc, s, d);
				dl[nd].mark = nl[nn].mark;
				dl[nd].delay_us = (uint32_t)l.latency_us;
				dl[nd].jitter_us = (uint32_t)l.jitter_us;
				nd++;
			}
			if (l.bandwidth_bps > 0)
				nl[nn].mark = mark_of(nc, s, d);
			nl[nn].queue = l.latency_us > 0 || l.jitter_us > 0;
			if (nl[nn].blocked || nl[nn].loss_ppm || nl[nn].mark)
				nn++;
		}
	if (shape(t, nc, cause) != 0)
		goto out;
	if (nd > 0 && nc->delay == NULL) {
		if (dn_delay_start(&nc->delay, dn_net_ns_fd(nc->net, -1),
		    QUEUE, dl, nd, err, sizeof(err)) != 0) {
			*cause = dn_xasprintf("latency emulator: %s", err);
			goto out;
		}
	} else if (nc->delay != NULL && dn_delay_update(nc->delay, dl,
	    nd) != 0) {
		*cause = dn_xstrdup("latency emulator: cannot update its "
		    "links");
		goto out;
	}
	if (dn_nft_apply(dn_net_ns_fd(nc->net, -1), nl, nn, QUEUE, err,
	    sizeof(err)) != 0) {
		*cause = dn_xasprintf("network conditions: %s", err);
		goto out;
	}
	rv = 0;
out:
	free(nl);
	free(dl);
	return (rv);
}

static int
refuse(const struct scenario *s, const struct scn_variant *v, char **cause)
{
	if (s->provider != SCN_PROV_LOCAL) {
		*cause = dn_xasprintf("network conditions need provider "
		    "local (nodes in network namespaces of this host); "
		    "docker and swarm do not carry them out yet "
		    "(docs/providers.md)");
		return (-1);
	}
	if (plan_is_foreign(v)) {
		*cause = dn_xasprintf("variant '%s': network conditions with "
		    "foreign nodes (node.command) are not carried out yet "
		    "(issue 20); devnet-node only", v->name);
		return (-1);
	}
	if (s->network.tcp_base_port > 0) {
		*cause = dn_xstrdup("network conditions switch devnet-node's "
		    "gossip and sync to TCP between the nodes' namespaces "
		    "themselves; remove network.listen/tcp_base_port");
		return (-1);
	}
	return (0);
}

int
netcond_prepare(const struct scenario *s, int quiet, char **cause)
{
	char	err[256];
	size_t	i;
	int	swept;

	if (!scenario_has_conditions(s))
		return (0);
	for (i = 0; i < s->nvariants; i++)
		if (refuse(s, &s->variants[i], cause) != 0)
			return (-1);
	if ((swept = dn_net_sweep(err, sizeof(err))) < 0) {
		*cause = dn_xasprintf("emulated network: %s", err);
		return (-1);
	}
	if (swept > 0 && !quiet)
		fprintf(stderr, "devnet: removed %d network namespace(s) a "
		    "killed devnet left\n", swept);
	return (0);
}

void
netcond_hosts(const struct trial *t, char **hosts)
{
	int	k;

	for (k = 0; k < t->nnodes; k++) {
		hosts[k] = dn_xcalloc(1, 16);
		dn_net_addr_str(k, hosts[k], 16);
	}
}

int
netcond_start(struct trial *t, char **cause)
{
	struct netcond	*nc;
	char		 err[256], *ct;
	int		 hz;

	if (!scenario_has_conditions(t->scn))
		return (0);
	nc = t->nc = dn_xcalloc(1, sizeof(*nc));
	nc->n = t->nnodes;
	if (dn_net_create(&nc->net, t->nnodes, err, sizeof(err)) != 0) {
		*cause = dn_xasprintf("emulated network: %s", err);
		return (-1);
	}
	t->net = nc->net;
	if (apply(t, nc, cause) != 0)
		return (-1);
	hz = PROBE_TOTAL_HZ / (t->nnodes * (t->nnodes - 1) + 1);
	hz = hz > PROBE_HZ_MAX ? PROBE_HZ_MAX : hz < PROBE_HZ_MIN ?
	    PROBE_HZ_MIN : hz;
	if (dn_probe_start(&nc->probe, nc->net, hz, err,
	    sizeof(err)) != 0) {
		*cause = dn_xasprintf("link probe: %s", err);
		return (-1);
	}
	ct = scenario_conditions_text(t->scn, t->var != NULL ?
	    t->var->name : NULL);
	if (ct != NULL)
		trial_fact(t, -1, "net_conditions", "%s", ct);
	free(ct);
	trial_event(t, -1, "network", "%d node namespaces through hub %s; "
	    "devnet-node gossip and sync over TCP between them (control "
	    "and load on ipc); probe %d/s on each of %d links", t->nnodes,
	    dn_net_ns_name(nc->net, -1), hz, t->nnodes *
	    (t->nnodes - 1));
	return (0);
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y ? -1 : x > y);
}

/* The Q-quantile (nearest rank) of V[N], which it sorts; NAN when N is
 * 0. */
static double
quantile(double *v, size_t n, double q)
{
	size_t	i;

	if (n == 0)
		return (NAN);
	qsort(v, n, sizeof(*v), cmp_dbl);
	i = (size_t)ceil(q * (double)n);
	return (v[i == 0 ? 0 : i - 1]);
}

/* What the probes of several links saw in one window, pooled. */
struct pool {
	uint64_t	 sent, crossed;
	double		*owd;
	size_t		 nowd, cap;
};

static void
pool_add(struct netcond *nc, struct pool *p, int s, int d, uint64_t from,
    uint64_t to)
{
	struct dn_probe_stats st;

	dn_probe_window(nc->probe, s, d, from, to, &st);
	p->sent += st.sent;
	p->crossed += st.crossed;
	if (p->nowd + st.nowd > p->cap) {
		p->cap = (p->nowd + st.nowd) * 2;
		p->owd = dn_xreallocarray(p->owd, p->cap, sizeof(double));
	}
	if (st.nowd > 0)	/* st.owd_ms is NULL without probes */
		memcpy(p->owd + p->nowd, st.owd_ms, st.nowd * sizeof(double));
	p->nowd += st.nowd;
	dn_probe_stats_release(&st);
}

static char *
groups_text(const struct scn_event *ev, int n)
{
	char	*out = dn_xstrdup("["), *t;
	int	 g, k, first;

	for (g = 0; g <= ev->ngroups; g++) {
		first = 1;
		for (k = 0; k < n; k++) {
			int gk = ev->group_of[k] < 0 ? ev->ngroups :
			    ev->group_of[k];

			if (gk != g)
				continue;
			t = dn_xasprintf("%s%s%d", out, first ? (g ? ",[" :
			    "[") : ",", k);
			free(out);
			out = t;
			first = 0;
		}
		if (!first) {
			t = dn_xasprintf("%s]", out);
			free(out);
			out = t;
		}
	}
	t = dn_xasprintf("%s]%s", out, ev->one_way ? " one way (from the "
	    "first group)" : "");
	free(out);
	return (t);
}

static uint64_t
block_drops(const struct dn_nft_counter *cv, size_t ncv)
{
	uint64_t	sum = 0;
	size_t		i;

	for (i = 0; i < ncv; i++)
		if (cv[i].kind == DN_NFT_BLOCK)
			sum += cv[i].packets;
	return (sum);
}

/* The proof of a partition over [FROM, TO): no probe crossed. */
static void
prove_partition(struct trial *t, struct netcond *nc, const struct scn_event
    *ev, uint64_t from, uint64_t to, uint64_t all_from, uint64_t all_to,
    const struct dn_nft_counter *cv, size_t ncv)
{
	struct pool	 p = { 0 }, whole = { 0 }, echo = { 0 };
	char		*g = groups_text(ev, nc->n);
	uint64_t	 dropped = block_drops(cv, ncv), probes;
	char		 key[64];
	int		 s, d;

	for (s = 0; s < nc->n; s++)
		for (d = 0; d < nc->n; d++) {
			if (s == d || !blocked(ev, s, d))
				continue;
			pool_add(nc, &p, s, d, from, to);
			pool_add(nc, &whole, s, d, all_from, all_to);
			if (!blocked(ev, d, s))	/* its echoes are dropped */
				pool_add(nc, &echo, d, s, all_from, all_to);
		}
	probes = whole.sent + echo.crossed;
	dropped = dropped > probes ? dropped - probes : 0;
	if (p.sent == 0)
		trial_event(t, -1, "partition_proof", "partition %s: not "
		    "measured (in force %.1f s, too short for the probe); "
		    "%llu node packets dropped", g, (double)(all_to -
		    all_from) / 1e9, (unsigned long long)dropped);
	else
		trial_event(t, -1, "partition_proof", "partition %s: %llu of "
		    "%llu probes crossed; %llu node packets dropped", g,
		    (unsigned long long)p.crossed, (unsigned long long)p.sent,
		    (unsigned long long)dropped);
	/* numbered: a trial may hold several partitions */
	snprintf(key, sizeof(key), "partition_%d_probes", nc->nev);
	trial_fact(t, -1, key, "%llu", (unsigned long long)p.sent);
	snprintf(key, sizeof(key), "partition_%d_probes_crossed", nc->nev);
	trial_fact(t, -1, key, "%llu", (unsigned long long)p.crossed);
	snprintf(key, sizeof(key), "partition_%d_node_packets_dropped",
	    nc->nev);
	trial_fact(t, -1, key, "%llu", (unsigned long long)dropped);
	if (p.crossed > 0)
		trial_fail(t, "partition %s did not take effect: %llu of %llu "
		    "probes crossed it", g, (unsigned long long)p.crossed,
		    (unsigned long long)p.sent);
	free(g);
	free(p.owd);
	free(whole.owd);
	free(echo.owd);
}

/* Measured against asked on the links touching NODES (NULL: every link
 * with a condition of network.links): loss within max(2 points, 4
 * sigma), one-way delay p50 within max(1 ms, 10 %).  WHAT names it. */
static void
prove_links(struct trial *t, struct netcond *nc, const char *what,
    const struct scn_event *ev, uint64_t from, uint64_t to)
{
	struct pool	 p;
	struct scn_link	 l;
	double		 loss, asked, tol, p50, want;
	int		 s, d;
	size_t		 j;

	for (s = 0; s < nc->n; s++)
		for (d = 0; d < nc->n; d++) {
			if (s == d || blocked(nc->part, s, d))
				continue;
			for (j = 0; ev != NULL && j < ev->nnodes; j++)
				if (ev->nodes[j] == s || ev->nodes[j] == d)
					break;
			if (ev != NULL && j == ev->nnodes)
				continue;
			link_now(t, nc, s, d, &l);
			if (l.loss_ppm == 0 && l.latency_us == 0)
				continue;
			memset(&p, 0, sizeof(p));
			pool_add(nc, &p, s, d, from, to);
			if (p.sent < 20) {
				trial_event(t, -1, "link_proof", "%s %d->%d: "
				    "not measured (%llu probes)", what, s, d,
				    (unsigned long long)p.sent);
				free(p.owd);
				continue;
			}
			loss = 100.0 * (double)(p.sent - p.crossed) /
			    (double)p.sent;
			asked = l.loss_ppm / 1e4;
			/* and never less than one probe's worth */
			tol = fmax(fmax(2.0, 400.0 * sqrt(asked / 100 * (1 -
			    asked / 100) / (double)p.sent)), 100.0 /
			    (double)p.sent + 0.01);
			want = l.latency_us / 1e3;
			p50 = quantile(p.owd, p.nowd, 0.5);
			trial_event(t, -1, "link_proof", "%s %d->%d: asked "
			    "%.3g ms one way, %.3g%% loss; measured p50 %.3f ms, "
			    "%.1f%% loss over %llu probes", what, s, d, want,
			    asked, p50, loss, (unsigned long long)p.sent);
			if (fabs(loss - asked) > tol)
				trial_fail(t, "%s %d->%d: loss %.1f%% measured, "
				    "%.3g%% asked (more than %.1f points off): "
				    "the condition did not take effect", what,
				    s, d, loss, asked, tol);
			if (want > 0 && !(fabs(p50 - want) <= fmax(1.0,
			    0.1 * want)))
				trial_fail(t, "%s %d->%d: one-way delay p50 "
				    "%.3f ms measured, %.3f ms asked (more than "
				    "max(1 ms, 10%%) off): the condition did not "
				    "take effect", what, s, d, p50, want);
			free(p.owd);
		}
}

/* The longest one-way delay in force: probes younger than twice it (and
 * a margin) may still be in flight. */
static uint64_t
in_flight_ns(const struct trial *t, const struct netcond *nc)
{
	struct scn_link	l;
	int64_t		m = 0;
	int		s, d;

	for (s = 0; s < nc->n; s++)
		for (d = 0; d < nc->n; d++) {
			if (s == d)
				continue;
			link_now(t, nc, s, d, &l);
			if (l.latency_us + l.jitter_us > m)
				m = l.latency_us + l.jitter_us;
		}
	return (SETTLE_NS + 2 * (uint64_t)m * 1000u);
}

/* Close the window of the event in force (before its rules change): its
 * proof from the probe and the counters. */
static void
close_window(struct trial *t, struct netcond *nc, uint64_t now)
{
	const struct scn_event	*ev = nc->open;
	struct dn_nft_counter	*cv = NULL;
	size_t			 ncv = 0;
	uint64_t		 from, to, fl = in_flight_ns(t, nc);
	char			 err[256];

	if (ev == NULL)
		return;
	nc->open = NULL;
	nc->nev++;
	if (dn_nft_counters(dn_net_ns_fd(nc->net, -1), &cv, &ncv, err,
	    sizeof(err)) != 0)
		trial_event(t, -1, "counters", "not read: %s", err);
	from = nc->open_ns + SETTLE_NS;
	to = now > fl ? now - fl : 0;
	if (to < from)
		to = from;
	if (ev->action == SCN_EV_PARTITION)
		prove_partition(t, nc, ev, from, to, nc->open_ns, now, cv,
		    ncv);
	else if (ev->action == SCN_EV_LINK)
		prove_links(t, nc, "link event", ev, from, to);
	free(cv);
}

static void
open_window(struct netcond *nc, const struct scn_event *ev)
{
	nc->open = ev;
	nc->open_ns = dn_now_ns();
}

/* Nodes below the highest height at a heal watch for their rejoin. */
static void
watch_rejoins(struct trial *t)
{
	double	best = -1;
	int	k;

	pthread_mutex_lock(&t->mu);
	for (k = 0; k < t->nnodes; k++)
		if (t->nodes[k].last[DN_M_HEIGHT] > best)
			best = t->nodes[k].last[DN_M_HEIGHT];
	for (k = 0; k < t->nnodes; k++)
		if (t->nodes[k].last[DN_M_HEIGHT] < best &&
		    t->nodes[k].restart_ns == 0)
			t->nodes[k].restart_ns = dn_now_ns();
	pthread_mutex_unlock(&t->mu);
}

void
netcond_event(struct trial *t, const struct scn_event *ev)
{
	struct netcond	*nc = t->nc;
	char		*cause = NULL, *g;
	uint64_t	 now = dn_now_ns();

	if (nc->base_end_ns == 0)	/* network.links alone until here */
		nc->base_end_ns = now - in_flight_ns(t, nc);
	close_window(t, nc, now);
	if (ev->action == SCN_EV_PARTITION) {
		nc->part = ev;
		g = groups_text(ev, nc->n);
		trial_event(t, -1, "partition", "groups %s", g);
		free(g);
	} else if (ev->action == SCN_EV_HEAL) {
		nc->part = NULL;
		nc->nlinks = 0;
		trial_event(t, -1, "heal", "partitions and link events end; "
		    "network.links hold");
		watch_rejoins(t);
	} else {
		nc->links = dn_xreallocarray(nc->links, nc->nlinks + 1,
		    sizeof(*nc->links));
		nc->links[nc->nlinks].ev = ev;
		nc->links[nc->nlinks].until_ns = ev->for_ms > 0 ? now +
		    (uint64_t)ev->for_ms * 1000000u : 0;
		nc->nlinks++;
		trial_event(t, -1, "link", "%zu node(s)' links: latency %.3f "
		    "ms, jitter %.3f ms, loss %.3g%%, for %.1f s (0: until "
		    "heal)", ev->nnodes, ev->cond.latency_us / 1e3,
		    ev->cond.jitter_us / 1e3, ev->cond.loss_ppm / 1e4,
		    ev->for_ms / 1e3);
	}
	if (apply(t, nc, &cause) != 0) {
		trial_fail(t, "%s: %s", scenario_action_name(ev->action),
		    cause);
		free(cause);
		return;
	}
	if (ev->action != SCN_EV_HEAL)
		open_window(nc, ev);
}

/* The probes sent from the last store up to TO_NS into link_samples. */
static void
store_samples(struct trial *t, struct netcond *nc, uint64_t to_ns)
{
	struct dn_link_sample	*v = NULL;
	struct dn_probe_sample	*ps;
	size_t			 n = 0, cap = 0, np, i;
	char			*cause = NULL;
	int			 s, d, rv;

	if (t->t0_ns == 0 || to_ns <= nc->stored_ns)
		return;
	for (s = 0; s < nc->n; s++)
		for (d = 0; d < nc->n; d++) {
			dn_probe_samples(nc->probe, s, d, nc->stored_ns, to_ns,
			    &ps, &np);
			if (n + np > cap) {
				cap = (n + np) * 2;
				v = dn_xreallocarray(v, cap, sizeof(*v));
			}
			for (i = 0; i < np; i++, n++) {
				v[n].src = s;
				v[n].dst = d;
				v[n].t_ms = trial_t_ms(t, ps[i].send_ns);
				v[n].owd_ms = ps[i].owd_ms;
				v[n].rtt_ms = ps[i].rtt_ms;
			}
			free(ps);
		}
	nc->stored_ns = to_ns;
	pthread_mutex_lock(t->store_mu);
	rv = dn_store_link_samples(t->store, t->run_id, v, n, &cause);
	pthread_mutex_unlock(t->store_mu);
	if (rv != 0)
		trial_store_error(t, cause);
	free(v);
}

void
netcond_tick(struct trial *t)
{
	struct netcond	*nc = t->nc;
	uint64_t	 now = dn_now_ns();
	char		*cause = NULL;
	size_t		 i;

	if (nc == NULL || nc->net == NULL)
		return;
	if (t->t0_ns != 0 && nc->stored_ns == 0)
		nc->stored_ns = t->t0_ns;
	if (nc->stored_ns != 0 && now - nc->stored_ns > STORE_EVERY_NS +
	    in_flight_ns(t, nc))
		store_samples(t, nc, now - in_flight_ns(t, nc));
	for (i = 0; i < nc->nlinks; i++) {
		if (nc->links[i].until_ns == 0 || now < nc->links[i].until_ns)
			continue;
		if (nc->open == nc->links[i].ev)
			close_window(t, nc, now);
		trial_event(t, -1, "link_end", "the link event's time is up");
		nc->links[i] = nc->links[--nc->nlinks];
		if (apply(t, nc, &cause) != 0) {
			trial_fail(t, "link: %s", cause);
			free(cause);
		}
		return;
	}
}

void
netcond_finish(struct trial *t)
{
	struct netcond	*nc = t->nc;
	uint64_t	 now = dn_now_ns(), from, to;
	struct dn_delay_stats ds;

	if (nc == NULL)
		return;
	if (nc->probe != NULL && t->t0_ns != 0 && !signals_count) {
		close_window(t, nc, now);
		/* network.links alone: from after the warmup to the first
		 * network event (or the end) */
		from = t->t0_ns + (uint64_t)t->scn->warmup_ms * 1000000u +
		    SETTLE_NS;
		to = nc->base_end_ns != 0 ? nc->base_end_ns : now -
		    in_flight_ns(t, nc);
		nc->part = NULL;
		nc->nlinks = 0;
		if (to > from)
			prove_links(t, nc, "network.links", NULL, from, to);
	}
	if (nc->net != NULL && !signals_count)
		shape_facts(t, nc);
	if (nc->probe != NULL && nc->stored_ns != 0)	/* not in flight */
		store_samples(t, nc, now - in_flight_ns(t, nc));
	if (nc->delay != NULL) {
		dn_delay_stats(nc->delay, &ds);
		trial_fact(t, -1, "net_delayed_packets", "%llu",
		    (unsigned long long)ds.packets);
	}
	dn_probe_stop(nc->probe);
	dn_delay_stop(nc->delay);
	dn_net_destroy(nc->net);
	t->net = NULL;
	free(nc->links);
	free(nc->rates);
	free(nc);
	t->nc = NULL;
}
