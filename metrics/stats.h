/*
 * stats.h: the statistics behind `devnet compare` (docs/statistics.md).
 * Pure functions over arrays of doubles: no I/O, no sqlite, no metric
 * knowledge.  Inputs are never modified (functions copy what they sort).
 */
#ifndef DN_STATS_H
#define DN_STATS_H

#include <stddef.h>
#include <stdint.h>

#endif
