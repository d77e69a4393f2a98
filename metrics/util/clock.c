/*
 * clock.c: the monotonic and the wall clock (see clock.h).  Not timers or
 * sleeping.
 */
#include <stdint.h>
#include <time.h>

#include "clock.h"

uint64_t
dn_now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
}

int64_t
dn_wall_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}
