/*
 * outfile.h: an output file that appears whole or not at all (report,
 * export).
 */
#ifndef DN_OUTFILE_H
#define DN_OUTFILE_H

#include <stdio.h>

/*
 * outfile_open writes to PATH.tmp (*TMP, caller frees), outfile_commit
 * flushes, fsyncs, closes and renames it to PATH; outfile_abort closes and
 * removes it.
 */
FILE	*outfile_open(const char *path, char **tmp, char **cause);
int	 outfile_commit(FILE *f, const char *tmp, const char *path,
	    char **cause);
void	 outfile_abort(FILE *f, const char *tmp);

#endif
