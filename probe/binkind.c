/*
 * binkind.c: what kind of program COMMAND is, as far as counting its
 * allocations goes: today only "is it Go" (Go's runtime keeps its own
 * heap, which no malloc shim sees; docs/probe.md, "Allocation source").
 * Reads (metrics/util/progkind.c) the file a PATH lookup finds, the lookup
 * exec will do, and what the tree's processes run now (a wrapper's
 * exec); it does not run or rename anything.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "buf.h"
#include "progkind.h"
#include "xalloc.h"

/* What each process of the tree ran when last looked at. */
struct bin_seen {
	struct bin_exe {
		pid_t	pid;
		dev_t	dev;
		ino_t	ino;
	}		*v;
	size_t		 n, cap;
	int		 go;
};

static void
seen_one(pid_t pid, void *arg)
{
	struct bin_seen	*sn = arg;
	struct stat	 st;
	char		 path[64];
	size_t		 i;

	if (sn->go)
		return;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st) != 0)
		return;
	for (i = 0; i < sn->n; i++) {
		if (sn->v[i].pid == pid)
			break;
	}
	if (i < sn->n && sn->v[i].dev == st.st_dev &&
	    sn->v[i].ino == st.st_ino)
		return;		/* no exec since */
	if (i == sn->n) {
		sn->v = dn_xgrow(sn->v, &sn->cap, sn->n + 1, sizeof(*sn->v));
		sn->n++;
	}
	sn->v[i].pid = pid;
	sn->v[i].dev = st.st_dev;
	sn->v[i].ino = st.st_ino;
	sn->go = dn_elf_is_go(path);
}

int
bin_tree_has_go(struct tree *t, struct bin_seen **seen)
{
	if (*seen == NULL)
		*seen = dn_xcalloc(1, sizeof(**seen));
	tree_each(t, seen_one, *seen);
	return ((*seen)->go);
}

void
bin_seen_free(struct bin_seen *seen)
{
	if (seen == NULL)
		return;
	free(seen->v);
	free(seen);
}
