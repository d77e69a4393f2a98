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
 * same name saying whether it ended by itself or was stopped.
 *
 * devnet counts nothing of a command's load itself; the command tells
 * it, in lines of its output (docs/scenarios.md, "The DN-LOAD lines"):
 *
 *	DN-LOAD sent=N ok=N err=N lat_us=N[,N...]
 *
 * sent, ok and err are running totals since the command started (the
 * last line wins, so a line lost costs nothing); lat_us lists the
 * latencies of requests answered since the line before.  A thread of
 * this file follows load-command.out and puts them where the http load
 * puts its own (submitted, tx_included, tx_failed, the latencies), so
 * the collector stores the same rows (collector-load.c).  A command
 * that prints no such line has no load rows at all: "rate not
 * reported", never a 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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

	/* The reader thread's: load-command.out, the unfinished line. */
	int		 fd;
	char		 line[4096];
	size_t		 len;
	int		 skipping;	/* a line longer than LINE */
	long long	 nlines;	/* DN-LOAD lines read */
	long long	 sent, ok, err;
	int		 said_bad;
	atomic_int	 ending;	/* loadgen_cmd_stop has begun */
};

#define REPORT_PREFIX	"DN-LOAD "
#define READ_EVERY_NS	20000000	/* the reader's poll: 20 ms */

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

/* One number of a DN-LOAD field, S (N bytes): decimal, >= 0.  0 or -1. */
static int
field_num(const char *s, size_t n, double *v)
{
	char	buf[64], *end;

	if (n == 0 || n >= sizeof(buf))
		return (-1);
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtod(buf, &end);
	if (*end != '\0' || errno != 0 || !(*v >= 0) || *v > 1e15)
		return (-1);
	return (0);
}

/*
 * Read one DN-LOAD line S (after the prefix): its totals into TOT (sent,
 * ok, err; -1 where not given) and its latencies (µs) into LAT (*NLAT of
 * CAP).  0, or -1 with a description of the first bad field in WHY.
 */
static int
parse_report(const char *s, double tot[3], double *lat, size_t *nlat,
    size_t cap, char *why, size_t whylen)
{
	static const char *const keys[3] = { "sent", "ok", "err" };
	const char	*p = s, *eq, *e;
	int		 i;

	tot[0] = tot[1] = tot[2] = -1;
	*nlat = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			return (0);
		e = p + strcspn(p, " \t");
		eq = memchr(p, '=', (size_t)(e - p));
		if (eq == NULL) {
			snprintf(why, whylen, "'%.*s' is not NAME=VALUE",
			    (int)(e - p), p);
			return (-1);
		}
		for (i = 0; i < 3; i++) {
			if (strlen(keys[i]) == (size_t)(eq - p) &&
			    strncmp(p, keys[i], (size_t)(eq - p)) == 0)
				break;
		}
		if (i < 3 && field_num(eq + 1, (size_t)(e - eq - 1),
		    &tot[i]) != 0) {
			snprintf(why, whylen, "%s: '%.*s' is not a count",
			    keys[i], (int)(e - eq - 1), eq + 1);
			return (-1);
		}
		if (i == 3 && (size_t)(eq - p) == 6 &&
		    strncmp(p, "lat_us", 6) == 0) {
			const char	*q = eq + 1, *c;

			for (; q < e; q = c + 1) {
				c = memchr(q, ',', (size_t)(e - q));
				if (c == NULL)
					c = e;
				if (*nlat == cap || field_num(q,
				    (size_t)(c - q), &lat[*nlat]) != 0) {
					snprintf(why, whylen, "lat_us: '%.*s' "
					    "is not a list of microseconds",
					    (int)(e - eq - 1), eq + 1);
					return (-1);
				}
				(*nlat)++;
			}
		} else if (i == 3) {
			snprintf(why, whylen, "unknown field '%.*s' (known: "
			    "sent, ok, err, lat_us)", (int)(eq - p), p);
			return (-1);
		}
		p = e;
	}
}

/* Take one DN-LOAD line S (after the prefix) into the load's counters;
 * a bad one is ignored whole and said once (event load_report). */
static void
take_report(struct loadgen *l, const char *s)
{
	struct lg_cmd		*c = l->cmd;
	struct trial		*t = l->t;
	struct trial_load	*ld = &l->load;
	double			 tot[3], lat[1024];
	long long		 v[3];
	size_t			 nlat, i;
	char			 why[160];
	int			 k;

	if (parse_report(s, tot, lat, &nlat, sizeof(lat) / sizeof(lat[0]),
	    why, sizeof(why)) != 0)
		goto bad;
	v[0] = c->sent, v[1] = c->ok, v[2] = c->err;
	for (k = 0; k < 3; k++) {
		if (tot[k] >= 0 && (long long)tot[k] < v[k]) {
			snprintf(why, sizeof(why), "%s went down from %lld to "
			    "%lld (sent, ok and err are running totals)",
			    k == 0 ? "sent" : k == 1 ? "ok" : "err", v[k],
			    (long long)tot[k]);
			goto bad;
		}
		if (tot[k] >= 0)
			v[k] = (long long)tot[k];
	}
	c->sent = v[0] > v[1] + v[2] ? v[0] : v[1] + v[2];
	c->ok = v[1];
	c->err = v[2];
	c->nlines++;
	for (i = 0; i < nlat; i++)
		trial_load_add_lat(ld, lat[i] / 1000.0);
	pthread_mutex_lock(&t->mu);
	t->tx_included = c->ok;
	t->tx_failed = c->err;
	pthread_mutex_unlock(&t->mu);
	atomic_store(&ld->submitted, c->sent);
	/* last: the collector stores nothing before the totals are in */
	atomic_store(&ld->heard, 1);
	return;
bad:
	if (!c->said_bad) {
		c->said_bad = 1;
		trial_event(t, -1, "load_report", "ignored a DN-LOAD line of "
		    "load-command.out (and say no more of others): %s: "
		    "'%.100s'", why, s);
	}
}

/* Read what load-command.out gained since the last call, line by line
 * ('\n' or '\r' ends one: progress lines rewritten in place count). */
static void
read_new(struct loadgen *l)
{
	struct lg_cmd	*c = l->cmd;
	char		 buf[8192];
	ssize_t		 n, i;

	while ((n = read(c->fd, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i++) {
			if (buf[i] != '\n' && buf[i] != '\r') {
				if (c->len + 1 < sizeof(c->line))
					c->line[c->len++] = buf[i];
				else
					c->skipping = 1;
				continue;
			}
			c->line[c->len] = '\0';
			if (!c->skipping && strncmp(c->line, REPORT_PREFIX,
			    strlen(REPORT_PREFIX)) == 0)
				take_report(l, c->line +
				    strlen(REPORT_PREFIX));
			c->len = 0;
			c->skipping = 0;
		}
	}
}

void *
loadgen_cmd_main(void *arg)
{
	struct loadgen		*l = arg;
	struct lg_cmd		*c = l->cmd;
	uint64_t		 t0 = atomic_load(&l->t->t0_ns);
	struct timespec		 ts = { 0, READ_EVERY_NS };
	int			 stop;

	do {
		stop = atomic_load(&l->stop);
		read_new(l);
		/* until loadgen_cmd_stop has the end's time */
		if (!atomic_load(&c->ending))
			atomic_store(&l->load.elapsed_ns,
			    (long long)(dn_now_ns() - t0));
		if (!stop)
			nanosleep(&ts, NULL);
	} while (!stop);
	/* a last line without its newline */
	if (c->len > 0 && !c->skipping) {
		c->line[c->len] = '\0';
		if (strncmp(c->line, REPORT_PREFIX,
		    strlen(REPORT_PREFIX)) == 0)
			take_report(l, c->line + strlen(REPORT_PREFIX));
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
	c->fd = -1;
	atomic_init(&c->ending, 0);
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
	/* its own lines, read as they come (loadgen_cmd_main) */
	if ((c->fd = open(c->out_path, O_RDONLY | O_CLOEXEC)) == -1) {
		*cause = dn_xasprintf("cannot read '%s': %s", c->out_path,
		    strerror(errno));
		return (-1);
	}
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
	atomic_store(&c->ending, 1);
	if (atomic_load(&l->t->t0_ns) != 0)
		atomic_store(&l->load.elapsed_ns, (long long)(dn_now_ns() -
		    atomic_load(&l->t->t0_ns)));
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
	if (c->fd != -1)
		close(c->fd);
	plan_argv_free(c->argv);
	plan_argv_free(c->env);
	free(c->out_path);
	free(c);
	l->cmd = NULL;
}
