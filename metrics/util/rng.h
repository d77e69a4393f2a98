/*
 * rng.h: splitmix64, a tiny deterministic PRNG.  Not for anything that
 * must be unpredictable.
 */
#ifndef DN_RNG_H
#define DN_RNG_H

#include <stdint.h>

/* splitmix64: a tiny deterministic PRNG (state updated in place). */
uint64_t dn_rand64(uint64_t *state);
/* Uniform double in [0, 1). */
double	 dn_rand01(uint64_t *state);
/* Standard normal (Box-Muller), for simulations and synthetic data. */
double	 dn_rand_gauss(uint64_t *state);

#endif
