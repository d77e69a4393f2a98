/*
 * rev-build.h: before any trial, turn each variant's `rev:` into a node binary
 * (git_build, once per revision, cached by commit) and note every
 * variant's git commit and `git describe` for the runs table.
 */
#ifndef DN_BUILD_H
#define DN_BUILD_H

#include <stdio.h>

#include "scenario/scenario.h"

/*
 * For every variant of S: with a rev, build it with S->build (a cache hit
 * is not rebuilt) and set its binary, git_commit and git_describe; else
 * set git_describe from the work tree its binary lies in, if any.  Says
 * what it builds on LOG (NULL: quiet).  Returns 0, or -1 with *CAUSE
 * (caller frees): the revision's name and the build's last lines.
 */
int	 build_variants(struct scenario *s, FILE *log, char **cause);

#endif
