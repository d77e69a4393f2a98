/*
 * user.c: an account of this host by name (see user.h).
 */
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>

#include "user.h"
#include "xalloc.h"

int
dn_user_find(const char *name, struct dn_user *u, char **cause)
{
	struct passwd	*pw;

	if ((pw = getpwnam(name)) == NULL) {
		*cause = dn_xasprintf("no user '%s' on this host", name);
		return (-1);
	}
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	u->ngroups = DN_USER_GROUPS_MAX;
	if (getgrouplist(name, pw->pw_gid, u->groups, &u->ngroups) == -1) {
		*cause = dn_xasprintf("user %s is in more than %d groups",
		    name, DN_USER_GROUPS_MAX);
		return (-1);
	}
	u->home = dn_xstrdup(pw->pw_dir);
	return (0);
}
