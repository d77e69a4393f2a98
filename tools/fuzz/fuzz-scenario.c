/*
 * fuzz-scenario.c: libFuzzer harness for the scenario loader.  The input is
 * a scenario text; when it contains a line "#set KEY=VALUE" those become
 * --set overrides too.  A loaded scenario is planned and every node argv of
 * the first variants built, so plan.c is fuzzed with it.  Binaries are not
 * checked (no file system access beyond the loader's own).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "scenario/scenario.h"
#include "xalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SETS	4

static void
exercise_plan(const struct scenario *s)
{
	struct plan_trial	*t;
	struct plan_endpoints	 ep = { .run_dir = "/r", .metrics_url = "x",
				    .token = 1 };
	char			**argv, **env, *cause;
	size_t			 n, v;
	int			 k;

	if (plan_trials(s, &t, &n) == 0)
		free(t);
	for (v = 0; v < s->nvariants && v < 3; v++) {
		for (k = 0; k < s->network.nodes && k < 4; k++) {
			if (plan_node_argv(s, &s->variants[v], k, &ep, &argv,
			    &env, &cause) != 0) {
				free(cause);
				abort();	/* a loaded scenario plans */
			}
			plan_argv_free(argv);
			plan_argv_free(env);
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scenario	*s = NULL;
	char		*cause = NULL, *copy, *sets[MAX_SETS], *p, *nl;
	size_t		 nsets = 0;

	/* "#set K=V" lines (comments to YAML) become --set overrides */
	copy = dn_xstrndup((const char *)data, size);
	for (p = copy; p != NULL && nsets < MAX_SETS; p = nl) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl++ = '\0';
		if (strncmp(p, "#set ", 5) == 0)
			sets[nsets++] = p + 5;
	}
	if (scenario_load_buffer(&s, "fuzz", (const char *)data, size, sets,
	    nsets, NULL, &cause) == 0) {
		if (cause != NULL)
			abort();	/* success leaves no cause */
		exercise_plan(s);
		scenario_free(s);
	} else if (cause == NULL || s != NULL)
		abort();		/* failure always says why */
	free(cause);
	free(copy);
	return (0);
}
