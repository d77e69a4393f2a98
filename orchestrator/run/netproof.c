/*
 * netproof.c: the conditions of an emulated network's links as they stand
 * (network.links, then the link events in force, a partition's cut) and
 * their proof: what the per-link probe (net/probe.c) and the rules'
 * counters saw over a window, against what was asked, written as events
 * and facts, and a failed trial when a condition did not take effect
 * (issue 20).  Called by netcond.c, never calling it back.
 *
 * Not here: putting conditions in force, the windows' times (netcond.c).
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
#include "stats.h"
#include "buf.h"
#include "xalloc.h"

int
netproof_blocked(const struct netcond *nc, const struct scn_event *p, int s,
    int d)
{
	int gs, gd;

	/* the load, like devnet's control, stands outside the groups */
	if (p == NULL || s == nc->nodes || d == nc->nodes)
		return (0);
	gs = p->group_of[s] < 0 ? p->ngroups : p->group_of[s];
	gd = p->group_of[d] < 0 ? p->ngroups : p->group_of[d];
	return (gs != gd && (!p->one_way || gs == 0));
}

/* The conditions on S -> D now: network.links, then link events. */
/* "3", or "load" for the load generator's endpoint, into BUF[8]. */
static const char *
netproof_name(const struct netcond *nc, int i, char *buf)
{
	if (i == nc->nodes)
		return ("load");
	snprintf(buf, 8, "%d", i % 100000);	/* the plan: < 16,384 */
	return (buf);
}

void
netproof_link_now(const struct trial *t, const struct netcond *nc, int s,
    int d, struct scn_link *l)
{
	size_t	i, j;

	/* the load's links: network.links' default, it is in no zone */
	if (s == nc->nodes || d == nc->nodes)
		*l = t->scn->network.link_default;
	else
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

/* The class of link S -> D among the M of ST (NULL: none). */
static const struct dn_shape_stats *
shape_class_of(const struct netcond *nc, const struct dn_shape_stats *st,
    int m, int s, int d)
{
	uint32_t	mark = (uint32_t)(s * nc->n + d + 1);	/* netcond.c */
	int		k;

	for (k = 0; k < m; k++)
		if (st[k].mark == mark)
			return (&st[k]);
	return (NULL);
}

/* What each bandwidth class did, as events (the proof: bytes through
 * it, and the times a packet had to wait for the rate); a link of
 * network.links with a rate whose class is missing or saw no packet (the
 * probe crosses every link) fails the trial. */
void
netproof_shape(struct trial *t, struct netcond *nc)
{
	const struct dn_shape_stats *c;
	struct dn_shape_stats	*st;
	struct scn_link		 l;
	char			 ifn[16], err[256], sb[8], db[8];
	int			 s, d, k, m;

	if (!nc->shaped)
		return;
	st = dn_xcalloc((size_t)nc->n, sizeof(*st));
	for (d = 0; d < nc->n; d++) {
		dn_net_hub_ifname(d, ifn, sizeof(ifn));
		if ((m = dn_shape_read(dn_net_ns_fd(nc->net, -1), ifn, st,
		    (size_t)nc->n, err, sizeof(err))) < 0) {
			trial_event(t, -1, "bandwidth_proof", "to %s: "
			    "not read: %s", netproof_name(nc, d, db), err);
			continue;
		}
		for (k = 0; k < m; k++)
			trial_event(t, -1, "bandwidth_proof", "%s->%s: %llu "
			    "bytes in %llu packets through its class, %llu "
			    "waits for the rate, %llu dropped (queue full)",
			    netproof_name(nc, (int)((st[k].mark - 1) /
			    (uint32_t)nc->n), sb), netproof_name(nc, d, db),
			    (unsigned long long)st[k].bytes,
			    (unsigned long long)st[k].packets,
			    (unsigned long long)st[k].overlimits,
			    (unsigned long long)st[k].drops);
		for (s = 0; s < nc->n; s++) {
			if (s == d)
				continue;
			netproof_link_now(t, nc, s, d, &l);
			/* a link the probe skips may carry nothing */
			if (l.bandwidth_bps == 0 || (nc->probe != NULL &&
			    !dn_probe_probes(nc->probe, s, d)) ||
			    ((c = shape_class_of(nc, st, m, s, d)) != NULL &&
			    c->packets > 0))
				continue;
			trial_fail(t, "network.links %s->%s: bandwidth %.3g "
			    "Mbit/s asked, but %s: the condition did not take "
			    "effect", netproof_name(nc, s, sb),
			    netproof_name(nc, d, db), l.bandwidth_bps / 1e6,
			    c == NULL ? "the link has no class" : "no packet "
			    "went through its class");
		}
	}
	free(st);
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
	p->owd = dn_xgrow(p->owd, &p->cap, p->nowd + st.nowd, sizeof(double));
	if (st.nowd > 0)	/* st.owd_ms is NULL without probes */
		memcpy(p->owd + p->nowd, st.owd_ms, st.nowd * sizeof(double));
	p->nowd += st.nowd;
	dn_probe_stats_release(&st);
}

char *
netproof_groups(const struct scn_event *ev, int n)
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
void
netproof_partition(struct trial *t, struct netcond *nc,
    const struct scn_event *ev, uint64_t from, uint64_t to, uint64_t all_from, uint64_t all_to,
    const struct dn_nft_counter *cv, size_t ncv)
{
	struct pool	 p = { 0 }, whole = { 0 }, echo = { 0 };
	char		*g = netproof_groups(ev, nc->nodes);
	uint64_t	 dropped = block_drops(cv, ncv), probes;
	char		 key[64];
	int		 s, d;

	for (s = 0; s < nc->n; s++)
		for (d = 0; d < nc->n; d++) {
			if (s == d || !netproof_blocked(nc, ev, s, d))
				continue;
			pool_add(nc, &p, s, d, from, to);
			pool_add(nc, &whole, s, d, all_from, all_to);
			if (!netproof_blocked(nc, ev, d, s))	/* its echoes are dropped */
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

/* The condition classes of network.links (plan/probe-links.c): each
 * ordered pair of zones (0: in no zone), then the load's links. */
static size_t
proof_nclasses(const struct trial *t)
{
	size_t nz = t->scn->network.nzones + 1;

	return (nz * nz + 1);
}

static size_t
proof_class(const struct trial *t, const struct netcond *nc, int s, int d)
{
	size_t nz = t->scn->network.nzones + 1;

	if (s == nc->nodes || d == nc->nodes)
		return (nz * nz);
	return ((size_t)(t->scn->network.zone_of[s] + 1) * nz +
	    (size_t)(t->scn->network.zone_of[d] + 1));
}

/* Zone Z - 1's name; 0: the nodes in no zone. */
static const char *
zone_name(const struct trial *t, size_t z)
{
	return (z == 0 ? "(none)" : t->scn->network.zones[z - 1]);
}

/* A sampled proof's summary: how many links of each class with a
 * condition were proven (event link_proof_classes); a class with a
 * condition and no link proven is said as not measured. */
static void
proof_classes(struct trial *t, const struct netcond *nc, const char *what,
    const size_t *proven)
{
	struct dn_buf	 b = DN_BUF_INIT;
	struct scn_link	 l;
	size_t		 c, nz = t->scn->network.nzones + 1, none = 0;
	int		 s, d, *seen = dn_xcalloc(proof_nclasses(t),
			    sizeof(int));

	/* which classes hold a condition now (one link of each says) */
	for (s = 0; s < nc->n; s++)
		for (d = 0; d < nc->n; d++) {
			if (s == d || seen[proof_class(t, nc, s, d)])
				continue;
			netproof_link_now(t, nc, s, d, &l);
			if (l.loss_ppm > 0 || l.latency_us > 0)
				seen[proof_class(t, nc, s, d)] = 1;
		}
	for (c = 0; c < proof_nclasses(t); c++) {
		if (!seen[c])
			continue;
		if (c == nz * nz)
			dn_buf_addf(&b, "%sload %zu", b.len ? ", " : "",
			    proven[c]);
		else
			dn_buf_addf(&b, "%s%s->%s %zu", b.len ? ", " : "",
			    zone_name(t, c / nz), zone_name(t, c % nz),
			    proven[c]);
		none += proven[c] == 0;
	}
	trial_event(t, -1, "link_proof_classes", "%s: %zu of %d links "
	    "probed (a sample); links proven per class: %s%s", what,
	    dn_probe_nlinks(nc->probe), nc->n * (nc->n - 1),
	    b.len ? b.p : "none with a condition", none ? "; a class "
	    "with 0 was not measured" : "");
	dn_buf_release(&b);
	free(seen);
}

/* Why a delay came out late, when the emulator can tell (OFF_MS: how
 * far above what was asked the p50 was; 0 or less: not late): it let
 * packets go that late itself, because it had no real-time priority,
 * ran past its CPU budget, or the machine stalled it (CI under ASan,
 * 2026-12-07: a 30 ms link at p50 662 ms).  A kernel busy forwarding
 * after it is not seen here.  "" otherwise. */
static const char *
late_why(const struct netcond *nc, double off_ms, char *buf, size_t len)
{
	struct dn_delay_stats ds;

	buf[0] = '\0';
	if (off_ms <= 0 || nc->delay == NULL)
		return buf;
	dn_delay_stats(nc->delay, &ds);
	if (!ds.realtime || ds.demotions > 0 ||
	    ds.max_hold_err_us / 1e3 >= off_ms / 2)
		snprintf(buf, len, "; the link emulator let a packet go up "
		    "to %.1f ms after its time%s: the machine was too busy "
		    "for it", ds.max_hold_err_us / 1e3, !ds.realtime ?
		    " with no real-time priority (SCHED_FIFO refused: not "
		    "root, or a cpu cgroup with no realtime runtime)" :
		    ds.demotions > 0 ? ", past its CPU budget at times" :
		    "");
	return buf;
}

/* Measured against asked on the links touching NODES (NULL: every link
 * with a condition of network.links): loss within max(2 points, 4
 * sigma), one-way delay p50 within max(1 ms, 10 %).  WHAT names it. */
void
netproof_links(struct trial *t, struct netcond *nc, const char *what,
    const struct scn_event *ev, uint64_t from, uint64_t to)
{
	struct pool	 p;
	struct scn_link	 l;
	double		 loss, asked, tol, p50, want;
	char		 sb[8], db[8], why[320];
	const char	*sn, *dn;
	int		 s, d;
	size_t		 j, *proven = dn_xcalloc(proof_nclasses(t),
			    sizeof(size_t));

	for (s = 0; s < nc->n; s++)
		for (d = 0; d < nc->n; d++) {
			if (s == d || netproof_blocked(nc, nc->part, s, d))
				continue;
			for (j = 0; ev != NULL && j < ev->nnodes; j++)
				if (ev->nodes[j] == s || ev->nodes[j] == d)
					break;
			if (ev != NULL && j == ev->nnodes)
				continue;
			netproof_link_now(t, nc, s, d, &l);
			if ((l.loss_ppm == 0 && l.latency_us == 0) ||
			    !dn_probe_probes(nc->probe, s, d))
				continue;
			sn = netproof_name(nc, s, sb);
			dn = netproof_name(nc, d, db);
			memset(&p, 0, sizeof(p));
			pool_add(nc, &p, s, d, from, to);
			if (p.sent < PLAN_PROOF_MIN_PROBES) {
				trial_event(t, -1, "link_proof", "%s %s->%s: "
				    "not measured (%llu probes)", what, sn, dn,
				    (unsigned long long)p.sent);
				free(p.owd);
				nc->unmeasured++;
				continue;
			}
			nc->measured++;
			proven[proof_class(t, nc, s, d)]++;
			loss = 100.0 * (double)(p.sent - p.crossed) /
			    (double)p.sent;
			asked = l.loss_ppm / 1e4;
			/* and never less than one probe's worth */
			tol = fmax(fmax(2.0, 400.0 * sqrt(asked / 100 * (1 -
			    asked / 100) / (double)p.sent)), 100.0 /
			    (double)p.sent + 0.01);
			want = l.latency_us / 1e3;
			p50 = dn_stats_quantile(p.owd, p.nowd, 0.5);
			trial_event(t, -1, "link_proof", "%s %s->%s: asked "
			    "%.3g ms one way, %.3g%% loss; measured p50 %.3f ms, "
			    "%.1f%% loss over %llu probes", what, sn, dn, want,
			    asked, p50, loss, (unsigned long long)p.sent);
			if (fabs(loss - asked) > tol)
				trial_fail(t, "%s %s->%s: loss %.1f%% measured, "
				    "%.3g%% asked (more than %.1f points off): "
				    "the condition did not take effect", what,
				    sn, dn, loss, asked, tol);
			if (want > 0 && !(fabs(p50 - want) <= fmax(1.0,
			    0.1 * want)))
				trial_fail(t, "%s %s->%s: one-way delay p50 "
				    "%.3f ms measured, %.3f ms asked (more than "
				    "max(1 ms, 10%%) off): the condition did not "
				    "take effect%s", what, sn, dn, p50, want,
				    late_why(nc, p50 - want, why, sizeof(why)));
			free(p.owd);
		}
	if (nc->sampled && ev == NULL)
		proof_classes(t, nc, what, proven);
	free(proven);
}

/* The longest one-way delay in force: probes younger than twice it (and
 * a margin) may still be in flight. */
uint64_t
netproof_in_flight(const struct trial *t, const struct netcond *nc)
{
	struct scn_link	l;
	int64_t		m = 0;
	int		s, d;

	for (s = 0; s < nc->n; s++)
		for (d = 0; d < nc->n; d++) {
			if (s == d)
				continue;
			netproof_link_now(t, nc, s, d, &l);
			if (l.latency_us + l.jitter_us > m)
				m = l.latency_us + l.jitter_us;
		}
	return (NC_SETTLE_NS + 2 * (uint64_t)m * 1000u);
}
