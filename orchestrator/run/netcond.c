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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/delay.h"
#include "net/nft.h"
#include "net/probe.h"
#include "net/shape.h"
#include "net/topo.h"
#include "plan/plan.h"
#include "provider/provider.h"
#include "run/runner-internal.h"
#include "store.h"
#include "trial/trial-store.h"
#include "clock.h"
#include "buf.h"
#include "xalloc.h"

#define QUEUE		0
#define STORE_EVERY_NS	10000000000ull	/* link_samples, every 10 s */

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
			netproof_link_now(t, nc, s, d, &l);
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
		if (run_test_break("bandwidth"))
			continue;
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
			netproof_link_now(t, nc, s, d, &l);
			nl[nn].src = s;
			nl[nn].dst = d;
			nl[nn].blocked = netproof_blocked(nc, nc->part, s, d);
			if (run_test_break("partition") && (s + d) % 2 != 0)
				nl[nn].blocked = 0;
			if (run_test_break("loss"))
				l.loss_ppm /= 2;
			if (run_test_break("delay"))
				l.latency_us /= 2;
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

int
netcond_prepare(const struct scenario *s, int quiet, char **cause)
{
	char	err[512];
	int	swept, failed;

	/* what cannot be done was refused by run/check.c */
	if (!scenario_has_conditions(s))
		return (0);
	if ((swept = dn_net_sweep(&failed, err, sizeof(err))) < 0) {
		*cause = dn_xasprintf("emulated network: %s", err);
		return (-1);
	}
	if (swept > 0 && !quiet)
		fprintf(stderr, "devnet: removed %d network namespace(s) a "
		    "killed devnet left\n", swept);
	/* said even with --quiet: they stay, and nothing else tells */
	if (failed > 0)
		fprintf(stderr, "devnet: could not remove %d network "
		    "namespace(s) a killed devnet left; the first: %s\n",
		    failed, err);
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

/* The links a sample probes, as facts: node K's `probe_to` (its
 * destinations, "3,17,100", the load numbered one past the last node as
 * in link_samples) and the load's `load_probe_to`. */
static void
probe_facts(struct trial *t, struct netcond *nc, const uint8_t *sel)
{
	struct dn_buf	b = DN_BUF_INIT;
	int		s, d;

	for (s = 0; s < nc->n; s++) {
		dn_buf_setlen(&b, 0);	/* "" when it probes nothing */
		for (d = 0; d < nc->n; d++)
			if (sel[(size_t)s * nc->n + d])
				dn_buf_addf(&b, "%s%d", b.len ? "," : "", d);
		if (s == nc->nodes)
			trial_fact(t, -1, "load_probe_to", "%s", b.p);
		else
			trial_fact(t, s, "probe_to", "%s", b.p);
	}
	dn_buf_release(&b);
}

/* The probe on the links plan_probe_links chose (all of a small network);
 * facts probe_links, probe_links_all, probe_rate_hz, and which links a
 * sample holds.  *HZ: its rate per link. */
static int
start_probe(struct trial *t, struct netcond *nc, int *hz, char **cause)
{
	struct dn_probe_link	*ls = NULL;
	uint8_t			*sel;
	size_t			 n, k = 0;
	char			 err[256];
	int			 s, d, rv = 0;

	sel = plan_probe_links(t->scn, nc->n, &n, hz);
	if (sel != NULL) {
		ls = dn_xcalloc(n + 1, sizeof(*ls));
		for (s = 0; s < nc->n; s++)
			for (d = 0; d < nc->n; d++)
				if (sel[(size_t)s * nc->n + d]) {
					ls[k].src = s;
					ls[k++].dst = d;
				}
		nc->sampled = 1;
		probe_facts(t, nc, sel);
	}
	if (dn_probe_start_links(&nc->probe, nc->net, ls, k, *hz, err,
	    sizeof(err)) != 0) {
		*cause = dn_xasprintf("link probe: %s", err);
		rv = -1;
	} else {
		trial_fact(t, -1, "probe_links", "%zu",
		    dn_probe_nlinks(nc->probe));
		trial_fact(t, -1, "probe_links_all", "%d",
		    nc->n * (nc->n - 1));
		trial_fact(t, -1, "probe_rate_hz", "%d", *hz);
	}
	free(ls);
	free(sel);
	return (rv);
}

int
netcond_start(struct trial *t, char **cause)
{
	struct netcond	*nc;
	char		 err[256], *ct;
	int		 hz, *fds, rv;

	if (!scenario_has_conditions(t->scn))
		return (0);
	nc = t->nc = dn_xcalloc(1, sizeof(*nc));
	/* one endpoint more than nodes: the load's (trial_load_ns) */
	nc->nodes = t->nnodes;
	nc->n = t->nnodes + 1;
	/* docker: the nodes' namespaces are containers'; the rest (all,
	 * locally) made by dn_net */
	if (provider_netns(t->prov, &fds, cause) != 0)
		return (-1);
	if (fds != NULL) {
		fds = dn_xreallocarray(fds, (size_t)nc->n, sizeof(*fds));
		fds[nc->nodes] = -1;
	}
	rv = dn_net_create_in(&nc->net, nc->n, fds, err, sizeof(err));
	free(fds);
	if (rv != 0) {
		*cause = dn_xasprintf("emulated network: %s", err);
		return (-1);
	}
	t->net = t->prov->net = nc->net;
	if (apply(t, nc, cause) != 0)
		return (-1);
	if (start_probe(t, nc, &hz, cause) != 0)
		return (-1);
	ct = scenario_conditions_text(t->scn, t->var != NULL ?
	    t->var->name : NULL);
	if (ct != NULL)
		trial_fact(t, -1, "net_conditions", "%s", ct);
	free(ct);
	trial_event(t, -1, "network", "%d node namespaces through hub %s; "
	    "%s; the load over TCP from %s (endpoint 'load'); control and "
	    "metrics on ipc; probe %d/s on each of %zu links%s", t->nnodes,
	    dn_net_ns_name(nc->net, -1), node_kind(t)->net_traffic,
	    dn_net_ns_name(nc->net, nc->nodes),
	    hz, dn_probe_nlinks(nc->probe), nc->sampled ? " (a sample of "
	    "the directed links: every zone pair, each endpoint each way; "
	    "facts probe_to)" : "");
	return (0);
}

/* Close the window of the event in force (before its rules change): its
 * proof from the probe and the counters. */
static void
close_window(struct trial *t, struct netcond *nc, uint64_t now)
{
	const struct scn_event	*ev = nc->open;
	struct dn_nft_counter	*cv = NULL;
	size_t			 ncv = 0;
	uint64_t		 from, to, fl = netproof_in_flight(t, nc);
	char			 err[256];

	if (ev == NULL)
		return;
	nc->open = NULL;
	nc->nev++;
	if (dn_nft_counters(dn_net_ns_fd(nc->net, -1), &cv, &ncv, err,
	    sizeof(err)) != 0)
		trial_event(t, -1, "counters", "not read: %s", err);
	from = nc->open_ns + NC_SETTLE_NS;
	to = now > fl ? now - fl : 0;
	if (to < from)
		to = from;
	if (ev->action == SCN_EV_PARTITION)
		netproof_partition(t, nc, ev, from, to, nc->open_ns, now, cv,
		    ncv);
	else if (ev->action == SCN_EV_LINK)
		netproof_links(t, nc, "link event", ev, from, to);
	free(cv);
}

static void
open_window(struct netcond *nc, const struct scn_event *ev)
{
	nc->open = ev;
	nc->open_ns = dn_now_ns();
}

/* At a heal, the nodes below the highest height that PART (the partition
 * healed, or NULL) cut off from it watch for their rejoin: one of its own
 * group is only at another phase of its samples. */
static void
watch_rejoins(struct trial *t, const struct scn_event *part)
{
	double	best = -1;
	int	k, top = 0;

	pthread_mutex_lock(&t->mu);
	for (k = 0; k < t->nnodes; k++)
		if (t->nodes[k].last[DN_M_HEIGHT] > best) {
			best = t->nodes[k].last[DN_M_HEIGHT];
			top = k;
		}
	for (k = 0; k < t->nnodes; k++)
		if (t->nodes[k].last[DN_M_HEIGHT] < best &&
		    t->nodes[k].restart_ns == 0 && (part == NULL ||
		    netproof_blocked(t->nc, part, top, k) ||
		    netproof_blocked(t->nc, part, k, top)))
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
		nc->base_end_ns = now - netproof_in_flight(t, nc);
	close_window(t, nc, now);
	if (ev->action == SCN_EV_PARTITION) {
		nc->part = ev;
		g = netproof_groups(ev, nc->nodes);
		trial_event(t, -1, "partition", "groups %s", g);
		free(g);
	} else if (ev->action == SCN_EV_HEAL) {
		watch_rejoins(t, nc->part);
		nc->part = NULL;
		nc->nlinks = 0;
		trial_event(t, -1, "heal", "partitions and link events end; "
		    "network.links hold");
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
	int			 s, d;

	if (t->t0_ns == 0 || to_ns <= nc->stored_ns)
		return;
	for (s = 0; s < nc->n; s++)
		for (d = 0; d < nc->n; d++) {
			dn_probe_samples(nc->probe, s, d, nc->stored_ns, to_ns,
			    &ps, &np);
			v = dn_xgrow(v, &cap, n + np, sizeof(*v));
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
	trial_store_links(t, v, n);
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
	    netproof_in_flight(t, nc))
		store_samples(t, nc, now - netproof_in_flight(t, nc));
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
	uint64_t	 now = dn_now_ns(), from, to, cpu, sent;
	struct dn_delay_stats ds;

	if (nc == NULL)
		return;
	if (nc->probe != NULL && t->t0_ns != 0 && !signals_count) {
		close_window(t, nc, now);
		/* network.links alone: from after the warmup to the first
		 * network event (or the end) */
		from = t->t0_ns + (uint64_t)t->scn->warmup_ms * 1000000u +
		    NC_SETTLE_NS;
		to = nc->base_end_ns != 0 ? nc->base_end_ns : now -
		    netproof_in_flight(t, nc);
		nc->part = NULL;
		nc->nlinks = 0;
		if (to > from)
			netproof_links(t, nc, "network.links", NULL, from, to);
		/* Not one link proven in any window of the trial (200 nodes
		 * at load 300: 17 probes a link, every one not measured, and
		 * the trial was ok). */
		if (nc->measured == 0 && nc->unmeasured > 0)
			trial_fail(t, "network: none of the links with a "
			    "condition was measured in any window (%zu tried, "
			    "fewer than %d probes each): the conditions are "
			    "not proven; run longer, or probe fewer links "
			    "(network.probe_links)", nc->unmeasured,
			    PLAN_PROOF_MIN_PROBES);
	}
	if (nc->net != NULL && !signals_count)
		netproof_shape(t, nc);
	if (nc->probe != NULL && nc->stored_ns != 0)	/* not in flight */
		store_samples(t, nc, now - netproof_in_flight(t, nc));
	if (nc->delay != NULL) {
		dn_delay_stats(nc->delay, &ds);
		trial_fact(t, -1, "net_delayed_packets", "%llu",
		    (unsigned long long)ds.packets);
		trial_fact(t, -1, "net_emulator_cpu_s", "%.3f",
		    ds.cpu_ns / 1e9);
		/* queue or socket full: a loss the conditions did not ask */
		trial_fact(t, -1, "net_emulator_drops", "%lld",
		    (long long)ds.drops);
		/* how punctual it could be: its latest release past a due
		 * time, and whether it had a real-time priority */
		trial_fact(t, -1, "net_emulator_late_max_us", "%llu",
		    (unsigned long long)ds.max_hold_err_us);
		trial_fact(t, -1, "net_emulator_realtime", "%d",
		    ds.realtime);
		trial_fact(t, -1, "net_emulator_demotions", "%llu",
		    (unsigned long long)ds.demotions);
		if (!ds.realtime)
			trial_event(t, -1, "realtime_denied", "network: the "
			    "link emulator ran at the default priority "
			    "(SCHED_FIFO refused: not root, or a cpu cgroup "
			    "with no realtime runtime); on a busy machine its "
			    "packets leave late (here up to %.1f ms past "
			    "their time)", ds.max_hold_err_us / 1e3);
	}
	/* what the emulated network cost (docs/scale.md) */
	dn_probe_cost(nc->probe, &cpu, &sent);
	if (nc->probe != NULL) {
		trial_fact(t, -1, "net_probes_sent", "%llu",
		    (unsigned long long)sent);
		trial_fact(t, -1, "net_probe_cpu_s", "%.3f", cpu / 1e9);
	}
	dn_probe_stop(nc->probe);
	dn_delay_stop(nc->delay);
	dn_net_destroy(nc->net);
	t->net = t->prov->net = NULL;
	free(nc->links);
	free(nc->rates);
	free(nc);
	t->nc = NULL;
}
