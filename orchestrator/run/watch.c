/*
 * watch.c: the runner's eyes on the nodes of a running trial: waiting
 * until every node said HELLO, firing the scenario's events (kill, term,
 * stop, cont, restart) when due, and noticing crashes, stalls, recoveries
 * and rejoins once per tick.
 *
 * Not here: starting the nodes (setup.c), stopping them (finish.c).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assert/assert.h"
#include "provider/provider.h"
#include "run/runner-internal.h"
#include "clock.h"
#include "xalloc.h"

#define action_name(a)	scenario_action_name(a)

/*
 * Every node is ready: keep how long each took (the fact ready_ms, from
 * the spawn of its trial's nodes) and warn about a node that used more
 * than 80 % of its limit (the runner's, or its probe's when shorter): a
 * slower start, on a busier machine, fails (issue 37 #5).
 */
static void
ready_times(struct trial **ts, int nt, int timeout_ms)
{
	int	i, k;

	for (i = 0; i < nt; i++) {
		struct trial	*t = ts[i];
		int		 limit = t->ready_limit_ms > 0 &&
				    t->ready_limit_ms < timeout_ms ?
				    t->ready_limit_ms : timeout_ms;

		for (k = 0; k < t->nnodes; k++) {
			uint64_t	at = t->nodes[k].ready_ns;
			double		ms;

			if (at == 0 || at < t->spawn_ns)
				continue;
			ms = (double)(at - t->spawn_ns) / 1e6;
			trial_fact(t, k, "ready_ms", "%.0f", ms);
			if (ms <= 0.8 * limit)
				continue;
			trial_event(t, k, "ready_slow", "ready after %.1f s "
			    "of a %.1f s limit", ms / 1e3, limit / 1e3);
			if (progress_tty)
				fputc('\n', stderr);
			fprintf(stderr, "devnet: run %lld: warning: node %d "
			    "was ready after %.1f s of its %.1f s limit "
			    "(%.0f %%): a slower start will fail; raise "
			    "--ready-timeout\n", (long long)t->run_id, k,
			    ms / 1e3, limit / 1e3, 100 * ms / limit);
		}
	}
}

/* Wait for a HELLO from every node of every trial.  0 when all are
 * ready; -1 when a trial failed (reason in the trial) or on a signal. */
int
watch_ready(struct trial **ts, int nt, int timeout_ms)
{
	uint64_t	deadline = dn_now_ns() + (uint64_t)timeout_ms * 1000000u;
	int		i, k, ready, rv, probe_grace = 0;

	for (;;) {
		ready = 1;
		for (i = 0; i < nt; i++) {
			struct trial	*t = ts[i];

			for (k = 0; k < t->nnodes; k++) {
				int	hello;

				pthread_mutex_lock(&t->mu);
				hello = t->nodes[k].hello;
				pthread_mutex_unlock(&t->mu);
				if (provider_poll(t->prov, k)) {
					char *m;

					rv = node_kind(t)->ready_exit(t, k);
					if (rv > 0)
						continue;
					if (rv < 0)
						return (-1);
					m = node_kind(t)->post_mortem(t, k,
					    "exited before it was ready");
					trial_fail(t, "%s", m);
					free(m);
					return (-1);
				}
				if (hello == 0)
					ready = 0;
				else if (t->nodes[k].ready_ns == 0)
					t->nodes[k].ready_ns = dn_now_ns();
			}
		}
		if (ready) {
			ready_times(ts, nt, timeout_ms);
			return (0);
		}
		if (signals_count > 0)
			return (-1);
		if (dn_now_ns() >= deadline && !probe_grace && nt > 0 &&
		    ts[0]->ready_limit_ms > 0) {
			/* A foreign node's probe gives up first and says
			 * which check failed and what it got: on a loaded
			 * machine its clock may have started late, so give
			 * its answer 2 s more before ours. */
			probe_grace = 1;
			deadline += 2000000000ull;
		}
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
					m = node_kind(ts[i])->post_mortem(
					    ts[i], k, what);
					trial_fail(ts[i], "%s", m);
					free(m);
					break;
				}
			}
			return (-1);
		}
		signals_tick(READY_WAIT_MS);
	}
}

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

/* Start node K again (a restart, an upgrade): 0, or -1 with an event
 * WHAT "failed: ..." and the node down. */
static int
start_again(struct trial *t, int k, const char *what)
{
	struct trial_node	*n = &t->nodes[k];
	char			*cause = NULL;

	pthread_mutex_lock(&t->mu);
	n->hello = 0;
	/* the stall clock starts again with the new process: the planned
	 * restart's own start (docker: a new container, ~2 s on a loaded
	 * machine) is not the node stalling */
	n->last_msg_ns = dn_now_ns();
	pthread_mutex_unlock(&t->mu);
	if (provider_start(t->prov, k, &cause) != 0) {
		trial_event(t, k, what, "failed: %s", cause);
		free(cause);
		n->down = 1;
		return (-1);
	}
	n->down = 0;
	n->stopped = 0;
	n->hstall_ns = 0;
	n->watch_h_ns = 0;
	n->crashed = 0;
	n->restart_ns = dn_now_ns();
	return (0);
}

/*
 * An upgrade (issue 39): stop the node as an operator would (SIGTERM,
 * SIGKILL after UPGRADE_GRACE_MS), then start the `to:` variant's build
 * on the node's own data directory; the event and the facts build_B_*
 * say which build it runs from when.
 */
#define UPGRADE_GRACE_MS	5000
static void
upgrade(struct trial *t, const struct scn_event *ev, int alive)
{
	struct trial_node	*n = &t->nodes[ev->node];
	const char		*to = t->scn->variants[ev->to].name;
	const char		*from = t->scn->variants[n->var].name;
	char			 st[64] = "node was down";
	uint64_t		 until;
	pid_t			 old = n->proc.pid;

	atomic_store(&n->up, 0);
	n->down = 1;
	if (alive) {
		until = dn_now_ns() + UPGRADE_GRACE_MS * 1000000ull;
		provider_signal(t->prov, ev->node, SIGTERM);
		while (!provider_poll(t->prov, ev->node) &&
		    dn_now_ns() < until)
			signals_tick(1);
		if (!provider_poll(t->prov, ev->node)) {
			provider_signal(t->prov, ev->node, SIGKILL);
			while (!provider_poll(t->prov, ev->node))
				signals_tick(1);
		}
		spawn_status_str(n->proc.status, st, sizeof(st));
	}
	if (n->builds == 0 && n->vargv[n->var] == NULL) {
		/* the first build's argv joins the others (setup.c) */
		n->vargv[n->var] = n->argv;
		n->venv[n->var] = n->env;
	}
	n->builds++;
	n->var = ev->to;
	n->argv = n->vargv[ev->to];
	n->env = n->venv[ev->to];
	free(n->cmdline);
	n->cmdline = plan_quote_argv(n->argv);
	if (start_again(t, ev->node, "upgrade") != 0)
		return;
	trial_event(t, ev->node, "upgrade", "from %s to %s: pid %d stopped "
	    "(%s), the build of %s started on its data as pid %d", from, to,
	    (int)old, st, to, (int)n->proc.pid);
	setup_build_facts(t, ev->node, trial_t_ms(t, dn_now_ns()));
}

static void
fire_event(struct trial *t, const struct scn_event *ev)
{
	struct trial_node	*n;
	int			 alive;

	if (ev->node < 0) {		/* the network's events */
		netcond_event(t, ev);
		return;
	}
	n = &t->nodes[ev->node];
	alive = !provider_poll(t->prov, ev->node);
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
		provider_signal(t->prov, ev->node, ev->action == SCN_EV_KILL ?
		    SIGKILL : SIGTERM);
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
		if (node_kind(t)->pause(t, ev->node, n->stopped))
			break;
		provider_signal(t->prov, ev->node,
		    n->stopped ? SIGSTOP : SIGCONT);
		trial_event(t, ev->node, action_name(ev->action), "pid %d",
		    (int)n->proc.pid);
		if (!n->stopped)
			n->restart_ns = dn_now_ns();	/* until it rejoins */
		break;
	case SCN_EV_PARTITION:
	case SCN_EV_HEAL:
	case SCN_EV_LINK:
		abort();	/* ev->node is -1: netcond_event above */
	case SCN_EV_RESTART:
		atomic_store(&n->up, 0);
		if (alive) {
			provider_signal(t->prov, ev->node, SIGKILL);
			while (!provider_poll(t->prov, ev->node))
				signals_tick(1);
		}
		if (start_again(t, ev->node, "restart") != 0)
			return;
		trial_event(t, ev->node, "restart", "%s; new pid %d",
		    alive ? "killed the running node" : "node was down",
		    (int)n->proc.pid);
		break;
	case SCN_EV_UPGRADE:
		upgrade(t, ev, alive);
		break;
	case SCN_EV_CLOCK_SKEW:
	case SCN_EV_DISK:
		faults_event(t, ev);
		break;
	}
}

/* Node K of T has exited: planned, or a crash (with what the provider
 * says of it: "out of memory ..."), unless its kind handles it.  An
 * exit on a disk a disk event filled is a crash of any kind of node, the
 * outcome of a planned fault, not a failed trial (a foreign node's exit
 * is otherwise, foreign.c). */
static void
node_exited(struct trial *t, int k)
{
	struct trial_node	*n = &t->nodes[k];
	char			 st[64], *m, *fault = faults_exit_note(t, k);

	free(n->exit_note);
	n->exit_note = provider_exit_note(t->prov, k);
	if (n->exit_note == NULL)
		n->exit_note = fault;
	else
		free(fault);
	if (fault == NULL && node_kind(t)->exited(t, k)) {
		free(n->exit_note);
		n->exit_note = NULL;
		return;
	}
	atomic_store(&n->up, 0);
	spawn_status_str(n->proc.status, st, sizeof(st));
	if (n->down) {
		trial_event(t, k, "exit", "%s (planned)", st);
		return;
	}
	m = node_kind(t)->post_mortem(t, k, "exited");
	n->crashed = 1;
	n->down = 1;
	t->unplanned++;
	trial_crash_event(t, k, st);
	if (!signals_count) {
		if (progress_tty)
			fputc('\n', stderr);
		fprintf(stderr, "devnet: run %lld: %s\n", (long long)t->run_id,
		    m);
	}
	free(m);
}

void
watch_exits(struct trial *t)
{
	int	k;

	for (k = 0; k < t->nnodes; k++)
		if (!t->nodes[k].proc.exited && provider_poll(t->prov, k))
			node_exited(t, k);
}

/* Look at every node once: exits, stalls, rejoins; fire due events. */
void
watch_trial(struct trial *t, char *fired)
{
	const struct scenario	*scn = t->scn;
	uint64_t		 now = dn_now_ns();
	int64_t			 tm = trial_t_ms(t, now), at;
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
		/* Windows anchored on it start when its row says it fired,
		 * up to a tick (or a slow restart) after its planned time. */
		at = -1;
		trial_event_capture(&at, action_name(ev->action));
		fire_event(t, ev);
		trial_event_capture(NULL, NULL);
		assert_event_fired(t, e, at >= 0 ? at : trial_t_ms(t,
		    dn_now_ns()));
	}
	netcond_tick(t);
	faults_tick(t);
	watch_exits(t);
	for (k = 0; k < t->nnodes; k++) {
		struct trial_node	*n = &t->nodes[k];
		uint64_t		 last;
		int			 hello, have_h;
		double			 h, best, lag;

		if (n->proc.exited)
			continue;
		pthread_mutex_lock(&t->mu);
		last = n->last_msg_ns;
		hello = n->hello;
		h = n->last[DN_M_HEIGHT];
		have_h = n->have_last >> DN_M_HEIGHT & 1;
		lag = n->last[DN_M_LAG_MS];
		pthread_mutex_unlock(&t->mu);
		/* The collector may have stamped a sample after NOW. */
		if (last > now)
			last = now;
		if (node_kind(t)->pause_watch(t, k, now, last, stall_ns, have_h,
		    h)) {
			/* a paused foreign node: its height says (foreign.c) */
		} else if (!n->stalled && !n->stopped && last != 0 &&
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
			if (last > n->restart_ns && node_kind(t)->in_step(t,
			    k, h, best, lag)) {
				trial_event(t, k, "rejoined", "at height %.0f, "
				    "%.0f ms after it came back", h,
				    (double)(now - n->restart_ns) / 1e6);
				n->restart_ns = 0;
			}
		}
	}
	node_kind(t)->watch(t);
	/* The live assertions, on the samples the nodes just sent. */
	assert_tick(t);
	if (t->store_failed && !t->failed)
		trial_fail(t, "cannot write to the database: %s",
		    t->store_error ? t->store_error : "?");
}
