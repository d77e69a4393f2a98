/*
 * clock.h: the monotonic and the wall clock, and the process's CPU time.
 * Not timers or sleeping.
 */
#ifndef DN_CLOCK_H
#define DN_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC (system-wide on Linux, so comparable across processes)
 * and CLOCK_REALTIME, in nanoseconds / milliseconds. */
uint64_t dn_now_ns(void);
int64_t	 dn_wall_ms(void);
/* This process's own CPU time, user + system, in seconds (its children
 * not counted); 0 if getrusage fails. */
double	 dn_cpu_s(void);

#endif
