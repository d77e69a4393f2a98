/*
 * capture.c: run a program (fork/exec, PATH lookup, never a shell) and
 * capture its output (see capture.h).  For short commands whose output
 * devnet reads: the docker CLI (docker.c), ldd (image.c).  Not for nodes
 * (spawn.c), nor git (git.c has its own).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/capture.h"
#include "buf.h"
#include "xalloc.h"

#define CAPTURE_MAX_OUT	(16 * 1024 * 1024)	/* more output is dropped */

/* N bytes of S appended to B while B stays under CAPTURE_MAX_OUT. */
static void
buf_add(struct dn_buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > CAPTURE_MAX_OUT)
		return;
	dn_buf_add(b, s, n);
}

/* The last non-empty line of S, trimmed, as a new string. */
static char *
last_line(const char *s)
{
	const char	*end, *start;

	if (s == NULL)
		return (dn_xstrdup("(no message)"));
	end = s + strlen(s);
	while (end > s && (end[-1] == '\n' || end[-1] == ' ' ||
	    end[-1] == '\r'))
		end--;
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	if (start == end)
		return (dn_xstrdup("(no message)"));
	return (dn_xasprintf("%.*s", (int)(end - start), start));
}

int
capture_run(const char *const *argv, const char *in_path, char **out,
    char **cause)
{
	struct dn_buf	 o = DN_BUF_INIT, e = DN_BUF_INIT;
	struct pollfd	 pfd[2];
	char		 chunk[8192], *msg;
	size_t		 i;
	int		 po[2] = { -1, -1 }, pe[2] = { -1, -1 }, status = 0;
	int		 rc = -1, in = -1, open_fds;
	pid_t		 pid;
	ssize_t		 r;

	if (out != NULL)
		*out = NULL;
	if (in_path != NULL &&
	    (in = open(in_path, O_RDONLY | O_CLOEXEC)) == -1) {
		*cause = dn_xasprintf("cannot open '%s': %s", in_path,
		    strerror(errno));
		goto out;
	}
	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
		*cause = dn_xasprintf("pipe: %s", strerror(errno));
		goto out;
	}
	if ((pid = fork()) == -1) {
		*cause = dn_xasprintf("fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		sigset_t	none;
		int		fd;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		fd = in != -1 ? in : open("/dev/null", O_RDONLY);
		if (fd != -1)
			dup2(fd, STDIN_FILENO);
		dup2(po[1], STDOUT_FILENO);
		dup2(pe[1], STDERR_FILENO);
		execvp(argv[0], (char *const *)argv);
		{
			static const char m[] = "cannot execute: ";
			const char	*es = strerror(errno);
			ssize_t		 w;

			w = write(STDERR_FILENO, m, sizeof(m) - 1);
			w = write(STDERR_FILENO, es, strlen(es));
			(void)w;
		}
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	pfd[0].fd = po[0];
	pfd[1].fd = pe[0];
	pfd[0].events = pfd[1].events = POLLIN;
	open_fds = 2;
	while (open_fds > 0) {
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			r = read(pfd[i].fd, chunk, sizeof(chunk));
			if (r > 0) {
				buf_add(i == 0 ? &o : &e, chunk, (size_t)r);
				continue;
			}
			if (r == -1 && errno == EINTR)
				continue;
			close(pfd[i].fd);
			pfd[i].fd = -1;
			open_fds--;
		}
	}
	po[0] = pe[0] = -1;
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		if (out != NULL) {
			*out = o.p != NULL ? o.p : dn_xstrdup("");
			o.p = NULL;
		}
		rc = 0;
		goto out;
	}
	msg = last_line(e.p != NULL ? e.p : o.p);
	*cause = dn_xasprintf("%s%s%s: %s", argv[0], argv[1] ? " " : "",
	    argv[1] ? argv[1] : "", msg);
	free(msg);
out:
	for (i = 0; i < 2; i++) {
		if (po[i] != -1)
			close(po[i]);
		if (pe[i] != -1)
			close(pe[i]);
	}
	if (in != -1)
		close(in);
	free(o.p);
	free(e.p);
	return (rc);
}
