/*
 * elfkind.c: whether a clock_skew can reach a program (elfkind.h), from
 * what metrics/util/progkind.c reads of it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/elfkind.h"
#include "progkind.h"

/* NULL when this kernel lets devnet-probe trap a program's clock reads
 * (seccomp's user notification, ptrace), else what is missing. */
static const char *
clock_trap_missing(void)
{
	char	 buf[256] = "";
	FILE	*f;
	int	 scope = 0;

	if ((f = fopen("/proc/sys/kernel/seccomp/actions_avail", "re")) !=
	    NULL) {
		if (fgets(buf, sizeof(buf), f) == NULL)
			buf[0] = '\0';
		fclose(f);
	}
	/* tests: DN_TEST_BREAK=clock_trap, a kernel without it */
	if (strstr(buf, "user_notif") == NULL || (getenv("DN_TEST_BREAK") !=
	    NULL && strcmp(getenv("DN_TEST_BREAK"), "clock_trap") == 0))
		return ("this kernel has no seccomp user notification (Linux "
		    "5.0 or later) for devnet-probe to answer its clock reads");
	if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re")) != NULL) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
	if (scope >= 3)
		return ("ptrace is off on this machine (kernel.yama."
		    "ptrace_scope = 3), and devnet-probe needs it at the "
		    "program's exec");
	return (NULL);
}

const char *
dn_elf_clock_refusal(const char *path, int probed)
{
	static char	 why[512];
	const char	*kind, *miss;

	if (dn_elf_is_go(path))
		kind = "is a Go program: Go reads the clock through the vDSO, "
		    "never libc, so libfaketime cannot move it";
	else if (dn_elf_is_static(path))
		kind = "is statically linked: there is no dynamic linker to "
		    "preload libfaketime";
	else
		return (NULL);	/* a script, not there, or dynamic */
	if (!probed)
		return (kind);
	if ((miss = clock_trap_missing()) == NULL)
		return (NULL);	/* the probe moves it: clock-trap.c */
	snprintf(why, sizeof(why), "%s, and %s", kind, miss);
	return (why);
}
