/*
 * clock-witness.h: the file a clock-skewed node's preload writes and the
 * orchestrator reads as the skew's proof (issue 39): written by
 * probe/clock-shim.c inside the node, read by orchestrator/run/faults.c.
 * One record at offset 0, little-endian: the wall clock the node saw,
 * the true one read just after, the true monotonic time, a count of
 * records, and the magic last, so a torn read shows.
 */
#ifndef DN_CLOCK_WITNESS_H
#define DN_CLOCK_WITNESS_H

#include <stdint.h>

#define DN_WITNESS_MAGIC	0x4b434c43u	/* "CLCK" */

struct dn_witness {
	int64_t		 seen_ns;
	int64_t		 true_ns;
	int64_t		 mono_ns;
	uint32_t	 count;
	uint32_t	 magic;
};

#endif
