/*
 * foreign-user.c: the directories of a foreign node run as node.user
 * (devnet-probe --user): each node's own directory is USER's, and the
 * trial's stays closed to everyone else (0700: the collector's socket is
 * in it) but for USER's group, which may pass through it (0710) to its
 * node's directory.  Every directory above the trial's must let USER
 * pass too; devnet does not open those (they are the user's: --run-dir)
 * and says which one is closed, before the node fails on it.  Not here:
 * the switch of user itself (probe/child.c).
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node-kind/node-kind.h"
#include "user.h"
#include "xalloc.h"

/* 1 when a user of UID and groups G[N] may pass through directory ST */
static int
may_pass(const struct stat *st, uid_t uid, const gid_t *g, int n)
{
	int	i;

	if (st->st_uid == uid)
		return ((st->st_mode & S_IXUSR) != 0);
	for (i = 0; i < n; i++)
		if (st->st_gid == g[i])
			return ((st->st_mode & S_IXGRP) != 0);
	return ((st->st_mode & S_IXOTH) != 0);
}

/* The first directory above DIR (DIR itself not) that a user of UID and
 * groups G[N] cannot pass through, or NULL. */
static char *
closed_above(const char *dir, uid_t uid, const gid_t *g, int n)
{
	char		 real[PATH_MAX], *p;
	struct stat	 st;

	if (realpath(dir, real) == NULL)
		return (NULL);
	if (stat("/", &st) == 0 && !may_pass(&st, uid, g, n))
		return (dn_xstrdup("/"));
	for (p = real + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (stat(real, &st) == 0 && !may_pass(&st, uid, g, n))
			return (dn_xstrdup(real));
		*p = '/';
	}
	return (NULL);
}

int
foreign_user_dirs(struct trial *t, const char *user, char **cause)
{
	struct dn_user	 u;
	char		*closed, *why = NULL;
	int		 k;

	if (dn_user_find(user, &u, &why) != 0) {
		*cause = dn_xasprintf("node.user: %s", why);
		free(why);
		return (-1);
	}
	free(u.home);
	if ((closed = closed_above(t->run_dir, u.uid, u.groups,
	    u.ngroups)) != NULL) {
		*cause = dn_xasprintf("node.user %s cannot reach its "
		    "directory: '%s' is closed to it (no x for %s); give "
		    "devnet a --run-dir it may pass through (chmod o+x on "
		    "the closed one, or a directory such as /var/tmp/devnet)",
		    user, closed, user);
		free(closed);
		return (-1);
	}
	if (chown(t->run_dir, (uid_t)-1, u.gid) != 0 ||
	    chmod(t->run_dir, 0710) != 0) {
		*cause = dn_xasprintf("node.user %s: cannot open '%s' to its "
		    "group: %s", user, t->run_dir, strerror(errno));
		return (-1);
	}
	for (k = 0; k < t->nnodes; k++) {
		char	*d = dn_xasprintf("%s/node-%d", t->run_dir, k);
		int	 rv = chown(d, u.uid, u.gid);

		if (rv != 0)
			*cause = dn_xasprintf("node.user %s: cannot give it "
			    "'%s': %s", user, d, strerror(errno));
		free(d);
		if (rv != 0)
			return (-1);
	}
	return (0);
}
