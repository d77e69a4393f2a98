/*
 * clock.h: the monotonic and the wall clock.  Not timers or sleeping.
 */
#ifndef DN_CLOCK_H
#define DN_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC (system-wide on Linux, so comparable across processes)
 * and CLOCK_REALTIME, in nanoseconds / milliseconds. */
uint64_t dn_now_ns(void);
int64_t	 dn_wall_ms(void);

#endif
