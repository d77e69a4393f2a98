/*
 * progkind.h: what kind of program a file is, read from its ELF headers
 * without running it (the probe's allocation source, the clock_skew
 * check), and the PATH lookup exec would do.
 */
#ifndef DN_PROGKIND_H
#define DN_PROGKIND_H

/* The file exec would run for PROG (a name looked up in PATH, or a
 * path), if it is executable; NULL if none.  Caller frees. */
char	*dn_path_find(const char *prog);
/* FILE is a 64-bit ELF the Go toolchain linked (its sections: Go's
 * runtime keeps its own heap, and reads the clock through the vDSO). */
int	 dn_elf_is_go(const char *file);
/* FILE is a 64-bit ELF with no dynamic linker (no PT_INTERP): nothing
 * can be preloaded into it.  0 for a script or anything not ELF64. */
int	 dn_elf_is_static(const char *file);

#endif
