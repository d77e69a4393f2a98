/*
 * rng.c: splitmix64, the deterministic PRNG of the load generator and the
 * statistics (see rng.h).  Not for anything that must be unpredictable.
 */
#include <math.h>
#include <stdint.h>

#include "rng.h"

uint64_t
dn_rand64(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31));
}

double
dn_rand01(uint64_t *state)
{
	return ((double)(dn_rand64(state) >> 11) * (1.0 / 9007199254740992.0));
}

double
dn_rand_gauss(uint64_t *state)
{
	double	u = dn_rand01(state), v = dn_rand01(state);

	/* Box-Muller; u is a multiple of 2^-53, so only 0 needs the floor */
	if (u < 1e-300)
		u = 1e-300;
	return (sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v));
}
