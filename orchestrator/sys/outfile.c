/*
 * outfile.c: output files that appear whole or not at all (write to
 * PATH.tmp, fsync, rename), for `devnet report -o` and `devnet export -o`.
 *
 * Not here: what goes into them (cmd-report.c, cmd-export.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/outfile.h"
#include "xalloc.h"

FILE *
outfile_open(const char *path, char **tmp, char **cause)
{
	FILE	*f;

	*tmp = dn_xasprintf("%s.tmp", path);
	if ((f = fopen(*tmp, "w")) == NULL)
		*cause = dn_xasprintf("cannot write '%s': %s", *tmp,
		    strerror(errno));
	return (f);
}

int
outfile_commit(FILE *f, const char *tmp, const char *path, char **cause)
{
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		*cause = dn_xasprintf("cannot write '%s': %s", tmp,
		    strerror(errno));
		outfile_abort(f, tmp);
		return (-1);
	}
	fclose(f);
	if (rename(tmp, path) != 0) {
		*cause = dn_xasprintf("cannot rename '%s' to '%s': %s", tmp,
		    path, strerror(errno));
		unlink(tmp);
		return (-1);
	}
	return (0);
}

void
outfile_abort(FILE *f, const char *tmp)
{
	if (f != NULL)
		fclose(f);
	if (tmp != NULL)
		unlink(tmp);
}
