/*
 * spawn.c: fork/exec of node processes (see spawn.h).  Nothing here knows
 * what a node is.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sys/spawn.h"
#include "child-setup.h"
#include "clock.h"
#include "escape.h"
#include "xalloc.h"

extern char **environ;

/* The child's environment: ours, with ENV_ADD overriding same-named
 * entries.  Built before fork; the child only execs. */
static char **
make_env(char *const *env_add)
{
	size_t	 n = 0, na = 0, i, j, k = 0;
	char	**env;

	while (environ[n] != NULL)
		n++;
	while (env_add != NULL && env_add[na] != NULL)
		na++;
	env = dn_xcalloc(n + na + 1, sizeof(*env));
	for (i = 0; i < n; i++) {
		const char	*eq = strchr(environ[i], '=');
		size_t		 klen = eq ? (size_t)(eq - environ[i]) :
				     strlen(environ[i]);
		int		 shadowed = 0;

		for (j = 0; j < na; j++) {
			if (strncmp(env_add[j], environ[i], klen) == 0 &&
			    env_add[j][klen] == '=')
				shadowed = 1;
		}
		if (!shadowed)
			env[k++] = environ[i];
	}
	for (j = 0; j < na; j++)
		env[k++] = env_add[j];
	env[k] = NULL;
	return (env);
}

int
spawn_start(struct proc *p, char *const *argv, char *const *env_add,
    const char *out_path, char **cause)
{
	return (spawn_start_in(p, argv, env_add, out_path, -1, cause));
}

/* What the child needs before its exec, all made before the clone. */
struct child_plan {
	char *const	 *argv;
	char		**env;
	int		  out_fd;
	int		  netns_fd;
	const int	 *cg_fds;	/* cgroup.procs files to join */
	int		  ncg;
};

/*
 * The child, in the parent's memory until its exec (dn_child_spawn):
 * async-signal-safe calls only, nothing written that the parent reads.
 */
DN_CHILD_FN static int
child_main(void *arg)
{
	const struct child_plan	*cp = arg;
	sigset_t		 none;
	int			 fd;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	dup2(cp->out_fd, STDOUT_FILENO);
	dup2(cp->out_fd, STDERR_FILENO);
	fd = open("/dev/null", O_RDONLY);
	if (fd != -1)
		dup2(fd, STDIN_FILENO);
	/* into the node's control groups, before anything runs that they
	 * should count or limit (sys/cgroup.h) */
	for (fd = 0; fd < cp->ncg; fd++)
		if (write(cp->cg_fds[fd], "0", 1) != 1) {
			static const char msg[] = "devnet: cannot join the "
			    "node's cgroup\n";

			if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
				_exit(127);
			_exit(127);
		}
	if (cp->netns_fd >= 0 && setns(cp->netns_fd, CLONE_NEWNET) != 0) {
		static const char msg[] = "devnet: cannot enter the "
		    "node's network namespace\n";

		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			_exit(127);
		_exit(127);
	}
	execve(cp->argv[0], cp->argv, cp->env);
	{
		const char	*e = strerror(errno);
		static const char msg[] = "devnet: cannot execute node "
		    "binary: ";
		ssize_t		 w;

		w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
		w = write(STDERR_FILENO, e, strlen(e));
		w = write(STDERR_FILENO, "\n", 1);
		(void)w;
	}
	_exit(127);
}

int
spawn_start_in(struct proc *p, char *const *argv, char *const *env_add,
    const char *out_path, int netns_fd, char **cause)
{
	return (spawn_start_cg(p, argv, env_add, out_path, netns_fd, NULL, 0,
	    cause));
}

int
spawn_start_cg(struct proc *p, char *const *argv, char *const *env_add,
    const char *out_path, int netns_fd, const int *cg_fds, int ncg,
    char **cause)
{
	struct child_plan	cp;
	pid_t			pid;

	cp.out_fd = open(out_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0600);
	if (cp.out_fd == -1) {
		*cause = dn_xasprintf("cannot open '%s': %s", out_path,
		    strerror(errno));
		return (-1);
	}
	cp.argv = argv;
	cp.env = make_env(env_add);
	cp.netns_fd = netns_fd;
	cp.cg_fds = cg_fds;
	cp.ncg = ncg;
	/* not fork: see dn_child_spawn (issue 26) */
	pid = dn_child_spawn(child_main, &cp);
	if (pid == -1)
		*cause = dn_xasprintf("cannot start '%s': %s", argv[0],
		    strerror(errno));
	free(cp.env);
	close(cp.out_fd);
	if (pid == -1)
		return (-1);
	p->pid = pid;
	p->status = 0;
	p->exited = 0;
	return (0);
}

int
spawn_poll(struct proc *p)
{
	int	status;
	pid_t	r;

	if (p->pid == 0 || p->exited)
		return (1);
	r = waitpid(p->pid, &status, WNOHANG);
	if (r == p->pid) {
		p->status = status;
		p->exited = 1;
		return (1);
	}
	if (r == -1 && errno == ECHILD) {
		p->exited = 1;
		return (1);
	}
	return (0);
}

int
spawn_signal(struct proc *p, int sig)
{
	if (p->pid == 0 || p->exited)
		return (-1);
	/* The group, so that anything the node started goes too. */
	if (kill(-p->pid, sig) == -1)
		return (kill(p->pid, sig));
	return (0);
}

int
spawn_stop_all(struct proc *const *ps, int n, int grace_ms)
{
	uint64_t	deadline;
	int		i, alive, killed = 0;

	for (i = 0; i < n; i++) {
		if (!spawn_poll(ps[i])) {
			spawn_signal(ps[i], SIGCONT); /* a stopped node */
			spawn_signal(ps[i], SIGTERM);
		}
	}
	deadline = dn_now_ns() + (uint64_t)grace_ms * 1000000u;
	for (;;) {
		alive = 0;
		for (i = 0; i < n; i++)
			alive += !spawn_poll(ps[i]);
		if (alive == 0 || dn_now_ns() >= deadline)
			break;
		/* 1 ms: a stop waits at most that long for the last exit */
		nanosleep(&(struct timespec){ 0, 1000 * 1000 }, NULL);
	}
	for (i = 0; i < n; i++) {
		if (!spawn_poll(ps[i])) {
			spawn_signal(ps[i], SIGKILL);
			killed++;
			while (waitpid(ps[i]->pid, &ps[i]->status, 0) == -1 &&
			    errno == EINTR)
				;
			ps[i]->exited = 1;
		}
	}
	return (killed);
}

const char *
spawn_status_str(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by SIG%s", sigabbrev_np(
		    WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(buf, len, "status %d", status);
	return (buf);
}

const char *
spawn_beside_self(const char *name, char *buf, size_t cap)
{
	char	self[PATH_MAX - 16];
	ssize_t	n;
	char	*slash;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return (name);
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	snprintf(buf, cap, "%s/%s", self, name);
	return (buf);
}

const char *
spawn_default_node_binary(void)
{
	static char	path[PATH_MAX];

	if (path[0] != '\0')
		return (path);
	return (spawn_beside_self("devnet-node", path, sizeof(path)));
}

char *
spawn_tail(const char *path, int nlines)
{
	char	 buf[8192];
	ssize_t	 n;
	off_t	 size;
	int	 fd, seen = 0;
	char	*p;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (NULL);
	size = lseek(fd, 0, SEEK_END);
	if (size > (off_t)sizeof(buf) - 1)
		lseek(fd, size - (off_t)sizeof(buf) + 1, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (NULL);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	for (p = buf + n; p > buf; p--) {
		if (p[-1] == '\n' && ++seen == nlines)
			break;
	}
	/* a node's output: its ESC sequences shown, never acted on by
	 * the terminal that prints a post-mortem (issue 19 #8) */
	return (dn_escape_ctl(p));
}
