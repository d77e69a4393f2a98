/*
 * finish.c: the end of one trial: stop the load, run the end checks, stop
 * the nodes and the collector, record the run's facts and outcome, and
 * print its summary.
 *
 * Not here: the checks themselves (endcheck.c).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trial/collector.h"
#include "trial/loadgen.h"
#include "trial/snapshot.h"
#include "provider/provider.h"
#include "assert/assert.h"
#include "run/runner-internal.h"
#include "clock.h"
#include "store.h"
#include "trial/trial-store.h"
#include "xalloc.h"

#define DEFAULT_GRACE_MS	5000

/* V with %.1f (SUFFIX " M") or %.0f into BUF, or "n/a" unless HAVE. */
static void
put_num(char *buf, int have, double v, const char *suffix)
{
	if (!have)
		snprintf(buf, 32, "n/a");
	else if (suffix[0] != '\0')
		snprintf(buf, 32, "%.1f%s", v, suffix);
	else
		snprintf(buf, 32, "%.0f", v);
}

/*
 * A foreign trial's named metrics (its scenario's log extractors and
 * Prometheus names outside the table): one row each, the last value per
 * node, "n/a" where a node sent none.
 */
static void
print_named(struct trial *t, FILE *f)
{
	size_t	j, w = 10;
	int	k;

	if (t->nncols == 0)
		return;
	for (j = 0; j < t->nncols; j++)
		if (strlen(t->ncols[j]) > w)
			w = strlen(t->ncols[j]);
	fprintf(f, "  %-*s", (int)w, "last value");
	for (k = 0; k < t->nnodes; k++)
		fprintf(f, " %10d", k);
	fprintf(f, "\n");
	pthread_mutex_lock(&t->mu);
	for (j = 0; j < t->nncols; j++) {
		fprintf(f, "  %-*s", (int)w, t->ncols[j]);
		for (k = 0; k < t->nnodes; k++) {
			const struct trial_node *n = &t->nodes[k];

			if (n->nlast != NULL && (n->nhave >> j & 1))
				fprintf(f, " %10.6g", n->nlast[j]);
			else
				fprintf(f, " %10s", "n/a");
		}
		fprintf(f, "\n");
	}
	pthread_mutex_unlock(&t->mu);
}

/* Where allocs/s comes from, per node: said, never left to guess (a Go
 * heap or a program's own malloc is not counted); one line when every
 * node has the same. */
static void
print_alloc_sources(const struct trial *t, FILE *f)
{
	const char	*first = t->nnodes > 0 ? t->nodes[0].alloc_source :
			    NULL;
	int		 k, same = first != NULL;

	for (k = 1; k < t->nnodes && same; k++)
		same = t->nodes[k].alloc_source != NULL &&
		    strcmp(t->nodes[k].alloc_source, first) == 0;
	if (same && t->nnodes > 1) {
		fprintf(f, "  allocations, every node: %s\n", first);
		return;
	}
	for (k = 0; k < t->nnodes; k++) {
		if (t->nodes[k].alloc_source != NULL)
			fprintf(f, "  node %d allocations: %s\n", k,
			    t->nodes[k].alloc_source);
	}
}

/* The load's line of the summary; a command that printed no DN-LOAD
 * line has no counts to show, and says so. */
static void
print_load(struct trial *t, FILE *f)
{
	struct loadgen_stats	 st = { 0 };

	if (t->lg == NULL || t->load == NULL)
		return;
	loadgen_stats(t->lg, &st);
	if (!st.reported) {
		fprintf(f, "  load: command, rate not reported (it printed "
		    "no DN-LOAD line in load-command.out; docs/scenarios.md, "
		    "\"The DN-LOAD lines\")\n");
		return;
	}
	fprintf(f, "  load: %lld submitted, %lld included, %lld failed, "
	    "%lld pending, %lld not sent; achieved %.2f tx/s",
	    (long long)st.submitted, (long long)t->tx_included,
	    (long long)t->tx_failed, (long long)(st.submitted -
	    st.send_errors - t->tx_included - t->tx_failed),
	    (long long)st.send_errors, st.elapsed_s > 0 ?
	    (double)(st.submitted - st.send_errors) / st.elapsed_s : 0);
	if (st.target_tps > 0)
		fprintf(f, " of %.2f", st.target_tps);
	fprintf(f, "\n");
}

/*
 * The load's run facts.  A command load has what its DN-LOAD lines said
 * (fact load_report: "lines", or "not reported" and no tx_* facts); its
 * send lag, wait and target are not devnet's to state.
 */
static void
load_facts(struct trial *t)
{
	struct loadgen_stats	 st = { 0 };
	int64_t			 pending;
	double			 achieved;
	int			 cmd = t->load != NULL && t->load->by_lines;

	if (t->lg == NULL || t->load == NULL)
		return;
	loadgen_stats(t->lg, &st);
	if (cmd)
		trial_fact(t, -1, "load_report", "%s", st.reported ?
		    "lines" : "not reported");
	if (!st.reported)
		return;
	pending = st.submitted - st.send_errors - t->tx_included -
	    t->tx_failed;
	achieved = st.elapsed_s > 0 ? (double)(st.submitted -
	    st.send_errors) / st.elapsed_s : 0;
	trial_fact(t, -1, "tx_submitted", "%lld", (long long)st.submitted);
	trial_fact(t, -1, "tx_included", "%lld", (long long)t->tx_included);
	trial_fact(t, -1, "tx_failed", "%lld", (long long)t->tx_failed);
	trial_fact(t, -1, "tx_pending", "%lld", (long long)pending);
	trial_fact(t, -1, "tx_send_errors", "%lld",
	    (long long)st.send_errors);
	trial_fact(t, -1, "tx_duplicates", "%lld",
	    (long long)t->tx_duplicates);
	trial_fact(t, -1, "achieved_tps", "%.3f", achieved);
	if (cmd)
		return;
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
	/* How it waited: sleep or spin, at a real-time priority or
	 * not (docs/benchmarks.md, "Load generator wait"). */
	trial_fact(t, -1, "loadgen_wait", "%s", st.wait);
	trial_fact(t, -1, "loadgen_realtime", "%d", st.realtime);
	if (t->scn->workload.realtime && !st.realtime)
		trial_event(t, -1, "realtime_denied", "workload."
		    "realtime: SCHED_FIFO not allowed here (root or "
		    "CAP_SYS_NICE); the load generator ran at the "
		    "default priority");
	if (!signals_count && st.elapsed_s > 0 &&
	    achieved < 0.99 * st.target_tps)
		trial_event(t, -1, "rate_missed", "achieved %.2f tx/s "
		    "of %.2f", achieved, st.target_tps);
	if (t->tx_duplicates > 0)
		trial_fail(t, "%lld transaction(s) included twice",
		    (long long)t->tx_duplicates);
}

static void
print_summary(struct trial *t, const struct runner_opts *o)
{
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
	    signals_count ? "interrupted" : t->failed ? "FAILED" : "ok");
	fprintf(f, "\n");
	print_load(t, f);
	fprintf(f, "  %-4s %10s %10s %10s %8s %8s %7s", "node", "max RSS",
	    "avg RSS", "allocs/s", "max lag", "height", "lost");
	if (node_kind(t)->show_usage)
		fprintf(f, " %8s", "cpu");
	fprintf(f, "\n");
	for (k = 0; k < t->nnodes; k++) {
		struct trial_node	*n = &t->nodes[k];
		double			 dt = (double)(n->last_t - n->first_t) /
					    1000.0;
		char			 c[4][32];

		/* What a foreign node's probe could not see is "n/a",
		 * never 0 (protocol 3, docs/probe.md). */
		put_num(c[0], n->rss_n > 0, n->rss_max / 1048576.0, " M");
		put_num(c[1], n->rss_n > 0, n->rss_n ? n->rss_sum /
		    (double)n->rss_n / 1048576.0 : 0, " M");
		put_num(c[2], (n->have_firsts >> DN_M_ALLOCS & 1) && dt > 0,
		    dt > 0 ? (n->last[DN_M_ALLOCS] - n->first[DN_M_ALLOCS]) /
		    dt : 0, "");
		put_num(c[3], n->lag_n > 0, n->lag_max, "");
		fprintf(f, "  %-4d %10s %10s %10s %8s ", k, c[0], c[1], c[2],
		    c[3]);
		if (n->have_last >> DN_M_HEIGHT & 1)
			fprintf(f, "%8.0f", n->last[DN_M_HEIGHT]);
		else
			fprintf(f, "%8s", "n/a");
		fprintf(f, " %7lld", (long long)n->lost);
		if (node_kind(t)->show_usage) {
			/* cores used after warmup, from the probe's /proc
			 * tree of the command */
			uint64_t cpu = (1ull << DN_M_CPU_USER_S) |
			    (1ull << DN_M_CPU_SYS_S);

			if ((n->have_firsts & cpu) == cpu && dt > 0)
				snprintf(c[0], sizeof(c[0]), "%.2f", (n->last[
				    DN_M_CPU_USER_S] + n->last[DN_M_CPU_SYS_S] -
				    n->first[DN_M_CPU_USER_S] - n->first[
				    DN_M_CPU_SYS_S]) / dt);
			else
				snprintf(c[0], sizeof(c[0]), "n/a");
			fprintf(f, " %8s", c[0]);
		}
		fprintf(f, "%s\n", n->crashed ? "  crashed" : "");
	}
	print_named(t, f);
	print_alloc_sources(t, f);
	for (k = 0; k < (int)t->nunmeasured; k++)
		fprintf(f, "  warning: metric '%s' was declared but never "
		    "measured: %s\n", t->unmeasured[k].name,
		    t->unmeasured[k].why);
	if (t->rejected > 0)
		fprintf(f, "  %lld message(s) rejected\n", (long long)t->rejected);
	fflush(f);
}

/* Disconnect the load, check the state, stop the nodes (grace, then
 * SIGKILL) and the collector; each remote node's clock correction. */
static void
stop_nodes(struct trial *t, const struct runner_opts *o)
{
	uint64_t	t_lg, t_stop, t_col, t_end;
	int		k, killed, grace;

	t_lg = dn_now_ns();
	loadgen_disconnect(t->lg);
	t_lg = dn_now_ns() - t_lg;
	if (t->t0_ns != 0 && !t->failed && !signals_count)
		endcheck_state(t);
	t_stop = dn_now_ns();
	grace = node_kind(t)->grace(t, signals_count > 1 ? 0 :
	    o->grace_ms ? o->grace_ms : DEFAULT_GRACE_MS);
	killed = provider_stop_all(t->prov, grace);
	provider_teardown(t->prov);
	if (killed > 0)
		trial_event(t, -1, "sigkill", "%d node(s) needed SIGKILL after "
		    "the %d ms grace period", killed, grace);
	node_kind(t)->reap(t);
	t_col = dn_now_ns();
	collector_stop(t->col, signals_count > 1 ? 100 : 1000);
	t->col = NULL;
	t_end = dn_now_ns();
	/* where the end of a trial went (issue 40: at 200 nodes a 30 s
	 * trial ended a minute after its window) */
	trial_fact(t, -1, "end_phases_ms", "drain %lld, load close %lld, "
	    "state check %lld (%d status rounds), stop %lld, collector %lld",
	    (long long)t->end_drain_ms, (long long)(t_lg / 1000000u),
	    (long long)t->end_state_ms, t->end_state_rounds,
	    (long long)((t_col - t_stop) / 1000000u),
	    (long long)((t_end - t_col) / 1000000u));
	for (k = 0; k < t->nnodes; k++) {
		if (t->nodes[k].remote_clock && t->nodes[k].have_clock)
			trial_event(t, k, "clock", "host %s: node times moved "
			    "by %+.3f ms onto devnet's clock (the least "
			    "receive - send over its messages: the clocks' "
			    "difference plus the smallest delay)",
			    t->nodes[k].addr,
			    (double)t->nodes[k].clock_d / 1e6);
	}
}

/* What devnet itself cost trial T, and what its comparisons are about
 * (the scenario's compare.primary or its node kind's default, read back
 * by verdict/compare-primary.c). */
static void
own_facts(struct trial *t)
{
	char	*primary = scenario_primary_text(t->scn);

	trial_fact(t, -1, "compare_primary", "%s", primary);
	free(primary);
	/* devnet's own CPU: collector, load generator, main loop and nng
	 * from spawn to here (trials run concurrently share it). */
	trial_fact(t, -1, "orchestrator_cpu_s", "%.3f",
	    dn_cpu_s() - t->cpu0_s);
	/* the trial's window in wall time: what lies between one trial's
	 * window and the next one's is devnet's overhead (tools/bench/
	 * trial-overhead.sh) */
	if (t->t0_wall_ms > 0)
		trial_fact(t, -1, "window_start_ms", "%lld",
		    (long long)t->t0_wall_ms);
	if (t->t0_wall_ms > 0 && t->end_wall_ms > 0)
		trial_fact(t, -1, "window_end_ms", "%lld",
		    (long long)t->end_wall_ms);
}

/* runs.reason for T, or NULL (caller frees). */
static char *
run_reason(struct trial *t)
{
	if (t->failed)
		return (dn_xstrdup(t->fail_reason ? t->fail_reason :
		    "failed"));
	if (signals_count)
		return (dn_xasprintf("stopped by %s",
		    signals_name(signals_first)));
	if (t->unplanned > 0)
		return (dn_xasprintf("%d unplanned fault(s): see events",
		    t->unplanned));
	if (assert_ended_by(t) != NULL)
		return (dn_xasprintf("ended early: assertion '%s' failed "
		    "(abort_on_fail)", assert_ended_by(t)));
	return (NULL);
}

/* Stop the load, check, stop the nodes, record the outcome. */
void
finish_trial(struct trial *t, const struct runner_opts *o)
{
	int64_t			 lost = 0;
	const char		*status;
	char			*cause = NULL, *reason = NULL;
	int			 k;

	/* the end of the window, before the nodes' stop */
	if (t->itf_n > 0)
		dn_itf_read(&t->itf_end);
	stop_nodes(t, o);

	/* The facts, events and end of the run in one commit: a few pages,
	 * not a few per fact (what the reserve of a full disk must hold). */
	trial_store_begin(t);

	for (k = 0; k < t->nnodes; k++) {
		lost += t->nodes[k].lost;
		/* SAMPLE messages the collector accepted for the trial from
		 * node K: a test can check each one was stored, under K. */
		trial_fact(t, k, "samples_received", "%lld",
		    (long long)t->nodes[k].samples);
	}
	node_kind(t)->facts(t);
	provider_facts(t->prov);
	netcond_finish(t);
	faults_finish(t);
	trial_fact(t, -1, "lost_samples", "%lld", (long long)lost);
	trial_fact(t, -1, "rejected_msgs", "%lld", (long long)t->rejected);
	if (t->drain_unread > 0)
		trial_fact(t, -1, "drain_unread", "%lld",
		    (long long)t->drain_unread);
	own_facts(t);
	interference_finish(t, o);
	load_facts(t);
	if (t->store_failed)
		trial_fail(t, "cannot write to the database: %s",
		    t->store_error ? t->store_error : "?");
	/* The store went down in this slot (runner.c released the reserve
	 * for what follows): say so among the events too. */
	if (trial_store_down(t))
		trial_event(t, -1, "store_failed", "%s; samples committed "
		    "before it are kept, later ones lost", t->fail_reason ?
		    t->fail_reason : "cannot write to the database");

	if (signals_count)
		status = "interrupted";
	else if (t->failed)
		status = "failed";
	else
		status = "ok";
	reason = run_reason(t);
	if (trial_store_run_end(t, status, reason, &cause) != 0) {
		fprintf(stderr, "devnet: run %lld: cannot record its end: %s\n",
		    (long long)t->run_id, cause);
		free(cause);
		t->failed = 1;
	}
	snapshot_trial_end(t, status);
	free(reason);
	assert_finish(t, o->quiet ? NULL : stderr);	/* samples committed */
	print_summary(t, o);
}
