/*
 * provider-swarm.c: the `swarm` provider (see provider.h): one Docker
 * Swarm stack per trial.  Not yet able to run nodes: prepare says so.
 */
#include "provider.h"
#include "xalloc.h"

static int
swarm_prepare(const struct scenario *s, const struct runner_opts *o,
    char **cause)
{
	(void)s;
	(void)o;
	*cause = dn_xstrdup("provider 'swarm' is not implemented yet");
	return (-1);
}

static int
swarm_start(struct trial *t, int k, char **cause)
{
	(void)t;
	(void)k;
	*cause = dn_xstrdup("provider 'swarm' is not implemented yet");
	return (-1);
}

static int
swarm_poll(struct trial *t, int k)
{
	(void)t;
	(void)k;
	return (1);
}

static int
swarm_signal(struct trial *t, int k, int sig)
{
	(void)t;
	(void)k;
	(void)sig;
	return (-1);
}

static int
swarm_stop_all(struct trial *t, int grace_ms)
{
	(void)t;
	(void)grace_ms;
	return (0);
}

const struct provider_ops provider_swarm = {
	.name = "swarm",
	.prepare = swarm_prepare,
	.start = swarm_start,
	.poll = swarm_poll,
	.signal = swarm_signal,
	.stop_all = swarm_stop_all,
};
