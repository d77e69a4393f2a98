/*
 * clock-shim.c: libdevnet-clock.so, preloaded before libfaketime in a
 * node whose wall clock a clock_skew event moves (issue 39;
 * docs/scenarios.md, "clock_skew").  Two jobs:
 *
 * - the witness: at most every 50 ms, on a clock read the node makes
 *   anyway, it asks the next clock_gettime (libfaketime's) for the wall
 *   clock the node sees and the kernel for the true one, and writes both
 *   into the file DN_CLOCK_WITNESS, so devnet reads back the node's own
 *   idea of the time (run/faults.c).  A program that never reads the
 *   clock through libc (Go, a static binary) leaves the file empty, and
 *   the trial fails saying so;
 * - monotonic sleeps to a deadline go straight to the kernel: libfaketime
 *   0.9.10 moves a TIMER_ABSTIME CLOCK_MONOTONIC deadline by the wall
 *   clock's offset even with FAKETIME_DONT_FAKE_MONOTONIC (python3's
 *   time.sleep failed with EINVAL).
 *
 * Not here: the skew itself (libfaketime and its FAKETIME_TIMESTAMP_FILE,
 * which run/faults.c writes).
 */
#include <sys/syscall.h>
#include <sys/time.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock-witness.h"

#define WITNESS_EVERY_NS	50000000LL

typedef int (*cg_fn)(clockid_t, struct timespec *);

static int		 wfd = -2;	/* -2: not opened yet, -1: none */
static cg_fn		 next_cg;
static int64_t		 last_ns;
static uint32_t		 count;
static __thread int	 busy __attribute__((tls_model("initial-exec")));

static int64_t
ns_of(const struct timespec *ts)
{
	return ((int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec);
}

static int
kernel_clock(clockid_t c, struct timespec *ts)
{
	return ((int)syscall(SYS_clock_gettime, c, ts));
}

static void
witness_open(void)
{
	const char	*p = getenv("DN_CLOCK_WITNESS");

	next_cg = (cg_fn)dlsym(RTLD_NEXT, "clock_gettime");
	wfd = p != NULL ? open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600) : -1;
}

/* One record if the last is WITNESS_EVERY_NS old (a race between two
 * threads costs one more record, nothing else). */
static void
witness(void)
{
	struct timespec	 m, seen, truth;
	struct dn_witness	 w;

	if (busy || wfd < 0 || kernel_clock(CLOCK_MONOTONIC, &m) != 0 ||
	    ns_of(&m) - last_ns < WITNESS_EVERY_NS)
		return;
	busy = 1;
	last_ns = ns_of(&m);
	if (next_cg != NULL && next_cg(CLOCK_REALTIME, &seen) == 0 &&
	    kernel_clock(CLOCK_REALTIME, &truth) == 0) {
		memset(&w, 0, sizeof(w));
		w.seen_ns = ns_of(&seen);
		w.true_ns = ns_of(&truth);
		w.mono_ns = ns_of(&m);
		w.count = ++count;
		w.magic = DN_WITNESS_MAGIC;
		(void)!pwrite(wfd, &w, sizeof(w), 0);
	}
	busy = 0;
}

int
clock_gettime(clockid_t c, struct timespec *ts)
{
	int	r;

	if (wfd == -2)
		witness_open();
	if (next_cg == NULL)
		return (kernel_clock(c, ts));
	r = next_cg(c, ts);
	witness();
	return (r);
}

int
gettimeofday(struct timeval *tv, void *tz)
{
	static int	(*next)(struct timeval *, void *);

	if (next == NULL)
		next = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT,
		    "gettimeofday");
	if (wfd == -2)
		witness_open();
	witness();
	return (next(tv, tz));
}

time_t
time(time_t *t)
{
	static time_t	(*next)(time_t *);

	if (next == NULL)
		next = (time_t (*)(time_t *))dlsym(RTLD_NEXT, "time");
	if (wfd == -2)
		witness_open();
	witness();
	return (next(t));
}

int
clock_nanosleep(clockid_t c, int flags, const struct timespec *req,
    struct timespec *rem)
{
	static int	(*next)(clockid_t, int, const struct timespec *,
			    struct timespec *);

	if (c == CLOCK_MONOTONIC || c == CLOCK_BOOTTIME) {
		if (syscall(SYS_clock_nanosleep, c, flags, req, rem) == 0)
			return (0);
		return (errno);
	}
	if (next == NULL)
		next = (int (*)(clockid_t, int, const struct timespec *,
		    struct timespec *))dlsym(RTLD_NEXT, "clock_nanosleep");
	return (next(c, flags, req, rem));
}
