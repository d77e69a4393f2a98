/*
 * workload.c: readrandom and cf-churn workers (see workload.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chain.h"
#include "rocks.h"
#include "clock.h"
#include "rng.h"
#include "xalloc.h"
#include "workload.h"

/* cf-churn gives up after this many failures in a row: a create that
 * fails may still leave a family behind (RocksDB creates it, then fails
 * to persist the OPTIONS file), which the C API gives no way to drop. */
#define CF_MAX_ERRORS_IN_ROW	100

struct workload {
	struct workload_config	 c;
	pthread_t		 thread;
	int			 started;
	atomic_int		 stop;
	atomic_uint_fast64_t	 ops;
	atomic_uint_fast64_t	 op_ns;
	/* Written by the worker, read after the join. */
	uint64_t		 found;
	uint64_t		 errors;
	uint64_t		 cycles;
	uint64_t		 start_ns;
	uint64_t		 end_ns;
	char			*error;
};

static const char *names[] = {
	[WL_TRANSFER] = "transfer",
	[WL_IDLE] = "idle",
	[WL_READRANDOM] = "readrandom",
	[WL_CF_CHURN] = "cf-churn",
};

const char *
workload_name(enum workload_kind kind)
{
	return (names[kind]);
}

int
workload_parse(const char *s, enum workload_kind *kind)
{
	size_t	i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i]) == 0) {
			*kind = (enum workload_kind)i;
			return (0);
		}
	}
	return (-1);
}

static void
note_error(struct workload *w, char *cause)
{
	w->errors++;
	if (w->error == NULL)
		w->error = cause;
	else
		free(cause);
}

static void
sleep_ns(uint64_t ns)
{
	struct timespec	ts = { .tv_sec = (time_t)(ns / 1000000000u),
			    .tv_nsec = (long)(ns % 1000000000u) };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static void
count_op(struct workload *w, uint64_t t0)
{
	atomic_fetch_add_explicit(&w->ops, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&w->op_ns, dn_now_ns() - t0,
	    memory_order_relaxed);
}

static void *
readrandom_main(void *arg)
{
	struct workload	*w = arg;
	uint8_t		 key[CHAIN_KEY_SIZE], val[CHAIN_VALUE_SIZE];
	uint64_t	 rng = w->c.seed ^ 0x5eedull, done = 0, t0, target;
	uint64_t	 space = w->c.keys > 0 ? w->c.keys : w->c.accounts;
	size_t		 klen;
	char		*cause = NULL;
	int		 rv;

	w->start_ns = dn_now_ns();
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed) &&
	    (w->c.reads == 0 || done < w->c.reads) && space > 0) {
		t0 = dn_now_ns();
		if (w->c.rate > 0) {
			target = w->start_ns +
			    (uint64_t)((double)done * 1e9 / w->c.rate);
			if (t0 < target) {
				uint64_t	d = target - t0;

				sleep_ns(d < 10000000 ? d : 10000000);
				continue;
			}
		}
		if (w->c.keys > 0) {
			chain_bench_key(dn_rand64(&rng) % space, key);
			klen = CHAIN_KEY_SIZE;
		} else
			klen = chain_account_key((uint32_t)(dn_rand64(&rng) %
			    space), key);
		rv = store_get(w->c.store, key, klen, val, sizeof(val), NULL,
		    &cause);
		count_op(w, t0);
		done++;
		if (rv == 1)
			w->found++;
		else if (rv < 0) {
			note_error(w, cause);
			cause = NULL;
		}
	}
	w->end_ns = dn_now_ns();
	return (NULL);
}

static void *
cf_churn_main(void *arg)
{
	struct workload	 *w = arg;
	struct store_cf	**cfs;
	char		  name[64];
	char		 *cause = NULL;
	uint32_t	  i, n, in_row = 0;
	uint64_t	  t0;

	cfs = dn_xcalloc(w->c.cf_count, sizeof(*cfs));
	w->start_ns = dn_now_ns();
	while (!atomic_load_explicit(&w->stop, memory_order_relaxed) &&
	    (w->c.cf_cycles == 0 || w->cycles < w->c.cf_cycles) &&
	    in_row < CF_MAX_ERRORS_IN_ROW) {
		n = 0;
		for (i = 0; i < w->c.cf_count &&
		    !atomic_load_explicit(&w->stop, memory_order_relaxed);
		    i++) {
			snprintf(name, sizeof(name), "churn-%" PRIu64 "-%u",
			    w->cycles, i);
			t0 = dn_now_ns();
			if (store_cf_create(w->c.store, w->c.cf_options, name,
			    &cfs[n], &cause) == 0) {
				n++;
				in_row = 0;
			} else {
				note_error(w, cause);
				cause = NULL;
				if (++in_row >= CF_MAX_ERRORS_IN_ROW)
					break;
			}
			count_op(w, t0);
		}
		/* Drop what was created; when asked to stop, only release
		 * the handles (each drop rewrites and fsyncs the OPTIONS
		 * file; the next start drops the leftovers). */
		for (i = 0; i < n; i++) {
			if (atomic_load_explicit(&w->stop,
			    memory_order_relaxed)) {
				store_cf_release(cfs[i]);
				continue;
			}
			t0 = dn_now_ns();
			if (store_cf_drop(w->c.store, cfs[i], &cause) != 0) {
				note_error(w, cause);
				cause = NULL;
			}
			count_op(w, t0);
		}
		w->cycles++;
	}
	w->end_ns = dn_now_ns();
	free(cfs);
	return (NULL);
}

int
workload_start(struct workload **wp, const struct workload_config *c,
    char **cause)
{
	struct workload	*w;
	void		*(*fn)(void *) = NULL;

	w = dn_xcalloc(1, sizeof(*w));
	w->c = *c;
	atomic_init(&w->stop, 0);
	atomic_init(&w->ops, 0);
	atomic_init(&w->op_ns, 0);
	if (c->kind == WL_READRANDOM)
		fn = readrandom_main;
	else if (c->kind == WL_CF_CHURN && c->cf_count > 0)
		fn = cf_churn_main;
	if (fn != NULL) {
		if (pthread_create(&w->thread, NULL, fn, w) != 0) {
			*cause = dn_xasprintf("cannot start the %s worker: %s",
			    workload_name(c->kind), strerror(errno));
			free(w);
			return (-1);
		}
		w->started = 1;
	}
	*wp = w;
	return (0);
}

void
workload_counters(struct workload *w, uint64_t *ops, uint64_t *op_ns)
{
	*ops = atomic_load_explicit(&w->ops, memory_order_relaxed);
	*op_ns = atomic_load_explicit(&w->op_ns, memory_order_relaxed);
}

void
workload_stop(struct workload *w, char **summary, char **error)
{
	uint64_t	ops;
	double		secs;
	char		extra[128];

	*summary = NULL;
	*error = NULL;
	if (w == NULL)
		return;
	atomic_store(&w->stop, 1);
	if (w->started) {
		pthread_join(w->thread, NULL);
		ops = atomic_load(&w->ops);
		secs = (double)(w->end_ns - w->start_ns) / 1e9;
		if (w->c.kind == WL_READRANDOM)
			snprintf(extra, sizeof(extra), "(%" PRIu64 " of %"
			    PRIu64 " found)", w->found, ops);
		else
			snprintf(extra, sizeof(extra), "(%" PRIu64 " cycles "
			    "of %u families, %" PRIu64 " errors)", w->cycles,
			    w->c.cf_count, w->errors);
		/* db_bench: "%-12s : %11.3f micros/op %ld ops/sec %.3f
		 * seconds %lu operations;%s%s" */
		*summary = dn_xasprintf("%-12s : %11.3f micros/op %ld ops/sec "
		    "%.3f seconds %" PRIu64 " operations; %s",
		    workload_name(w->c.kind),
		    ops > 0 ? secs * 1e6 / (double)ops : 0.0,
		    secs > 0 ? (long)((double)ops / secs) : 0L, secs, ops,
		    extra);
	}
	*error = w->error;
	free(w);
}
