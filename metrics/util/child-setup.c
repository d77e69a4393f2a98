/*
 * child-setup.c: process group and death signal of a forked child (see
 * child-setup.h).
 */
#include <sys/mman.h>
#include <sys/prctl.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "child-setup.h"

DN_CHILD_FN void
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

/* The child's stack: its setup and the execve, nothing deep. */
#define SPAWN_STACK	(64 * 1024)

struct spawn_arg {
	pid_t	  parent;
	int	(*fn)(void *);
	void	 *arg;
};

DN_CHILD_FN static int
spawn_child(void *p)
{
	struct spawn_arg	*sa = p;

	dn_child_setup(sa->parent);
	return (sa->fn(sa->arg));
}

pid_t
dn_child_spawn(int (*fn)(void *), void *arg)
{
	struct spawn_arg	 sa = { getpid(), fn, arg };
	char			*stack;
	pid_t			 pid;
	int			 e;

	stack = mmap(NULL, SPAWN_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack == MAP_FAILED)
		return (-1);
	pid = clone(spawn_child, stack + SPAWN_STACK, CLONE_VM | CLONE_VFORK |
	    SIGCHLD, &sa);
	/* here the child has exec'd or exited: its stack is free again */
	e = errno;
	munmap(stack, SPAWN_STACK);
	if (pid > 0)
		setpgid(pid, pid);
	errno = e;
	return (pid);
}
