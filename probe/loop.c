/*
 * loop.c: devnet-probe's event loop (probe_run in probe.h).  One thread
 * (nng runs its own): poll on the child's output pipe and a signalfd,
 * with timers for the sample schedule, the ready checks and the stop
 * grace.  Here live the lifecycle rules:
 *
 *   - SIGTERM and SIGINT to the probe stop COMMAND: --stop-signal to its
 *     process group and to every descendant, then SIGKILL after
 *     --stop-grace.  SIGHUP and SIGQUIT are forwarded to the group as
 *     they are.
 *   - SIGTSTP to the probe pauses COMMAND: SIGSTOP to its process group
 *     and every descendant; SIGCONT resumes them (the runner's `stop` and
 *     `cont` events).  The probe itself keeps running and sampling, so a
 *     paused node's samples show the stall (CPU and log lines flat, a log
 *     extractor's last value); the scrape is not sent to a stopped node,
 *     the last one's values stand for it (a stopped process cannot change
 *     them).
 *   - Ready when every --ready check passed and (with --metrics) the
 *     collector pipe is up; then one HELLO (pid = COMMAND's pid, flags
 *     0), as devnet-node sends it.  Not ready within --ready-timeout:
 *     DN-PROBE-READY-TIMEOUT, COMMAND stopped, exit 124.
 *   - When COMMAND exits, whatever it left running (in its group or
 *     escaped, reparented to the probe as child subreaper) gets SIGTERM,
 *     then SIGKILL after the grace; the probe reaps everything, sends a
 *     final sample and exits with COMMAND's status.
 *
 * Samples: every --sample-interval on a fixed schedule from the start,
 * like devnet-node's agent: a SAMPLE with every table metric, those the
 * probe cannot see flagged absent (allocations without a mapped shim, the
 * devnet-node-only metrics, log extractors before their first match), and
 * a NAMED message with the extractors whose names are not in the table.
 * With --prom-url, one scrape per sample once COMMAND is ready (scrape.c);
 * its table names go into the SAMPLE, the others into the NAMED message.
 * The scrape is started at the sample's time and read SETTLE later, when
 * a page the node writes in many small pieces sits whole in the socket:
 * then the whole sample (the /proc tree too) is taken and sent.  The loop
 * never polls the scrape's socket itself, so the probe wakes twice per
 * sample, not once per write of the node (docs/benchmarks.md, probe
 * cost).  A page not whole by then is read again every SETTLE until its
 * timeout.
 */
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http.h"
#include "metric-table.h"
#include "probe.h"
#include "loop-internal.h"
#include "protocol.h"
#include "transport.h"
#include "clock.h"
#include "xalloc.h"

#define READY_POLL_MS		50
#define FINAL_TIMEOUT_MS	500
#define HELLO_TIMEOUT_MS	1000
#define SETTLE_MS		30	/* at most a tenth of the interval */


/* --- messages -------------------------------------------------------- */

static void
send_msg(struct run *r, const uint8_t *buf, size_t len, int timeout_ms)
{
	int	rv;

	if (r->sock == NULL)
		return;
	if (timeout_ms > 0) {
		dn_sock_set_timeouts(r->sock, timeout_ms, -1);
		rv = dn_sock_send(r->sock, buf, len, 0);
		dn_sock_set_timeouts(r->sock, -1, -1);
	} else
		rv = dn_sock_send(r->sock, buf, len, 1);
	if (rv != 0)
		r->dropped++;
}

static void
send_hello(struct run *r)
{
	struct dn_hdr	h = { .kind = DN_MSG_HELLO, .token = r->o->token,
			    .node = r->o->index, .len = DN_HELLO_SIZE };
	uint8_t		buf[DN_HDR_SIZE + DN_HELLO_SIZE];

	h.seq = ++r->other_seq;
	h.t_ns = dn_now_ns();
	dn_hdr_put(buf, &h);
	dn_put_u32(buf + DN_HDR_SIZE, (uint32_t)r->child.pid);
	dn_put_u32(buf + DN_HDR_SIZE + 4, 0);
	send_msg(r, buf, sizeof(buf), HELLO_TIMEOUT_MS);
}

/* A scrape may take up to half the interval, at most 2 s: a slow node
 * cannot hold the event loop (signals, the stop grace) for long. */
static int
scrape_timeout(const struct run *r)
{
	int	ms = r->o->interval_ms / 2;

	return (ms > 2000 ? 2000 : ms < 5 ? 5 : ms);
}

/*
 * Settle where this node's allocation figures come from, once, and say it
 * (DN-PROBE-ALLOC child=PID source=...; the runner stores it as the
 * node's alloc_source fact): "malloc (ALLOCATOR)" from the shim's page,
 * "Go runtime" from the node's own go_memstats_* counters, or "not
 * measured: WHY", and then the allocation metrics stay absent.
 */
static void
alloc_source(struct run *r, int final)
{
	const char	*name;
	int		 mixed = 0;

	if (r->source != NULL)
		return;
	if (!r->o->count_allocs)
		r->source = dn_xstrdup("not measured: count_allocs is off");
	else if (r->go && r->o->prom_url == NULL)
		r->source = dn_xstrdup("not measured: Go runtime heap (no "
		    "Prometheus page to read Go's own counters from)");
	else if (r->go && r->have_cur_scrape &&
	    (r->cs_present & (1ull << DN_M_ALLOCS)))
		r->source = dn_xstrdup("Go runtime");
	else if (r->go && (r->have_cur_scrape || final))
		r->source = dn_xstrdup("not measured: Go runtime heap "
		    "(go_memstats_mallocs_total is not on its Prometheus "
		    "page)");
	else if (r->go)
		return;		/* until the first scrape */
	else if (r->page != NULL &&
	    (name = alloc_page_allocator(r->page, &mixed)) != NULL) {
		if (strncmp(name, "own:", 4) == 0)
			r->source = dn_xasprintf("not measured: the program "
			    "defines malloc itself (%s)", name + 4);
		else {
			r->source = dn_xasprintf("malloc (%s%s)", name,
			    mixed ? ", and others in its process tree" : "");
			r->alloc_ok = 1;
		}
	} else if (final)	/* ready may come before COMMAND's exec */
		r->source = dn_xstrdup("not measured: the shim was not "
		    "loaded (a static binary?)");
	else
		return;
	say("DN-PROBE-ALLOC", "child=%d source=%s", (int)r->child.pid,
	    r->source);
}

static void
sample(struct run *r, int final)
{
	struct dn_sample	 s;
	struct dn_hdr		 h = { .token = r->o->token,
				    .node = r->o->index };
	struct alloc_totals	 at;
	struct dn_named		*named = NULL;
	uint8_t			 buf[DN_HDR_SIZE + 16 + 8 * DN_SAMPLE_MAX];
	uint8_t			*nbuf = NULL;
	uint64_t		 present = 0;
	size_t			 n, nn = 0, i;
	static const int	 proc_ids[] = { DN_M_RSS_BYTES,
		DN_M_HWM_BYTES, DN_M_THREADS, DN_M_MINFLT, DN_M_MAJFLT,
		DN_M_CPU_USER_S, DN_M_CPU_SYS_S, DN_M_CTX_VOL,
		DN_M_CTX_INVOL, DN_M_IO_READ_BYTES, DN_M_IO_WRITE_BYTES,
		DN_M_FDS };

	memset(&s, 0, sizeof(s));
	s.count = DN_METRIC_COUNT;
	s.flags = final ? DN_SAMPLE_FINAL : 0;
	tree_read(r->tree, s.values);
	for (i = 0; i < sizeof(proc_ids) / sizeof(proc_ids[0]); i++)
		present |= 1ull << proc_ids[i];
	if (r->o->count_allocs && !r->go &&
	    bin_tree_has_go(r->tree, &r->seen)) {
		/* a wrapper exec'd a Go binary (issue 25): what the shim
		 * saw was the wrapper's, the heap is Go's */
		r->go = 1;
		free(r->source);
		r->source = NULL;
		r->alloc_ok = 0;
	}
	alloc_source(r, final);
	if (r->page != NULL && (r->source == NULL || r->alloc_ok) &&
	    alloc_page_read(r->page, r->tree, &at) == 0) {
		s.values[DN_M_ALLOCS] = (double)at.allocs;
		s.values[DN_M_FREES] = (double)at.frees;
		s.values[DN_M_ALLOC_BYTES] = (double)at.alloc_bytes;
		s.values[DN_M_HEAP_LIVE_BYTES] = (double)at.heap_live_bytes;
		present |= (1ull << DN_M_ALLOCS) | (1ull << DN_M_FREES) |
		    (1ull << DN_M_ALLOC_BYTES) |
		    (1ull << DN_M_HEAP_LIVE_BYTES);
	}
	s.values[DN_M_LOG_LINES] = (double)logpump_lines(r->pump);
	present |= 1ull << DN_M_LOG_LINES;
	named = dn_xcalloc(PROBE_NAMED_CAP(r->o), sizeof(*named));
	if (r->scrape != NULL) {
		/* The scrape of this interval (start_sample), if any. */
		if (!final && r->have_cur_scrape) {
			for (i = 0; i < DN_METRIC_COUNT; i++) {
				if (r->cs_present & (1ull << i))
					s.values[i] = r->cs_values[i];
			}
			present |= r->cs_present;
			memcpy(named, r->cs_named, r->cs_nn *
			    sizeof(*named));
			nn = r->cs_nn;
		} else if ((final || r->stopping) && r->have_last_scrape) {
			for (i = 0; i < DN_METRIC_COUNT; i++) {
				if (r->ls_present & (1ull << i))
					s.values[i] = r->ls_values[i];
			}
			present |= r->ls_present;
			memcpy(named, r->ls_named, r->ls_nn *
			    sizeof(*named));
			nn = r->ls_nn;
		}
		snprintf(named[nn].name, sizeof(named[nn].name), "%s",
		    DN_NAME_SCRAPE_FAILURES);
		named[nn].kind = DN_NAMED_COUNTER;
		named[nn].value = (double)scrape_failures(r->scrape);
		nn++;
	}
	for (i = 0; i < r->o->next; i++) {
		struct probe_extractor	*e = &r->o->ext[i];

		if (!e->have)
			continue;
		if (e->table_id >= 0) {
			s.values[e->table_id] = e->value;
			present |= 1ull << e->table_id;
			continue;
		}
		snprintf(named[nn].name, sizeof(named[nn].name), "%s",
		    e->name);
		named[nn].kind = e->counter ? DN_NAMED_COUNTER :
		    DN_NAMED_GAUGE;
		named[nn].value = e->value;
		nn++;
	}
	s.dropped = (uint32_t)r->dropped;
	s.values[DN_M_SAMPLES_DROPPED] = (double)r->dropped;
	present |= 1ull << DN_M_SAMPLES_DROPPED;
	s.absent = ((1ull << DN_METRIC_COUNT) - 1) & ~present;

	h.seq = ++r->sample_seq;
	h.t_ns = dn_now_ns();
	n = dn_sample_encode(buf, sizeof(buf), &h, &s);
	if (n == 0)
		r->dropped++;
	else
		send_msg(r, buf, n, final ? FINAL_TIMEOUT_MS : 0);
	if (nn > 0) {
		size_t	cap = DN_HDR_SIZE + 8 + nn * (2 + DN_NAME_MAX + 8);

		nbuf = dn_xmalloc(cap);
		h.seq = ++r->other_seq;
		n = dn_named_encode(nbuf, cap, &h,
		    final ? DN_SAMPLE_FINAL : 0, named, nn);
		if (n == 0)
			r->dropped++;
		else
			send_msg(r, nbuf, n, final ? FINAL_TIMEOUT_MS : 0);
	}
	free(nbuf);
	free(named);
}

/* A tenth of the interval, at most SETTLE_MS, at least 1 ms. */
static uint64_t
settle_ns(const struct run *r)
{
	int	ms = r->o->interval_ms / 10;

	ms = ms > SETTLE_MS ? SETTLE_MS : ms < 1 ? 1 : ms;
	return ((uint64_t)ms * 1000000u);
}

/*
 * Read what has arrived of the scrape in flight (waiting at most WAIT_MS
 * for it); once it is over, take and send the sample with its result (a
 * failed scrape: its metrics absent).
 */
static void
scrape_check(struct run *r, int wait_ms)
{
	int	rv;

	rv = scrape_step(r->scrape, wait_ms, r->cs_values, &r->cs_present,
	    r->cs_named, &r->cs_nn, PROBE_NAMED_CAP(r->o) - 1);
	if (rv == 1) {
		r->scrape_check_ns = dn_now_ns() + settle_ns(r);
		return;
	}
	r->scraping = 0;
	r->have_scrape = 1;
	r->have_cur_scrape = 1;
	sample(r, 0);
	r->have_cur_scrape = 0;
}

/* A scrape in flight that cannot wait any longer: finish it now. */
static void
scrape_finish(struct run *r)
{
	while (r->scraping)
		scrape_check(r, 50);
}

/*
 * The sample is due.  Only a ready, running COMMAND is scraped (before,
 * a refused connection is no failure; after it exited or was told to
 * stop, there is nobody to ask; paused, it cannot answer):
 * then the GET is sent now and the sample taken when it is read
 * (scrape_check); else the sample is taken now.
 */
static void
start_sample(struct run *r)
{
	if (r->scraping)
		scrape_finish(r);
	if (r->scrape == NULL || !r->ready || r->child.reaped ||
	    r->stopping) {
		/* (stopping: the scrape taken when told to stands; a node
		 * shutting down is not asked again) */
		sample(r, 0);
		return;
	}
	if (r->paused) {
		/* Nobody to answer: the last scrape stands (absent if none). */
		r->have_cur_scrape = r->have_scrape;
		sample(r, 0);
		r->have_cur_scrape = 0;
		return;
	}
	if (r->skip_left > 0) {
		/* --scrape-every N: the values are those of their scrape
		 * time, so a sample between scrapes has none (absent),
		 * rather than the last ones restated at a later time */
		r->skip_left--;
		sample(r, 0);
		return;
	}
	r->skip_left = r->o->scrape_every - 1;
	r->cs_present = 0;
	r->cs_nn = 0;
	if (r->cs_named == NULL)
		r->cs_named = dn_xcalloc(PROBE_NAMED_CAP(r->o),
		    sizeof(*r->cs_named));
	if (scrape_start(r->scrape, scrape_timeout(r)) != 0) {
		r->have_scrape = 1;
		r->have_cur_scrape = 1;
		sample(r, 0);
		r->have_cur_scrape = 0;
		return;
	}
	r->scraping = 1;
	r->scrape_check_ns = dn_now_ns() + settle_ns(r);
}

/* --- lifecycle ------------------------------------------------------- */

/*
 * Told to stop a ready COMMAND: scrape it once more before it gets the
 * signal, and send that in the final sample.  The runner stops the load
 * and waits for its answers before it stops the nodes, so this is the
 * node's state at the end of the trial (e.g. every etcd member's final
 * applied index), which the last periodic scrape, up to an interval
 * earlier, is not.
 */
static void
last_scrape(struct run *r)
{
	size_t	cap = PROBE_NAMED_CAP(r->o) - 1;

	if (r->scrape == NULL || !r->ready || r->child.reaped || r->paused)
		return;
	r->ls_named = dn_xcalloc(cap + 1, sizeof(*r->ls_named));
	if (scrape_run(r->scrape, scrape_timeout(r), r->ls_values,
	    &r->ls_present, r->ls_named, &r->ls_nn, cap) == 0)
		r->have_last_scrape = 1;
}

static void
begin_stop(struct run *r, int sig, const char *why)
{
	if (r->stopping)
		return;
	r->stopping = 1;
	scrape_finish(r);
	last_scrape(r);
	say("DN-PROBE-STOP", "%s: SIG%s to pid %d's group, SIGKILL in %d ms",
	    why, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?",
	    (int)r->child.pid, r->o->stop_grace_ms);
	child_signal(&r->child, SIGCONT);
	(void)tree_signal_all(r->tree, SIGCONT);
	r->paused = 0;
	child_signal(&r->child, sig);
	(void)tree_signal_all(r->tree, sig);
	r->kill_at_ns = dn_now_ns() + (uint64_t)r->o->stop_grace_ms * 1000000u;
}

/*
 * 1 once the collector, reached before, has had no connection for 3 s:
 * devnet is gone, also where no death signal can say so (a container:
 * the probe is pid 1 there).  Issue 19.
 */
static int
collector_gone(struct run *r, uint64_t now)
{
	if (r->sock == NULL || dn_sock_npipes(r->sock) > 0) {
		r->gone_since_ns = 0;
		return (0);
	}
	if (r->gone_since_ns == 0)
		r->gone_since_ns = now;
	return (now - r->gone_since_ns >= 3000000000ull);
}

static void
kill_all(struct run *r)
{
	int	n;

	child_signal(&r->child, SIGKILL);
	n = tree_signal_all(r->tree, SIGKILL);
	if (!r->killed)
		say("DN-PROBE-KILL", "grace over: SIGKILL to %d process(es)",
		    n + (r->child.reaped ? 0 : 1));
	r->killed = 1;
	r->kill_at_ns = 0;
}

static void
reap(struct run *r)
{
	struct rusage	ru;
	int		status;
	pid_t		pid;

	while ((pid = child_reap_any(&status, &ru)) > 0) {
		tree_add_reaped(r->tree, &ru);
		if (pid == r->child.pid) {
			r->child.reaped = 1;
			r->child.status = status;
		}
	}
}

/* SIGTSTP (PAUSE) or SIGCONT to the probe: SIGSTOP or SIGCONT to
 * COMMAND's group and every descendant (one that left the group too). */
static void
pause_resume(struct run *r, int pause)
{
	int	sig = pause ? SIGSTOP : SIGCONT, n;

	if (r->child.reaped || r->stopping || pause == r->paused)
		return;
	/* A GET in flight gets its answer first: its values stand for the
	 * paused node (a stopped node would let it time out). */
	if (pause)
		scrape_finish(r);
	child_signal(&r->child, sig);
	n = tree_signal_all(r->tree, sig);
	r->paused = pause;
	say(pause ? "DN-PROBE-PAUSE" : "DN-PROBE-RESUME", "SIG%s to pid %d's "
	    "group and %d descendant(s)", pause ? "STOP" : "CONT",
	    (int)r->child.pid, n);
}

static void
on_signal(struct run *r)
{
	struct signalfd_siginfo	si;

	while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int	sig = (int)si.ssi_signo;

		switch (sig) {
		case SIGCHLD:
			reap(r);
			break;
		case SIGTERM:
		case SIGINT:
			begin_stop(r, r->o->stop_signal,
			    sig == SIGTERM ? "SIGTERM" : "SIGINT");
			break;
		case SIGTSTP:
		case SIGCONT:
			pause_resume(r, sig == SIGTSTP);
			break;
		case SIGUSR1:
			/* Nobody will collect, stop or reap: the whole tree
			 * goes, as at the end of a trial. */
			if (r->parent != 0 && getppid() != r->parent)
				begin_stop(r, r->o->stop_signal,
				    "devnet is gone");
			break;
		default:	/* SIGHUP, SIGQUIT */
			if (!r->child.reaped)
				child_signal(&r->child, sig);
			break;
		}
	}
}

/* "status 3" / "killed by SIGKILL" into BUF. */
static const char *
status_str(int status, char *buf, size_t len)
{
	const char	*name;

	if (WIFSIGNALED(status)) {
		name = sigabbrev_np(WTERMSIG(status));
		snprintf(buf, len, "killed by SIG%s", name ? name : "?");
	} else
		snprintf(buf, len, "status %d", WEXITSTATUS(status));
	return (buf);
}

/*
 * Not ready in time: which check failed, how often it was tried and what
 * it got the last time, on the line devnet shows (issue 37 #5).
 */
static void
ready_timeout_say(struct run *r)
{
	const struct probe_ready	*p = ready_pending(r->o);

	if (p == NULL)
		say("DN-PROBE-READY-TIMEOUT", "child=%d not ready after %d "
		    "ms: waiting for devnet's collector to connect",
		    (int)r->child.pid, r->o->ready_timeout_ms);
	else if (p->kind == READY_LOG || p->kind == READY_DELAY)
		say("DN-PROBE-READY-TIMEOUT", "child=%d not ready after %d "
		    "ms: waiting for '%s'; last answer: %s",
		    (int)r->child.pid, r->o->ready_timeout_ms, p->spec,
		    p->kind == READY_LOG ? "no line of its output matched" :
		    "the delay is longer than the timeout");
	else
		say("DN-PROBE-READY-TIMEOUT", "child=%d not ready after %d "
		    "ms: waiting for '%s'; tried %u times, %d ms apart at "
		    "first, doubling to %d ms; last answer: %s",
		    (int)r->child.pid, r->o->ready_timeout_ms, p->spec,
		    p->tries, READY_GAP_FIRST_MS, READY_GAP_MAX_MS,
		    p->last[0] != '\0' ? p->last : "none yet");
}

/* Not ready yet: the checks that are due, then HELLO, or the timeout. */
static void
ready_step(struct run *r, uint64_t now)
{
	const struct probe_opts	*o = r->o;

	if (ready_poll(r->o, r->http, r->start_ns) &&
	    (r->sock == NULL || dn_sock_npipes(r->sock) > 0)) {
		r->ready = 1;
		say("DN-PROBE-READY", "child=%d after %llu ms (limit %d ms)",
		    (int)r->child.pid, (unsigned long long)((dn_now_ns() -
		    r->start_ns) / 1000000), o->ready_timeout_ms);
		send_hello(r);
	} else if (now - r->start_ns >=
	    (uint64_t)o->ready_timeout_ms * 1000000u) {
		ready_timeout_say(r);
		r->ready_timed_out = 1;
		begin_stop(r, o->stop_signal, "ready timeout");
	}
}

/* Milliseconds from NOW to AT (0 when past), capped at CAP. */
static int
ms_until(uint64_t now, uint64_t at, int cap)
{
	uint64_t	ms;

	if (at <= now)
		return (0);
	ms = (at - now + 999999) / 1000000;
	return (ms < (uint64_t)cap ? (int)ms : cap);
}

int
probe_run(struct probe_opts *o)
{
	struct run	 r;
	struct rusage	 self;
	char		*cause = NULL, desc[64];
	int		 code;

	memset(&r, 0, sizeof(r));
	r.o = o;
	r.sigfd = -1;
	if (loop_setup(&r, &cause) != 0) {
		say("DN-PROBE-ERROR", "%s", cause);
		free(cause);
		if (r.child.pid > 0) {
			child_signal(&r.child, SIGKILL);
			(void)waitpid(r.child.pid, NULL, 0);
		}
		loop_teardown(&r);
		return (PROBE_EXIT_ERROR);
	}
	r.next_sample_ns = r.start_ns + (uint64_t)o->interval_ms * 1000000u;
	for (;;) {
		struct pollfd	pfd[2];
		uint64_t	now = dn_now_ns();
		int		timeout, nfd = 0;

		if (r.child.reaped) {
			/* anything still alive was left behind by COMMAND */
			int	left = tree_signal_all(r.tree, 0);

			if (left > 0 && !r.stopping)
				begin_stop(&r, SIGTERM, "command exited, "
				    "descendants left");
			if (left == 0 && !r.pipe_eof) {
				/* nobody left to write: drain, then done */
				while (logpump_read(r.pump) == 0) {
					struct pollfd	p1 = {
					    logpump_fd(r.pump), POLLIN, 0 };

					if (poll(&p1, 1, 0) <= 0)
						break;
				}
				r.pipe_eof = 1;
			}
			if (left == 0)
				break;
		}
		if (r.kill_at_ns != 0 && now >= r.kill_at_ns)
			kill_all(&r);
		if (r.ready && !r.stopping && collector_gone(&r, now))
			begin_stop(&r, o->stop_signal, "no collector for "
			    "3000 ms: devnet is gone");
		if (!r.ready && !r.stopping && !r.child.reaped)
			ready_step(&r, now);
		now = dn_now_ns();
		if (r.scraping && now >= r.scrape_check_ns)
			scrape_check(&r, 0);
		if (now >= r.next_sample_ns) {
			start_sample(&r);
			while (r.next_sample_ns <= now)
				r.next_sample_ns +=
				    (uint64_t)o->interval_ms * 1000000u;
		}
		now = dn_now_ns();
		timeout = ms_until(now, r.next_sample_ns, 1000);
		if (r.scraping)
			timeout = ms_until(now, r.scrape_check_ns, timeout);
		if (!r.ready && !r.stopping && timeout > READY_POLL_MS)
			timeout = READY_POLL_MS;
		if (!r.ready && !r.stopping && ready_next_ns(o) != 0)
			timeout = ms_until(now, ready_next_ns(o), timeout);
		if (r.kill_at_ns != 0)
			timeout = ms_until(now, r.kill_at_ns, timeout);
		if (r.child.reaped && timeout > 20)
			timeout = 20;	/* leftovers: poll the tree */
		pfd[nfd].fd = r.sigfd;
		pfd[nfd++].events = POLLIN;
		if (!r.pipe_eof) {
			pfd[nfd].fd = logpump_fd(r.pump);
			pfd[nfd++].events = POLLIN;
		}
		if (poll(pfd, (nfds_t)nfd, timeout) > 0) {
			if (pfd[0].revents & POLLIN)
				on_signal(&r);
			if (nfd > 1 && (pfd[1].revents & (POLLIN | POLLHUP))) {
				if (logpump_read(r.pump) == 1)
					r.pipe_eof = 1;
			}
		}
	}
	scrape_finish(&r);
	sample(&r, 1);
	/* what was declared but never had a value, and why (not for a
	 * command that was never ready: nothing was measured then) */
	if (r.ready) {
		logpump_say_unmeasured(r.pump);
		if (r.scrape != NULL)
			scrape_say_unmeasured(r.scrape);
	}
	code = r.ready_timed_out ? PROBE_EXIT_READY_TIMEOUT :
	    child_exit_code(r.child.status);
	getrusage(RUSAGE_SELF, &self);
	say("DN-PROBE-EXIT", "child=%d %s exit=%d samples=%llu dropped=%llu "
	    "log_lines=%llu scrapes=%llu scrape_failures=%llu "
	    "probe_cpu_ms=%.1f", (int)r.child.pid,
	    status_str(r.child.status, desc, sizeof(desc)), code,
	    (unsigned long long)r.sample_seq, (unsigned long long)r.dropped,
	    (unsigned long long)logpump_lines(r.pump),
	    (unsigned long long)(r.scrape ? scrape_count(r.scrape) : 0),
	    (unsigned long long)(r.scrape ? scrape_failures(r.scrape) : 0),
	    (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec) * 1e3 +
	    (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e3);
	loop_teardown(&r);
	return (code);
}
