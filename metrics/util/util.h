/*
 * util.h: transitional: include the specific header; removed once callers
 * are updated.  It only includes the five headers util.c was split into:
 * xalloc.h (allocation, dn_xasprintf), clock.h (dn_now_ns, dn_wall_ms),
 * sha256.h (SHA-256, dn_hex, dn_sha256_file), units.h (duration, size and
 * number parsing) and rng.h (splitmix64).  Nothing in metrics/ includes it.
 */
#ifndef DN_UTIL_H
#define DN_UTIL_H

#include "clock.h"
#include "rng.h"
#include "sha256.h"
#include "units.h"
#include "xalloc.h"

#endif
