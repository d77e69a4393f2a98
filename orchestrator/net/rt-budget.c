/*
 * rt-budget.c: a realtime thread's bounded share of one CPU (rt-budget.h
 * says why).  Not here: what the thread does (delay.c, probe.c).
 */
#include "net/rt-budget.h"

#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#define RT_WINDOW_NS	100000000ull	/* 100 ms */

static uint64_t
clock_ns(clockid_t id)
{
	struct timespec	ts;

	(void)clock_gettime(id, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

static void
set_fifo(struct dn_rt_budget *b, int on)
{
	struct sched_param	sp;

	memset(&sp, 0, sizeof(sp));
	sp.sched_priority = on ? b->prio : 0;
	if (pthread_setschedparam(pthread_self(), on ? SCHED_FIFO :
	    SCHED_OTHER, &sp) == 0)
		b->fifo = on;
}

void
dn_rt_budget_start(struct dn_rt_budget *b, int prio, int permille)
{
	memset(b, 0, sizeof(*b));
	b->prio = prio;
	b->budget_ns = RT_WINDOW_NS * (uint64_t)permille / 1000;
	b->win_start_ns = clock_ns(CLOCK_MONOTONIC);
	b->cpu_start_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	set_fifo(b, 1);
	b->refused = !b->fifo;
}

void
dn_rt_budget_tick(struct dn_rt_budget *b)
{
	uint64_t	now = clock_ns(CLOCK_MONOTONIC), cpu;

	cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (now - b->win_start_ns >= RT_WINDOW_NS) {
		b->win_start_ns = now;
		b->cpu_start_ns = cpu;
		if (!b->fifo && !b->refused)
			set_fifo(b, 1);
		return;
	}
	if (b->fifo && cpu - b->cpu_start_ns > b->budget_ns) {
		set_fifo(b, 0);
		b->demotions++;
	}
}
