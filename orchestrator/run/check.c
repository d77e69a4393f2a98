/*
 * check.c: the one check of a scenario before anything starts (issue
 * 34): what `devnet validate` accepts, `devnet run` and `ab` run, and what
 * they refuse, validate refuses in the same words.  It asks the
 * provider's and each variant's node kind's check ops, and holds what the
 * runner itself cannot do.  No file, socket, process or namespace is made
 * here; what can only fail when it happens (an engine down, a port taken,
 * a revision that does not build) is said where it happens.
 */
#include <string.h>

#include "run/runner-internal.h"
#include "node-kind/node-kind.h"
#include "provider/provider.h"
#include "xalloc.h"

/* An upgrade starts the `to:` variant's build in the trial of another
 * variant: both devnet-nodes, or both foreign nodes (issue 39). */
static int
upgrade_kinds(const struct scenario *s, char **cause)
{
	size_t	e, i;

	for (e = 0; e < s->nevents; e++) {
		const struct scn_event	 *ev = &s->events[e];
		const struct scn_variant *to = &s->variants[ev->to];

		if (ev->action != SCN_EV_UPGRADE)
			continue;
		for (i = 0; i < s->nvariants; i++) {
			if (ev->variant != NULL && strcmp(ev->variant,
			    s->variants[i].name) != 0)
				continue;
			if (node_kind_of(&s->variants[i]) == node_kind_of(to))
				continue;
			*cause = dn_xasprintf("events: the upgrade of node %d "
			    "to variant %s: %s runs %s, %s runs %s; upgrade "
			    "within one kind of node (set the event's "
			    "variant: to limit it)", ev->node, to->name,
			    s->variants[i].name, node_kind_of(
			    &s->variants[i])->runs, to->name,
			    node_kind_of(to)->runs);
			return (-1);
		}
	}
	return (0);
}

int
run_check(const struct scenario *s, char **cause)
{
	const struct node_kind_ops	*k;
	size_t				 i;

	if (s->order == SCN_ORDER_CONCURRENT &&
	    s->network.tcp_base_port > 0) {
		*cause = dn_xstrdup("order 'concurrent' needs ipc endpoints "
		    "(two devnets cannot share one tcp_base_port)");
		return (-1);
	}
	if (provider_check(s, cause) != 0 || duet_check(s, cause) != 0)
		return (-1);
	if (upgrade_kinds(s, cause) != 0 || faults_check(s, cause) != 0)
		return (-1);
	for (i = 0; i < s->nvariants; i++) {
		k = node_kind_of(&s->variants[i]);
		if (k->check != NULL && k->check(s, &s->variants[i],
		    cause) != 0)
			return (-1);
	}
	return (0);
}
