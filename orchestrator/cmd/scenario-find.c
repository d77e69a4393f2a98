/*
 * scenario-find.c: `devnet run smoke` from any directory (issue 37): a
 * scenario named on the command line that is not a file here is looked
 * for among the shipped ones, and a name found nowhere is refused naming
 * every place looked in.
 *
 * Not here: reading the file (scenario/scenario.c).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/scenario-find.h"
#include "sys/spawn.h"
#include "xalloc.h"

#ifndef DN_SCENARIOS_DIR
#define DN_SCENARIOS_DIR	"scenarios"
#endif

/* The shipped scenario dirs, in the order looked in, into DIRS; how
 * many. */
static int
shipped_dirs(char dirs[2][PATH_MAX])
{
	spawn_beside_self("../share/devnet/scenarios", dirs[0], PATH_MAX);
	snprintf(dirs[1], PATH_MAX, "%s", DN_SCENARIOS_DIR);
	return (2);
}

static int
is_file(const char *p)
{
	struct stat	st;

	return (stat(p, &st) == 0 && S_ISREG(st.st_mode));
}

static int
by_name(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

/* The .yaml names in DIR, sorted, comma-separated, appended to F. */
static void
list_names(FILE *f, const char *dir)
{
	DIR		*d;
	struct dirent	*e;
	char		**v = NULL;
	size_t		 n = 0, i, len;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0) {
			v = dn_xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = dn_xasprintf("%.*s", (int)len - 5,
			    e->d_name);
		}
	}
	closedir(d);
	qsort(v, n, sizeof(*v), by_name);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s%s", i ? ", " : "", v[i]);
		free(v[i]);
	}
	free(v);
}

char *
scenario_find(const char *arg, int *shipped, char **cause)
{
	char	 dirs[2][PATH_MAX], *msg = NULL, *found = NULL;
	size_t	 len = 0;
	FILE	*f;
	int	 n, i, listed = 0;
	int	 yaml = strlen(arg) > 5 &&
		    strcmp(arg + strlen(arg) - 5, ".yaml") == 0;

	*shipped = 0;
	*cause = NULL;
	/* a path the user wrote, or anything that is there: as today */
	if (access(arg, F_OK) == 0 || strchr(arg, '/') != NULL ||
	    *arg == '\0')
		return (dn_xstrdup(arg));
	n = shipped_dirs(dirs);
	for (i = 0; i < n && found == NULL; i++) {
		found = dn_xasprintf("%s/%s%s", dirs[i], arg, yaml ? "" :
		    ".yaml");
		if (!is_file(found)) {
			free(found);
			found = NULL;
		}
	}
	if (found != NULL) {
		*shipped = 1;
		return (found);
	}
	if ((f = open_memstream(&msg, &len)) == NULL) {
		*cause = dn_xasprintf("%s: no such file", arg);
		return (NULL);
	}
	fprintf(f, "%s: no such scenario file; looked in ./%s", arg, arg);
	for (i = 0; i < n; i++)
		fprintf(f, ", %s/%s%s", dirs[i], arg, yaml ? "" : ".yaml");
	for (i = 0; i < n && !listed; i++) {
		DIR	*d = opendir(dirs[i]);

		if (d == NULL)
			continue;
		closedir(d);
		fprintf(f, " (shipped: ");
		list_names(f, dirs[i]);
		fprintf(f, ")");
		listed = 1;
	}
	fclose(f);
	*cause = msg;
	return (NULL);
}
