/* net-internal.h: what the files of orchestrator/net/ share. */
#ifndef DN_NET_INTERNAL_H
#define DN_NET_INTERNAL_H

#include <stddef.h>

/* FMT into ERR (ERRLEN bytes), as every net/ call reports its failure
 * (topo.c). */
void	 dn_net_seterr(char *err, size_t errlen, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

#endif
