/*
 * child-setup.c: process group and death signal of a forked child (see
 * child-setup.h).
 */
#include <sys/prctl.h>

#include <signal.h>
#include <unistd.h>

#include "child-setup.h"

void
dn_child_setup(pid_t parent)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The parent may have died between fork and prctl: then no death
	 * signal will ever come. */
	if (getppid() != parent)
		_exit(126);
}

pid_t
dn_child_fork(void)
{
	pid_t	parent = getpid(), pid;

	pid = fork();
	if (pid == 0)
		dn_child_setup(parent);
	else if (pid > 0)
		setpgid(pid, pid);
	return (pid);
}
