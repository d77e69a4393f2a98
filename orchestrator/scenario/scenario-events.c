/*
 * scenario-events.c: the events: section, a list of {at, action, node,
 * variant, name} (kill, term, stop, cont, restart or upgrade a node at a
 * time in a trial; a rolling upgrade of several nodes is loaded as one
 * event per node; skew its clock or fault its disk, issue 39).  Not here:
 * carrying them out (run/watch.c, run/faults.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "units.h"
#include "xalloc.h"

#define SCN_MAX_EVENTS	10000

static const char *const event_keys[] = { "at", "action", "node", "variant",
	"name", "to", "pause", "groups", "one_way", "nodes", "latency", "jitter", "loss",
	"bandwidth", "for", "offset", "drift", "full", "rate", "iops", NULL };
#define action_names	scn_action_names

/* The fault events' own keys and the action each belongs to. */
static const struct {
	const char	*key;
	enum scn_action	 action;
} fault_keys[] = {
	{ "offset", SCN_EV_CLOCK_SKEW },
	{ "drift", SCN_EV_CLOCK_SKEW },
	{ "full", SCN_EV_DISK },
	{ "rate", SCN_EV_DISK },
	{ "iops", SCN_EV_DISK },
};
#define NFAULT_KEYS	(sizeof(fault_keys) / sizeof(fault_keys[0]))

/* A node's event takes none of the network's keys (an upgrade: but
 * 'nodes'), and only an upgrade takes 'to' and 'pause'. */
static int
net_keys(struct ctx *c, const struct ynode *e, const struct scn_event *ev)
{
	const struct ynode	*v;
	size_t			 i;

	for (i = 5; event_keys[i] != NULL &&
	    strcmp(event_keys[i], "offset") != 0; i++) {
		int up = ev->action == SCN_EV_UPGRADE;

		if ((v = ymap_get(e, event_keys[i])) == NULL || (up && (i < 7 ||
		    strcmp(event_keys[i], "nodes") == 0)))
			continue;
		if (i < 7)
			return (scn_fail(c, v, "'%s' belongs to an upgrade "
			    "event, not to a %s event", event_keys[i],
			    action_names[ev->action]));
		return (scn_fail(c, v, "'%s' belongs to the network's "
		    "events (partition, link), not to a node's",
		    event_keys[i]));
	}
	return (0);
}

/* An upgrade: {at, action: upgrade, node: N or nodes: [N, ...], to:
 * VARIANT, pause: DURATION}. */
static int
load_upgrade(struct ctx *c, struct scenario *s, const struct ynode *e,
    struct scn_event *ev)
{
	const struct ynode	*v = ymap_get(e, "to"), *n = ymap_get(e, "node");
	size_t			 j;

	if (v == NULL)
		return (scn_fail(c, e, "an upgrade event needs 'to', the "
		    "variant whose build the node runs from then on, e.g. "
		    "{at: 60s, action: upgrade, node: 1, to: B}"));
	if (scn_want_scalar(c, v, "events[].to") != 0)
		return (-1);
	for (j = 0; j < s->nvariants; j++)
		if (strcmp(s->variants[j].name, v->value) == 0)
			break;
	if (j == s->nvariants)
		return (scn_fail(c, v, "upgrade to variant '%s', which is not "
		    "in variants", v->value));
	ev->to = (int)j;
	ev->pause_ms = 10000;
	if ((v = ymap_get(e, "pause")) != NULL && scn_get_duration(c, v,
	    "events[].pause", 0, DAY_MS, &ev->pause_ms) != 0)
		return (-1);
	if ((n != NULL) == (ymap_get(e, "nodes") != NULL))
		return (scn_fail(c, e, "an upgrade event needs 'node' or "
		    "'nodes' (a rolling upgrade, one after another 'pause' "
		    "apart), not %s", n != NULL ? "both" : "neither"));
	if (n != NULL) {
		ev->nodes = dn_xcalloc(1, sizeof(*ev->nodes));
		ev->nnodes = 1;
		return (scn_get_int32(c, n, "events[].node", 0,
		    s->network.nodes - 1, &ev->nodes[0]));
	}
	return (scn_get_nodes(c, ymap_get(e, "nodes"), "events[].nodes",
	    s->network.nodes, &ev->nodes, &ev->nnodes));
}

/* A rolling upgrade (an upgrade of several nodes) becomes one event per
 * node, PAUSE_MS apart, the first keeping its name; each before the end
 * of the run. */
static int
expand_upgrades(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	struct scn_event	*v;
	size_t			 i, j, m = 0, k = 0;

	for (i = 0; i < s->nevents; i++)
		m += s->events[i].action == SCN_EV_UPGRADE ?
		    s->events[i].nnodes : 1;
	if (m > SCN_MAX_EVENTS)
		return (scn_fail(c, n, "more than %d events once the rolling "
		    "upgrades are one per node; split the scenario",
		    SCN_MAX_EVENTS));
	v = dn_xcalloc(m ? m : 1, sizeof(*v));
	for (i = 0; i < s->nevents; i++) {
		struct scn_event *ev = &s->events[i];

		if (ev->action != SCN_EV_UPGRADE) {
			v[k++] = *ev;
			continue;
		}
		for (j = 0; j < ev->nnodes; j++) {
			struct scn_event *u = &v[k++];

			*u = *ev;
			u->node = ev->nodes[j];
			u->nodes = NULL;
			u->nnodes = 0;
			u->at_ms = ev->at_ms + (int64_t)j * ev->pause_ms;
			u->name = j == 0 ? ev->name : NULL;
			u->variant = j == 0 || ev->variant == NULL ?
			    ev->variant : dn_xstrdup(ev->variant);
			if (u->at_ms >= s->duration_ms)
				return (free(v), scn_fail(c, n->kids[i],
				    "the upgrade of node %d at %" PRId64 " ms "
				    "(pause %" PRId64 " ms after the one "
				    "before) is not before the end of the run "
				    "(duration %" PRId64 " ms); shorten the "
				    "pause or lengthen the run", u->node,
				    u->at_ms, ev->pause_ms, s->duration_ms));
		}
		free(ev->nodes);
	}
	free(s->events);
	s->events = v;
	s->nevents = m;
	return (0);
}

/* A fault event's keys on an event of another action are refused. */
static int
fault_keys_own(struct ctx *c, const struct ynode *e,
    const struct scn_event *ev)
{
	const struct ynode	*v;
	size_t			 i;

	for (i = 0; i < NFAULT_KEYS; i++)
		if ((v = ymap_get(e, fault_keys[i].key)) != NULL &&
		    fault_keys[i].action != ev->action)
			return (scn_fail(c, v, "'%s' belongs to a %s event, "
			    "not to a %s event", fault_keys[i].key,
			    action_names[fault_keys[i].action],
			    action_names[ev->action]));
	return (0);
}

/* A drift: "100ppm", "-2.5ppm", or so much a second ("1ms/s",
 * "-500us/s", "20ns/s"); at most 10 % either way. */
static int
load_drift(struct ctx *c, const struct ynode *v, double *ppm)
{
	static const struct {
		const char	*unit;
		double		 ppm;	/* ppm for 1 of it */
	} units[] = { { "ppm", 1 }, { "ns/s", 1e-3 }, { "us/s", 1 },
	    { "ms/s", 1e3 } };
	const char	*p = v->value;
	size_t		 len = strlen(p), i, u;
	char		*num;
	double		 d = 0;
	int		 bad = 1;

	if (scn_want_scalar(c, v, "events[].drift") != 0)
		return (-1);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		u = strlen(units[i].unit);
		if (len <= u || strcmp(p + len - u, units[i].unit) != 0)
			continue;
		num = dn_xstrndup(p, len - u);
		bad = dn_parse_double(num, &d) != 0 || d != d;
		d *= units[i].ppm;
		free(num);
		break;
	}
	if (bad)
		return (scn_fail(c, v, "events[].drift: '%s' is not a drift: "
		    "a number with ppm, or with ns/s, us/s or ms/s (100ppm, "
		    "-50ppm, 1ms/s)", p));
	if (d > 100000.0 || d < -100000.0)
		return (scn_fail(c, v, "events[].drift: '%s' is beyond 10 %% "
		    "(100000ppm, 100ms/s) either way: that is a clock at "
		    "another speed, not a drift", p));
	*ppm = d;
	return (0);
}

/* clock_skew: {offset: DURATION, drift: DRIFT}, at least one; "-" before
 * the offset for a clock behind.  No offset: the clock goes on from
 * where it is; no drift: none. */
static int
load_clock(struct ctx *c, const struct ynode *e, struct scn_event *ev)
{
	const struct ynode	*v = ymap_get(e, "offset"), *d;
	const char		*why = NULL, *p;
	int64_t			 ms;

	d = ymap_get(e, "drift");
	if (v == NULL && d == NULL)
		return (scn_fail(c, e, "a clock_skew event needs 'offset', "
		    "how far the node's wall clock is moved (0s heals it), "
		    "or 'drift', how fast it moves away from then on (100ppm, "
		    "1ms/s), e.g. {at: 5s, action: clock_skew, node: 1, "
		    "offset: 30s} or offset: -2s, drift: 50ppm"));
	if (d != NULL && load_drift(c, d, &ev->drift_ppm) != 0)
		return (-1);
	if (v == NULL)
		return (0);
	if (scn_want_scalar(c, v, "events[].offset") != 0)
		return (-1);
	p = v->value[0] == '-' ? v->value + 1 : v->value;
	if (dn_parse_duration_ms(p, &ms, &why) != 0)
		return (scn_fail(c, v, "events[].offset: '%s' is not a "
		    "duration (%s), e.g. 30s, -2s, 500ms", v->value,
		    why != NULL ? why : "?"));
	if (ms > 10 * 365 * DAY_MS)
		return (scn_fail(c, v, "events[].offset: '%s' is beyond ten "
		    "years; libfaketime takes a smaller one", v->value));
	ev->offset_ms = v->value[0] == '-' ? -ms : ms;
	ev->has_offset = 1;
	return (0);
}

/* disk: {full: true|false, rate: SIZE/s, iops: N}, at least one; the
 * disk's whole state from then on ({full: false} heals it). */
static int
load_disk(struct ctx *c, const struct ynode *e, struct scn_event *ev)
{
	static const char *const tf[] = { "false", "true", NULL };
	const struct ynode	*f = ymap_get(e, "full"), *r, *i;
	const char		*why = NULL;
	char			*num;
	size_t			 len;

	r = ymap_get(e, "rate");
	i = ymap_get(e, "iops");
	if (f == NULL && r == NULL && i == NULL)
		return (scn_fail(c, e, "a disk event needs 'full' (true or "
		    "false), 'rate' (bytes per second, e.g. 1MB/s) or 'iops' "
		    "(operations per second): the disk's state from then on, "
		    "e.g. {at: 10s, action: disk, node: 1, full: true}"));
	if (f != NULL && scn_get_enum(c, f, "events[].full", tf,
	    &ev->full) != 0)
		return (-1);
	if (i != NULL && scn_get_u32(c, i, "events[].iops", 0, 1000000,
	    &ev->iops) != 0)
		return (-1);
	if (r == NULL)
		return (0);
	if (scn_want_scalar(c, r, "events[].rate") != 0)
		return (-1);
	len = strlen(r->value);
	if (len < 3 || strcmp(r->value + len - 2, "/s") != 0)
		return (scn_fail(c, r, "events[].rate: '%s' is not a rate; "
		    "write bytes per second, e.g. 1MB/s or 512KiB/s (0/s: "
		    "no limit)", r->value));
	num = dn_xstrndup(r->value, len - 2);
	if (dn_parse_size(num, &ev->rate_bps, &why) != 0) {
		free(num);
		return (scn_fail(c, r, "events[].rate: '%s' is not a rate "
		    "(%s), e.g. 1MB/s", r->value, why != NULL ? why : "?"));
	}
	free(num);
	if (ev->rate_bps != 0 && ev->rate_bps < 4096)
		return (scn_fail(c, r, "events[].rate: '%s' is below one "
		    "4 KiB block a second; the kernel's throttle needs at "
		    "least 4KiB/s", r->value));
	return (0);
}

int
scn_load_events(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	size_t	i, j;
	int	a;

	if (n->type != Y_SEQ)
		return (scn_fail(c, n, "events must be a list of {at, action, "
		    "node}, not a %s", ynode_type_name(n)));
	if (n->nkids > SCN_MAX_EVENTS)
		return (scn_fail(c, n->kids[SCN_MAX_EVENTS], "more than %d "
		    "events; split the scenario", SCN_MAX_EVENTS));
	s->events = dn_xcalloc(n->nkids ? n->nkids : 1, sizeof(*s->events));
	for (i = 0; i < n->nkids; i++) {
		const struct ynode *e = n->kids[i], *v;
		struct scn_event   *ev = &s->events[s->nevents++];

		if (scn_check_map(c, e, "events[]", event_keys) != 0)
			return (-1);
		if (ymap_get(e, "at") == NULL ||
		    ymap_get(e, "action") == NULL)
			return (scn_fail(c, e, "an event needs 'at' and "
			    "'action', e.g. {at: 30s, action: kill, "
			    "node: 1}"));
		v = ymap_get(e, "at");
		if (scn_get_duration(c, v, "events[].at", 0, 30 * DAY_MS,
		    &ev->at_ms) != 0)
			return (-1);
		if (ev->at_ms >= s->duration_ms)
			return (scn_fail(c, v, "event at '%s' is not before "
			    "the end of the run (duration %" PRId64 " ms); "
			    "move it earlier", v->value, s->duration_ms));
		if (scn_get_enum(c, ymap_get(e, "action"), "events[].action",
		    action_names, &a) != 0)
			return (-1);
		ev->action = (enum scn_action)a;
		ev->line = e->line;
		ev->col = e->col;
		if (fault_keys_own(c, e, ev) != 0)
			return (-1);
		if (ev->action < SCN_EV_PARTITION && ev->action !=
		    SCN_EV_UPGRADE && ymap_get(e, "node") == NULL)
			return (scn_fail(c, e, "a %s event needs 'node', e.g. "
			    "{at: 30s, action: kill, node: 1}",
			    action_names[a]));
		if ((v = ymap_get(e, "name")) != NULL) {
			if (scn_get_str(c, v, "events[].name", &ev->name) != 0)
				return (-1);
			if (ev->name[0] == '\0' || strspn(ev->name,
			    "abcdefghijklmnopqrstuvwxyz0123456789_") !=
			    strlen(ev->name) || strlen(ev->name) > 64)
				return (scn_fail(c, v, "events[].name: 1 to 64 "
				    "of a-z, 0-9 and _ (it is used in windows "
				    "such as after: %s+5s)", "heal"));
			for (j = 0; j + 1 < s->nevents; j++)
				if (s->events[j].name != NULL &&
				    strcmp(s->events[j].name, ev->name) == 0)
					return (scn_fail(c, v, "two events are "
					    "named '%s'; a window names one",
					    ev->name));
			if (strcmp(ev->name, "warmup") == 0 ||
			    strcmp(ev->name, "end") == 0 ||
			    strcmp(ev->name, "start") == 0)
				return (scn_fail(c, v, "events[].name '%s' is "
				    "an anchor of its own; pick another",
				    ev->name));
		}
		if (ev->action >= SCN_EV_PARTITION) {
			if (scn_load_net_event(c, s, e, ev) != 0)
				return (-1);
		} else if (net_keys(c, e, ev) != 0)
			return (-1);
		else if (ev->action == SCN_EV_UPGRADE) {
			if (load_upgrade(c, s, e, ev) != 0)
				return (-1);
		} else if (ev->action == SCN_EV_CLOCK_SKEW && load_clock(c, e,
		    ev) != 0)
			return (-1);
		else if (ev->action == SCN_EV_DISK && load_disk(c, e,
		    ev) != 0)
			return (-1);
		else if (scn_get_int32(c, ymap_get(e, "node"),
		    "events[].node", 0, s->network.nodes - 1, &ev->node) != 0)
			return (-1);
		if ((v = ymap_get(e, "variant")) == NULL)
			continue;
		if (scn_want_scalar(c, v, "events[].variant") != 0)
			return (-1);
		for (j = 0; j < s->nvariants; j++)
			if (strcmp(s->variants[j].name, v->value) == 0)
				break;
		if (j == s->nvariants)
			return (scn_fail(c, v, "event names variant '%s', "
			    "which is not in variants", v->value));
		ev->variant = dn_xstrdup(v->value);
	}
	return (expand_upgrades(c, s, n));
}
