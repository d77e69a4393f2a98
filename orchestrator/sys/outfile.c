/*
 * outfile.c: output files that appear whole or not at all (write to
 * PATH.tmp, fsync, rename), for `devnet report -o` and `devnet export -o`.
 *
 * Not here: what goes into them (cmd-report.c, cmd-export.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/outfile.h"
#include "xalloc.h"

/*
 * PATH.tmp is made new (O_EXCL | O_NOFOLLOW), never opened through what
 * is there: fopen "w" followed a symlink planted at PATH.tmp and
 * truncated its target (issue 19 #13).  A leftover PATH.tmp (a crashed
 * run's, or a planted link) is removed once, not followed: unlink does
 * not follow links.
 */
FILE *
outfile_open(const char *path, char **tmp, char **cause)
{
	FILE	*f = NULL;
	int	 fd, tries;

	*tmp = dn_xasprintf("%s.tmp", path);
	for (tries = 0; tries < 2; tries++) {
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0666);
		if (fd != -1 || errno != EEXIST || tries > 0)
			break;
		(void)unlink(*tmp);
	}
	if (fd == -1 || (f = fdopen(fd, "w")) == NULL) {
		*cause = dn_xasprintf("cannot write '%s': %s", *tmp,
		    strerror(errno));
		if (fd != -1)
			close(fd);
	}
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
