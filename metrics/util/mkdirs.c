/*
 * mkdirs.c: mkdir -p (mkdirs.h), for the orchestrator's run dirs, build
 * cache and image contexts.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>

#include "mkdirs.h"
#include "xalloc.h"

/* Every parent of PATH (0755); with LAST, PATH too (MODE). */
static int
mkdirs(const char *path, int last, mode_t mode)
{
	char	*p = dn_xstrdup(path), *s;
	int	 rv = 0, saved;

	for (s = p + 1; *s != '\0' && rv == 0; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) == -1 && errno != EEXIST)
			rv = -1;
		*s = '/';
	}
	if (rv == 0 && last && mkdir(p, mode) == -1 && errno != EEXIST)
		rv = -1;
	saved = errno;
	free(p);
	errno = saved;
	return (rv);
}

int
dn_mkdir_p(const char *path, mode_t mode)
{
	return (mkdirs(path, 1, mode));
}

int
dn_mkdir_parents(const char *path)
{
	return (mkdirs(path, 0, 0));
}
