/*
 * scenario-build.c: the top-level build: section, the recipe that turns a
 * variant's `rev:` into a node binary: {repo: PATH, command: [argv...],
 * binary: RELATIVE/PATH}.  When a variant names a rev and the scenario
 * has no build: section, the default recipe builds devnet-node itself
 * from the git repository of the current directory (docs/scenarios.md).
 * Not here: resolving and building the revisions (plan/rev-build.c,
 * sys/git.c), the rev: key itself (scenario-settings.c).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "xalloc.h"

#define SCN_MAX_COMMAND	64

static const char *const build_keys[] = { "repo", "command", "binary",
	NULL };

/* The default recipe: configure and build devnet-node with CMake in the
 * worktree of the revision (the repository's own build, RelWithDebInfo
 * by default as in `make build`). */
static const char *const default_command[] = { "sh", "-c",
	"cmake -S . -B build >/dev/null && "
	"cmake --build build --target devnet-node -j \"$(nproc)\"", NULL };
#define DEFAULT_BINARY	"build/bin/devnet-node"

static int
any_rev(const struct scenario *s)
{
	size_t	i;

	for (i = 0; i < s->nvariants; i++)
		if (s->variants[i].set.rev != NULL)
			return (1);
	return (0);
}

static int
set_repo(struct ctx *c, struct scenario *s, const struct ynode *n,
    const char *path)
{
	struct stat	 st;
	char		*abs;

	if (c->default_binary == NULL) {
		s->build.repo = dn_xstrdup(path);
		return (0);
	}
	if ((abs = realpath(path, NULL)) == NULL || stat(abs, &st) != 0 ||
	    !S_ISDIR(st.st_mode)) {
		free(abs);
		if (n == NULL) {
			c->cause = dn_xasprintf("%s: cannot use the current "
			    "directory as the build repository: %s", c->name,
			    strerror(errno));
			return (-1);
		}
		return (scn_fail(c, n, "build.repo '%s' is not a directory "
		    "(paths are relative to the current directory)", path));
	}
	s->build.repo = abs;
	return (0);
}

int
scn_load_build(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	const struct ynode *v;
	size_t		    i;

	if (n == NULL) {
		if (!any_rev(s))
			return (0);
		for (i = 0; default_command[i] != NULL; i++)
			continue;
		s->build.command = dn_xcalloc(i + 1,
		    sizeof(*s->build.command));
		for (i = 0; default_command[i] != NULL; i++)
			s->build.command[i] = dn_xstrdup(default_command[i]);
		s->build.ncommand = i;
		s->build.binary = dn_xstrdup(DEFAULT_BINARY);
		return (set_repo(c, s, NULL, "."));
	}
	if (scn_check_map(c, n, "build", build_keys) != 0)
		return (-1);
	s->build.given = 1;
	if ((v = ymap_get(n, "repo")) == NULL)
		return (scn_fail(c, n, "build needs 'repo' (the git "
		    "repository to build revisions of, e.g. '.')"));
	if (scn_want_scalar(c, v, "build.repo") != 0 ||
	    set_repo(c, s, v, v->value) != 0)
		return (-1);
	if ((v = ymap_get(n, "command")) == NULL)
		return (scn_fail(c, n, "build needs 'command', a list such "
		    "as [make, -j2] (run in the revision's worktree, no "
		    "shell; use [sh, -c, '...'] for one)"));
	if (v->type != Y_SEQ || v->nkids == 0 || v->nkids > SCN_MAX_COMMAND)
		return (scn_fail(c, v, "build.command must be a list of 1 to "
		    "%d strings, e.g. [make, -j2]", SCN_MAX_COMMAND));
	s->build.command = dn_xcalloc(v->nkids + 1,
	    sizeof(*s->build.command));
	for (i = 0; i < v->nkids; i++) {
		if (scn_get_str(c, v->kids[i], "build.command",
		    &s->build.command[s->build.ncommand]) != 0)
			return (-1);
		s->build.ncommand++;
	}
	if (s->build.command[0][0] == '\0')
		return (scn_fail(c, v->kids[0], "build.command must start "
		    "with a program name"));
	if ((v = ymap_get(n, "binary")) == NULL)
		return (scn_fail(c, n, "build needs 'binary', the built node "
		    "binary relative to the worktree, e.g. build/bin/node"));
	if (scn_get_str(c, v, "build.binary", &s->build.binary) != 0)
		return (-1);
	if (s->build.binary[0] == '\0' || s->build.binary[0] == '/')
		return (scn_fail(c, v, "build.binary must be a path relative "
		    "to the worktree of the revision, not '%s'",
		    s->build.binary));
	return (0);
}

void
scn_build_release(struct scn_build *b)
{
	size_t	i;

	free(b->repo);
	for (i = 0; i < b->ncommand; i++)
		free(b->command[i]);
	free(b->command);
	free(b->binary);
}
