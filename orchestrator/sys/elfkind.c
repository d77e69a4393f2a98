/*
 * elfkind.c: is a program statically linked, or Go (elfkind.h)?  The ELF
 * program headers (PT_INTERP: the dynamic linker) and section names
 * (.go.buildinfo, .note.go.buildid) of a 64-bit file.  Not here: the
 * probe's own Go check for allocations (probe/binkind.c, another
 * program).
 */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/elfkind.h"
#include "xalloc.h"

char *
dn_elf_find(const char *prog)
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

/* Whether FD's section names hold a Go one. */
static int
has_go_section(int fd, const Elf64_Ehdr *eh)
{
	Elf64_Shdr	*sh = NULL, str;
	char		*names = NULL;
	size_t		 i, len = (size_t)eh->e_shnum * sizeof(*sh);
	int		 go = 0;

	if (eh->e_shnum == 0 || eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shentsize != sizeof(*sh))
		return (0);
	sh = dn_xmalloc(len);
	if (pread(fd, sh, len, (off_t)eh->e_shoff) != (ssize_t)len)
		goto out;
	str = sh[eh->e_shstrndx];
	if (str.sh_size == 0 || str.sh_size > (1u << 20))
		goto out;
	names = dn_xmalloc(str.sh_size + 1);
	if (pread(fd, names, str.sh_size, (off_t)str.sh_offset) !=
	    (ssize_t)str.sh_size)
		goto out;
	names[str.sh_size] = '\0';
	for (i = 0; i < eh->e_shnum && !go; i++)
		if (sh[i].sh_name < str.sh_size)
			go = strcmp(names + sh[i].sh_name, ".go.buildinfo") ==
			    0 || strcmp(names + sh[i].sh_name,
			    ".note.go.buildid") == 0;
out:
	free(names);
	free(sh);
	return (go);
}

const char *
dn_elf_clock_refusal(const char *path)
{
	Elf64_Ehdr	 eh;
	Elf64_Phdr	 ph;
	const char	*why = NULL;
	int		 fd, i, interp = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (NULL);	/* not here: the start says it */
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph))
		goto out;	/* a script, or not ELF64: let it run */
	for (i = 0; i < eh.e_phnum && !interp; i++)
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
		    (uint64_t)i * sizeof(ph))) == (ssize_t)sizeof(ph))
			interp = ph.p_type == PT_INTERP;
	if (has_go_section(fd, &eh))
		why = "is a Go program: Go reads the clock through the vDSO, "
		    "never libc, so libfaketime cannot move it; skew a "
		    "program that uses libc (C, C++, Rust, Python, Java)";
	else if (!interp)
		why = "is statically linked: there is no dynamic linker to "
		    "preload libfaketime; use a dynamically linked build";
out:
	close(fd);
	return (why);
}
