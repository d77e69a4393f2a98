/*
 * interference.c: what else used the machine while a trial ran (issue
 * 36), from sys/interference.h's reads: at t = 0, a second apart while
 * the trial runs, and at the end of its window.  Its figures are facts
 * (interference_*); a trial whose window passed the threshold gets the
 * event `interference`, which compare and report name, and fails under
 * --strict; the last 5 s passing it is the event `interference_now`, on
 * the live page as it happens.
 *
 * Not here: reading /proc (sys/interference.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run/runner-internal.h"
#include "clock.h"

static double
threshold(const struct runner_opts *o)
{
	return (o->itf_max > 0 ? o->itf_max : INTERFERENCE_MAX);
}

void
interference_begin(struct trial *t)
{
	if (dn_itf_read(&t->itf0) != 0)
		return;
	t->itf_ring[0] = t->itf0;
	t->itf_n = 1;
	t->itf_load_max = t->itf0.load1;
}

/* Cores other programs used from A to B, and steal. */
static void
between(const struct dn_itf_read *a, const struct dn_itf_read *b,
    double *cores, double *steal, double *cpu_s)
{
	double	dt = (double)(b->ns - a->ns) / 1e9;

	*cpu_s = (b->busy_s - a->busy_s) - (b->own_s - a->own_s);
	if (*cpu_s < 0)
		*cpu_s = 0;
	*cores = dt > 0 ? *cpu_s / dt : 0;
	*steal = dt > 0 ? (b->steal_s - a->steal_s) / dt : 0;
}

void
interference_tick(struct trial *t, const struct runner_opts *o)
{
	struct dn_itf_read	 r;
	const struct dn_itf_read *old;
	double			 cores, steal, cpu_s;

	if (t->itf_n == 0 || dn_now_ns() - t->itf_ring[(t->itf_n - 1) %
	    ITF_RING].ns < 1000000000ull || dn_itf_read(&r) != 0)
		return;
	t->itf_ring[t->itf_n % ITF_RING] = r;
	t->itf_n++;
	if (!isnan(r.load1) && (isnan(t->itf_load_max) ||
	    r.load1 > t->itf_load_max))
		t->itf_load_max = r.load1;
	if (t->itf_told || t->itf_n < ITF_RING)
		return;
	old = &t->itf_ring[t->itf_n % ITF_RING];	/* 5 reads back */
	between(old, &r, &cores, &steal, &cpu_s);
	if (cores < threshold(o) && steal < INTERFERENCE_STEAL_MAX)
		return;
	t->itf_told = 1;
	trial_event(t, -1, "interference_now", "other programs use %.2f "
	    "core(s) beside the devnet (last %.0f s), steal %.2f, load %.1f",
	    cores, (double)(r.ns - old->ns) / 1e9, steal, r.load1);
}

void
interference_finish(struct trial *t, const struct runner_opts *o)
{
	const struct dn_itf_read *a = &t->itf0, *b = &t->itf_end;
	double			 cores, steal, cpu_s, win;
	char			 psi[96] = "";

	if (t->itf_n == 0 || b->ns <= a->ns)
		return;
	between(a, b, &cores, &steal, &cpu_s);
	win = (double)(b->ns - a->ns) / 1e9;
	trial_fact(t, -1, "interference_window_s", "%.3f", win);
	trial_fact(t, -1, "interference_cpu_s", "%.3f", cpu_s);
	trial_fact(t, -1, "interference_cores", "%.3f", cores);
	trial_fact(t, -1, "interference_steal_s", "%.3f", b->steal_s -
	    a->steal_s);
	if (!isnan(t->itf_load_max))
		trial_fact(t, -1, "interference_load1_max", "%.2f",
		    t->itf_load_max);
	if (a->have_psi && b->have_psi) {
		trial_fact(t, -1, "interference_psi_cpu_s", "%.3f",
		    b->psi_cpu_s - a->psi_cpu_s);
		trial_fact(t, -1, "interference_psi_mem_s", "%.3f",
		    b->psi_mem_s - a->psi_mem_s);
		snprintf(psi, sizeof(psi), ", CPU pressure %.0f %% of the "
		    "time", 100 * (b->psi_cpu_s - a->psi_cpu_s) / win);
	}
	if (cores < threshold(o) && steal < INTERFERENCE_STEAL_MAX)
		return;
	trial_event(t, -1, "interference", "other programs used %.2f "
	    "core(s) beside the devnet (%.1f s of CPU in %.1f s), steal "
	    "%.2f, load up to %.1f%s (threshold %.2f cores)", cores, cpu_s,
	    win, steal, t->itf_load_max, psi, threshold(o));
	if (o->strict)
		trial_fail(t, "other programs used %.2f core(s) beside the "
		    "devnet (threshold %.2f, --strict): run it on a quiet "
		    "machine, or drop --strict to keep it with a warning",
		    cores, threshold(o));
}
