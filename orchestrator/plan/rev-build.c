/*
 * rev-build.c: the variants' builds (see rev-build.h).  Runs before the
 * store is opened and before any trial, so that a revision that does not
 * build costs nothing else.  Not here: git and the build cache
 * (sys/git.c), the build recipe and its default
 * (scenario/scenario-build.c).
 */
#include <stdlib.h>
#include <string.h>

#include "plan/rev-build.h"
#include "clock.h"
#include "sys/git.h"
#include "xalloc.h"

static int
build_one(struct scenario *s, struct scn_variant *v, FILE *log,
    char **cause)
{
	struct git_build	 b;
	char			*commit = NULL, *bin = NULL, *desc = NULL;
	char			*c2 = NULL;
	uint64_t		 t0 = dn_now_ns();
	int			 cached;

	memset(&b, 0, sizeof(b));
	b.repo = s->build.repo;
	b.rev = v->set.rev;
	b.command = s->build.command;
	b.binary = s->build.binary;
	if (log != NULL) {
		fprintf(log, "devnet: variant %s: rev %s in %s ...\n",
		    v->name, v->set.rev, s->build.repo);
		fflush(log);
	}
	if (git_build(&b, &commit, &bin, &cached, cause) != 0) {
		char	*why = *cause;

		*cause = dn_xasprintf("variant %s: %s", v->name, why);
		free(why);
		return (-1);
	}
	if (git_describe_path(bin, &desc, &c2) != 0) {
		/* Informational only: the commit id is what counts. */
		free(c2);
		desc = dn_xasprintf("%.12s", commit);
	}
	if (log != NULL) {
		if (cached)
			fprintf(log, "devnet: variant %s: %s (%s), cached "
			    "build %s\n", v->name, desc, commit, bin);
		else
			fprintf(log, "devnet: variant %s: %s (%s), built in "
			    "%.0f s: %s\n", v->name, desc, commit,
			    (double)(dn_now_ns() - t0) / 1e9, bin);
		fflush(log);
	}
	free(v->set.binary);
	v->set.binary = bin;
	free(v->git_commit);
	v->git_commit = commit;
	free(v->git_describe);
	v->git_describe = desc;
	return (0);
}

int
build_variants(struct scenario *s, FILE *log, char **cause)
{
	size_t	 i;
	char	*desc, *c2;

	for (i = 0; i < s->nvariants; i++) {
		struct scn_variant *v = &s->variants[i];

		if (v->set.rev != NULL) {
			if (build_one(s, v, log, cause) != 0)
				return (-1);
			continue;
		}
		if (v->set.binary == NULL)
			continue;
		desc = c2 = NULL;
		/* 1: not in a work tree; -1: git missing or failing.  Either
		 * way the run is stored without a describe. */
		if (git_describe_path(v->set.binary, &desc, &c2) == 0) {
			free(v->git_describe);
			v->git_describe = desc;
		}
		free(c2);
	}
	return (0);
}
