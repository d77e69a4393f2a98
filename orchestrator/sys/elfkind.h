/*
 * elfkind.h: what a program file is, as far as moving its clock with an
 * LD_PRELOAD library goes (clock_skew, issue 39): a static binary has no
 * dynamic linker to preload anything, and Go reads the clock through the
 * vDSO, never libc.  Reads the file's ELF headers (metrics/util/progkind.c);
 * runs nothing.
 */
#ifndef DN_ELFKIND_H
#define DN_ELFKIND_H

/* NULL when libfaketime can move PATH's clock (a dynamically linked
 * program, or a script: its interpreter is), else why not (static). */
const char	*dn_elf_clock_refusal(const char *path);

#endif
