/*
 * check.c: the one check of a scenario before anything starts (issue
 * 34): what `devnet validate` accepts, `devnet run` and `ab` run, and what
 * they refuse, validate refuses in the same words.  It asks the
 * provider's and each variant's node kind's check ops, and holds what the
 * runner itself cannot do.  No file, socket, process or namespace is made
 * here; what can only fail when it happens (an engine down, a port taken,
 * a revision that does not build) is said where it happens.
 */
#include "run/runner-internal.h"
#include "node-kind/node-kind.h"
#include "provider/provider.h"
#include "xalloc.h"

int
run_check(const struct scenario *s, char **cause)
{
	const struct node_kind_ops	*k;
	size_t				 i;

	if (s->order == SCN_ORDER_CONCURRENT &&
	    s->network.tcp_base_port > 0) {
		*cause = dn_xstrdup("order 'concurrent' needs ipc endpoints "
		    "(two devnets cannot share one tcp_base_port)");
		return (-1);
	}
	if (provider_check(s, cause) != 0 || duet_check(s, cause) != 0)
		return (-1);
	for (i = 0; i < s->nvariants; i++) {
		k = node_kind_of(&s->variants[i]);
		if (k->check != NULL && k->check(s, &s->variants[i],
		    cause) != 0)
			return (-1);
	}
	return (0);
}
