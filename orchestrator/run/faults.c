/*
 * faults.c: the faults beyond the network and the process (issue 39): a
 * node's wall clock moved or drifting (clock_skew: libfaketime, its
 * offset file written here, again and again for a drift, the node's
 * own clock read back through the witness libdevnet-clock.so) and its
 * data disk full or slow (disk: sys/disk.c), each proven by
 * measurement or the trial fails saying so.  Not here:
 * loading the events (scenario/scenario-events.c) or the environment
 * that puts a node's clock under libfaketime (plan.c, plan_clock_env).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock-witness.h"
#include "run/runner-internal.h"
#include "sys/disk.h"
#include "sys/faketime.h"
#include "sys/elfkind.h"
#include "progkind.h"
#include "sys/spawn.h"
#include "clock.h"
#include "xalloc.h"

#define CLOCK_PROOF_NS		4000000000ull	/* libfaketime's 1 s cache,
						   and then some */
#define CLOCK_TOLERANCE_MS	20.0
#define DRIFT_WRITE_NS		200000000ull
#define DRIFT_LAG_NS		1500000000ll	/* a write + the cache */
#define DRIFT_FRESH_NS		500000000ll	/* the freshest of a window */
#define DRIFT_MIN_SEEN_NS	4000000000ll
#define DRIFT_RING		64
#define DISK_SIZE		(512ull << 20)

/*
 * A node's clock: BASE_MS from the true time at SINCE_NS (devnet's
 * monotonic clock), moving DRIFT_PPM from then on.  A drift is carried
 * out by writing the offset again every DRIFT_WRITE_NS; libfaketime reads
 * it at most a second later, so the node's clock follows the line in
 * steps of a second's drift, up to DRIFT_LAG_NS behind it.
 */
struct fclock {
	int		 pending;	/* an offset not yet seen in the node */
	double		 base_ms, drift_ppm;
	uint64_t	 since_ns, written_ns;
	uint64_t	 fired_ns, deadline_ns;
	double		 seen_ms;	/* the last offset measured, or NAN */
	int		 measured;
	/* a drift's proof: the points of its first DRIFT_LAG_NS (none
	 * before DRIFT_LAG_NS after the event) and its last DRIFT_RING
	 * points (at most one per witness record, 20 a second), and the
	 * sums of a least-squares line through all of them */
	int		 drifting;
	struct dpoint {
		double	 ms;
		int64_t	 ns;
	}		 head[DRIFT_RING], ring[DRIFT_RING];
	unsigned	 nhead, npts;
	int64_t		 first_ns;
	double		 st, sy, stt, sty;	/* t in s from first_ns */
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
 * Tests only: DN_TEST_BREAK=KIND puts a condition or fault of that kind in
 * force wrongly, so that its proof must fail the trial.  netcond.c's
 * (tests/net/break.sh): "delay" and "loss" at half what was asked,
 * "partition" cut only on the links S -> D with S + D even (the rest let
 * through), "bandwidth" no class at all.  Here (tests/e2e/clock-skew.sh,
 * disk-fault.sh): "clock" the offset at half what was asked,
 * "clock_drift" the drift at half, "disk_full" no ballast, "disk_slow"
 * no throttle.  Unset in every real run.
 */
int
run_test_break(const char *kind)
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
			if (v->node.user != NULL) {
				/* the witness is written by the node into
				 * the trial's directory, closed to it */
				*cause = dn_xasprintf("%s:%d:%d: clock_skew of "
				    "node %d in variant %s, which runs as "
				    "node.user %s: not carried out (the clock's "
				    "witness is written into the trial's "
				    "directory, closed to that user); drop one",
				    s->path, ev->line, ev->col, ev->node,
				    v->name, v->node.user);
				return (-1);
			}
			prog = node_kind_of(v)->program(s, v);
			if (prog == NULL || strchr(prog, '{') != NULL)
				continue;	/* a template: seen at start */
			path = dn_path_find(prog);
			why = dn_elf_clock_refusal(path != NULL ? path : prog,
			    strcmp(node_kind_of(v)->name, "foreign") == 0);
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

	if (has_event(s, NULL, SCN_EV_CLOCK_SKEW, -1)) {
		if (clock_preload(&why) == NULL) {
			*cause = dn_xstrdup(why);
			return (-1);
		}
		if ((n = dn_faketime_sweep()) > 0 && !quiet)
			fprintf(stderr, "devnet: removed libfaketime's objects "
			    "of %d node(s) a killed devnet left (/dev/shm)\n",
			    n);
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

/* Node K's offset file: what libfaketime reads ("+30.000000", seconds). */
static int
write_offset(struct trial *t, int k, double ms)
{
	char		*p = dn_xasprintf("%s/node-%d.faketime", t->run_dir, k);
	char		*tmp = dn_xasprintf("%s.tmp", p);
	long long	 us = llround(fabs(ms) * 1e3);
	FILE		*f;
	int		 rv = -1;

	if ((f = fopen(tmp, "we")) != NULL) {
		fprintf(f, "%c%lld.%06lld\n", ms < 0 ? '-' : '+',
		    us / 1000000, us % 1000000);
		if (fclose(f) == 0 && rename(tmp, p) == 0)
			rv = 0;
	}
	free(tmp);
	free(p);
	return (rv);
}

/* Node K's libfaketime objects (sys/faketime.h): made (MAKE), or
 * removed.  0, or -1 with *CAUSE. */
static int
clock_shared(const struct trial *t, int k, int make, char **cause)
{
	char	name[128];

	dn_faketime_name(t->run_dir, k, name, sizeof(name));
	if (make)
		return (dn_faketime_create(name, cause));
	dn_faketime_remove(name);
	return (0);
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
		if (has_event(t->scn, t->var, SCN_EV_CLOCK_SKEW, k)) {
			if (write_offset(t, k, 0) != 0) {
				*cause = dn_xasprintf("node %d's clock file in "
				    "%s: %s", k, t->run_dir, strerror(errno));
				return (-1);
			}
			if (clock_shared(t, k, 1, cause) != 0)
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

/* Node K's offset on the line devnet drew, at monotonic time NS. */
static double
clock_line(const struct fclock *c, int64_t ns)
{
	if (ns < (int64_t)c->since_ns)
		ns = (int64_t)c->since_ns;
	return (c->base_ms + c->drift_ppm * 1e-6 * (double)(ns -
	    (int64_t)c->since_ns) / 1e6);
}

/* Node K's offset file, on the line at NOW (tests: "clock" writes half
 * the offset, "clock_drift" half the drift). */
static int
clock_write(struct trial *t, int k, uint64_t now)
{
	struct fclock	*c = &t->faults->clock[k];
	double		 ms = clock_line(c, (int64_t)now);

	if (run_test_break("clock"))
		ms /= 2;
	else if (run_test_break("clock_drift"))
		ms = (ms + c->base_ms) / 2;
	c->written_ns = now;
	return (write_offset(t, k, ms));
}

/* The span, in ms, where node K's offset may be at monotonic time NS:
 * on the line, or up to DRIFT_LAG_NS behind it (libfaketime's cache). */
static void
clock_band(const struct fclock *c, int64_t ns, double *lo, double *hi)
{
	double	a = clock_line(c, ns), b = clock_line(c, ns - DRIFT_LAG_NS);

	*lo = (a < b ? a : b) - CLOCK_TOLERANCE_MS;
	*hi = (a < b ? b : a) + CLOCK_TOLERANCE_MS;
}

/* How near point P of node C's drifting clock is to a line of SLOPE
 * ppm through its first point: the larger, the fresher (libfaketime's
 * cache leaves a clock behind its line, in steps). */
static double
drift_fresh(const struct fclock *c, const struct dpoint *p, double slope)
{
	return ((c->drift_ppm < 0 ? -1 : 1) * (p->ms - slope / 1e3 *
	    (double)(p->ns - c->first_ns) / 1e9));
}

/* Node C's clock seen at MS at NS: kept in the first window, the ring
 * and the sums. */
static void
drift_point(struct fclock *c, double ms, int64_t ns)
{
	struct dpoint	 p = { ms, ns };
	double		 t;

	/* before DRIFT_LAG_NS after the event the node may still show the
	 * clock of the event before (libfaketime reads its file again
	 * within a second); after devnet's last write (the trial's end,
	 * its stop) the clock no longer moves on the line: those points
	 * say nothing of this drift */
	if ((c->npts > 0 && ns <= c->ring[(c->npts - 1) % DRIFT_RING].ns) ||
	    ns < (int64_t)c->since_ns + DRIFT_LAG_NS ||
	    ns > (int64_t)(c->written_ns + 2 * DRIFT_WRITE_NS))
		return;
	if (c->npts == 0) {
		c->first_ns = ns;
		c->nhead = 0;
		c->st = c->sy = c->stt = c->sty = 0;
	}
	if (ns - c->first_ns < DRIFT_LAG_NS && c->nhead < DRIFT_RING)
		c->head[c->nhead++] = p;
	c->ring[c->npts++ % DRIFT_RING] = p;
	t = (double)(ns - c->first_ns) / 1e9;
	c->st += t;
	c->sy += ms;
	c->stt += t * t;
	c->sty += t * ms;
}

/* The slope, in ppm, of the least-squares line through node C's points
 * (0 with fewer than two). */
static double
drift_fit(const struct fclock *c)
{
	double	n = c->npts, d = n * c->stt - c->st * c->st;

	return (c->npts < 2 || d <= 0 ? 0 : (n * c->sty - c->st * c->sy) /
	    d * 1e3);
}

/* Node K's pending offset: seen in the node (an event), or, at
 * DEADLINE (or at the end, FINAL), the trial failed. */
static void
clock_proof(struct trial *t, int k, uint64_t now, int final)
{
	struct fclock	*c = &t->faults->clock[k];
	struct dn_witness	 w;
	double		 lo = 0, hi = 0, asked = c->base_ms;
	int		 have;

	have = witness_read(t, k, &w) == 0 && (uint64_t)w.mono_ns >
	    c->fired_ns;
	if (have) {
		c->seen_ms = (double)(w.seen_ns - w.true_ns) / 1e6;
		c->measured = 1;
		clock_band(c, w.mono_ns, &lo, &hi);
		asked = clock_line(c, w.mono_ns);
	}
	if (have && c->seen_ms >= lo && c->seen_ms <= hi) {
		c->pending = 0;
		trial_event(t, k, "clock_measured", "the node's own clock "
		    "read %+.3f s from the true time (asked %+.3f s), %.1f s "
		    "after the event", c->seen_ms / 1e3, asked / 1e3,
		    (double)((uint64_t)w.mono_ns - c->fired_ns) / 1e9);
		trial_fact(t, k, "clock_offset_ms", "%.3f", c->seen_ms);
		c->drifting = c->drift_ppm != 0;
		c->npts = 0;
		drift_point(c, c->seen_ms, w.mono_ns);
		return;
	}
	if (!final && now < c->deadline_ns)
		return;
	c->pending = 0;
	if (!have)
		trial_fail(t, "clock_skew of node %d did not take effect: the "
		    "node read no wall clock devnet could see in %.1f s "
		    "(libfaketime sees the reads through libc; devnet-probe "
		    "those of a Go or static command it starts itself, not "
		    "of one that command execs)", k,
		    (double)(now - c->fired_ns) / 1e9);
	else
		trial_fail(t, "clock_skew of node %d did not take effect: the "
		    "node's own clock read %+.3f s from the true time, asked "
		    "%+.3f s (within %.0f ms)", k, c->seen_ms / 1e3,
		    asked / 1e3, CLOCK_TOLERANCE_MS);
}

/* Node K's newest witness record, as a point of its drift. */
static void
drift_look(struct trial *t, int k)
{
	struct dn_witness	 w;

	if (witness_read(t, k, &w) == 0)
		drift_point(&t->faults->clock[k], (double)(w.seen_ns -
		    w.true_ns) / 1e6, w.mono_ns);
}

/* A drifting node K's clock: written again on the line, and its newest
 * point kept for the drift's proof. */
static void
drift_tick(struct trial *t, int k, uint64_t now)
{
	struct fclock	*c = &t->faults->clock[k];

	if (now - c->written_ns >= DRIFT_WRITE_NS && clock_write(t, k,
	    now) != 0)
		trial_fail(t, "clock_skew of node %d: cannot write its offset "
		    "file in %s: %s", k, t->run_dir, strerror(errno));
	if (c->drifting)
		drift_look(t, k);
}

double
faults_drift_span_s(double ppm)
{
	/* no point before a lag after the event, the first and the last
	 * window (span >= seen - 2 lags), and span >= 1 + 10000 / |ppm|
	 * from tol <= |ppm| / 2 */
	return (3.0 * (double)DRIFT_LAG_NS / 1e9 + 2.0 *
	    (double)DRIFT_FRESH_NS / 1e9 + 2.0 * 5000.0 / fabs(ppm));
}

/*
 * Node K's drift, judged at its next clock_skew or the end: the slope of
 * its own clock from the freshest point of its first window to the
 * freshest of its last DRIFT_LAG_NS.  Fresh is near the line the clock
 * is seen to follow (the least-squares slope through all its points, not
 * the drift asked: a clock that drifts at half the rate is measured at
 * half, not at what its stale points against the asked line make of it).
 * libfaketime's cache puts the clock on that line in steps; a freshest
 * point is at most DRIFT_FRESH_NS behind it (a write every 0.2 s, a
 * tick, the witness's 50 ms), give or take a preempted witness (5 ms),
 * so the slope is within |drift| x that / span + 5 ms / span of the
 * drift; its clock seen for DRIFT_MIN_SEEN_NS at least, and that bound
 * at most half the drift.
 */
static void
drift_proof(struct trial *t, int k)
{
	struct fclock	*c = &t->faults->clock[k];
	const struct dpoint	*last, *p0, *p1, *p;
	double		 span, seen, got, tol, fit;
	unsigned	 i, n;

	if (!c->drifting)
		return;
	drift_look(t, k);
	c->drifting = 0;
	fit = drift_fit(c);
	p0 = &c->head[0];
	for (i = 1; i < c->nhead; i++)
		if (drift_fresh(c, &c->head[i], fit) > drift_fresh(c, p0, fit))
			p0 = &c->head[i];
	n = c->npts < DRIFT_RING ? c->npts : DRIFT_RING;
	p1 = last = &c->ring[(c->npts - 1) % DRIFT_RING];
	for (i = 0; i < n; i++) {
		p = &c->ring[(c->npts - 1 - i) % DRIFT_RING];
		if (last->ns - p->ns >= DRIFT_LAG_NS)
			break;
		if (drift_fresh(c, p, fit) > drift_fresh(c, p1, fit))
			p1 = p;
	}
	seen = c->npts == 0 ? 0 : (double)(last->ns - c->first_ns) / 1e9;
	if (seen * 1e9 < DRIFT_MIN_SEEN_NS) {
		trial_fail(t, "clock_skew of node %d: its drift was not "
		    "measured: its clock was seen for %.1f s after the "
		    "offset took effect, and a drift needs %.0f s (a later "
		    "clock_skew or the end came too soon)", k, seen,
		    (double)DRIFT_MIN_SEEN_NS / 1e9);
		return;
	}
	span = (double)(p1->ns - p0->ns) / 1e9;
	got = (p1->ms - p0->ms) / span * 1e3;
	tol = fabs(c->drift_ppm) * (double)DRIFT_FRESH_NS / 1e9 / span +
	    5.0 / span * 1e3;
	if (tol > fabs(c->drift_ppm) / 2) {
		trial_fail(t, "clock_skew of node %d: a drift of %+g ppm was "
		    "not measured: %.1f s of its clock tell it only within "
		    "%.0f ppm; give it about %.0f s (before the node's next "
		    "clock_skew or the end)", k, c->drift_ppm, span, tol,
		    faults_drift_span_s(c->drift_ppm));
		return;
	}
	if (fabs(got - c->drift_ppm) > tol) {
		trial_fail(t, "clock_skew of node %d did not take effect: the "
		    "node's own clock drifted %+.0f ppm over %.1f s, asked "
		    "%+g ppm (within %.0f ppm)", k, got, span, c->drift_ppm,
		    tol);
		return;
	}
	trial_event(t, k, "clock_drift_measured", "the node's own clock "
	    "drifted %+.0f ppm (%+.3f ms a second) over %.1f s (asked %+g "
	    "ppm, within %.0f ppm)", got, got / 1e3, span, c->drift_ppm, tol);
	trial_fact(t, k, "clock_drift_ppm", "%.1f", got);
}

static void
clock_event(struct trial *t, const struct scn_event *ev)
{
	struct fclock	*c = &t->faults->clock[ev->node];
	uint64_t	 now;

	if (c->pending)		/* the one before is judged now */
		clock_proof(t, ev->node, dn_now_ns(), 1);
	drift_proof(t, ev->node);
	now = dn_now_ns();
	c->base_ms = ev->has_offset ? (double)ev->offset_ms :
	    clock_line(c, (int64_t)now);
	c->drift_ppm = ev->drift_ppm;
	c->since_ns = now;
	if (clock_write(t, ev->node, now) != 0) {
		trial_fail(t, "clock_skew of node %d: cannot write its offset "
		    "file in %s: %s", ev->node, t->run_dir, strerror(errno));
		return;
	}
	c->pending = 1;
	c->fired_ns = now;
	c->deadline_ns = c->fired_ns + CLOCK_PROOF_NS;
	if (c->drift_ppm == 0)
		trial_event(t, ev->node, "clock_skew", "the node's wall clock "
		    "moved to %+.3f s from the true time (libfaketime; its "
		    "monotonic clock and devnet's timestamps stay true)",
		    c->base_ms / 1e3);
	else
		trial_event(t, ev->node, "clock_skew", "the node's wall clock "
		    "moved to %+.3f s from the true time, drifting %+g ppm "
		    "from then on (libfaketime, its offset written again "
		    "every %.1f s; its monotonic clock and devnet's "
		    "timestamps stay true)", c->base_ms / 1e3, c->drift_ppm,
		    (double)DRIFT_WRITE_NS / 1e9);
}

/* EV's full or not on D (a full one not filled when the suite breaks
 * it on purpose: DN_TEST_BREAK=disk_full); 0, or -1 with *CAUSE. */
static int
disk_fill(struct dn_disk *d, const struct scn_event *ev, char **cause)
{
	return (dn_disk_full(d, ev->full && !run_test_break("disk_full"),
	    cause));
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
	int		 err, count = 0, fills;

	/* A node deletes files as it writes (RocksDB's compactions): what
	 * it freed between the fill and this write goes through, so a
	 * full disk is filled again, up to 5 times (the suite beside a
	 * node at 300 TPS with 64 KiB memtables: the first write went
	 * through once in a run). */
	(void)dn_disk_write_new(d, &err);
	for (fills = 1; ev->full && err == 0 && fills < 5; fills++) {
		if (disk_fill(d, ev, &cause) != 0)
			break;
		(void)dn_disk_write_new(d, &err);
	}
	if (ev->full != (err == ENOSPC)) {
		trial_fail(t, "disk event on node %d did not take effect: a "
		    "4 KiB write in its directory %s; the disk is %s%s%s%s",
		    ev->node, err == 0 ? "went through" : strerror(err),
		    ev->full ? "not full" : "still full", ev->full && fills >
		    1 ? " (filled again; the node frees space as it writes)" :
		    "", cause ? ": " : "", cause ? cause : "");
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
	int		 slow = !run_test_break("disk_slow");

	if (disk_fill(d, ev, &cause) != 0 || dn_disk_throttle(d,
	    slow ? ev->rate_bps : 0, slow ? ev->iops : 0, &cause) != 0) {
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
	for (k = 0; k < t->nnodes; k++) {
		if (t->faults->clock[k].pending)
			clock_proof(t, k, now, 0);
		if (t->faults->clock[k].drift_ppm != 0)
			drift_tick(t, k, now);
	}
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
		if (!signals_count)
			drift_proof(t, k);
		dn_disk_destroy(f->disk[k]);
		if (has_event(t->scn, t->var, SCN_EV_CLOCK_SKEW, k))
			(void)clock_shared(t, k, 0, NULL);
	}
	free(f->clock);
	free(f->disk);
	free(f->full);
	free(f);
	t->faults = NULL;
}
