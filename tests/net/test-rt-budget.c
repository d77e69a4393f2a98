/*
 * test-rt-budget.c: net/rt-budget.c, the realtime share of the link
 * emulator's and the probe's threads (issue 40): a thread put at
 * SCHED_FIFO that burns CPU past its budget is dropped to SCHED_OTHER
 * within the same 100 ms window, having used about its budget and not
 * much more; the next window gives it SCHED_FIFO back; a thread that
 * sleeps most of the time stays at SCHED_FIFO.  The kernel's own
 * scheduling policy of the thread is read back, not only the struct.
 * Skips (77) where SCHED_FIFO cannot be had (not root, or a cgroup with
 * no realtime runtime).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "net/rt-budget.h"

#define PRIO		3
#define PERMILLE	100	/* 10 ms of CPU per 100 ms window */
#define WINDOW_NS	100000000ull

static uint64_t
clock_ns(clockid_t id)
{
	struct timespec	ts;

	clock_gettime(id, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

/* The calling thread's policy as the kernel has it. */
static int
policy_now(void)
{
	struct sched_param	sp;
	int			pol = -1;

	if (pthread_getschedparam(pthread_self(), &pol, &sp) != 0)
		return (-1);
	return (pol);
}

/* What the burning thread saw, for the main thread to check. */
struct burn {
	int		 fifo_at_start;
	int		 policy_at_start;
	int		 policy_demoted;	/* read right after the drop */
	uint64_t	 cpu_to_demote_ns;	/* from start to the drop */
	uint64_t	 wall_to_demote_ns;
	uint64_t	 demotions;
	int		 policy_next_window;
	int		 fifo_next_window;
};

/* Spin (ticking, as delay.c and probe.c do once per loop) until the
 * budget drops the thread, or 200 ms of wall time. */
static void *
burn_main(void *arg)
{
	struct burn		*r = arg;
	struct dn_rt_budget	 b;
	uint64_t		 w0, c0, w;
	volatile uint64_t	 x = 0;
	int			 i;

	dn_rt_budget_start(&b, PRIO, PERMILLE);
	r->fifo_at_start = b.fifo;
	r->policy_at_start = policy_now();
	if (!b.fifo)
		return (NULL);
	w0 = b.win_start_ns;
	c0 = b.cpu_start_ns;
	while (b.fifo && clock_ns(CLOCK_MONOTONIC) - w0 < WINDOW_NS * 2) {
		for (i = 0; i < 10000; i++)
			x += (uint64_t)i;
		dn_rt_budget_tick(&b);
	}
	r->policy_demoted = policy_now();
	r->cpu_to_demote_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	r->wall_to_demote_ns = clock_ns(CLOCK_MONOTONIC) - w0;
	r->demotions = b.demotions;
	/* sleep into the next window: the first tick there restores it */
	w = WINDOW_NS - (clock_ns(CLOCK_MONOTONIC) - b.win_start_ns) %
	    WINDOW_NS + 5000000;
	{
		struct timespec ts = { 0, (long)w };

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	dn_rt_budget_tick(&b);
	r->fifo_next_window = b.fifo;
	r->policy_next_window = policy_now();
	return (NULL);
}

/* Sleep 2 ms, tick, for 300 ms: well under the budget. */
static void *
idle_main(void *arg)
{
	struct burn		*r = arg;
	struct dn_rt_budget	 b;
	uint64_t		 w0;
	struct timespec		 ts;

	dn_rt_budget_start(&b, PRIO, PERMILLE);
	r->fifo_at_start = b.fifo;
	w0 = clock_ns(CLOCK_MONOTONIC);
	while (clock_ns(CLOCK_MONOTONIC) - w0 < 3 * WINDOW_NS) {
		ts.tv_sec = 0;
		ts.tv_nsec = 2000000;
		nanosleep(&ts, NULL);
		dn_rt_budget_tick(&b);
	}
	r->demotions = b.demotions;
	r->policy_next_window = policy_now();
	return (NULL);
}

static void
run_thread(void *(*fn)(void *), struct burn *r)
{
	pthread_t	thr;

	memset(r, 0, sizeof(*r));
	assert_int_equal(pthread_create(&thr, NULL, fn, r), 0);
	assert_int_equal(pthread_join(thr, NULL), 0);
}

static void
burn_is_demoted(void **state)
{
	struct burn	r;

	(void)state;
	run_thread(burn_main, &r);
	assert_int_equal(r.fifo_at_start, 1);
	assert_int_equal(r.policy_at_start, SCHED_FIFO);
	/* dropped, by the kernel's word, within the window it overran */
	assert_int_equal(r.demotions, 1);
	assert_int_equal(r.policy_demoted, SCHED_OTHER);
	print_message("demoted after %.1f ms of CPU, %.1f ms of wall time "
	    "(budget %.1f ms a window)\n", r.cpu_to_demote_ns / 1e6,
	    r.wall_to_demote_ns / 1e6, WINDOW_NS * PERMILLE / 1000 / 1e6);
	assert_true(r.cpu_to_demote_ns >= WINDOW_NS * PERMILLE / 1000);
	/* one loop of 10,000 adds past the budget, and a tick's slack: a
	 * loaded machine may hold the thread, but not its CPU clock */
	assert_true(r.cpu_to_demote_ns < WINDOW_NS * PERMILLE / 1000 +
	    5000000);
	assert_true(r.wall_to_demote_ns < WINDOW_NS);
	/* and the next window gives it back */
	assert_int_equal(r.fifo_next_window, 1);
	assert_int_equal(r.policy_next_window, SCHED_FIFO);
}

static void
idle_stays_fifo(void **state)
{
	struct burn	r;

	(void)state;
	run_thread(idle_main, &r);
	assert_int_equal(r.fifo_at_start, 1);
	assert_int_equal(r.demotions, 0);
	assert_int_equal(r.policy_next_window, SCHED_FIFO);
}

/* 1 when a thread of this process can have SCHED_FIFO here. */
static void *
probe_fifo(void *arg)
{
	struct sched_param	sp = { .sched_priority = PRIO };

	*(int *)arg = pthread_setschedparam(pthread_self(), SCHED_FIFO,
	    &sp) == 0;
	return (NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(burn_is_demoted),
		cmocka_unit_test(idle_stays_fifo),
	};
	pthread_t	thr;
	int		can = 0;

	if (pthread_create(&thr, NULL, probe_fifo, &can) != 0 ||
	    pthread_join(thr, NULL) != 0 || !can) {
		fprintf(stderr, "SKIP: SCHED_FIFO not allowed here (root "
		    "and realtime runtime needed)\n");
		return (77);
	}
	return (cmocka_run_group_tests(tests, NULL, NULL));
}
