/*
 * pacing.h: the load generator's schedule, pick, wait and send-lag
 * record (pacing.c), for its kinds (loadgen.c, loadgen-http.c).
 */
#ifndef DN_PACING_H
#define DN_PACING_H

#include <stdint.h>

#include "scenario/scenario.h"

struct loadgen;
struct trial;

/* Whether T's generator yields the last SPIN_NS before a send (1) or
 * sleeps to it (0): workload.realtime, or DN_LOADGEN_WAIT. */
int	 pacing_spins(const struct trial *t);
/* Target rate at S seconds after t=0. */
double	 pacing_rate_at(const struct scenario *scn, double s);
/* Intended send time of transaction K, in seconds after t=0 (the integral
 * of the target rate reaches K; a ramp from 0 included). */
double	 pacing_intended_s(const struct scenario *scn, uint64_t k);
/* The zipf CDF over N items with exponent S (caller frees). */
double	*pacing_zipf_cdf(uint32_t n, double s);
/* An account (http: a key) by the workload's distribution. */
uint32_t pacing_pick(struct loadgen *l);
/* Record one send lag of US microseconds. */
void	 pacing_add_lag(struct loadgen *l, double us);
/* Sleep until WAKE (dn_now_ns clock). */
void	 pacing_sleep_until(uint64_t wake);

#endif
