/*
 * user.h: an account of this host by name, with what running as it
 * takes: its uid, primary gid, every group it is in, and its home.  For
 * node.user: devnet-probe switches its COMMAND to it (probe/child.c) and
 * gives it the shim's page; the orchestrator gives it the node's
 * directory and checks it can reach it (node-kind/foreign-user.c).
 */
#ifndef DN_USER_H
#define DN_USER_H

#include <sys/types.h>

#define DN_USER_GROUPS_MAX	256

struct dn_user {
	uid_t	 uid;
	gid_t	 gid;
	gid_t	 groups[DN_USER_GROUPS_MAX];	/* the primary one too */
	int	 ngroups;
	char	*home;
};

/* Look NAME up.  0 with *U filled (U->home the caller's to free), or -1
 * with *CAUSE: no such user, or in more groups than DN_USER_GROUPS_MAX. */
int	 dn_user_find(const char *name, struct dn_user *u, char **cause);

#endif
