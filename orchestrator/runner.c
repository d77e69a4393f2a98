/*
 * runner.c: drives the trials of a scenario (see runner.h).
 *
 * One main thread does everything that touches processes and time: it
 * forks the nodes (so PR_SET_PDEATHSIG is tied to a thread that lives as
 * long as the run), waits for readiness, fires events, watches for crashes
 * and stalls, takes signals synchronously (sigtimedwait is its clock), and
 * stops everything.  Each trial has a collector thread (collector.c) and,
 * for transfer workloads, a load generator thread (loadgen.c).  Trials of
 * one slot (order: concurrent) run side by side; otherwise one at a time.
 */
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "loadgen.h"
#include "runner.h"
#include "store.h"
#include "transport.h"
#include "trial.h"
#include "util.h"

#define TICK_MS			20
#define DEFAULT_GRACE_MS	5000
#define STATUS_TIMEOUT_MS	2000

/* Signals seen so far: the first stops gracefully, the second skips the
 * grace period. */
static int	sig_count;
static int	sig_first;
static int	progress_tty;

void
runner_block_signals(void)
{
	sigset_t	set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Sleep up to MS, returning early on SIGINT/SIGTERM (counted). */
static void
tick(int ms)
{
	sigset_t	set;
	struct timespec	ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	int		sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sig = sigtimedwait(&set, NULL, &ts);
	if (sig == SIGINT || sig == SIGTERM) {
		if (sig_count++ == 0)
			sig_first = sig;
		if (progress_tty)
			fputc('\n', stderr);
		if (sig_count == 1)
			fprintf(stderr, "devnet: %s: stopping the devnet "
			    "(again to skip the grace period)\n",
			    sig == SIGINT ? "interrupt" : "terminated");
	}
}

static int
mkdir_p(const char *path, mode_t mode)
{
	char	*p = dn_xstrdup(path), *s;
	int	 rv = 0;

	for (s = p + 1; *s != '\0'; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) == -1 && errno != EEXIST)
			rv = -1;
		*s = '/';
	}
	if (rv == 0 && mkdir(p, mode) == -1 && errno != EEXIST)
		rv = -1;
	free(p);
	return (rv);
}

static const char *
action_name(enum scn_action a)
{
	static const char *names[] = { "kill", "term", "stop", "cont",
		"restart" };

	return (names[a]);
}

/* --- control ------------------------------------------------------------ */

/* URL of node K's inbound (CTL 0) or control (CTL 1) endpoint, as the
 * node derives it from --net / --tcp-base (docs/node.md).  Caller frees. */
static char *
trial_node_url(const struct trial *t, int k, int ctl)
{
	if (t->scn->network.tcp_base_port > 0)
		return (dn_xasprintf("tcp://127.0.0.1:%d",
		    t->scn->network.tcp_base_port + 2 * k + (ctl ? 1 : 0)));
	return (dn_xasprintf("ipc://%s/n%d.%s", t->net_dir, k,
	    ctl ? "ctl" : "in"));
}

/*
 * Ask every node with ASK[k] set for its status at (nearly) the same
 * moment: all requests go out before any reply is read, so that the
 * answers describe one instant as closely as the nodes allow.  FLAGS are
 * DN_CTL_* request flags.  OK[k] says whether node k answered.
 */
static void
ctl_status_all(struct trial *t, const int *ask, uint32_t flags,
    struct dn_status *st, int *ok)
{
	struct dn_sock	**s;
	struct dn_hdr	  h = { .kind = DN_MSG_CTL_STATUS, .token = t->token,
			      .node = DN_NODE_NONE, .len = 4 };
	uint8_t		  req[DN_HDR_SIZE + 4];
	char		 *url, *cause = NULL;
	int		  k;

	s = dn_xcalloc((size_t)t->nnodes, sizeof(*s));
	for (k = 0; k < t->nnodes; k++) {
		ok[k] = 0;
		if (!ask[k] || dn_sock_open(&s[k], DN_SOCK_REQ, &cause) != 0)
			continue;
		url = trial_node_url(t, k, 1);
		if (dn_sock_dial(s[k], url, &cause) != 0) {
			dn_sock_close(s[k]);
			s[k] = NULL;
		}
		free(url);
		free(cause);
		cause = NULL;
	}
	for (k = 0; k < t->nnodes; k++) {
		if (s[k] == NULL)
			continue;
		dn_sock_set_timeouts(s[k], STATUS_TIMEOUT_MS, STATUS_TIMEOUT_MS);
		h.t_ns = dn_now_ns();
		dn_hdr_put(req, &h);
		dn_put_u32(req + DN_HDR_SIZE, flags);
		if (dn_sock_send(s[k], req, sizeof(req), 0) != 0) {
			dn_sock_close(s[k]);
			s[k] = NULL;
		}
	}
	for (k = 0; k < t->nnodes; k++) {
		struct dn_hdr	 rh;
		void		*buf;
		size_t		 len;

		if (s[k] == NULL)
			continue;
		if (dn_sock_recv(s[k], &buf, &len, STATUS_TIMEOUT_MS) == 0) {
			ok[k] = dn_hdr_check(buf, len, t->token,
			    (uint32_t)t->nnodes, 0, &rh) == 0 &&
			    rh.kind == DN_MSG_CTL_STATUS && dn_status_get(
			    (uint8_t *)buf + DN_HDR_SIZE, rh.len, &st[k]) == 0;
			dn_msg_free(buf, len);
		}
		dn_sock_close(s[k]);
	}
	free(s);
}

/* --- set-up --------------------------------------------------------------- */

static uint64_t
new_token(void)
{
	uint64_t	v = 0;

	while (v == 0) {
		if (getrandom(&v, sizeof(v), 0) != sizeof(v))
			v = dn_now_ns() ^ ((uint64_t)getpid() << 32);
	}
	return (v);
}

/* User + system CPU seconds of this process, nodes (children) excluded. */
static double
self_cpu_s(void)
{
	struct rusage	ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return (0);
	return ((double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
}

static void
trial_release(struct trial *t)
{
	int	i, j;

	loadgen_free(t->lg);
	t->lg = NULL;
	for (i = 0; i < t->nnodes && t->nodes != NULL; i++) {
		struct trial_node	*n = &t->nodes[i];

		plan_argv_free(n->argv);
		plan_argv_free(n->env);
		free(n->out_path);
		free(n->log_path);
		free(n->cmdline);
		free(n->in_url);
	}
	if (t->own_net_dir && t->net_dir != NULL) {
		for (i = 0; i < t->nnodes; i++) {
			for (j = 0; j < 2; j++) {
				char *p = dn_xasprintf("%s/n%d.%s", t->net_dir,
				    i, j ? "ctl" : "in");
				unlink(p);
				free(p);
			}
		}
		{
			char *p = dn_xasprintf("%s/collector", t->net_dir);
			unlink(p);
			free(p);
		}
		rmdir(t->net_dir);
	}
	free(t->nodes);
	free(t->run_dir);
	free(t->net_dir);
	free(t->metrics_url);
	free(t->fail_reason);
	free(t->store_error);
	pthread_mutex_destroy(&t->mu);
}

/* Lay out the trial: dirs, token, run row, node command lines.  Nothing
 * is started. */
static int
trial_prepare(struct trial *t, const struct runner_opts *o,
    int64_t group_id, char **cause)
{
	const struct scenario	*scn = t->scn;
	struct dn_run_info	 ri;
	struct plan_endpoints	 ep;
	const char		*binary = plan_binary(scn, t->var);
	char			 sha[65] = "", base[PATH_MAX], *dir;
	int			 i, rv;

	t->nnodes = scn->network.nodes;
	t->token = new_token();
	pthread_mutex_init(&t->mu, NULL);
	atomic_init(&t->t0_ns, 0);
	if (dn_sha256_file(binary, sha) != 0) {
		*cause = dn_xasprintf("cannot read node binary '%s': %s",
		    binary, strerror(errno));
		return (-1);
	}
	if (mkdir_p(o->run_dir, 0755) != 0 ||
	    realpath(o->run_dir, base) == NULL) {
		*cause = dn_xasprintf("cannot create run directory '%s': %s "
		    "(use --run-dir)", o->run_dir, strerror(errno));
		return (-1);
	}

	memset(&ri, 0, sizeof(ri));
	ri.group_id = group_id;
	ri.scenario_name = scn->name;
	ri.scenario_path = scn->path;
	ri.scenario_yaml = scn->text;
	ri.variant = t->var->name;
	ri.trial = t->pt.index;
	ri.repeat = t->pt.repeat;
	ri.label = o->label;
	ri.binary = binary;
	ri.binary_sha256 = sha;
	ri.nodes = t->nnodes;
	ri.tps = scn->workload.kind == SCN_WL_TRANSFER ? scn->workload.tps : 0;
	ri.duration_ms = scn->duration_ms;
	ri.warmup_ms = scn->warmup_ms;
	ri.sample_interval_ms = scn->sample_interval_ms;
	ri.token = t->token;
	/* The run id names the trial dir, so insert first, then fix the
	 * dir in (run_dir is informational). */
	ri.run_dir = base;
	pthread_mutex_lock(t->store_mu);
	rv = dn_store_run_begin(t->store, &ri, &t->run_id, cause);
	if (rv == 0)
		rv = dn_store_commit(t->store, cause);
	pthread_mutex_unlock(t->store_mu);
	if (rv != 0)
		return (-1);

	for (i = 0;; i++) {
		dir = i == 0 ? dn_xasprintf("%s/%lld-%s", base,
		    (long long)t->run_id, t->var->name) :
		    dn_xasprintf("%s/%lld-%s.%d", base, (long long)t->run_id,
		    t->var->name, i);
		if (mkdir(dir, 0700) == 0)
			break;
		if (errno != EEXIST || i > 100) {
			*cause = dn_xasprintf("cannot create '%s': %s", dir,
			    strerror(errno));
			free(dir);
			return (-1);
		}
		free(dir);
	}
	t->run_dir = dir;
	/* ipc paths must fit in 107 bytes: "/n255.ctl" is the longest. */
	if (strlen(dir) + 16 < 100) {
		t->net_dir = dn_xstrdup(dir);
	} else {
		char	tmpl[] = "/tmp/dn-XXXXXX";

		if (mkdtemp(tmpl) == NULL) {
			*cause = dn_xasprintf("cannot create a socket dir in "
			    "/tmp: %s", strerror(errno));
			return (-1);
		}
		t->net_dir = dn_xstrdup(tmpl);
		t->own_net_dir = 1;
	}
	if (scn->network.tcp_base_port > 0)
		t->metrics_url = dn_xasprintf("tcp://127.0.0.1:%d",
		    scn->network.tcp_base_port + 2 * t->nnodes);
	else
		t->metrics_url = dn_xasprintf("ipc://%s/collector", t->net_dir);

	memset(&ep, 0, sizeof(ep));
	ep.run_dir = t->run_dir;
	ep.net_dir = t->net_dir;
	ep.metrics_url = t->metrics_url;
	ep.token = t->token;
	ep.tcp_base_port = scn->network.tcp_base_port;
	t->nodes = dn_xcalloc((size_t)t->nnodes, sizeof(*t->nodes));
	for (i = 0; i < t->nnodes; i++) {
		struct trial_node	*n = &t->nodes[i];

		atomic_init(&n->up, 0);
		if (plan_node_argv(scn, t->var, i, &ep, &n->argv, &n->env,
		    cause) != 0)
			return (-1);
		n->out_path = dn_xasprintf("%s/node-%d.out", t->run_dir, i);
		n->log_path = dn_xasprintf("%s/node-%d.log", t->run_dir, i);
		n->cmdline = plan_quote_argv(n->argv);
		n->in_url = trial_node_url(t, i, 0);
	}
	return (0);
}

/* Start the collector, the nodes and (transfer) the load generator's
 * sockets. */
static int
trial_start(struct trial *t, char **cause)
{
	const char	*binary = plan_binary(t->scn, t->var);
	char		 sha[65] = "";
	int		 i, rv = 0;

	t->spawn_ns = dn_now_ns();
	t->cpu0_s = self_cpu_s();
	if (collector_start(t, &t->col, cause) != 0)
		return (-1);
	dn_sha256_file(binary, sha);
	for (i = 0; i < t->nnodes; i++) {
		struct trial_node	*n = &t->nodes[i];

		if (spawn_start(&n->proc, n->argv, n->env, n->out_path,
		    cause) != 0)
			return (-1);
		pthread_mutex_lock(t->store_mu);
		rv = dn_store_node_add(t->store, t->run_id, i, n->proc.pid,
		    binary, sha, n->cmdline, cause);
		pthread_mutex_unlock(t->store_mu);
		if (rv != 0)
			return (-1);
	}
	if (t->scn->workload.kind == SCN_WL_TRANSFER &&
	    loadgen_create(t, &t->lg, cause) != 0)
		return (-1);
	return (0);
}

/* "node K exited (exit 1) before it was ready; last lines of its log:" */
static char *
node_post_mortem(struct trial *t, int k, const char *what)
{
	struct trial_node	*n = &t->nodes[k];
	char			 st[64], *tail, *tail2, *msg;

	tail = spawn_tail(n->out_path, 5);
	tail2 = spawn_tail(n->log_path, 5);
	msg = dn_xasprintf("node %d (%s) %s%s%s%s%s%s%s", k, n->argv[0], what,
	    n->proc.exited ? " (" : "", n->proc.exited ?
	    spawn_status_str(n->proc.status, st, sizeof(st)) : "",
	    n->proc.exited ? ")" : "",
	    tail || tail2 ? "; last lines of its output:\n" : "",
	    tail2 ? tail2 : "", tail ? tail : "");
	free(tail);
	free(tail2);
	return (msg);
}

/* Wait for a HELLO from every node of every trial.  0 when all are
 * ready; -1 when a trial failed (reason in the trial) or on a signal. */
static int
wait_ready(struct trial **ts, int nt, int timeout_ms)
{
	uint64_t	deadline = dn_now_ns() + (uint64_t)timeout_ms * 1000000u;
	int		i, k, ready;

	for (;;) {
		ready = 1;
		for (i = 0; i < nt; i++) {
			struct trial	*t = ts[i];

			for (k = 0; k < t->nnodes; k++) {
				int	hello;

				pthread_mutex_lock(&t->mu);
				hello = t->nodes[k].hello;
				pthread_mutex_unlock(&t->mu);
				if (spawn_poll(&t->nodes[k].proc)) {
					char *m = node_post_mortem(t, k,
					    "exited before it was ready");
					trial_fail(t, "%s", m);
					free(m);
					return (-1);
				}
				if (hello == 0)
					ready = 0;
			}
		}
		if (ready)
			return (0);
		if (sig_count > 0)
			return (-1);
		if (dn_now_ns() >= deadline) {
			for (i = 0; i < nt; i++) {
				for (k = 0; k < ts[i]->nnodes; k++) {
					char	*m, what[64];

					if (ts[i]->nodes[k].hello)
						continue;
					snprintf(what, sizeof(what), "was not "
					    "ready after %.1f s (see "
					    "--ready-timeout)",
					    timeout_ms / 1000.0);
					m = node_post_mortem(ts[i], k, what);
					trial_fail(ts[i], "%s", m);
					free(m);
					break;
				}
			}
			return (-1);
		}
		tick(TICK_MS);
	}
}

/* --- while it runs --------------------------------------------------------- */

/* Highest height among the nodes other than K that are up (-1 if none). */
static double
others_height(struct trial *t, int k)
{
	double	best = -1;
	int	i;

	for (i = 0; i < t->nnodes; i++) {
		if (i == k || t->nodes[i].down || t->nodes[i].proc.exited)
			continue;
		if (t->nodes[i].last[DN_M_HEIGHT] > best)
			best = t->nodes[i].last[DN_M_HEIGHT];
	}
	return (best);
}

static void
fire_event(struct trial *t, const struct scn_event *ev)
{
	struct trial_node	*n = &t->nodes[ev->node];
	char			*cause = NULL;
	int			 alive = !spawn_poll(&n->proc);

	switch (ev->action) {
	case SCN_EV_KILL:
	case SCN_EV_TERM:
		if (!alive) {
			trial_event(t, ev->node, action_name(ev->action),
			    "node was not running");
			return;
		}
		n->down = 1;
		atomic_store(&n->up, 0);
		spawn_signal(&n->proc, ev->action == SCN_EV_KILL ? SIGKILL :
		    SIGTERM);
		trial_event(t, ev->node, action_name(ev->action), "pid %d",
		    (int)n->proc.pid);
		break;
	case SCN_EV_STOP:
	case SCN_EV_CONT:
		if (!alive) {
			trial_event(t, ev->node, action_name(ev->action),
			    "node was not running");
			return;
		}
		n->stopped = ev->action == SCN_EV_STOP;
		atomic_store(&n->up, !n->stopped);
		spawn_signal(&n->proc, n->stopped ? SIGSTOP : SIGCONT);
		trial_event(t, ev->node, action_name(ev->action), "pid %d",
		    (int)n->proc.pid);
		if (!n->stopped)
			n->restart_ns = dn_now_ns();	/* until it rejoins */
		break;
	case SCN_EV_RESTART:
		atomic_store(&n->up, 0);
		if (alive) {
			spawn_signal(&n->proc, SIGKILL);
			while (!spawn_poll(&n->proc))
				tick(1);
		}
		pthread_mutex_lock(&t->mu);
		n->hello = 0;
		pthread_mutex_unlock(&t->mu);
		if (spawn_start(&n->proc, n->argv, n->env, n->out_path,
		    &cause) != 0) {
			trial_event(t, ev->node, "restart", "failed: %s", cause);
			free(cause);
			n->down = 1;
			return;
		}
		trial_event(t, ev->node, "restart", "%s; new pid %d",
		    alive ? "killed the running node" : "node was down",
		    (int)n->proc.pid);
		n->down = 0;
		n->stopped = 0;
		n->crashed = 0;
		n->restart_ns = dn_now_ns();
		break;
	}
}

/* Look at every node once: exits, stalls, rejoins; fire due events. */
static void
trial_watch(struct trial *t, char *fired)
{
	const struct scenario	*scn = t->scn;
	uint64_t		 now = dn_now_ns();
	int64_t			 tm = trial_t_ms(t, now);
	uint64_t		 stall_ns;
	size_t			 e;
	int			 k;

	stall_ns = (uint64_t)(3 * scn->sample_interval_ms + 1000) * 1000000u;
	for (e = 0; e < scn->nevents; e++) {
		const struct scn_event	*ev = &scn->events[e];

		if (fired[e] || tm < ev->at_ms)
			continue;
		fired[e] = 1;
		if (ev->variant != NULL && strcmp(ev->variant,
		    t->var->name) != 0)
			continue;
		fire_event(t, ev);
	}
	for (k = 0; k < t->nnodes; k++) {
		struct trial_node	*n = &t->nodes[k];
		char			 st[64];
		uint64_t		 last;
		int			 hello;
		double			 h, best;

		if (!n->proc.exited && spawn_poll(&n->proc)) {
			atomic_store(&n->up, 0);
			spawn_status_str(n->proc.status, st, sizeof(st));
			if (n->down) {
				trial_event(t, k, "exit", "%s (planned)", st);
			} else {
				char	*m = node_post_mortem(t, k, "exited");

				n->crashed = 1;
				n->down = 1;
				t->unplanned++;
				trial_event(t, k, "crash", "%s", st);
				if (!sig_count) {
					if (progress_tty)
						fputc('\n', stderr);
					fprintf(stderr, "devnet: run %lld: %s\n",
					    (long long)t->run_id, m);
				}
				free(m);
			}
			continue;
		}
		if (n->proc.exited)
			continue;
		pthread_mutex_lock(&t->mu);
		last = n->last_msg_ns;
		hello = n->hello;
		h = n->last[DN_M_HEIGHT];
		pthread_mutex_unlock(&t->mu);
		/* The collector may have stamped a sample after NOW. */
		if (last > now)
			last = now;
		if (!n->stalled && !n->stopped && last != 0 &&
		    now - last > stall_ns) {
			n->stalled = 1;
			if (!n->stopped)
				t->unplanned++;
			trial_event(t, k, "stalled", "no sample for %.1f s",
			    (double)(now - last) / 1e9);
		} else if (n->stopped && !n->stalled && last != 0 &&
		    now - last > stall_ns) {
			n->stalled = 1;
			trial_event(t, k, "stalled", "no sample for %.1f s "
			    "(paused by an event)", (double)(now - last) / 1e9);
		} else if (n->stalled && now - last < stall_ns) {
			n->stalled = 0;
			if (n->restart_ns == 0)
				n->restart_ns = now;
			trial_event(t, k, "recovered", "samples again");
		}
		/* A restarted or resumed node has rejoined once it is as
		 * high as the others. */
		if (n->restart_ns != 0 && hello > 0 && !n->stalled) {
			if (!n->stopped)
				atomic_store(&n->up, 1);
			pthread_mutex_lock(&t->mu);
			best = others_height(t, k);
			pthread_mutex_unlock(&t->mu);
			if (last > n->restart_ns && h >= best && best >= 0) {
				trial_event(t, k, "rejoined", "at height %.0f, "
				    "%.0f ms after it came back", h,
				    (double)(now - n->restart_ns) / 1e6);
				n->restart_ns = 0;
			}
		}
	}
	if (t->store_failed && !t->failed)
		trial_fail(t, "cannot write to the database: %s",
		    t->store_error ? t->store_error : "?");
}

static void
fmt_hms(char *buf, size_t len, double s)
{
	long	v = (long)(s < 0 ? 0 : s);

	if (v >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", v / 3600, v / 60 % 60,
		    v % 60);
	else
		snprintf(buf, len, "%02ld:%02ld", v / 60, v % 60);
}

/* One status line: on a terminal rewritten in place, else every 10 s. */
static void
progress(struct trial **ts, int nt, const struct runner_opts *o, int force)
{
	static uint64_t	last_ns;
	uint64_t	now = dn_now_ns();
	char		el[32], tot[32], line[512];
	size_t		off = 0;
	int		i, k;

	if (o->quiet)
		return;
	if (!force && now - last_ns < (progress_tty ? 250000000ull :
	    10000000000ull))
		return;
	last_ns = now;
	for (i = 0; i < nt; i++) {
		struct trial		*t = ts[i];
		struct loadgen_stats	 st = { 0 };
		double			 hmin = -1, hmax = -1, lag = 0;
		int64_t			 problems, samples;

		if (t->lg != NULL)
			loadgen_stats(t->lg, &st);
		pthread_mutex_lock(&t->mu);
		for (k = 0; k < t->nnodes; k++) {
			struct trial_node *n = &t->nodes[k];

			if (n->proc.exited || n->hello == 0)
				continue;
			if (hmin < 0 || n->last[DN_M_HEIGHT] < hmin)
				hmin = n->last[DN_M_HEIGHT];
			if (n->last[DN_M_HEIGHT] > hmax)
				hmax = n->last[DN_M_HEIGHT];
			if (n->last[DN_M_LAG_BLOCKS] > lag)
				lag = n->last[DN_M_LAG_BLOCKS];
		}
		problems = t->rejected + t->unplanned;
		for (k = 0; k < t->nnodes; k++)
			problems += t->nodes[k].lost;
		samples = t->samples_stored;
		pthread_mutex_unlock(&t->mu);
		fmt_hms(el, sizeof(el), (double)trial_t_ms(t, now) / 1000.0);
		fmt_hms(tot, sizeof(tot), (double)t->scn->duration_ms / 1000.0);
		off += (size_t)snprintf(line + off, sizeof(line) - off,
		    "%strial %d/%zu %s  %s/%s", i ? " | " : "",
		    t->pt.index + 1, t->ntrials, t->var->name, el, tot);
		if (t->lg != NULL)
			off += (size_t)snprintf(line + off, sizeof(line) - off,
			    "  tps %.0f/%.1f", st.target_tps, st.elapsed_s > 0 ?
			    (double)(st.submitted - st.send_errors) /
			    st.elapsed_s : 0.0);
		off += (size_t)snprintf(line + off, sizeof(line) - off,
		    "  height %.0f..%.0f  lag %.0f  samples %lld",
		    hmin < 0 ? 0 : hmin, hmax < 0 ? 0 : hmax, lag,
		    (long long)samples);
		if (off < sizeof(line) && problems > 0)
			off += (size_t)snprintf(line + off, sizeof(line) - off,
			    "  problems %lld", (long long)problems);
		if (off >= sizeof(line))
			off = sizeof(line) - 1;
	}
	if (progress_tty)
		fprintf(stderr, "\r\033[K%s", line);
	else
		fprintf(stderr, "%s\n", line);
}

/* --- the end of a trial ------------------------------------------------- */

/* After the load: wait until every submitted transaction has an outcome
 * (or the drain time is over). */
static void
drain_txs(struct trial **ts, int nt)
{
	uint64_t	deadline = 0;
	int		i, pending;

	for (i = 0; i < nt; i++) {
		uint64_t d = (uint64_t)(4 * ts[i]->scn->network.block_interval_ms
		    + 2000) * 1000000u;
		if (d > deadline)
			deadline = d;
	}
	deadline += dn_now_ns();
	do {
		pending = 0;
		for (i = 0; i < nt; i++) {
			struct trial		*t = ts[i];
			struct loadgen_stats	 st;

			if (t->lg == NULL)
				continue;
			loadgen_stats(t->lg, &st);
			pthread_mutex_lock(&t->mu);
			if (t->tx_included + t->tx_failed <
			    st.submitted - st.send_errors)
				pending = 1;
			pthread_mutex_unlock(&t->mu);
		}
		if (!pending || sig_count > 0)
			break;
		tick(TICK_MS);
	} while (dn_now_ns() < deadline);
}

/*
 * Check that the nodes agree on the state.  Blocks keep coming until the
 * nodes are told to stop proposing (DN_CTL_HALT), so: halt every running
 * node, wait until all report the same height (bounded), then take every
 * node's state hash at that height in one round.  Equal heights must mean
 * equal hashes; a disagreement fails the trial.
 */
static void
check_state(struct trial *t)
{
	struct dn_status	*st;
	int			*ok, *ask, k, ref, same;
	uint64_t		 deadline;
	char			 hex[65], hex2[65];

	st = dn_xcalloc((size_t)t->nnodes, sizeof(*st));
	ok = dn_xcalloc((size_t)t->nnodes, sizeof(*ok));
	ask = dn_xcalloc((size_t)t->nnodes, sizeof(*ask));
	for (k = 0; k < t->nnodes; k++)
		ask[k] = !t->nodes[k].down && !t->nodes[k].stopped &&
		    !spawn_poll(&t->nodes[k].proc);
	deadline = dn_now_ns() + (uint64_t)(10 *
	    t->scn->network.block_interval_ms + 5000) * 1000000u;
	for (;;) {
		ctl_status_all(t, ask, DN_CTL_HALT, st, ok);
		same = 1;
		ref = -1;
		for (k = 0; k < t->nnodes; k++) {
			if (!ok[k])
				continue;
			if (ref < 0)
				ref = k;
			else if (st[k].height != st[ref].height)
				same = 0;
		}
		if (same || sig_count || dn_now_ns() >= deadline)
			break;
		tick((int)(t->scn->network.block_interval_ms / 4) + 1);
	}
	ctl_status_all(t, ask, DN_CTL_HALT | DN_CTL_WANT_HASH, st, ok);
	ref = -1;
	for (k = 0; k < t->nnodes; k++) {
		if (!ok[k]) {
			if (ask[k])
				trial_event(t, k, "no_status", "did not answer "
				    "the final status request");
			continue;
		}
		dn_hex(st[k].state_hash, 32, hex);
		trial_fact(t, k, "height", "%llu",
		    (unsigned long long)st[k].height);
		trial_fact(t, k, "state_hash", "%s", hex);
		if (ref < 0) {
			ref = k;
			continue;
		}
		if (st[k].height == st[ref].height &&
		    memcmp(st[k].state_hash, st[ref].state_hash, 32) != 0) {
			dn_hex(st[ref].state_hash, 32, hex2);
			trial_event(t, k, "state_mismatch", "height %llu: "
			    "node %d has %.16s, node %d has %.16s",
			    (unsigned long long)st[k].height, ref, hex2, k, hex);
			trial_fail(t, "nodes %d and %d disagree on the state at "
			    "height %llu", ref, k,
			    (unsigned long long)st[k].height);
		}
	}
	free(st);
	free(ok);
	free(ask);
}

static void
print_summary(struct trial *t, const struct runner_opts *o)
{
	struct loadgen_stats	 st = { 0 };
	FILE			*f = o->out != NULL ? o->out : stdout;
	int			 k;

	if (t->failed)
		fprintf(stderr, "devnet: run %lld (%s) failed: %s\n",
		    (long long)t->run_id, t->var->name,
		    t->fail_reason ? t->fail_reason : "?");
	if (o->quiet)
		return;
	fprintf(f, "run %lld: %s, trial %d/%zu, %s", (long long)t->run_id,
	    t->var->name, t->pt.index + 1, t->ntrials,
	    sig_count ? "interrupted" : t->failed ? "FAILED" : "ok");
	fprintf(f, "\n");
	if (t->lg != NULL) {
		loadgen_stats(t->lg, &st);
		fprintf(f, "  load: %lld submitted, %lld included, %lld failed, "
		    "%lld pending, %lld not sent; achieved %.2f tx/s of %.2f\n",
		    (long long)st.submitted, (long long)t->tx_included,
		    (long long)t->tx_failed, (long long)(st.submitted -
		    st.send_errors - t->tx_included - t->tx_failed),
		    (long long)st.send_errors, st.elapsed_s > 0 ?
		    (double)(st.submitted - st.send_errors) / st.elapsed_s : 0,
		    st.target_tps);
	}
	fprintf(f, "  %-4s %10s %10s %10s %8s %8s %7s\n", "node", "max RSS",
	    "avg RSS", "allocs/s", "max lag", "height", "lost");
	for (k = 0; k < t->nnodes; k++) {
		struct trial_node	*n = &t->nodes[k];
		double			 dt = (double)(n->last_t - n->first_t) /
					    1000.0;

		fprintf(f, "  %-4d %8.1f M %8.1f M %10.0f %8.0f %8.0f %7lld%s\n", k,
		    n->rss_max / 1048576.0, n->rss_n ? n->rss_sum /
		    (double)n->rss_n / 1048576.0 : 0,
		    dt > 0 ? (n->last[DN_M_ALLOCS] - n->first[DN_M_ALLOCS]) /
		    dt : 0, n->lag_max, n->last[DN_M_HEIGHT],
		    (long long)n->lost, n->crashed ? "  crashed" : "");
	}
	if (t->rejected > 0)
		fprintf(f, "  %lld message(s) rejected\n", (long long)t->rejected);
	fflush(f);
}

/* Stop the load, check, stop the nodes, record the outcome. */
static void
trial_finish(struct trial *t, const struct runner_opts *o)
{
	struct loadgen_stats	 st = { 0 };
	struct proc		**ps;
	int64_t			 lost = 0, pending;
	const char		*status;
	char			*cause = NULL, *reason = NULL;
	int			 k, killed, grace;

	loadgen_disconnect(t->lg);
	if (t->t0_ns != 0 && !t->failed && !sig_count)
		check_state(t);
	grace = sig_count > 1 ? 0 : o->grace_ms ? o->grace_ms :
	    DEFAULT_GRACE_MS;
	ps = dn_xcalloc((size_t)t->nnodes, sizeof(*ps));
	for (k = 0; k < t->nnodes; k++)
		ps[k] = &t->nodes[k].proc;
	killed = spawn_stop_all(ps, t->nnodes, grace);
	free(ps);
	if (killed > 0)
		trial_event(t, -1, "sigkill", "%d node(s) needed SIGKILL after "
		    "the %d ms grace period", killed, grace);
	collector_stop(t->col, sig_count > 1 ? 100 : 1000);
	t->col = NULL;

	for (k = 0; k < t->nnodes; k++)
		lost += t->nodes[k].lost;
	trial_fact(t, -1, "lost_samples", "%lld", (long long)lost);
	trial_fact(t, -1, "rejected_msgs", "%lld", (long long)t->rejected);
	/* devnet's own cost: collector, load generator, main loop and nng
	 * from spawn to here (trials run concurrently share it). */
	trial_fact(t, -1, "orchestrator_cpu_s", "%.3f",
	    self_cpu_s() - t->cpu0_s);
	if (t->lg != NULL) {
		double	achieved;

		loadgen_stats(t->lg, &st);
		pending = st.submitted - st.send_errors - t->tx_included -
		    t->tx_failed;
		achieved = st.elapsed_s > 0 ? (double)(st.submitted -
		    st.send_errors) / st.elapsed_s : 0;
		trial_fact(t, -1, "tx_submitted", "%lld",
		    (long long)st.submitted);
		trial_fact(t, -1, "tx_included", "%lld",
		    (long long)t->tx_included);
		trial_fact(t, -1, "tx_failed", "%lld",
		    (long long)t->tx_failed);
		trial_fact(t, -1, "tx_pending", "%lld", (long long)pending);
		trial_fact(t, -1, "tx_send_errors", "%lld",
		    (long long)st.send_errors);
		trial_fact(t, -1, "tx_duplicates", "%lld",
		    (long long)t->tx_duplicates);
		trial_fact(t, -1, "achieved_tps", "%.3f", achieved);
		trial_fact(t, -1, "target_tps", "%.3f", st.target_tps);
		/* Send lag over the whole run (the per-interval p99 is the
		 * metric send_lag_p99_us). */
		trial_fact(t, -1, "send_lag_p50_us", "%.1f",
		    loadgen_lag_quantile(t->lg, 0.50));
		trial_fact(t, -1, "send_lag_p99_us", "%.1f",
		    loadgen_lag_quantile(t->lg, 0.99));
		trial_fact(t, -1, "send_lag_p999_us", "%.1f",
		    loadgen_lag_quantile(t->lg, 0.999));
		trial_fact(t, -1, "send_lag_max_us", "%.1f",
		    loadgen_lag_quantile(t->lg, 1.0));
		if (!sig_count && st.elapsed_s > 0 &&
		    achieved < 0.99 * st.target_tps)
			trial_event(t, -1, "rate_missed", "achieved %.2f tx/s "
			    "of %.2f", achieved, st.target_tps);
		if (t->tx_duplicates > 0)
			trial_fail(t, "%lld transaction(s) included twice",
			    (long long)t->tx_duplicates);
	}
	if (t->store_failed)
		trial_fail(t, "cannot write to the database: %s",
		    t->store_error ? t->store_error : "?");

	if (sig_count)
		status = "interrupted";
	else if (t->failed)
		status = "failed";
	else
		status = "ok";
	if (t->failed)
		reason = dn_xstrdup(t->fail_reason ? t->fail_reason : "failed");
	else if (sig_count)
		reason = dn_xasprintf("stopped by %s", sig_first == SIGINT ?
		    "SIGINT" : "SIGTERM");
	else if (t->unplanned > 0)
		reason = dn_xasprintf("%d unplanned fault(s): see events",
		    t->unplanned);
	pthread_mutex_lock(t->store_mu);
	if (dn_store_run_end(t->store, t->run_id, status, reason, &cause) !=
	    0 || dn_store_commit(t->store, &cause) != 0) {
		fprintf(stderr, "devnet: run %lld: cannot record its end: %s\n",
		    (long long)t->run_id, cause);
		free(cause);
		t->failed = 1;
	}
	pthread_mutex_unlock(t->store_mu);
	free(reason);
	print_summary(t, o);
}

/* --- the plan ------------------------------------------------------------- */

/* Run the trials TS side by side from spawn to stop. */
static void
run_slot(struct trial **ts, int nt, const struct runner_opts *o)
{
	const struct scenario	*scn = ts[0]->scn;
	char			**fired;
	char			*cause = NULL;
	int			 i, timeout;
	uint64_t		 t0, end;

	fired = dn_xcalloc((size_t)nt, sizeof(*fired));
	for (i = 0; i < nt; i++) {
		fired[i] = dn_xcalloc(scn->nevents + 1, 1);
		if (trial_start(ts[i], &cause) != 0) {
			trial_fail(ts[i], "%s", cause);
			free(cause);
			cause = NULL;
			goto stop;
		}
	}
	timeout = o->ready_timeout_ms ? o->ready_timeout_ms :
	    10000 + 200 * scn->network.nodes;
	if (wait_ready(ts, nt, timeout) != 0)
		goto stop;

	t0 = dn_now_ns();
	for (i = 0; i < nt; i++) {
		int	k;

		atomic_store(&ts[i]->t0_ns, t0);
		for (k = 0; k < ts[i]->nnodes; k++)
			atomic_store(&ts[i]->nodes[k].up, 1);
		trial_event(ts[i], -1, "start", "%d node(s) ready in %.0f ms",
		    ts[i]->nnodes, (double)(t0 - ts[i]->spawn_ns) / 1e6);
		if (ts[i]->lg != NULL && loadgen_go(ts[i]->lg, &cause) != 0) {
			trial_fail(ts[i], "%s", cause);
			free(cause);
			cause = NULL;
			goto stop;
		}
	}
	end = t0 + (uint64_t)scn->duration_ms * 1000000u;
	while (dn_now_ns() < end && sig_count == 0) {
		int	failed = 0;

		for (i = 0; i < nt; i++) {
			trial_watch(ts[i], fired[i]);
			failed |= ts[i]->failed;
		}
		if (failed)
			break;
		progress(ts, nt, o, 0);
		tick(TICK_MS);
	}
	for (i = 0; i < nt; i++)
		loadgen_halt(ts[i]->lg);
	if (!sig_count)
		drain_txs(ts, nt);
	progress(ts, nt, o, 1);
	if (progress_tty && !o->quiet)
		fputc('\n', stderr);
stop:
	for (i = 0; i < nt; i++) {
		trial_finish(ts[i], o);
		free(fired[i]);
	}
	free(fired);
}

int
runner_run(struct scenario *scn, struct dn_store *store,
    const struct runner_opts *o, struct runner_result *res, char **cause)
{
	pthread_mutex_t		 store_mu = PTHREAD_MUTEX_INITIALIZER;
	struct plan_trial	*plan = NULL;
	struct trial		*trials = NULL, **slot = NULL;
	size_t			 n = 0, i, j;
	int			 rv = -1, reaped = 0;

	memset(res, 0, sizeof(*res));
	progress_tty = isatty(STDERR_FILENO);
	sig_count = 0;
	if (scn->order == SCN_ORDER_CONCURRENT &&
	    scn->network.tcp_base_port > 0) {
		*cause = dn_xstrdup("order 'concurrent' needs ipc endpoints "
		    "(two devnets cannot share one tcp_base_port)");
		return (-1);
	}
	if (dn_store_reap_stale(store, &reaped, cause) != 0)
		return (-1);
	if (reaped > 0 && !o->quiet)
		fprintf(stderr, "devnet: marked %d run(s) of a dead "
		    "orchestrator as interrupted\n", reaped);
	if (plan_trials(scn, &plan, &n) != 0 || n == 0) {
		*cause = dn_xstrdup("the scenario plans no trial");
		goto out;
	}
	if (dn_store_group_create(store, scn->name, o->label, &res->group_id,
	    cause) != 0 || dn_store_commit(store, cause) != 0)
		goto out;
	trials = dn_xcalloc(n, sizeof(*trials));
	slot = dn_xcalloc(n, sizeof(*slot));
	res->run_ids = dn_xcalloc(n, sizeof(*res->run_ids));
	for (i = 0; i < n && sig_count == 0;) {
		int	nt = 0;

		/* A slot: one trial, or (concurrent) all with its number. */
		for (j = i; j < n && plan[j].slot == plan[i].slot; j++) {
			struct trial	*t = &trials[j];

			t->scn = scn;
			t->var = plan[j].variant;
			t->pt = plan[j];
			t->ntrials = n;
			t->store = store;
			t->store_mu = &store_mu;
			if (trial_prepare(t, o, res->group_id, cause) != 0) {
				if (t->run_id > 0) {
					char *c2 = NULL;

					dn_store_run_end(store, t->run_id,
					    "failed", *cause, &c2);
					dn_store_commit(store, &c2);
					free(c2);
					res->run_ids[res->nruns++] = t->run_id;
				}
				for (; nt > 0; nt--) {
					slot[nt - 1]->failed = 1;
					trial_finish(slot[nt - 1], o);
				}
				goto out;
			}
			slot[nt++] = t;
			res->run_ids[res->nruns++] = t->run_id;
			if (!o->quiet)
				fprintf(stderr, "devnet: run %lld: trial %d/%zu,"
				    " variant %s, %d node(s), %s\n",
				    (long long)t->run_id, t->pt.index + 1, n,
				    t->var->name, t->nnodes, t->run_dir);
		}
		run_slot(slot, nt, o);
		for (j = 0; j < (size_t)nt; j++)
			res->nfailed += slot[j]->failed;
		i += (size_t)nt;
		/* A devnet that could not even start will not start next
		 * time either: stop instead of failing every trial. */
		for (j = 0; j < (size_t)nt; j++) {
			if (slot[j]->failed && atomic_load(&slot[j]->t0_ns) ==
			    0 && !sig_count) {
				fprintf(stderr, "devnet: stopping after run "
				    "%lld: its devnet never started\n",
				    (long long)slot[j]->run_id);
				rv = 0;
				goto out;
			}
		}
	}
	rv = 0;
out:
	res->signal = sig_count ? sig_first : 0;
	for (i = 0; trials != NULL && i < n; i++) {
		if (trials[i].scn != NULL)
			trial_release(&trials[i]);
	}
	free(trials);
	free(slot);
	free(plan);
	return (rv);
}

int
runner_exit_status(const struct runner_result *res)
{
	if (res->signal == SIGINT)
		return (130);
	if (res->signal == SIGTERM)
		return (143);
	return (res->nfailed > 0 ? 1 : 0);
}
