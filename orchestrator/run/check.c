/*
 * check.c: the one check of a scenario before anything starts (issue
 * 34): what `devnet validate` accepts, `devnet run` and `ab` run, and what
 * they refuse, validate refuses in the same words.  It asks the
 * provider's and each variant's node kind's check ops, and holds what the
 * runner itself cannot do.  No file, socket, process or namespace is made
 * here; what can only fail when it happens (an engine down, a port taken,
 * a revision that does not build) is said where it happens.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/runner-internal.h"
#include "node-kind/node-kind.h"
#include "provider/provider.h"
#include "xalloc.h"

/* A clock_skew's drift needs time before the node's next clock_skew (of
 * a variant both apply to) or the trial's end for its proof to measure
 * it (faults.c): said now, not as a failed trial. */
static void
warn_drift(const struct scenario *s, FILE *f)
{
	const struct scn_event	*ev, *nx;
	size_t			 e, j;
	int64_t			 end;
	double			 need;

	for (e = 0; e < s->nevents; e++) {
		ev = &s->events[e];
		if (ev->action != SCN_EV_CLOCK_SKEW || ev->drift_ppm == 0)
			continue;
		end = s->duration_ms;
		for (j = 0; j < s->nevents; j++) {
			nx = &s->events[j];
			if (j != e && nx->action == SCN_EV_CLOCK_SKEW &&
			    nx->node == ev->node && nx->at_ms >= ev->at_ms &&
			    nx->at_ms < end && (nx->variant == NULL ||
			    ev->variant == NULL || strcmp(nx->variant,
			    ev->variant) == 0) && (nx->at_ms > ev->at_ms ||
			    j > e))
				end = nx->at_ms;
		}
		need = faults_drift_span_s(ev->drift_ppm);
		if ((double)(end - ev->at_ms) / 1e3 >= need)
			continue;
		fprintf(f, "devnet: warning: %s:%d:%d: clock_skew of node %d "
		    "drifts %+gppm for %.1f s, and its proof needs about "
		    "%.0f s to measure a drift that size: the trial may "
		    "fail as not measured.  Give it that long (a later event "
		    "or a longer duration) or a larger drift\n", s->path,
		    ev->line, ev->col, ev->node, ev->drift_ppm,
		    (double)(end - ev->at_ms) / 1e3, need);
	}
}

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

void
run_check_warn(const struct scenario *s, FILE *f)
{
	uint8_t	*sel;
	size_t	 nlinks, i;
	int64_t	*w, need;
	int	 hz, differ = 0;
	char	*who;

	warn_drift(s, f);
	if (!scenario_has_conditions(s) || s->nvariants == 0)
		return;
	sel = plan_probe_links(s, s->network.nodes + 1, &nlinks, &hz);
	free(sel);
	need = (int64_t)PLAN_PROOF_MIN_PROBES * 1000 / hz;
	w = dn_xcalloc(s->nvariants, sizeof(*w));
	for (i = 0; i < s->nvariants; i++) {
		w[i] = plan_probe_window_ms(s, i);
		differ |= w[i] != w[0];
	}
	/* one line when every variant has the same windows, else one for
	 * each variant short of them, by name */
	for (i = 0; i < (differ ? s->nvariants : 1); i++) {
		if (w[i] >= need)
			continue;
		who = differ ? dn_xasprintf("variant %s's trials",
		    s->variants[i].name) : dn_xstrdup("a trial");
		fprintf(f, "devnet: warning: network conditions: the longest "
		    "window of %s in which one state of the network holds "
		    "leaves %.1f s to measure it; at %d probes a second on "
		    "each of %zu links that is at most %lld probes a link, "
		    "and a proof wants %d: the trial will fail as not "
		    "proven.  Make that window %.1f s longer (duration, "
		    "warmup, the events' times), or probe fewer links "
		    "(network.probe_links)\n", who, w[i] / 1e3, hz, nlinks,
		    (long long)(w[i] * hz / 1000), PLAN_PROOF_MIN_PROBES,
		    (need - w[i]) / 1e3);
		free(who);
	}
	free(w);
}
