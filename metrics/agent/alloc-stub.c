/* alloc-stub.c: the allocation counter for builds without it (sanitizer
 * builds, where the runtime owns malloc).  Reports nothing. */
#include <string.h>

#include "alloc.h"

int
dn_alloc_enabled(void)
{
	return (0);
}

void
dn_alloc_read(struct dn_alloc_stats *st)
{
	memset(st, 0, sizeof(*st));
}

void
dn_alloc_read_thread(struct dn_alloc_stats *st)
{
	memset(st, 0, sizeof(*st));
}
