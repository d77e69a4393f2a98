/*
 * post-mortem.c: what a node left behind when it exited, as one message
 * for the trial's failure: its status and the last lines of its log and
 * of its output.  The node kinds' post_mortem (node-kind.h): devnet-
 * node's, and a foreign node's when its output cannot be read.
 *
 * Not here: how a foreign node's output (its command's lines and its
 * probe's mixed) is read for its post-mortem (node-kind/foreign.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/spawn.h"
#include "trial/trial.h"
#include "xalloc.h"

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

/* "node K (NAME) exited before it was ready (exit 1); last lines of its
 * output:" and the last lines of its log, then those of node-K.out that
 * the log does not already hold. */
char *
trial_post_mortem(struct trial *t, int k, const char *what, const char *name)
{
	struct trial_node	*n = &t->nodes[k];
	char			 st[64], *out, *tail, *tail2, *msg;

	out = spawn_tail(n->out_path, 5);
	tail2 = spawn_tail(n->log_path, 5);
	tail = out != NULL ? lines_not_in(out, tail2) : NULL;
	free(out);
	msg = dn_xasprintf("node %d (%s) %s%s%s%s%s%s%s%s", k, name != NULL ?
	    name : n->argv[0], what,
	    n->proc.exited ? " (" : "", n->proc.exited ?
	    spawn_status_str(n->proc.status, st, sizeof(st)) : "",
	    n->proc.exited ? ")" : "",
	    tail || tail2 ? "; last lines of its output:\n" : "",
	    tail2 ? tail2 : "", tail && tail2 ? "\n" : "", tail ? tail : "");
	free(tail);
	free(tail2);
	return (msg);
}
