/*
 * collector-writer.c: the collector's writer thread: the rows the
 * receiving thread (collector.c) queued go to the store in batches, and a
 * database another writer holds keeps them queued and retried rather than
 * failing the run (docs/architecture.md, "Collector").
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trial/collector-internal.h"
#include "trial/trial.h"
#include "trial/trial-store.h"
#include "clock.h"
#include "store.h"
#include "xalloc.h"

/*
 * The writer thread: takes the queued rows in one swap, hands them to the
 * store and commits every COMMIT_MS or COMMIT_ROWS rows.  Once told to
 * stop, it drains the queue, commits and returns.
 */
void *
collector_writer_main(void *arg)
{
	struct collector	*c = arg;
	struct trial		*t = c->t;
	struct trial_row	*rows = NULL, *tmp;
	size_t			 n, cap = 0, i, pending = 0;
	uint64_t		 last_commit = dn_now_ns(), busy_since = 0;
	int			 stop, rv, busy = 0;

	for (;;) {
		struct timespec	deadline;

		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_nsec += 50 * 1000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
		pthread_mutex_lock(&c->wmu);
		if (c->npend == 0 && !c->wstop)
			pthread_cond_timedwait(&c->wcv, &c->wmu, &deadline);
		tmp = rows;
		rows = c->pend;
		n = c->npend;
		c->pend = tmp;
		c->npend = 0;
		i = cap;
		cap = c->cappend;
		c->cappend = i;
		stop = c->wstop;
		pthread_mutex_unlock(&c->wmu);

		if (n > 0) {
			/* Once a write failed (disk full) nothing more goes
			 * in: what space is left is for recording the ends of
			 * the runs (runner.c, the reserve). */
			rv = trial_store_samples(t, rows, n, &i);
			if (rv == TRIAL_STORE_DOWN)
				n = 0;
			pending += i;
			if (rv == DN_STORE_EBUSY) {
				/* another process holds the database: keep
				 * the rows for the next round */
				pthread_mutex_lock(&c->wmu);
				for (; i < n; i++)
					collector_put(c, rows[i].node, rows[i].metric,
					    rows[i].t_ms, rows[i].value);
				pthread_mutex_unlock(&c->wmu);
				busy = 1;
			}
		}
		if (pending >= COMMIT_ROWS || stop || (pending > 0 &&
		    dn_now_ns() - last_commit >= COMMIT_MS * 1000000ull)) {
			if (trial_store_try_commit(t) == DN_STORE_EBUSY)
				busy = 1;	/* rows kept; again */
			else {
				pending = 0;
				last_commit = dn_now_ns();
			}
		}
		/* A lock held for good is a store gone (issue 19 #4). */
		if (!busy)
			busy_since = 0;
		else if (busy_since == 0)
			busy_since = dn_now_ns();
		else if (dn_now_ns() - busy_since >
		    DN_STORE_BUSY_MS * 1000000ull) {
			trial_store_error(t, dn_xasprintf("the database stayed "
			    "locked by another process for %d s; wait for it "
			    "or use --db", DN_STORE_BUSY_MS / 1000));
			break;
		}
		if (busy)
			n = 1;	/* not done: rows wait */
		busy = 0;
		if (stop && n == 0)
			break;
	}
	free(rows);
	return (NULL);
}
