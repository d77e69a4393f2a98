/*
 * elfkind.h: what a program file is, as far as moving its clock goes
 * (clock_skew, issue 39): a static binary has no dynamic linker to
 * preload libfaketime into, and Go reads the clock through the vDSO,
 * never libc; under devnet-probe both get their clock from the probe
 * instead (probe/clock-trap.c: seccomp and a hidden vDSO), where the
 * kernel allows it.  Reads the file's ELF headers (metrics/util/
 * progkind.c) and /proc/sys/kernel; runs nothing.
 */
#ifndef DN_ELFKIND_H
#define DN_ELFKIND_H

/* NULL when PATH's clock can be moved: a dynamically linked program or a
 * script (libfaketime), or under devnet-probe (PROBED) a Go or static one
 * where the kernel lets the probe trap its clock reads (seccomp's user
 * notification, ptrace); else why not. */
const char	*dn_elf_clock_refusal(const char *path, int probed);

#endif
