/*
 * machine-lock.c: two devnets on one machine know of each other (issue
 * 36).  Before any trial, a run whose network conditions or pinned CPUs
 * another devnet could disturb takes the machine's locks for them
 * (sys/machlock.h): "conditions" for network conditions (two emulators
 * on one machine failed each other's latency proofs), "cpu-N" for each
 * CPU a node is pinned to (resources.cpuset, the duet).  A devnet that holds one is named (pid, db)
 * and waited for, up to --machine-wait (default 10 min; 0 refuses at
 * once); a stop signal ends the wait.  The locks go with the process.
 *
 * Not here: the lock files (sys/machlock.c).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "provider/provider.h"
#include "run/runner-internal.h"
#include "sys/machlock.h"
#include "clock.h"
#include "xalloc.h"

#define MACHINE_WAIT_MS	600000
#define MACHINE_POLL_MS	200

/* The locks S needs, NULL-terminated (caller frees each and the array);
 * NULL when it needs none. */
static char **
lock_names(const struct scenario *s, const cpu_set_t *cpus)
{
	cpu_set_t	 set;
	char		**v;
	int		 n = 0, c;

	provider_cpus_used(s, &set);
	if (cpus != NULL)
		CPU_OR(&set, &set, cpus);
	v = dn_xcalloc((size_t)CPU_COUNT(&set) + 2, sizeof(*v));
	/* conditions: this host's (swarm refused them in run_check) */
	if (scenario_has_conditions(s))
		v[n++] = dn_xstrdup("conditions");
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			v[n++] = dn_xasprintf("cpu-%d", c);
	if (n == 0) {
		free(v);
		return (NULL);
	}
	return (v);
}

int
machine_take(const struct scenario *s, const cpu_set_t *cpus,
    const struct runner_opts *o, char **cause)
{
	char		**names = lock_names(s, cpus), *holder = NULL;
	uint64_t	  t0 = dn_now_ns();
	int		  wait_ms, rv, said = 0, i;

	if (names == NULL)
		return (0);
	wait_ms = o->machine_wait_ms >= 0 ? o->machine_wait_ms :
	    MACHINE_WAIT_MS;
	for (;;) {
		free(holder);
		holder = NULL;
		rv = dn_machlock_try((const char *const *)names, o->db_path,
		    &holder, cause);
		if (rv <= 0)
			break;
		if ((dn_now_ns() - t0) / 1000000 >= (uint64_t)wait_ms) {
			*cause = dn_xasprintf("the machine is taken: %s; %s",
			    holder, wait_ms > 0 ? "waited --machine-wait in "
			    "vain: wait for it to end, or stop it" :
			    "wait for it (--machine-wait DUR) or stop it");
			rv = -1;
			break;
		}
		if (!said && !o->quiet)
			fprintf(stderr, "devnet: waiting for the machine: %s "
			    "(up to %d s, --machine-wait)\n", holder,
			    wait_ms / 1000);
		said = 1;
		signals_tick(MACHINE_POLL_MS);
		if (signals_count) {
			*cause = dn_xasprintf("stopped by %s while waiting "
			    "for the machine (%s)",
			    signals_name(signals_first), holder);
			rv = -1;
			break;
		}
	}
	if (rv == 0 && said && !o->quiet)
		fprintf(stderr, "devnet: the machine is ours after %.1f s\n",
		    (double)(dn_now_ns() - t0) / 1e9);
	free(holder);
	for (i = 0; names[i] != NULL; i++)
		free(names[i]);
	free(names);
	return (rv);
}
