/*
 * scenario-links.c: the emulated network's keys: network.zones (names for
 * sets of nodes), network.links (a default and zone pairs: latency,
 * jitter, loss, bandwidth), the values they take ("80ms", "0.5%",
 * "10Mbit"), and the partition and link events' own keys.  Not here:
 * carrying them out (orchestrator/net/, run/).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "xalloc.h"

static const char *const link_keys[] = { "latency", "jitter", "loss",
	"bandwidth", NULL };

const char *const scn_action_names[] = { "kill", "term", "stop", "cont",
	"restart", "upgrade", "clock_skew", "disk", "partition", "heal",
	"link", NULL };

const char *
scenario_action_name(enum scn_action a)
{
	return (scn_action_names[a]);
}

#define MAX_LATENCY_US	(10 * 1000000LL)	/* 10 s one way */

/* "NUMBER UNIT" with UNIT one of UNITS (scale SCALES), e.g. "0.5ms". */
static int
get_scaled(struct ctx *c, const struct ynode *n, const char *what,
    const char *const *units, const double *scales, const char *example,
    double *out)
{
	char	*end;
	double	 v;
	size_t	 i;

	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	v = strtod(n->value, &end);
	if (end == n->value || !isfinite(v) || v < 0)
		goto bad;
	for (i = 0; units[i] != NULL; i++)
		if (strcmp(end, units[i]) == 0) {
			*out = v * scales[i];
			return (0);
		}
bad:
	return (scn_fail(c, n, "%s: '%s' is not a %s", what, n->value,
	    example));
}

static int
get_us(struct ctx *c, const struct ynode *n, const char *what, int64_t *us)
{
	static const char *const u[] = { "us", "ms", "s", NULL };
	static const double	 k[] = { 1, 1e3, 1e6 };
	double			 v;

	if (get_scaled(c, n, what, u, k, "duration such as 80ms, 0.5ms, "
	    "250us or 1s", &v) != 0)
		return (-1);
	if (v > MAX_LATENCY_US)
		return (scn_fail(c, n, "%s: '%s' is more than 10s", what,
		    n->value));
	*us = llround(v);
	return (0);
}

static int
get_loss(struct ctx *c, const struct ynode *n, const char *what,
    uint32_t *ppm)
{
	static const char *const u[] = { "%", NULL };
	static const double	 k[] = { 1e4 };
	double			 v;

	if (get_scaled(c, n, what, u, k, "share such as 20% or 0.5%",
	    &v) != 0)
		return (-1);
	if (v > 1e6)
		return (scn_fail(c, n, "%s: '%s' is more than 100%%", what,
		    n->value));
	*ppm = (uint32_t)llround(v);
	return (0);
}

static int
get_rate(struct ctx *c, const struct ynode *n, const char *what,
    uint64_t *bps)
{
	static const char *const u[] = { "bit", "kbit", "Mbit", "Gbit",
		NULL };
	static const double	 k[] = { 1, 1e3, 1e6, 1e9 };
	double			 v;

	if (get_scaled(c, n, what, u, k, "rate such as 10Mbit, 512kbit or "
	    "1Gbit (bits per second)", &v) != 0)
		return (-1);
	if (v < 8000 || v > 100e9)
		return (scn_fail(c, n, "%s: '%s' is outside 8kbit..100Gbit",
		    what, n->value));
	*bps = (uint64_t)llround(v);
	return (0);
}

/* The keys of a link's conditions that map N holds, into *L (keys it
 * does not hold stay as they were).  KEYS: what N may hold besides. */
static int
scn_get_link(struct ctx *c, const struct ynode *n, const char *what,
    const char *const *keys, struct scn_link *l)
{
	const struct ynode	*v;
	char			*w;
	int			 rv = -1;

	if (keys == NULL && scn_check_map(c, n, what, link_keys) != 0)
		return (-1);
	w = dn_xasprintf("%s.latency", what);
	if ((v = ymap_get(n, "latency")) != NULL &&
	    get_us(c, v, w, &l->latency_us) != 0)
		goto out;
	free(w);
	w = dn_xasprintf("%s.jitter", what);
	if ((v = ymap_get(n, "jitter")) != NULL &&
	    get_us(c, v, w, &l->jitter_us) != 0)
		goto out;
	if (v != NULL && l->jitter_us > l->latency_us) {
		scn_fail(c, v, "%s (%s) is more than the latency: a packet "
		    "cannot leave before it was sent; lower it or raise "
		    "latency", w, v->value);
		goto out;
	}
	free(w);
	w = dn_xasprintf("%s.loss", what);
	if ((v = ymap_get(n, "loss")) != NULL &&
	    get_loss(c, v, w, &l->loss_ppm) != 0)
		goto out;
	free(w);
	w = dn_xasprintf("%s.bandwidth", what);
	if ((v = ymap_get(n, "bandwidth")) != NULL &&
	    get_rate(c, v, w, &l->bandwidth_bps) != 0)
		goto out;
	rv = 0;
out:
	free(w);
	return (rv);
}

int
scn_get_nodes(struct ctx *c, const struct ynode *n, const char *what,
    int nodes, int **out, size_t *nout)
{
	size_t	i, j;

	/* set before any refusal: a caller frees *OUT on failure, and in a
	 * loop it held the last list's, freed already (a zone `b: []` after
	 * `a: [0]` was a double free) */
	*out = NULL;
	*nout = 0;
	if (n->type != Y_SEQ || n->nkids == 0)
		return (scn_fail(c, n, "%s must be a list of node indices, "
		    "such as [0, 1]", what));
	*out = dn_xcalloc(n->nkids, sizeof(**out));
	*nout = n->nkids;
	for (i = 0; i < n->nkids; i++) {
		if (scn_get_int32(c, n->kids[i], what, 0, nodes - 1,
		    &(*out)[i]) != 0)
			return (-1);
		for (j = 0; j < i; j++)
			if ((*out)[j] == (*out)[i])
				return (scn_fail(c, n->kids[i], "%s names "
				    "node %d twice", what, (*out)[i]));
	}
	return (0);
}

static int
load_zones(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	size_t	 i, k, nn;
	int	*idx, z;

	if (n->type != Y_MAP)
		return (scn_fail(c, n, "network.zones must be a map of name: "
		    "[nodes], such as {eu: [0, 1], us: [2, 3]}"));
	s->network.nzones = n->nkids / 2;
	s->network.zones = dn_xcalloc(s->network.nzones + 1, sizeof(char *));
	for (i = 0; i < s->network.nzones; i++) {
		const struct ynode *key = n->kids[2 * i];

		if (key->value[0] == '\0' || strspn(key->value,
		    "abcdefghijklmnopqrstuvwxyz0123456789_") !=
		    strlen(key->value) || strlen(key->value) > 32)
			return (scn_fail(c, key, "zone name '%s': 1 to 32 of "
			    "a-z, 0-9 and _ (network.links names pairs as "
			    "A-B)", key->value));
		if (strcmp(key->value, "default") == 0)
			return (scn_fail(c, key, "'default' names the links' "
			    "default; call the zone something else"));
		s->network.zones[i] = dn_xstrdup(key->value);
	}
	for (i = 0; i < s->network.nzones; i++) {
		if (scn_get_nodes(c, n->kids[2 * i + 1], "network.zones[]",
		    s->network.nodes, &idx, &nn) != 0) {
			free(idx);
			return (-1);
		}
		for (k = 0; k < nn; k++) {
			z = s->network.zone_of[idx[k]];
			if (z >= 0) {
				scn_fail(c, n->kids[2 * i + 1], "node %d is "
				    "in zones '%s' and '%s'; a node has one "
				    "zone", idx[k], s->network.zones[z],
				    s->network.zones[i]);
				free(idx);
				return (-1);
			}
			s->network.zone_of[idx[k]] = (int)i;
		}
		free(idx);
	}
	return (0);
}

static int
zone_index(const struct scenario *s, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < s->network.nzones; i++)
		if (strlen(s->network.zones[i]) == len &&
		    strncmp(s->network.zones[i], name, len) == 0)
			return ((int)i);
	return (-1);
}

static int
load_links(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	size_t	i, j;

	if (n->type != Y_MAP)
		return (scn_fail(c, n, "network.links must be a map: "
		    "{default: {latency: 2ms}, eu-us: {latency: 80ms}}"));
	s->network.zlinks = dn_xcalloc(n->nkids / 2 + 1,
	    sizeof(*s->network.zlinks));
	for (i = 0; i < n->nkids / 2; i++) {
		const struct ynode	*key = n->kids[2 * i];
		const char		*dash = strchr(key->value, '-');
		struct scn_zone_link	*zl;
		char			*w;
		int			 rv;

		w = dn_xasprintf("network.links.%s", key->value);
		if (strcmp(key->value, "default") == 0) {
			rv = scn_get_link(c, n->kids[2 * i + 1], w, NULL,
			    &s->network.link_default);
			free(w);
			if (rv != 0)
				return (-1);
			continue;
		}
		zl = &s->network.zlinks[s->network.nzlinks];
		zl->za = dash == NULL ? -1 : zone_index(s, key->value,
		    (size_t)(dash - key->value));
		zl->zb = dash == NULL ? -1 : zone_index(s, dash + 1,
		    strlen(dash + 1));
		if (zl->za < 0 || zl->zb < 0) {
			free(w);
			return (scn_fail(c, key, "network.links: '%s' is not "
			    "'default' nor a pair A-B of network.zones",
			    key->value));
		}
		for (j = 0; j < s->network.nzlinks; j++) {
			const struct scn_zone_link *o = &s->network.zlinks[j];

			if ((o->za == zl->za && o->zb == zl->zb) ||
			    (o->za == zl->zb && o->zb == zl->za)) {
				free(w);
				return (scn_fail(c, key, "network.links: '%s' "
				    "is the same pair as an earlier entry (a "
				    "pair holds both directions)",
				    key->value));
			}
		}
		rv = scn_get_link(c, n->kids[2 * i + 1], w, NULL, &zl->c);
		free(w);
		if (rv != 0)
			return (-1);
		s->network.nzlinks++;
	}
	return (0);
}

int
scn_load_links(struct ctx *c, struct scenario *s, const struct ynode *net)
{
	const struct ynode	*v;
	int			 i;

	s->network.zone_of = dn_xcalloc((size_t)s->network.nodes,
	    sizeof(int));
	for (i = 0; i < s->network.nodes; i++)
		s->network.zone_of[i] = -1;
	if ((v = ymap_get(net, "zones")) != NULL && load_zones(c, s, v) != 0)
		return (-1);
	if ((v = ymap_get(net, "links")) != NULL && load_links(c, s, v) != 0)
		return (-1);
	return (0);
}

static int
link_asks(const struct scn_link *l)
{
	return (l->latency_us > 0 || l->jitter_us > 0 || l->loss_ppm > 0 ||
	    l->bandwidth_bps > 0);
}

int
scenario_has_conditions(const struct scenario *s)
{
	size_t i;

	if (link_asks(&s->network.link_default))
		return (1);
	for (i = 0; i < s->network.nzlinks; i++)
		if (link_asks(&s->network.zlinks[i].c))
			return (1);
	for (i = 0; i < s->nevents; i++)
		if (s->events[i].action >= SCN_EV_PARTITION)
			return (1);
	return (0);
}

static void
link_print(FILE *f, const struct scn_link *l)
{
	if (l->latency_us > 0 || l->jitter_us > 0)
		fprintf(f, " latency %.6g ms", (double)l->latency_us / 1e3);
	if (l->jitter_us > 0)
		fprintf(f, " jitter %.6g ms", (double)l->jitter_us / 1e3);
	if (l->loss_ppm > 0)
		fprintf(f, " loss %.6g%%", (double)l->loss_ppm / 1e4);
	if (l->bandwidth_bps > 0)
		fprintf(f, " bandwidth %.6g Mbit/s",
		    (double)l->bandwidth_bps / 1e6);
}

char *
scenario_conditions_text(const struct scenario *s, const char *variant)
{
	const char	*sep = "";
	char		*buf = NULL;
	size_t		 len = 0, i;
	FILE		*f;
	int		 events = 0;

	if (!scenario_has_conditions(s) ||
	    (f = open_memstream(&buf, &len)) == NULL)
		return (NULL);
	if (link_asks(&s->network.link_default)) {
		fputs("default:", f);
		link_print(f, &s->network.link_default);
		sep = "; ";
	}
	for (i = 0; i < s->network.nzlinks; i++) {
		const struct scn_zone_link *zl = &s->network.zlinks[i];

		if (!link_asks(&zl->c))
			continue;
		fprintf(f, "%s%s-%s:", sep, s->network.zones[zl->za],
		    s->network.zones[zl->zb]);
		link_print(f, &zl->c);
		sep = "; ";
	}
	for (i = 0; i < s->nevents; i++) {
		const struct scn_event *ev = &s->events[i];

		if (ev->action < SCN_EV_PARTITION || (ev->variant != NULL &&
		    (variant == NULL || strcmp(ev->variant, variant) != 0)))
			continue;
		fprintf(f, "%s%s at %.6g s", events++ ? ", " : *sep ?
		    "; events: " : "events: ",
		    scenario_action_name(ev->action),
		    (double)ev->at_ms / 1e3);
	}
	fclose(f);
	return (buf);
}

void
scenario_link_of(const struct scenario *s, int src, int dst,
    struct scn_link *out)
{
	const struct scn_link	*d = &s->network.link_default, *z = NULL;
	int			 a = s->network.zone_of[src];
	int			 b = s->network.zone_of[dst];
	size_t			 i;

	*out = *d;
	for (i = 0; a >= 0 && b >= 0 && i < s->network.nzlinks; i++) {
		const struct scn_zone_link *zl = &s->network.zlinks[i];

		if ((zl->za == a && zl->zb == b) ||
		    (zl->za == b && zl->zb == a))
			z = &zl->c;
	}
	if (z == NULL)
		return;
	if (z->latency_us > 0 || z->jitter_us > 0) {
		out->latency_us = z->latency_us;
		out->jitter_us = z->jitter_us;
	}
	if (z->loss_ppm > 0)
		out->loss_ppm = z->loss_ppm;
	if (z->bandwidth_bps > 0)
		out->bandwidth_bps = z->bandwidth_bps;
}

/* partition: groups (and one_way); a node in one group at most. */
static int
load_partition(struct ctx *c, struct scenario *s, const struct ynode *e,
    struct scn_event *ev)
{
	const struct ynode	*g = ymap_get(e, "groups"), *v;
	int			*idx = NULL, i;
	size_t			 k, j, nn;

	if (g == NULL || g->type != Y_SEQ || g->nkids == 0)
		return (scn_fail(c, g != NULL ? g : e, "a partition needs "
		    "'groups', a list of lists of nodes, such as [[0, 1], "
		    "[2, 3]] (nodes no group names form one more group)"));
	ev->group_of = dn_xcalloc((size_t)s->network.nodes, sizeof(int));
	for (i = 0; i < s->network.nodes; i++)
		ev->group_of[i] = -1;
	ev->ngroups = (int)g->nkids;
	for (j = 0; j < g->nkids; j++) {
		if (scn_get_nodes(c, g->kids[j], "events[].groups[]",
		    s->network.nodes, &idx, &nn) != 0)
			goto fail;
		for (k = 0; k < nn; k++) {
			if (ev->group_of[idx[k]] >= 0) {
				scn_fail(c, g->kids[j], "node %d is in two "
				    "groups of the partition", idx[k]);
				goto fail;
			}
			ev->group_of[idx[k]] = (int)j;
		}
		free(idx);
		idx = NULL;
	}
	for (i = 0; i < s->network.nodes && ev->group_of[i] >= 0; i++)
		;
	if (ev->ngroups == 1 && i == s->network.nodes)
		return (scn_fail(c, g, "a partition of one group cuts "
		    "nothing; name two groups, or leave some nodes out"));
	if ((v = ymap_get(e, "one_way")) != NULL) {
		static const char *const yn[] = { "false", "true", NULL };

		if (scn_get_enum(c, v, "events[].one_way", yn,
		    &ev->one_way) != 0)
			return (-1);
	}
	return (0);
fail:
	free(idx);
	return (-1);
}

int
scn_load_net_event(struct ctx *c, struct scenario *s, const struct ynode *e,
    struct scn_event *ev)
{
	static const char *const own[] = { "groups", "one_way", "nodes",
		"latency", "jitter", "loss", "bandwidth", "for", NULL };
	const struct ynode	*v;
	size_t			 i;

	ev->node = -1;
	for (i = 0; own[i] != NULL; i++) {
		int mine = (ev->action == SCN_EV_PARTITION && i < 2) ||
		    (ev->action == SCN_EV_LINK && i >= 2);

		if ((v = ymap_get(e, own[i])) != NULL && !mine)
			return (scn_fail(c, v, "'%s' does not apply to a %s "
			    "event", own[i], scenario_action_name(ev->action)));
	}
	if ((v = ymap_get(e, "node")) != NULL)
		return (scn_fail(c, v, "a %s event takes no 'node'%s",
		    scenario_action_name(ev->action), ev->action ==
		    SCN_EV_LINK ? " (it takes 'nodes', a list)" : ""));
	if (ev->action == SCN_EV_PARTITION)
		return (load_partition(c, s, e, ev));
	if (ev->action != SCN_EV_LINK)
		return (0);
	if ((v = ymap_get(e, "nodes")) == NULL)
		return (scn_fail(c, e, "a link event needs 'nodes' (whose "
		    "links, both ways), such as {action: link, nodes: [4], "
		    "loss: 20%%, for: 30s}"));
	if (scn_get_nodes(c, v, "events[].nodes", s->network.nodes,
	    &ev->nodes, &ev->nnodes) != 0)
		return (-1);
	if (scn_get_link(c, e, "events[]", own, &ev->cond) != 0)
		return (-1);
	if (!link_asks(&ev->cond))
		return (scn_fail(c, e, "a link event needs a condition: "
		    "latency, jitter, loss or bandwidth"));
	if ((v = ymap_get(e, "for")) != NULL &&
	    scn_get_duration(c, v, "events[].for", 1, 30 * DAY_MS,
	    &ev->for_ms) != 0)
		return (-1);
	return (0);
}
