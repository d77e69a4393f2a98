/*
 * post-mortem.c: what a node left behind when it exited, as one message
 * for the trial's failure: its status and the last lines of its log and
 * of its output.  Called by the runner's watch and by the node kinds.
 *
 * A foreign node's node-K.out holds its command's output and its
 * probe's DN-PROBE-* lines mixed: the command's own lines come first
 * (its first lines too, where a program says what was wrong before it
 * prints its usage), devnet-probe's apart, then how the command ended
 * and where the whole output is (issue 37 #6).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "sys/spawn.h"
#include "trial/trial.h"
#include "xalloc.h"

#define OUT_READ_MAX	(256 * 1024)	/* more: its last part only */
#define OUT_HEAD	4		/* lines shown from the start */
#define OUT_TAIL	8		/* and from the end */
#define OUT_ALL		14		/* up to this many: all of them */
#define PROBE_TAG	"DN-PROBE-"
#define UNMEASURED_TAG	"DN-PROBE-UNMEASURED "

/* The lines of OUT not already in LOG, newline-joined, or NULL: a node's
 * DN-NODE-ERROR goes to its log and to stderr (node-K.out) alike. */
static char *
lines_not_in(const char *out, const char *log)
{
	const char	*p, *nl;
	char		*line, *acc = NULL, *tmp;

	for (p = out; p != NULL && *p != '\0'; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		line = dn_xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
		if (*line != '\0' && (log == NULL || strstr(log, line) == NULL)) {
			tmp = dn_xasprintf("%s%s%s", acc ? acc : "",
			    acc ? "\n" : "", line);
			free(acc);
			acc = tmp;
		}
		free(line);
	}
	return (acc);
}

/* The text of PATH (its last OUT_READ_MAX bytes when longer; then
 * *CUT), or NULL. */
static char *
read_out(const char *path, int *cut)
{
	struct stat	 sb;
	char		*buf;
	ssize_t		 n;
	off_t		 off = 0;
	int		 fd;

	*cut = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (NULL);
	if (fstat(fd, &sb) == 0 && sb.st_size > OUT_READ_MAX) {
		off = sb.st_size - OUT_READ_MAX;
		*cut = 1;
	}
	buf = dn_xmalloc(OUT_READ_MAX + 1);
	n = pread(fd, buf, OUT_READ_MAX, off);
	close(fd);
	if (n <= 0) {
		free(buf);
		return (NULL);
	}
	buf[n] = '\0';
	return (buf);
}

/* Append LINE (LEN bytes, control bytes escaped) and a newline to *ACC,
 * indented. */
static void
add_line(char **acc, const char *line, size_t len)
{
	char	*raw = dn_xstrndup(line, len), *esc = dn_escape_ctl(raw);
	char	*tmp;

	tmp = dn_xasprintf("%s  %s\n", *acc != NULL ? *acc : "", esc);
	free(*acc);
	*acc = tmp;
	free(esc);
	free(raw);
}

/*
 * Node K's command's own lines (first OUT_HEAD and last OUT_TAIL, all when
 * few), its probe's lines apart, how the command ended (from DN-PROBE-EXIT)
 * and where the whole output is.
 */
static char *
foreign_post_mortem(struct trial *t, int k, const char *what)
{
	struct trial_node	*n = &t->nodes[k];
	char			*text, *own = NULL, *probe = NULL, *msg;
	char			*how = NULL, *nl, *p, *e, st[64];
	size_t			 nown = 0, i = 0, nprobe = 0, np = 0;
	int			 cut;

	text = read_out(n->out_path, &cut);
	for (p = text; p != NULL && *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p) - 1;
		if (strncmp(p, UNMEASURED_TAG, sizeof(UNMEASURED_TAG) -
		    1) == 0)
			continue;	/* metrics, not why it ended */
		if (strncmp(p, PROBE_TAG, sizeof(PROBE_TAG) - 1) == 0)
			nprobe++;
		else if (nl > p || *p != '\n')
			nown++;
	}
	for (p = text; p != NULL && *p != '\0'; p = nl + 1) {
		size_t	len;

		if ((nl = strchr(p, '\n')) == NULL)
			nl = p + strlen(p) - 1;
		len = (size_t)(nl - p) + (*nl != '\n');
		if (strncmp(p, UNMEASURED_TAG, sizeof(UNMEASURED_TAG) -
		    1) == 0)
			continue;
		if (strncmp(p, PROBE_TAG, sizeof(PROBE_TAG) - 1) == 0) {
			if (++np + 4 > nprobe)	/* its last 4 */
				add_line(&probe, p, len);
			if (strncmp(p, PROBE_TAG "EXIT child=",
			    sizeof(PROBE_TAG) + 10) == 0 &&
			    (e = strstr(p, " exit=")) != NULL && e < nl &&
			    (p = strchr(p + sizeof(PROBE_TAG) + 10, ' ')) !=
			    NULL && p < e) {
				free(how);
				how = dn_xstrndup(p + 1, (size_t)(e - p - 1));
			}
			continue;
		}
		if (len == 0)
			continue;
		i++;
		if (nown <= OUT_ALL || i <= OUT_HEAD || i > nown - OUT_TAIL)
			add_line(&own, p, len);
		if (nown > OUT_ALL && i == OUT_HEAD) {
			char	skip[64];

			snprintf(skip, sizeof(skip), "[... %zu lines ...]",
			    nown - OUT_HEAD - OUT_TAIL);
			add_line(&own, skip, strlen(skip));
		}
	}
	/* the probe's status is the command's code, or 128+signal, or 124
	 * (not ready): say how the command itself ended when that differs */
	if (how != NULL && strncmp(how, "status ", 7) == 0 &&
	    n->proc.exited && WIFEXITED(n->proc.status) &&
	    atoi(how + 7) == WEXITSTATUS(n->proc.status)) {
		free(how);
		how = NULL;
	}
	msg = dn_xasprintf("node %d (%s) %s%s%s%s%s%s%s; %s%s%s%s%s%s"
	    "the whole output: %s", k, t->var->node.command[0], what,
	    n->proc.exited || how != NULL ? " (" : "", n->proc.exited ?
	    spawn_status_str(n->proc.status, st, sizeof(st)) : "",
	    n->proc.exited && how != NULL ? "; " : "", how != NULL ?
	    "its command: " : "", how != NULL ? how : "",
	    n->proc.exited || how != NULL ? ")" : "",
	    own != NULL ? "its output" : "it wrote nothing",
	    own != NULL && cut ? " (the end of it)" : "",
	    own != NULL ? ":\n" : "\n", own != NULL ? own : "",
	    probe != NULL ? "devnet-probe said:\n" : "",
	    probe != NULL ? probe : "", n->out_path);
	free(text);
	free(own);
	free(probe);
	free(how);
	return (msg);
}

/* "node K (ARGV0) exited before it was ready (exit 1); last lines of its
 * output:" and the last lines of its log, then those of node-K.out that
 * the log does not already hold. */
char *
trial_post_mortem(struct trial *t, int k, const char *what)
{
	struct trial_node	*n = &t->nodes[k];
	char			 st[64], *out, *tail, *tail2, *msg;

	if (t->foreign && n->out_path != NULL)
		return (foreign_post_mortem(t, k, what));
	out = spawn_tail(n->out_path, 5);
	tail2 = spawn_tail(n->log_path, 5);
	tail = out != NULL ? lines_not_in(out, tail2) : NULL;
	free(out);
	/* A foreign node is named by its command, not by its probe. */
	msg = dn_xasprintf("node %d (%s) %s%s%s%s%s%s%s%s", k, t->foreign ?
	    t->var->node.command[0] : n->argv[0], what,
	    n->proc.exited ? " (" : "", n->proc.exited ?
	    spawn_status_str(n->proc.status, st, sizeof(st)) : "",
	    n->proc.exited ? ")" : "",
	    tail || tail2 ? "; last lines of its output:\n" : "",
	    tail2 ? tail2 : "", tail && tail2 ? "\n" : "", tail ? tail : "");
	free(tail);
	free(tail2);
	return (msg);
}
