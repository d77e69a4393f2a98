/*
 * child.c: the probe's child, COMMAND (see probe.h).  Fork/exec with an
 * argv (PATH searched, never a shell) into its own process group with
 * the same death signal as orchestrator/sys/spawn.c (dn_child_setup),
 * signals to the group, and reaping without and with WNOWAIT.  Knows
 * nothing of metrics.
 */
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child-setup.h"
#include "probe.h"
#include "user.h"
#include "xalloc.h"

extern char **environ;

/* --user: who COMMAND runs as, looked up once, before fork (the child
 * makes only system calls), and its HOME, USER and LOGNAME. */
static struct dn_user	 as_user;
static char		*as_user_env[4];

const struct dn_user *
child_user(const struct probe_opts *o, char **cause)
{
	char	*why = NULL;

	if (as_user_env[0] != NULL)
		return (&as_user);
	if (dn_user_find(o->user, &as_user, &why) != 0) {
		*cause = dn_xasprintf("--user: %s", why);
		free(why);
		return (NULL);
	}
	as_user_env[0] = dn_xasprintf("HOME=%s", as_user.home);
	as_user_env[1] = dn_xasprintf("USER=%s", o->user);
	as_user_env[2] = dn_xasprintf("LOGNAME=%s", o->user);
	return (&as_user);
}

/* In the child: become U, keeping the death signal that a change of
 * credentials clears (prctl(2)); -1 when it cannot. */
DN_CHILD_FN static int
as_user_become(const struct dn_user *u, pid_t parent)
{
	if (setgroups((size_t)u->ngroups, u->groups) == -1 ||
	    setgid(u->gid) == -1 || setuid(u->uid) == -1)
		return (-1);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(126);
	return (0);
}

/* Our environment with USER, ADD, CLOCK and then EXTRA overriding
 * same-named entries; built before fork (the child only execs).  Caller
 * frees the array. */
static char **
make_env(char *const *user, char *const *add, char *const *clock,
    char *const *extra)
{
	char *const	*lists[] = { environ, user, add, clock, extra };
	size_t		 n = 0, i, j, k = 0, l;
	char		**all, **env;

	for (l = 0; l < 5; l++)
		for (i = 0; lists[l] != NULL && lists[l][i] != NULL; i++)
			n++;
	all = dn_xcalloc(n + 1, sizeof(*all));
	for (l = 0; l < 5; l++)
		for (i = 0; lists[l] != NULL && lists[l][i] != NULL; i++)
			all[k++] = lists[l][i];
	env = dn_xcalloc(n + 1, sizeof(*env));
	k = 0;
	for (i = 0; i < n; i++) {
		size_t	klen = strcspn(all[i], "=");
		int	shadowed = 0;

		/* a later definition of the same name wins */
		for (j = i + 1; j < n && !shadowed; j++) {
			if (strncmp(all[j], all[i], klen) == 0 &&
			    all[j][klen] == '=')
				shadowed = 1;
		}
		if (!shadowed)
			env[k++] = all[i];
	}
	free(all);
	return (env);
}

int
child_start(struct probe_child *c, const struct probe_opts *o,
    char *const *extra_env, int out_fd, char **cause)
{
	const struct dn_user	 *u = NULL;
	char			**env;
	pid_t			  pid, self = getpid();
	int			  trap = clock_trap_wanted(o), sv[2] = { -1, -1 };

	if (o->user != NULL && (u = child_user(o, cause)) == NULL)
		return (-1);
	env = make_env(u != NULL ? as_user_env : NULL, o->env_add, trap ?
	    NULL : o->clock_env, extra_env);
	c->trap = NULL;
	if (trap && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv) == -1) {
		*cause = dn_xasprintf("socketpair: %s", strerror(errno));
		free(env);
		return (-1);
	}
	pid = dn_child_fork();
	if (pid == -1) {
		*cause = dn_xasprintf("fork: %s", strerror(errno));
		free(env);
		return (-1);
	}
	if (pid == 0) {
		/* Child: async-signal-safe calls only until exec. */
		sigset_t	 none;
		const char	*what = "cannot execute";
		int		 fd, s;

		for (s = 1; s < NSIG; s++) {
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		}
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		dup2(out_fd, STDOUT_FILENO);
		dup2(out_fd, STDERR_FILENO);
		if (out_fd > STDERR_FILENO)
			close(out_fd);
		fd = open("/dev/null", O_RDONLY);
		if (fd != -1 && fd != STDIN_FILENO) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		if (u != NULL && as_user_become(u, self) == -1)
			what = "cannot become --user for";
		else if (o->cwd != NULL && chdir(o->cwd) == -1)
			what = "cannot change to --cwd for";
		else if (trap && clock_trap_child(sv[1]) == -1)
			what = "cannot trap the clock reads (seccomp, ptrace) "
			    "of";
		else
			execvpe(o->argv[0], o->argv, env);
		{
			const char	*e = strerror(errno);
			static const char pre[] = "DN-PROBE-EXEC-ERROR ";
			ssize_t		 w;

			w = write(STDERR_FILENO, pre, sizeof(pre) - 1);
			w = write(STDERR_FILENO, what, strlen(what));
			w = write(STDERR_FILENO, " '", 2);
			w = write(STDERR_FILENO, o->argv[0],
			    strlen(o->argv[0]));
			w = write(STDERR_FILENO, "': ", 3);
			w = write(STDERR_FILENO, e, strlen(e));
			w = write(STDERR_FILENO, "\n", 1);
			(void)w;
		}
		_exit(127);
	}
	free(env);
	c->pid = pid;
	c->status = 0;
	c->reaped = 0;
	if (!trap)
		return (0);
	close(sv[1]);
	if (clock_trap_start(&c->trap, o, sv[0], pid, cause) != 0) {
		close(sv[0]);
		(void)kill(pid, SIGKILL);
		return (-1);
	}
	close(sv[0]);
	return (0);
}

void
child_signal(struct probe_child *c, int sig)
{
	if (c->pid <= 0)
		return;
	/* The group, so that whatever COMMAND started goes too; the group
	 * outlives its leader while members remain. */
	if (kill(-c->pid, sig) == -1 && !c->reaped)
		(void)kill(c->pid, sig);
}

pid_t
child_reap_any(int *status, struct rusage *ru)
{
	pid_t	r;

	do
		r = wait4(-1, status, WNOHANG, ru);
	while (r == -1 && errno == EINTR);
	return (r > 0 ? r : 0);
}

int
child_exit_code(int status)
{
	if (WIFEXITED(status))
		return (WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return (128 + WTERMSIG(status));
	return (PROBE_EXIT_ERROR);
}

pid_t
child_watch_parent(int sig)
{
	pid_t	parent = getppid();

	if (parent <= 1)
		return (0);
	if (prctl(PR_SET_PDEATHSIG, sig) == -1)
		return (0);
	/* The parent died before the prctl: its death signal (devnet's
	 * SIGKILL) did not come either, or we would not be here. */
	if (getppid() != parent)
		(void)raise(sig);
	return (parent);
}
