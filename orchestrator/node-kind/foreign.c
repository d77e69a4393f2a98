/*
 * foreign.c: what the runner does differently for foreign nodes (a
 * variant with node.command, docs/foreign-nodes.md): each node is a
 * devnet-probe running the command (plan-foreign.c builds its argv), so
 * readiness (HELLO), samples and crash detection are the runner's usual
 * ones; this file holds the rest, reached through the node-kind
 * operations (node-kind.h) that the runner calls:
 *
 * - where the probe is, its ready timeout, the node dirs, and dictionary
 *   rows (with the scenario's better-direction, fixed per database) for
 *   named metrics, declared before the first trial;
 * - `stop` and `cont` events: the probe pauses and resumes its command's
 *   process group (SIGTSTP and SIGCONT to the probe) and samples on;
 *   `stalled` and `recovered` of a paused node follow its height;
 * - exits: `node.exit: expected` nodes end the trial when all exited 0, a
 *   non-zero exit fails it; any other exit of a foreign node fails it (the
 *   probe's 124 means "not ready in time"); output beyond node.log_limit
 *   fails it;
 * - each node's allocation source (the probe's DN-PROBE-ALLOC line in its
 *   output: "malloc (jemalloc)", "Go runtime", "not measured: ...") as
 *   the node's fact alloc_source;
 * - the end: no state-hash check or tx drain (no control socket, no
 *   devnet transactions), a grace period long enough for the probe's own,
 *   and the command's process group (its pid came in HELLO) killed if
 *   anything of it outlived the probe: never the pid HELLO names as such
 *   (anyone with the token can send one), only a process /proc showed a
 *   child of the probe devnet forked, leading its own group, with the
 *   same start time at the end; under docker/swarm never (a container
 *   pid means nothing on the host; the container's end kills its tree).
 *
 * Not here: the probe (probe/), the loader (scenario-node.c).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metric-table.h"
#include "node-kind/node-kind.h"
#include "sys/spawn.h"
#include "clock.h"
#include "escape.h"
#include "store.h"
#include "xalloc.h"

#define DEFAULT_LOG_LIMIT	(1ULL << 30)	/* 1 GiB of output */
#define PROBE_EXIT_NOT_READY	124
#define OUT_READ_MAX	(256 * 1024)	/* post-mortem: its last part only */
#define OUT_HEAD	4		/* lines shown from the start */
#define OUT_TAIL	8		/* and from the end */
#define OUT_ALL		14		/* up to this many: all of them */
#define PROBE_TAG	"DN-PROBE-"
#define UNMEASURED_TAG	"DN-PROBE-UNMEASURED "

const char *
foreign_probe_path(void)
{
	static char	path[PATH_MAX];

	if (path[0] != '\0')
		return (path);
	return (spawn_beside_self("devnet-probe", path, sizeof(path)));
}

static const struct scn_node *
node_of(const struct trial *t)
{
	return (&t->var->node);
}

static void
foreign_prepare(struct trial *t, int ready_timeout_ms,
    struct plan_endpoints *ep)
{
	int	timeout;

	t->kind = &node_kind_foreign;
	t->lag_from_heights = 1;	/* it knows its height only */
	timeout = trial_ready_timeout_ms(ready_timeout_ms,
	    t->scn->network.nodes);
	/* The probe gives up first, so that its 124 says why. */
	ep->probe = foreign_probe_path();
	ep->ready_timeout_ms = timeout > 1500 ? timeout - 1000 : 500;
	t->ready_limit_ms = (int)ep->ready_timeout_ms;
}

/* The probe reads the run token from its environment (DN_PROBE_TOKEN),
 * whatever command it runs. */
static int
foreign_token_in_env(const char *argv0)
{
	(void)argv0;
	return (1);
}

/* The program of its command: its argv[0]. */
static const char *
foreign_program(const struct scenario *s, const struct scn_variant *v)
{
	(void)s;
	return (v->node.command[0]);
}

/* node.port_base + K * node.ports_per_node (plan_node_port). */
static int
foreign_port(const struct trial *t, int k)
{
	return (plan_node_port(t->scn, t->var, k));
}

/* A foreign node a link's latency away stays a few writes behind for
 * good: in step once its lag (foreign-lag.c) is below a sample
 * interval. */
static int
foreign_in_step(const struct trial *t, int k, double h, double best,
    double lag_ms)
{
	(void)k;
	(void)h;
	(void)best;
	return (lag_ms < (double)t->scn->sample_interval_ms);
}

/* NAME into T's columns, once, if it is not a table metric. */
static void
add_column(struct trial *t, const char *name)
{
	size_t	i;

	if (dn_metric_lookup(name) >= 0 || t->nncols == TRIAL_NCOLS)
		return;
	for (i = 0; i < t->nncols; i++)
		if (strcmp(t->ncols[i], name) == 0)
			return;
	t->ncols[t->nncols++] = name;
}

static void
foreign_columns(struct trial *t)
{
	const struct scn_node	*o = node_of(t);
	size_t			 i;
	int			 k;

	for (i = 0; i < o->nlogm; i++)
		add_column(t, o->logm[i].name);
	for (i = 0; i < o->nprom_keep; i++)
		add_column(t, o->prom_keep[i]);
	for (k = 0; k < t->nnodes; k++)
		t->nodes[k].nlast = dn_xcalloc(TRIAL_NCOLS, sizeof(double));
}

static int
foreign_start(struct trial *t, char **cause)
{
	const char	*user = node_of(t)->user;
	int		 k;

	for (k = 0; k < t->nnodes; k++) {
		char	*d = dn_xasprintf("%s/node-%d", t->run_dir, k);

		if (mkdir(d, 0700) != 0 && errno != EEXIST) {
			*cause = dn_xasprintf("cannot create '%s': %s", d,
			    strerror(errno));
			free(d);
			return (-1);
		}
		free(d);
	}
	return (user != NULL ? foreign_user_dirs(t, user, cause) : 0);
}

/*
 * A name declared `type: counter` must be a counter in the database: one
 * seen before as a gauge (an older run, before it was declared) would be
 * compared as a mean, the rise of a count, not its rate.  As for a
 * direction (store-names.c), the kind is the name's for good.
 */
static int
declared_gauge(struct dn_store *st, const char *name, char **cause)
{
	struct dn_metric_info	info;
	int			id;

	if (dn_store_metric_find(st, name, &id, &info, cause) != 0)
		return (-1);
	if (id < 0 || info.counter)
		return (0);
	*cause = dn_xasprintf("metric '%s': this scenario declares type: "
	    "counter, but the database already has it as a gauge (from an "
	    "earlier run); a named metric's kind is fixed per database, so "
	    "that every comparison of its runs means the same: rename the "
	    "metric or use another --db", name);
	return (-1);
}

static int
foreign_declare(const struct scenario *s, struct dn_store *st, char **cause)
{
	const struct scn_log_metric	*m;
	size_t				 v, i;
	int				 id;

	/* The directions the scenario declares, before any trial (the
	 * collector adds undeclared names as they come; the loader made sure
	 * the variants agree). */
	for (v = 0; v < s->nvariants; v++) {
		if (!plan_is_foreign(&s->variants[v]))
			continue;
		for (i = 0; i < s->variants[v].node.nlogm; i++) {
			m = &s->variants[v].node.logm[i];
			if ((m->better != NULL || m->counter) &&
			    dn_store_metric_named(st, m->name, m->counter,
			    m->better, &id, cause) != 0)
				return (-1);
			if (m->counter && declared_gauge(st, m->name,
			    cause) != 0)
				return (-1);
		}
	}
	return (0);
}

/* What the probe's last DN-PROBE-READY-TIMEOUT line in OUT says after
 * "not ready after N ms: " (which check, its tries, its last answer), or
 * NULL; caller frees. */
static char *
ready_timeout_why(const char *out)
{
	static const char	 tag[] = "DN-PROBE-READY-TIMEOUT ";
	char			*line = NULL, *p, *found = NULL;
	size_t			 cap = 0;
	FILE			*f;

	if (out == NULL || (f = fopen(out, "r")) == NULL)
		return (NULL);
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, tag, sizeof(tag) - 1) != 0 ||
		    (p = strstr(line, " ms: ")) == NULL)
			continue;
		p[strcspn(p, "\n")] = '\0';
		free(found);
		found = dn_escape_ctl(p + 5);
	}
	fclose(f);
	free(line);
	return (found);
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
read_post_mortem(struct trial *t, int k, const char *what)
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

/*
 * What node K left behind (node-kind.h post_mortem).  Its node-K.out
 * holds its command's output and its probe's DN-PROBE-* lines mixed: the
 * command's own lines come first (its first lines too, where a program
 * says what was wrong before it prints its usage), devnet-probe's apart,
 * then how the command ended and where the whole output is (issue 37
 * #6).  Named by its command, not by its probe, either way.
 */
static char *
foreign_post_mortem(struct trial *t, int k, const char *what)
{
	if (t->nodes[k].out_path != NULL)
		return (read_post_mortem(t, k, what));
	return (trial_post_mortem(t, k, what, node_of(t)->command[0]));
}

static int
foreign_ready_exit(struct trial *t, int k)
{
	struct trial_node	*n = &t->nodes[k];
	char			*m, *what, *why;

	if (node_of(t)->exit_expected && WIFEXITED(n->proc.status) &&
	    WEXITSTATUS(n->proc.status) == 0) {
		/* Done before the others were ready: it ran. */
		n->done = 1;
		n->down = 1;
		return (1);
	}
	if (WIFEXITED(n->proc.status) &&
	    WEXITSTATUS(n->proc.status) == PROBE_EXIT_NOT_READY) {
		why = ready_timeout_why(n->out_path);
		what = dn_xasprintf("was not ready in time%s%s (node.ready; "
		    "devnet-probe gave up and stopped it; see "
		    "--ready-timeout)", why != NULL ? ": " : "",
		    why != NULL ? why : "");
		m = foreign_post_mortem(t, k, what);
		free(what);
		free(why);
	} else
		m = foreign_post_mortem(t, k, "exited before it was ready");
	trial_fail(t, "%s", m);
	free(m);
	return (-1);
}

static int
foreign_exited(struct trial *t, int k)
{
	struct trial_node	*n = &t->nodes[k];
	char			 st[64], *m;

	if (n->down)
		return (0);
	atomic_store(&n->up, 0);
	n->down = 1;
	spawn_status_str(n->proc.status, st, sizeof(st));
	if (node_of(t)->exit_expected && WIFEXITED(n->proc.status) &&
	    WEXITSTATUS(n->proc.status) == 0) {
		n->done = 1;
		trial_event(t, k, "exit", "%s (node.exit: expected)", st);
		return (1);
	}
	n->crashed = 1;
	t->unplanned++;
	trial_crash_event(t, k, st);
	m = foreign_post_mortem(t, k, node_of(t)->exit_expected ?
	    "failed" : "exited");
	trial_fail(t, "%s", m);
	free(m);
	return (1);
}

/* Fields 4 (ppid), 5 (pgrp) and 22 (start time) of /proc/PID/stat; -1
 * if there is no such process or it is a zombie. */
static int
proc_stat(pid_t pid, pid_t *ppid, pid_t *pgrp, unsigned long long *start)
{
	char	 path[64], buf[1024], *p, *end;
	ssize_t	 n;
	int	 fd, f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return (-1);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return (-1);
	buf[n] = '\0';
	/* after ") " come field 3 (state), 4, 5, ... */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ' || p[2] == 'Z' ||
	    p[2] == 'X')
		return (-1);
	p += 2;
	for (f = 3; f < 22; f++) {
		if ((p = strchr(p, ' ')) == NULL)
			return (-1);
		p++;
		if (f == 3)
			*ppid = (pid_t)strtol(p, &end, 10);
		else if (f == 4)
			*pgrp = (pid_t)strtol(p, &end, 10);
	}
	*start = strtoull(p, &end, 10);
	return (end == p ? -1 : 0);
}

/* Take the pid a HELLO names as node K's command only if /proc shows it
 * a child of the probe devnet started, leading its own process group. */
static void
adopt_command(struct trial *t, int k)
{
	struct trial_node	*n = &t->nodes[k];
	unsigned long long	 start;
	pid_t			 pid, ppid, pgrp;

	if (t->scn->provider != SCN_PROV_LOCAL || n->proc.pid <= 0 || n->down)
		return;
	pthread_mutex_lock(&t->mu);
	pid = n->cmd_pid;
	pthread_mutex_unlock(&t->mu);
	if (pid <= 1 || pid == n->reap_pid || pid == n->reap_refused)
		return;
	if (proc_stat(pid, &ppid, &pgrp, &start) == 0 &&
	    ppid == n->proc.pid && pgrp == pid) {
		n->reap_pid = pid;
		n->reap_start = start;
		return;
	}
	n->reap_refused = pid;
	trial_event(t, k, "hello", "pid %d named in a HELLO is not the "
	    "command of probe %d (not its child leading its own process "
	    "group): never signalled", (int)pid, (int)n->proc.pid);
}

static void
foreign_watch(struct trial *t)
{
	const struct scn_node	*o = node_of(t);
	uint64_t		 limit;
	struct stat		 sb;
	int			 k;

	for (k = 0; k < t->nnodes; k++)
		adopt_command(t, k);
	if (t->failed)
		return;
	limit = o->log_limit ? o->log_limit : DEFAULT_LOG_LIMIT;
	for (k = 0; k < t->nnodes; k++) {
		if (stat(t->nodes[k].out_path, &sb) != 0 ||
		    (uint64_t)sb.st_size <= limit)
			continue;
		trial_event(t, k, "log_flood", "%lld bytes of output, over "
		    "node.log_limit %llu", (long long)sb.st_size,
		    (unsigned long long)limit);
		trial_fail(t, "node %d (%s) flooded its output: %.1f MiB "
		    "in %s, over node.log_limit (%.1f MiB); stopped", k,
		    o->command[0], (double)sb.st_size / 1048576.0,
		    t->nodes[k].out_path, (double)limit / 1048576.0);
		return;
	}
}

static int
foreign_done(struct trial *t)
{
	int	k;

	if (!node_of(t)->exit_expected)
		return (0);
	for (k = 0; k < t->nnodes; k++)
		if (!t->nodes[k].done)
			return (0);
	return (1);
}

static void
foreign_after_run(struct trial *t, int signalled)
{
	char	d[32];
	int	k;

	if (signalled || !node_of(t)->exit_expected || t->failed)
		return;
	for (k = 0; k < t->nnodes; k++) {
		if (t->nodes[k].done)
			continue;
		scenario_fmt_ms(d, sizeof(d), t->scn->duration_ms);
		trial_fail(t, "node %d (%s) was still running at the end of "
		    "duration (%s); node.exit: expected wants every node to "
		    "finish: raise duration or shorten the command", k,
		    node_of(t)->command[0], d);
		break;
	}
}

static int
foreign_skip_state_check(struct trial *t)
{
	trial_event(t, -1, "state_check", "skipped: foreign nodes have no "
	    "control socket (no state hash, no halt, no devnet transactions "
	    "to drain)");
	trial_fact(t, -1, "state_check", "skipped: foreign nodes");
	return (1);
}

static int
foreign_grace(struct trial *t, int grace)
{
	int64_t	want;

	if (grace == 0)
		return (grace);
	want = node_of(t)->stop_grace_ms + 1000;
	return (want > grace ? (int)want : grace);
}

static int
foreign_pause(struct trial *t, int k, int stop)
{
	struct trial_node	*n = &t->nodes[k];

	/* In a container the provider pauses it whole, probe and all. */
	if (t->scn->provider != SCN_PROV_LOCAL)
		return (0);
	spawn_signal(&n->proc, stop ? SIGTSTP : SIGCONT);
	trial_event(t, k, stop ? "stop" : "cont", "%s process group %d of "
	    "the command (probe pid %d samples on)", stop ? "SIGSTOP to" :
	    "SIGCONT to", (int)n->cmd_pid, (int)n->proc.pid);
	if (!stop)
		n->restart_ns = dn_now_ns();	/* until it rejoins */
	return (1);
}

static int
foreign_pause_watch(struct trial *t, int k, uint64_t now, uint64_t last,
    uint64_t stall_ns, int have_h, double h)
{
	struct trial_node	*n = &t->nodes[k];

	if (have_h && (n->watch_h_ns == 0 || h != n->watch_h)) {
		n->watch_h = h;
		n->watch_h_ns = now;
	}
	/* A probe that stopped sampling: the runner's usual rule. */
	if (last == 0 || now - last > stall_ns)
		return (0);
	if (n->hstall_ns != 0) {
		if (n->watch_h_ns > n->hstall_ns) {
			n->hstall_ns = 0;
			n->stalled = 0;
			if (n->restart_ns == 0)
				n->restart_ns = now;
			trial_event(t, k, "recovered", "height advancing "
			    "again (%.0f)", h);
		}
		return (1);
	}
	if (n->stopped && !n->stalled && have_h &&
	    now - n->watch_h_ns > stall_ns) {
		n->stalled = 1;
		n->hstall_ns = now;
		trial_event(t, k, "stalled", "height %.0f unchanged for %.1f s "
		    "(paused by an event; its probe samples on)", h,
		    (double)(now - n->watch_h_ns) / 1e9);
		return (1);
	}
	return (0);
}

static void
foreign_reap(struct trial *t)
{
	unsigned long long	 start;
	pid_t			 ppid, pgrp;
	int			 k;

	/* A container's pid is not ours to signal: its end kills its tree. */
	if (t->scn->provider != SCN_PROV_LOCAL)
		return;
	for (k = 0; k < t->nnodes; k++) {
		pid_t	g = t->nodes[k].reap_pid;

		/* Only the very process found under the probe (same start
		 * time: not a reused pid), still leading its group. */
		if (g <= 1 || g == t->nodes[k].proc.pid ||
		    proc_stat(g, &ppid, &pgrp, &start) != 0 || pgrp != g ||
		    start != t->nodes[k].reap_start)
			continue;
		if (kill(-g, SIGKILL) == 0)
			trial_event(t, k, "sigkill", "process group %d of the "
			    "command outlived its probe", (int)g);
	}
}

/* Each node's allocation source, from its probe's DN-PROBE-ALLOC line,
 * as the fact alloc_source of that node; then the declared metrics no
 * node measured (unmeasured.c). */
static void
foreign_facts(struct trial *t)
{
	static const char	 tag[] = "DN-PROBE-ALLOC ";
	char			*line = NULL, *src, *found = NULL;
	size_t			 cap = 0;
	FILE			*f;
	int			 k;

	for (k = 0; k < t->nnodes; k++) {
		if ((f = fopen(t->nodes[k].out_path, "r")) == NULL)
			continue;
		/* the probe says it once; a restarted node says it again */
		while (getline(&line, &cap, f) > 0) {
			if (strncmp(line, tag, sizeof(tag) - 1) != 0 ||
			    (src = strstr(line, " source=")) == NULL)
				continue;
			src[strcspn(src, "\n")] = '\0';
			free(found);
			found = dn_xstrdup(src + 8);
		}
		fclose(f);
		if (found != NULL)
			trial_fact(t, k, "alloc_source", "%s", found);
		free(t->nodes[k].alloc_source);
		t->nodes[k].alloc_source = found;
		found = NULL;
	}
	free(line);
	foreign_unmeasured(t);
}

const struct node_kind_ops node_kind_foreign = {
	.name = "foreign",
	.runs = "a command",
	.net_traffic = "foreign nodes at their own addresses ({addr})",
	.show_usage = 1,
	.peer_graph = 0,
	.declare = foreign_declare,
	.prepare = foreign_prepare,
	.program = foreign_program,
	.token_in_env = foreign_token_in_env,
	.port = foreign_port,
	.post_mortem = foreign_post_mortem,
	.in_step = foreign_in_step,
	.columns = foreign_columns,
	.start = foreign_start,
	.ready_exit = foreign_ready_exit,
	.exited = foreign_exited,
	.pause = foreign_pause,
	.pause_watch = foreign_pause_watch,
	.watch = foreign_watch,
	.done = foreign_done,
	.after_run = foreign_after_run,
	.skip_state_check = foreign_skip_state_check,
	.grace = foreign_grace,
	.reap = foreign_reap,
	.facts = foreign_facts,
};
