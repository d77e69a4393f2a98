/*
 * duet.c: order: concurrent's duet (issue 36).  The variants of a slot
 * run side by side, each on a CPU set of its own: the CPUs devnet may
 * use (its affinity) cut into one set per variant, disjoint and of
 * equal size (what is left over by the division runs no node).  Variant
 * I of slot K gets set (I + K) mod V, so over every two slots (a block
 * of `ab --until decided`) each variant ran once on each set of a pair
 * and a core's own speed cancels out.  The orchestrator, its threads
 * and the load (transfer, http, a command load) are not pinned: they
 * run on every CPU, shared by both sides alike.
 *
 * The sets are the local provider's cgroup cpusets (provider.c,
 * sys/cgroup.h), taken as machine locks like resources.cpuset
 * (machine-lock.c).  `pin: duet` refuses what cannot be pinned; without
 * `pin:` a concurrent run that cannot be pinned runs unpinned and says
 * why, on stderr and in the fact duet_pin.
 *
 * Not here: the cgroups (sys/cgroup.c), the locks (sys/machlock.c).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provider/provider.h"
#include "run/runner-internal.h"
#include "sys/cgroup.h"
#include "xalloc.h"

/* Why S's concurrent variants are not pinned, from S alone (static
 * string), or NULL: they may be. */
static const char *
why_not_static(const struct scenario *s)
{
	int	cpuset;

	if (s->order != SCN_ORDER_CONCURRENT)
		return ("order is not concurrent (one trial at a time)");
	if (s->nvariants < 2)
		return ("one variant: nothing runs beside it");
	if (!provider_can_pin(s))
		return ("the duet's cpusets are carried out by provider local "
		    "only");
	if (provider_any_limits(s, &cpuset) && cpuset)
		return ("resources.cpuset chooses the nodes' CPUs");
	return (NULL);
}

int
duet_check(const struct scenario *s, char **cause)
{
	const char	*why;

	if (s->pin != SCN_PIN_DUET || (why = why_not_static(s)) == NULL)
		return (0);
	*cause = dn_xasprintf("pin: duet cannot be carried out: %s; drop "
	    "pin or write pin: none", why);
	return (-1);
}

/* "0-1,3" of the N CPUs in C (ascending). */
static void
cpu_list(const int *c, int n, char *buf, size_t cap)
{
	size_t	o = 0;
	int	i, j;

	buf[0] = '\0';
	for (i = 0; i < n && o < cap; i = j + 1) {
		for (j = i; j + 1 < n && c[j + 1] == c[j] + 1; j++)
			;
		o += (size_t)snprintf(buf + o, cap - o, j > i ? "%s%d-%d" :
		    "%s%d", o ? "," : "", c[i], c[j]);
	}
}

/* The CPUs devnet may run on, ascending, into D; how many. */
static int
allowed_cpus(struct duet *d)
{
	cpu_set_t	set;
	int		c;

	d->ncpus = 0;
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return (0);
	for (c = 0; c < CPU_SETSIZE && d->ncpus < DUET_MAX_CPUS; c++)
		if (CPU_ISSET(c, &set))
			d->cpus[d->ncpus++] = c;
	return (d->ncpus);
}

/* Why not here, on this machine (D->why, malloc'd), or 0: on. */
static int
why_not_here(const struct scenario *s, struct duet *d)
{
	const char	*why = why_not_static(s);

	if (why != NULL) {
		d->why = dn_xstrdup(why);
		return (-1);
	}
	if (!dn_cgroup_can_cpuset(&why)) {
		d->why = dn_xasprintf("no cgroup cpuset: %s", why);
		return (-1);
	}
	if (allowed_cpus(d) < (int)s->nvariants) {
		d->why = dn_xasprintf("%zu variants need a CPU each; devnet "
		    "may run on %d (its affinity)", s->nvariants, d->ncpus);
		return (-1);
	}
	return (0);
}

int
duet_prepare(const struct scenario *s, const struct runner_opts *o,
    struct duet *d, char **cause)
{
	int	i;

	memset(d, 0, sizeof(*d));
	CPU_ZERO(&d->all);
	if (s->pin == SCN_PIN_NONE) {
		d->why = dn_xstrdup("pin: none");
		return (0);
	}
	if (why_not_here(s, d) != 0) {
		if (s->pin == SCN_PIN_DUET) {
			*cause = dn_xasprintf("pin: duet cannot be carried "
			    "out here: %s; drop pin or write pin: none",
			    d->why);
			return (-1);
		}
		/* said where it matters: a concurrent slot of variants */
		if (s->order == SCN_ORDER_CONCURRENT && s->nvariants > 1 &&
		    !o->quiet)
			fprintf(stderr, "devnet: the variants run side by "
			    "side unpinned: %s (fact duet_pin)\n", d->why);
		return (0);
	}
	d->on = 1;
	d->nsets = (int)s->nvariants;
	d->per = d->ncpus / d->nsets;
	for (i = 0; i < d->nsets * d->per; i++)
		CPU_SET(d->cpus[i], &d->all);
	return (0);
}

void
duet_assign(const struct duet *d, struct trial *t)
{
	int	set;

	t->pin_cpus[0] = '\0';
	if (!d->on)
		return;
	set = (int)((t->var - t->scn->variants) + t->pt.slot) % d->nsets;
	cpu_list(d->cpus + set * d->per, d->per, t->pin_cpus,
	    sizeof(t->pin_cpus));
	t->pin_ncpus = d->per;
}

void
duet_facts(const struct duet *d, struct trial *t)
{
	if (t->scn->order != SCN_ORDER_CONCURRENT)
		return;
	if (!d->on) {
		trial_fact(t, -1, "duet_pin", "off: %s", d->why);
		return;
	}
	trial_fact(t, -1, "duet_pin", "on");
	trial_fact(t, -1, "duet_cpus", "%s", t->pin_cpus);
	trial_fact(t, -1, "duet_slot", "%d", t->pt.slot);
}

void
duet_release(struct duet *d)
{
	free(d->why);
	d->why = NULL;
}
