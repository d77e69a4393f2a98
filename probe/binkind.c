/*
 * binkind.c: what kind of program COMMAND is, as far as counting its
 * allocations goes: today only "is it Go" (Go's runtime keeps its own
 * heap, which no malloc shim sees; docs/probe.md, "Allocation source").
 * Reads the ELF section headers of the file a PATH lookup finds, the
 * lookup exec will do, and of what the tree's processes run now (a
 * wrapper's exec); it does not run or rename anything.
 */
#include <sys/stat.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe.h"
#include "buf.h"
#include "xalloc.h"

char *
bin_find(const char *name)
{
	const char	*path, *p, *colon;
	char		*cand;
	size_t		 n;

	if (strchr(name, '/') != NULL)
		return (access(name, X_OK) == 0 ? dn_xstrdup(name) : NULL);
	if ((path = getenv("PATH")) == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = colon + 1) {
		colon = strchr(p, ':');
		n = colon != NULL ? (size_t)(colon - p) : strlen(p);
		cand = dn_xasprintf("%.*s%s%s", (int)n, p, n ? "/" : "",
		    name);
		if (access(cand, X_OK) == 0)
			return (cand);
		free(cand);
		if (colon == NULL)
			return (NULL);
	}
}

/* The Go toolchain marks every binary it links with one of these. */
static int
go_section(const char *name)
{
	return (strcmp(name, ".go.buildinfo") == 0 ||
	    strcmp(name, ".note.go.buildid") == 0 ||
	    strcmp(name, ".gopclntab") == 0);
}

int
bin_is_go(const char *file)
{
	Elf64_Ehdr	 eh;
	Elf64_Shdr	*sh = NULL, *str;
	char		*names = NULL;
	size_t		 i;
	int		 fd, rv = 0;

	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) == -1)
		return (0);
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
	    eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	sh = dn_xcalloc(eh.e_shnum, sizeof(*sh));
	if (pread(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff) !=
	    (ssize_t)(eh.e_shnum * sizeof(*sh)))
		goto out;
	str = &sh[eh.e_shstrndx];
	if (str->sh_size == 0 || str->sh_size > (1u << 20))
		goto out;
	names = dn_xcalloc(1, str->sh_size + 1);
	if (pread(fd, names, str->sh_size, (off_t)str->sh_offset) !=
	    (ssize_t)str->sh_size)
		goto out;
	for (i = 0; i < eh.e_shnum && !rv; i++)
		rv = sh[i].sh_name < str->sh_size &&
		    go_section(names + sh[i].sh_name);
out:
	free(names);
	free(sh);
	close(fd);
	return (rv);
}

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
	sn->go = bin_is_go(path);
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
