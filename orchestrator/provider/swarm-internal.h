/*
 * swarm-internal.h: what provider-swarm.c and swarm-compose.c share.
 */
#ifndef DN_SWARM_INTERNAL_H
#define DN_SWARM_INTERNAL_H

#include <stdio.h>

#include "trial/trial.h"

/* Write trial T's Compose file to PATH (images by local ID); with IDS
 * (node K's swarm node ID and hostname NAMES, one per node, or NULL),
 * node K is pinned to that host.  0, or -1 with *CAUSE. */
int	 swarm_compose_trial(const struct trial *t, const char *path,
	    const char *const *ids, const char *const *names, char **cause);

/* swarm-preflight.c: the engines of the first NHOSTS of HOSTS (the
 * hosts with nodes) other than this one that have a swarm.engines URL
 * answer; what killed devnets left there is removed.  0, or -1 with
 * *CAUSE. */
struct dk_host;
int	 swarm_check_engines(const struct scenario *, const struct dk_host *,
	    int nhosts, int quiet, char **cause);

/* swarm-compose.c: provider_ops.describe: each variant's Compose file,
 * with placeholders for what is chosen at run time. */
int	 swarm_describe(FILE *out, const struct scenario *, char **cause);
/* What a swarm cannot do of S whatever its hosts: conditions, order
 * concurrent, more ports than there are (the check op).  0, or -1. */
int	 swarm_check(const struct scenario *s, char **cause);

#endif
