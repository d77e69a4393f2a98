/*
 * elfkind.c: whether a clock_skew preload can reach a program
 * (elfkind.h), from what metrics/util/progkind.c reads of it.
 */
#include <stddef.h>

#include "sys/elfkind.h"
#include "progkind.h"

const char *
dn_elf_clock_refusal(const char *path)
{
	if (dn_elf_is_go(path))
		return ("is a Go program: Go reads the clock through the "
		    "vDSO, never libc, so libfaketime cannot move it; skew a "
		    "program that uses libc (C, C++, Rust, Python, Java)");
	if (dn_elf_is_static(path))
		return ("is statically linked: there is no dynamic linker to "
		    "preload libfaketime; use a dynamically linked build");
	return (NULL);	/* a script, not there, or dynamic: let it run */
}
