/*
 * collector.h: the trial's collector thread (collector.c): it receives
 * what the nodes send (HELLO, SAMPLE, INCLUDED), keeps the per-node and
 * inclusion counters in the trial, and writes samples, including the load
 * generator samples it derives from the trial's load counters, to the
 * store.
 *
 * Not here: the trial data it fills (trial.h), who starts it (runner).
 */
#ifndef DN_COLLECTOR_H
#define DN_COLLECTOR_H

#include "trial/trial.h"

/* Listen on T->metrics_url and start the collector thread. */
int	 collector_start(struct trial *t, struct collector **cp, char **cause);
/* Ask the thread to finish (after draining for DRAIN_MS), join, commit,
 * free.  Accepts NULL. */
void	 collector_stop(struct collector *c, int drain_ms);

#endif
