/*
 * loadgen-cmd.c: the command workload (workload.kind: command): an
 * external load generator devnet did not write, started at each trial's
 * t=0 and stopped at its end.
 *
 * Its argv and env are templates (load-tmpl.h: {nodes}, {tps},
 * {duration_s}, {duration_ms}, {dir}, {addr}, {port}, {port+N}, {addrs},
 * {ports}), expanded once per trial; it runs like a node (spawn.c: own
 * process group, death signal, no shell) with its output in the trial
 * dir (load-command.out).  Under network conditions it runs in the
 * load's namespace (trial_load_ns) and reaches the nodes at their own
 * addresses through the hub, like the other loads.  At the end of the load: SIGTERM to its group,
 * workload.stop_grace, then SIGKILL.  Its exit status is recorded as the
 * fact load_command_exit (the code, or 128 + signal) and an event of the
 * same name saying whether it ended by itself or was stopped.  devnet
 * counts nothing of its load: a command has no tx_* metrics.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scenario/template.h"
#include "trial/loadgen-internal.h"
#include "sys/spawn.h"
#include "clock.h"
#include "xalloc.h"

struct lg_cmd {
	char		**argv;		/* expanded, NULL-terminated */
	char		**env;
	char		*out_path;
	struct proc	 proc;
	int		 started, stopped;
};

static void
fill(void *arg, const struct load_part *pt, struct dn_buf *b)
{
	struct loadgen		*l = arg;
	struct trial		*t = l->t;
	const struct scenario	*scn = t->scn;
	char			 num[64];
	int			 n = 0, k;

	switch (pt->ph) {
	case LPH_NODES:
		n = snprintf(num, sizeof(num), "%d", t->nnodes);
		break;
	case LPH_TPS:
		n = snprintf(num, sizeof(num), "%g", scn->workload.tps);
		break;
	case LPH_DURATION_S:
		n = snprintf(num, sizeof(num), "%g",
		    (double)scn->duration_ms / 1000.0);
		break;
	case LPH_DURATION_MS:
		n = snprintf(num, sizeof(num), "%lld",
		    (long long)scn->duration_ms);
		break;
	case LPH_PORT:
		n = snprintf(num, sizeof(num), "%ld",
		    (long)t->nodes[0].port + pt->off);
		break;
	case LPH_ADDR:
	case LPH_ADDRS:
		for (k = 0; k < (pt->ph == LPH_ADDR ? 1 : t->nnodes); k++) {
			const char *a = trial_node_addr(t, k, num,
			    sizeof(num));

			if (k > 0)
				dn_buf_add(b, ",", 1);
			dn_buf_add(b, a, strlen(a));
		}
		return;
	case LPH_DIR:
		dn_buf_add(b, t->run_dir, strlen(t->run_dir));
		return;
	case LPH_PORTS:
		for (k = 0; k < t->nnodes; k++) {
			n = snprintf(num, sizeof(num), "%s%d", k ? "," : "",
			    t->nodes[k].port);
			dn_buf_add(b, num, (size_t)n);
		}
		return;
	default:
		return;
	}
	if (n > 0)
		dn_buf_add(b, num, (size_t)n);
}

/* Expand the NULL-terminated templates V (N of them). */
static char **
expand_all(struct loadgen *l, char *const *v, size_t n)
{
	char		**out = dn_xcalloc(n + 1, sizeof(*out));
	struct load_tmpl tm;
	struct dn_buf	 b = { 0 };
	size_t		 i;

	for (i = 0; i < n; i++) {
		load_tmpl_compile(&tm, v[i], LOAD_TMPL_COMMAND);
		load_tmpl_expand(&tm, &b, fill, l);
		out[i] = dn_xstrdup(b.p);
		load_tmpl_free(&tm);
	}
	free(b.p);
	return (out);
}

/* PROG as spawn_start needs it (a path): searched in PATH when it has
 * no '/'.  NULL if not found.  Caller frees. */
static char *
find_program(const char *prog)
{
	const char	*path = getenv("PATH"), *p, *e;

	if (strchr(prog, '/') != NULL)
		return (dn_xstrdup(prog));
	for (p = path != NULL ? path : "/usr/bin:/bin"; *p != '\0'; p = e) {
		char	*cand;
		size_t	 len;

		e = strchr(p, ':');
		len = e != NULL ? (size_t)(e - p) : strlen(p);
		cand = dn_xasprintf("%.*s/%s", (int)len, len ? p : ".", prog);
		if (access(cand, X_OK) == 0)
			return (cand);
		free(cand);
		e = e != NULL ? e + 1 : p + len;
	}
	return (NULL);
}

int
loadgen_cmd_create(struct loadgen *l, char **cause)
{
	const struct scenario	*scn = l->t->scn;
	struct lg_cmd		*c;
	struct load_tmpl	 tm;
	char			*prog;
	size_t			 i;
	int			 k, ports = 0;

	for (i = 0; i < scn->workload.ncommand; i++) {
		load_tmpl_compile(&tm, scn->workload.command[i],
		    LOAD_TMPL_COMMAND);
		ports |= load_tmpl_uses(&tm, LPH_PORT) ||
		    load_tmpl_uses(&tm, LPH_PORTS);
		load_tmpl_free(&tm);
	}
	for (k = 0; ports && k < l->t->nnodes; k++) {
		if (l->t->nodes[k].port <= 0) {
			*cause = dn_xasprintf("workload.command uses {port} "
			    "or {ports}, but node %d has no port", k);
			return (-1);
		}
	}
	c = dn_xcalloc(1, sizeof(*c));
	l->cmd = c;
	c->argv = expand_all(l, scn->workload.command, scn->workload.ncommand);
	if ((prog = find_program(c->argv[0])) == NULL) {
		*cause = dn_xasprintf("workload.command: '%s' not found in "
		    "PATH", c->argv[0]);
		return (-1);
	}
	free(c->argv[0]);
	c->argv[0] = prog;
	c->env = expand_all(l, scn->workload.cmd_env, scn->workload.ncmd_env);
	c->out_path = dn_xasprintf("%s/load-command.out", l->t->run_dir);
	return (0);
}

int
loadgen_cmd_start(struct loadgen *l, char **cause)
{
	struct lg_cmd	*c = l->cmd;
	char		*q;

	if (spawn_start_in(&c->proc, c->argv, c->env, c->out_path,
	    trial_load_ns(l->t), cause) != 0)
		return (-1);
	c->started = 1;
	q = plan_quote_argv(c->argv);
	trial_event(l->t, -1, "load_command_start", "pid %d: %s",
	    (int)c->proc.pid, q);
	free(q);
	return (0);
}

void
loadgen_cmd_stop(struct loadgen *l)
{
	struct lg_cmd	*c = l->cmd;
	struct proc	*ps[1];
	char		 desc[64];
	int		 by_itself, killed, code, st;

	if (!c->started || c->stopped)
		return;
	c->stopped = 1;
	by_itself = spawn_poll(&c->proc);
	ps[0] = &c->proc;
	killed = by_itself ? 0 : spawn_stop_all(ps, 1,
	    (int)l->t->scn->workload.cmd_grace_ms);
	st = c->proc.status;
	code = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	trial_fact(l->t, -1, "load_command_exit", "%d", code);
	trial_event(l->t, -1, "load_command_exit", "%s %s%s",
	    by_itself ? "ended by itself:" : "stopped at the end:",
	    spawn_status_str(st, desc, sizeof(desc)),
	    killed ? " (needed SIGKILL after the grace)" : "");
}

void
loadgen_cmd_free(struct loadgen *l)
{
	struct lg_cmd	*c = l->cmd;

	if (c == NULL)
		return;
	if (c->started && !c->stopped)
		loadgen_cmd_stop(l);
	plan_argv_free(c->argv);
	plan_argv_free(c->env);
	free(c->out_path);
	free(c);
	l->cmd = NULL;
}
