/*
 * faults.c: the faults beyond the network and the process (issue 39): a
 * node's wall clock moved (clock_skew: libfaketime, its offset file
 * written here, the node's own clock read back through the witness
 * libdevnet-clock.so) and its data disk full or slow (disk: sys/disk.c),
 * each proven by measurement or the trial fails saying so.  Not here:
 * loading the events (scenario/scenario-events.c) or the environment
 * that puts a node's clock under libfaketime (plan.c, plan_clock_env).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock-witness.h"
#include "run/runner-internal.h"
#include "sys/disk.h"
#include "sys/elfkind.h"
#include "progkind.h"
#include "sys/spawn.h"
#include "clock.h"
#include "xalloc.h"

#define CLOCK_PROOF_NS		4000000000ull	/* libfaketime's 1 s cache,
						   and then some */
#define CLOCK_TOLERANCE_MS	20.0
#define DISK_SIZE		(512ull << 20)

struct fclock {
	int		 pending;	/* an offset not yet seen in the node */
	int64_t		 asked_ms;
	uint64_t	 fired_ns, deadline_ns;
	double		 seen_ms;	/* the last offset measured, or NAN */
	int		 measured;
};

struct faults {
	struct fclock	*clock;		/* per node */
	struct dn_disk	**disk;		/* per node, NULL: its own dir */
	char		*full;		/* per node: its disk full now */
};

static const char *const faketime_libs[] = {
	"/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
	"/usr/lib/faketime/libfaketime.so.1",
	"/usr/local/lib/faketime/libfaketime.so.1", NULL };

/* "WITNESS:LIBFAKETIME" (static), or NULL with *WHY. */
static const char *
clock_preload(const char **why)
{
	static char	 pre[2 * PATH_MAX + 2];
	char		 self[PATH_MAX], wit[PATH_MAX + 32];
	const char	*ft = getenv("DN_LIBFAKETIME");
	size_t		 i;

	if (pre[0] != '\0')
		return (pre);
	for (i = 0; ft == NULL && faketime_libs[i] != NULL; i++)
		if (access(faketime_libs[i], R_OK) == 0)
			ft = faketime_libs[i];
	if (ft == NULL || access(ft, R_OK) != 0) {
		*why = "clock_skew needs libfaketime (Debian: apt-get install "
		    "libfaketime; elsewhere set DN_LIBFAKETIME to its .so)";
		return (NULL);
	}
	spawn_beside_self("", self, sizeof(self));
	snprintf(wit, sizeof(wit), "%s../lib/libdevnet-clock.so", self);
	if (access(wit, R_OK) != 0)
		snprintf(wit, sizeof(wit), "%slibdevnet-clock.so", self);
	if (access(wit, R_OK) != 0) {
		*why = "clock_skew needs libdevnet-clock.so, built beside "
		    "devnet (lib/ or the same folder); rebuild devnet";
		return (NULL);
	}
	snprintf(pre, sizeof(pre), "%s:%s", wit, ft);
	return (pre);
}

/*
 * Tests only (tests/e2e/clock-skew.sh, disk-fault.sh), as netcond.c's:
 * DN_TEST_BREAK=KIND puts a fault of that kind in force wrongly, so that
 * its proof must fail the trial: "clock" the offset at half what was
 * asked, "disk_full" no ballast, "disk_slow" no throttle.  Unset in
 * every real run.
 */
static int
test_break(const char *kind)
{
	const char	*v = getenv("DN_TEST_BREAK");

	return (v != NULL && strcmp(v, kind) == 0);
}

static int
applies(const struct scn_event *ev, const struct scn_variant *v)
{
	return (ev->variant == NULL || strcmp(ev->variant, v->name) == 0);
}

/* Whether S has an event of ACTION (for node K, or any when K < 0) in
 * variant V's trials (any variant when V is NULL). */
static int
has_event(const struct scenario *s, const struct scn_variant *v,
    enum scn_action action, int k)
{
	size_t	e;

	for (e = 0; e < s->nevents; e++)
		if (s->events[e].action == action && (k < 0 ||
		    s->events[e].node == k) && (v == NULL ||
		    applies(&s->events[e], v)))
			return (1);
	return (0);
}

int
faults_check(const struct scenario *s, char **cause)
{
	size_t		 e, i;
	const char	*prog, *why;
	char		*path;

	for (e = 0; e < s->nevents; e++) {
		const struct scn_event *ev = &s->events[e];

		if (ev->action != SCN_EV_CLOCK_SKEW)
			continue;
		for (i = 0; i < s->nvariants; i++) {
			const struct scn_variant *v = &s->variants[i];

			if (!applies(ev, v))
				continue;
			prog = node_kind_of(v)->program(s, v);
			if (prog == NULL || strchr(prog, '{') != NULL)
				continue;	/* a template: seen at start */
			path = dn_path_find(prog);
			why = dn_elf_clock_refusal(path != NULL ? path : prog);
			free(path);
			if (why == NULL)
				continue;
			*cause = dn_xasprintf("%s:%d:%d: clock_skew of node %d "
			    "in variant %s: '%s' %s", s->path, ev->line,
			    ev->col, ev->node, v->name, prog, why);
			return (-1);
		}
	}
	return (0);
}

int
faults_prepare(const struct scenario *s, int quiet, char **cause)
{
	const char	*why = NULL;
	size_t		 e;
	int		 slow = 0, n;

	if (has_event(s, NULL, SCN_EV_CLOCK_SKEW, -1) &&
	    clock_preload(&why) == NULL) {
		*cause = dn_xstrdup(why);
		return (-1);
	}
	if (!has_event(s, NULL, SCN_EV_DISK, -1))
		return (0);
	for (e = 0; e < s->nevents; e++)
		slow |= s->events[e].action == SCN_EV_DISK &&
		    (s->events[e].rate_bps != 0 || s->events[e].iops != 0);
	if ((why = dn_disk_missing(slow)) != NULL) {
		*cause = dn_xstrdup(why);
		return (-1);
	}
	if ((n = dn_disk_sweep()) > 0 && !quiet)
		fprintf(stderr, "devnet: removed %d disk(s) a killed devnet "
		    "left (mounts, loop devices, throttle rules)\n", n);
	return (0);
}

const char *
faults_clock_preload(const struct trial *t, int k)
{
	const char	*why;

	if (!has_event(t->scn, t->var, SCN_EV_CLOCK_SKEW, k))
		return (NULL);
	return (clock_preload(&why));
}

/* Node K's offset file: what libfaketime reads ("+30.000", seconds). */
static int
write_offset(struct trial *t, int k, int64_t ms)
{
	char	*p = dn_xasprintf("%s/node-%d.faketime", t->run_dir, k);
	char	*tmp = dn_xasprintf("%s.tmp", p);
	FILE	*f;
	int	 rv = -1;

	if ((f = fopen(tmp, "we")) != NULL) {
		fprintf(f, "%c%lld.%03lld\n", ms < 0 ? '-' : '+',
		    llabs((long long)ms) / 1000, llabs((long long)ms) % 1000);
		if (fclose(f) == 0 && rename(tmp, p) == 0)
			rv = 0;
	}
	free(tmp);
	free(p);
	return (rv);
}

int
faults_start(struct trial *t, char **cause)
{
	struct faults	*f;
	char		*dir;
	int		 k;

	if (!has_event(t->scn, t->var, SCN_EV_CLOCK_SKEW, -1) &&
	    !has_event(t->scn, t->var, SCN_EV_DISK, -1))
		return (0);
	t->faults = f = dn_xcalloc(1, sizeof(*f));
	f->clock = dn_xcalloc((size_t)t->nnodes, sizeof(*f->clock));
	f->disk = dn_xcalloc((size_t)t->nnodes, sizeof(*f->disk));
	f->full = dn_xcalloc((size_t)t->nnodes, 1);
	for (k = 0; k < t->nnodes; k++) {
		if (has_event(t->scn, t->var, SCN_EV_CLOCK_SKEW, k) &&
		    write_offset(t, k, 0) != 0) {
			*cause = dn_xasprintf("node %d's clock file in %s: %s",
			    k, t->run_dir, strerror(errno));
			return (-1);
		}
		if (!has_event(t->scn, t->var, SCN_EV_DISK, k))
			continue;
		dir = dn_xasprintf("%s/node-%d", t->run_dir, k);
		if (dn_disk_create(dir, k, DISK_SIZE, &f->disk[k],
		    cause) != 0) {
			free(dir);
			return (-1);
		}
		free(dir);
		trial_event(t, k, "disk", "the node's data directory on a "
		    "disk of its own: %s", dn_disk_describe(f->disk[k]));
	}
	return (0);
}

/* The witness's last record of node K: 0, or -1 when there is none. */
static int
witness_read(struct trial *t, int k, struct dn_witness *w)
{
	char	*p = dn_xasprintf("%s/node-%d.clock", t->run_dir, k);
	int	 fd = open(p, O_RDONLY | O_CLOEXEC), rv = -1;

	free(p);
	if (fd == -1)
		return (-1);
	if (pread(fd, w, sizeof(*w), 0) == (ssize_t)sizeof(*w) &&
	    w->magic == DN_WITNESS_MAGIC)
		rv = 0;
	close(fd);
	return (rv);
}

/* Node K's pending offset: seen in the node (an event), or, at
 * DEADLINE (or at the end, FINAL), the trial failed. */
static void
clock_proof(struct trial *t, int k, uint64_t now, int final)
{
	struct fclock	*c = &t->faults->clock[k];
	struct dn_witness	 w;
	int		 have;

	have = witness_read(t, k, &w) == 0 && (uint64_t)w.mono_ns >
	    c->fired_ns;
	if (have) {
		c->seen_ms = (double)(w.seen_ns - w.true_ns) / 1e6;
		c->measured = 1;
	}
	if (have && c->seen_ms >= (double)c->asked_ms - CLOCK_TOLERANCE_MS &&
	    c->seen_ms <= (double)c->asked_ms + CLOCK_TOLERANCE_MS) {
		c->pending = 0;
		trial_event(t, k, "clock_measured", "the node's own clock "
		    "read %+.3f s from the true time (asked %+.3f s), %.1f s "
		    "after the event", c->seen_ms / 1e3,
		    (double)c->asked_ms / 1e3, (double)((uint64_t)w.mono_ns -
		    c->fired_ns) / 1e9);
		trial_fact(t, k, "clock_offset_ms", "%.3f", c->seen_ms);
		return;
	}
	if (!final && now < c->deadline_ns)
		return;
	c->pending = 0;
	if (!have)
		trial_fail(t, "clock_skew of node %d did not take effect: the "
		    "node read no clock through libc in %.1f s (a Go or "
		    "static program reads it without libfaketime)", k,
		    (double)(now - c->fired_ns) / 1e9);
	else
		trial_fail(t, "clock_skew of node %d did not take effect: the "
		    "node's own clock read %+.3f s from the true time, asked "
		    "%+.3f s (within %.0f ms)", k, c->seen_ms / 1e3,
		    (double)c->asked_ms / 1e3, CLOCK_TOLERANCE_MS);
}

static void
clock_event(struct trial *t, const struct scn_event *ev)
{
	struct fclock	*c = &t->faults->clock[ev->node];

	if (c->pending)		/* the one before is judged now */
		clock_proof(t, ev->node, dn_now_ns(), 1);
	if (write_offset(t, ev->node, test_break("clock") ? ev->offset_ms /
	    2 : ev->offset_ms) != 0) {
		trial_fail(t, "clock_skew of node %d: cannot write its offset "
		    "file in %s: %s", ev->node, t->run_dir, strerror(errno));
		return;
	}
	c->pending = 1;
	c->asked_ms = ev->offset_ms;
	c->fired_ns = dn_now_ns();
	c->deadline_ns = c->fired_ns + CLOCK_PROOF_NS;
	trial_event(t, ev->node, "clock_skew", "the node's wall clock moved "
	    "to %+.3f s from the true time (libfaketime; its monotonic clock "
	    "and devnet's timestamps stay true)", (double)ev->offset_ms /
	    1e3);
}

/* The proof of a disk's new state, measured in its directory: a new
 * file's write fails (full) or goes through, and direct writes over
 * devnet's own file take the time the limit asks (at least half of it).
 * The trial fails when one does not hold.  Takes WHAT. */
static void
disk_proof(struct trial *t, const struct scn_event *ev, struct dn_disk *d,
    char *what)
{
	uint64_t	 ns = 0, bytes = 4096, want_ns = 0;
	char		*cause = NULL;
	int		 err, count = 0;

	(void)dn_disk_write_new(d, &err);
	if (ev->full != (err == ENOSPC)) {
		trial_fail(t, "disk event on node %d did not take effect: a "
		    "4 KiB write in its directory %s; the disk is %s", ev->node,
		    err == 0 ? "went through" : strerror(err), ev->full ?
		    "not full" : "still full");
		goto out;
	}
	if (ev->rate_bps != 0) {
		/* a quarter second's worth at the asked rate, in 2 */
		bytes = ev->rate_bps / 8 / 4096 * 4096;
		bytes = bytes < 8192 ? 8192 : bytes > (2u << 20) ? 2u << 20 :
		    bytes;
		count = 2;
		want_ns = (uint64_t)(1e9 * (double)bytes * 2 /
		    (double)ev->rate_bps / 2);
	} else if (ev->iops != 0) {
		count = ev->iops / 4 < 2 ? 2 : ev->iops / 4 > 20 ? 20 :
		    (int)(ev->iops / 4);
		want_ns = (uint64_t)(1e9 * count / ev->iops / 2);
	} else
		count = 1;
	if (dn_disk_measure(d, bytes, count, &ns, &cause) != 0) {
		trial_fail(t, "disk event on node %d: cannot measure: %s",
		    ev->node, cause);
		goto out;
	}
	if (ns < want_ns) {
		trial_fail(t, "disk event on node %d did not take effect: %d "
		    "direct write(s) of %" PRIu64 " KiB took %.1f ms, the "
		    "limit asks %.1f ms at least", ev->node, count,
		    bytes >> 10, (double)ns / 1e6, (double)want_ns / 1e6);
		goto out;
	}
	trial_event(t, ev->node, "disk", "%s: a 4 KiB write of a new file "
	    "%s%s; %d direct write(s) of %" PRIu64 " KiB took %.1f ms (%.0f "
	    "KiB/s, %.1f ms each)", what, ev->full ? "failed: " : "went "
	    "through", ev->full ? strerror(err) : "", count, bytes >> 10,
	    (double)ns / 1e6, ns > 0 ? (double)(bytes * (uint64_t)count) /
	    1024 / ((double)ns / 1e9) : 0, (double)ns / 1e6 / count);
out:
	free(cause);
	free(what);
}

static void
disk_event(struct trial *t, const struct scn_event *ev)
{
	struct dn_disk	*d = t->faults->disk[ev->node];
	char		*cause = NULL;

	if (dn_disk_full(d, ev->full && !test_break("disk_full"),
	    &cause) != 0 || dn_disk_throttle(d, test_break("disk_slow") ? 0 :
	    ev->rate_bps, test_break("disk_slow") ? 0 : ev->iops,
	    &cause) != 0) {
		trial_fail(t, "disk event on node %d: %s", ev->node, cause);
		free(cause);
		return;
	}
	t->faults->full[ev->node] = (char)ev->full;
	disk_proof(t, ev, d, dn_xasprintf("%s%s%s", ev->full ? "full" :
	    "not full", ev->rate_bps != 0 ? ", rate-limited" : "",
	    ev->iops != 0 ? ", iops-limited" : ""));
}

void
faults_event(struct trial *t, const struct scn_event *ev)
{
	if (t->faults == NULL)
		return;
	if (ev->action == SCN_EV_CLOCK_SKEW)
		clock_event(t, ev);
	else if (ev->action == SCN_EV_DISK)
		disk_event(t, ev);
}

char *
faults_exit_note(struct trial *t, int k)
{
	char	*tail, *last = NULL, *p, *nl, *note;

	if (t->faults == NULL || !t->faults->full[k])
		return (NULL);
	/* its own last line, not its probe's (DN-PROBE-EXIT ...) */
	tail = spawn_tail(t->nodes[k].out_path, 8);
	for (p = tail; p != NULL && *p != '\0'; p = nl + 1) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		if (strncmp(p, "DN-PROBE-", 9) != 0 && *p != '\0')
			last = p;
		if (nl == NULL)
			break;
	}
	note = dn_xasprintf("its data disk was full (a disk event)%s%s",
	    last != NULL ? "; its last output: " : "", last != NULL ? last :
	    "");
	free(tail);
	return (note);
}

void
faults_tick(struct trial *t)
{
	uint64_t	now;
	int		k;

	if (t->faults == NULL)
		return;
	now = dn_now_ns();
	for (k = 0; k < t->nnodes; k++)
		if (t->faults->clock[k].pending)
			clock_proof(t, k, now, 0);
}

void
faults_finish(struct trial *t)
{
	struct faults	*f = t->faults;
	int		 k;

	if (f == NULL)
		return;
	for (k = 0; k < t->nnodes; k++) {
		if (f->clock[k].pending && !signals_count)
			clock_proof(t, k, dn_now_ns(), 1);
		dn_disk_destroy(f->disk[k]);
	}
	free(f->clock);
	free(f->disk);
	free(f->full);
	free(f);
	t->faults = NULL;
}
