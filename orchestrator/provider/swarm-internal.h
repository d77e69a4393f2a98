/*
 * swarm-internal.h: what provider-swarm.c and swarm-compose.c share.
 */
#ifndef DN_SWARM_INTERNAL_H
#define DN_SWARM_INTERNAL_H

#include <stdio.h>

#include "provider/provider.h"

/* Write trial T's Compose file to PATH (images by local ID); with IDS
 * (node K's swarm node ID and hostname NAMES, one per node, or NULL),
 * node K is pinned to that host.  0, or -1 with *CAUSE. */
int	 swarm_compose_trial(const struct provider_trial *t, const char *path,
	    const char *const *ids, const char *const *names, char **cause);

/* swarm-preflight.c: the engines of the first NHOSTS of HOSTS (the
 * hosts with nodes) other than this one that have a swarm.engines URL
 * answer; what killed devnets left there is removed.  0, or -1 with
 * *CAUSE. */
struct dk_host;
int	 swarm_check_engines(const struct scenario *, const struct dk_host *,
	    int nhosts, int quiet, char **cause);

/* swarm-preflight.c: the real network under trial T as the preflight
 * timed it (RTT[H] for HOSTS[H], node K on HOSTS[PIN[K]]): for each node
 * on another host the facts host_rtt_min_ms and host_rtt_median_ms, and
 * one host_network event per such host (issue 39).  Nodes on this host
 * get none: nothing was timed. */
struct swarm_rtt;
void	 swarm_base_facts(struct provider_trial *t,
	    const struct dk_host *hosts, const int *pin, int npin,
	    const struct swarm_rtt *rtt, const char *advertise);

/* swarm-compose.c: provider_ops.describe: each variant's Compose file,
 * with placeholders for what is chosen at run time. */
int	 swarm_describe(FILE *out, const struct scenario *, char **cause);
/* What a swarm cannot do of S whatever its hosts: conditions, order
 * concurrent, more ports than there are (the check op).  0, or -1. */
int	 swarm_check(const struct scenario *s, char **cause);

#endif
