/*
 * progkind.c: what kind of program a file is (progkind.h).  The ELF64 program
 * headers (PT_INTERP: the dynamic linker) and section names
 * (.go.buildinfo, .note.go.buildid, .gopclntab) of a file, read, never
 * run.  One reader for devnet-probe (is a node's program Go: its heap
 * is Go's own) and the orchestrator (may a clock_skew preload reach it).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progkind.h"
#include "xalloc.h"

char *
dn_path_find(const char *prog)
{
	const char	*path, *p, *colon;
	char		*cand;
	size_t		 n;

	if (strchr(prog, '/') != NULL)
		return (access(prog, X_OK) == 0 ? dn_xstrdup(prog) : NULL);
	if ((path = getenv("PATH")) == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = colon + 1) {
		colon = strchr(p, ':');
		n = colon != NULL ? (size_t)(colon - p) : strlen(p);
		cand = dn_xasprintf("%.*s%s%s", (int)n, p, n ? "/" : "",
		    prog);
		if (access(cand, X_OK) == 0)
			return (cand);
		free(cand);
		if (colon == NULL)
			return (NULL);
	}
}

/* FILE opened, its ELF64 header in *EH; -1 if it is not one. */
static int
elf_open(const char *file, Elf64_Ehdr *eh)
{
	int	fd;

	if ((fd = open(file, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	if (pread(fd, eh, sizeof(*eh), 0) != (ssize_t)sizeof(*eh) ||
	    memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64) {
		close(fd);
		return (-1);
	}
	return (fd);
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
dn_elf_is_go(const char *file)
{
	Elf64_Ehdr	 eh;
	Elf64_Shdr	*sh = NULL, *str;
	char		*names = NULL;
	size_t		 i;
	int		 fd, rv = 0;

	if ((fd = elf_open(file, &eh)) == -1)
		return (0);
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
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

int
dn_elf_is_static(const char *file)
{
	Elf64_Ehdr	 eh;
	Elf64_Phdr	 ph;
	int		 fd, i, interp = 0;

	if ((fd = elf_open(file, &eh)) == -1)
		return (0);
	if (eh.e_phentsize != sizeof(ph)) {
		close(fd);
		return (0);
	}
	for (i = 0; i < eh.e_phnum && !interp; i++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
		    (uint64_t)i * sizeof(ph))) == (ssize_t)sizeof(ph))
			interp = ph.p_type == PT_INTERP;
	close(fd);
	return (!interp);
}
