/*
 * clock-env.c: the environment of a node whose wall clock a clock_skew
 * event moves (issue 39): libfaketime and devnet's witness preloaded,
 * the offset read from a file devnet writes, the monotonic clock left
 * true.  devnet-node gets it as its own environment, a foreign node's
 * command through the probe's --env (the probe's own clock stays true).
 * Not here: writing the offset or reading the witness (run/faults.c).
 */
#include <stdlib.h>

#include "plan/plan.h"
#include "sys/faketime.h"
#include "sys/strv.h"
#include "xalloc.h"

static void
put(struct strv *v, const char *flag, char *kv)
{
	if (flag != NULL)
		strv_flag(v, flag, kv);
	else
		strv_add(v, kv);
}

void
plan_clock_env(const struct plan_endpoints *ep, int node, struct strv *v,
    const char *flag)
{
	const char	*asan = getenv("ASAN_OPTIONS");
	char		 name[128];

	if (ep->clock_preload == NULL)
		return;
	put(v, flag, dn_xasprintf("LD_PRELOAD=%s", ep->clock_preload));
	put(v, flag, dn_xasprintf("FAKETIME_TIMESTAMP_FILE=%s/node-%d."
	    "faketime", ep->run_dir, node));
	/* the file is read again at the first clock read of each new second
	 * (libfaketime re-reads when the whole seconds since its last read
	 * exceed this: 1 would be every 2 s, measured) */
	put(v, flag, dn_xstrdup("FAKETIME_CACHE_DURATION=0"));
	/* only the wall clock: the samples' CLOCK_MONOTONIC stays true */
	put(v, flag, dn_xstrdup("FAKETIME_DONT_FAKE_MONOTONIC=1"));
	put(v, flag, dn_xasprintf("DN_CLOCK_WITNESS=%s/node-%d.clock",
	    ep->run_dir, node));
	/* libfaketime's shared objects, devnet's (sys/faketime.h) */
	dn_faketime_name(ep->run_dir, node, name, sizeof(name));
	put(v, flag, dn_xasprintf("FAKETIME_SHARED=%s %s", name, name));
	/* a sanitizer build (make asan) refuses to start unless its
	 * runtime comes first; the preload comes first and both work */
	put(v, flag, dn_xasprintf("ASAN_OPTIONS=%s%sverify_asan_link_order=0",
	    asan != NULL ? asan : "", asan != NULL && *asan ? ":" : ""));
}

void
plan_clock_probe(const struct plan_endpoints *ep, int node, struct strv *v)
{
	if (ep->clock_preload == NULL)
		return;
	/* the same file and witness for a command whose clock the probe
	 * moves itself (probe/clock-trap.c); libfaketime's environment
	 * for the others */
	strv_flag(v, "--clock-file", dn_xasprintf("%s/node-%d.faketime",
	    ep->run_dir, node));
	strv_flag(v, "--clock-witness", dn_xasprintf("%s/node-%d.clock",
	    ep->run_dir, node));
	plan_clock_env(ep, node, v, "--clock-env");
}
