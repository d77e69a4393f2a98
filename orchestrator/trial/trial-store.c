/*
 * trial-store.c: the store every trial of a run shares, behind its own
 * lock (trial-store.h): each function is one read or write under it.
 *
 * Not here: what a trial writes when (the runner, the collector, the
 * assertions decide); the SQL (metrics/store/).
 */
#include <pthread.h>
#include <stdlib.h>

#include "trial/trial-store.h"
#include "trial/trial.h"
#include "xalloc.h"

/* Sample rows written under one taking of the store's lock. */
#define STORE_CHUNK	4096

struct trial_store {
	struct dn_store	*db;
	pthread_mutex_t	 mu;
	int		 down;	/* a write failed (under mu) */
};

struct trial_store *
trial_store_new(struct dn_store *db)
{
	struct trial_store	*s = dn_xcalloc(1, sizeof(*s));

	s->db = db;
	pthread_mutex_init(&s->mu, NULL);
	return (s);
}

void
trial_store_free(struct trial_store *s)
{
	if (s == NULL)
		return;
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* The store is down; T's first store error is CAUSE (consumed).  The
 * store's lock held. */
static void
failed(struct trial *t, char *cause)
{
	t->store->down = 1;
	pthread_mutex_lock(&t->mu);
	if (!t->store_failed) {
		t->store_failed = 1;
		t->store_error = cause;
		cause = NULL;
	}
	pthread_mutex_unlock(&t->mu);
	free(cause);
}

int
trial_store_down(struct trial *t)
{
	int	down;

	pthread_mutex_lock(&t->store->mu);
	down = t->store->down;
	pthread_mutex_unlock(&t->store->mu);
	return (down);
}

void
trial_store_error(struct trial *t, char *cause)
{
	pthread_mutex_lock(&t->store->mu);
	failed(t, cause);
	pthread_mutex_unlock(&t->store->mu);
}

int
trial_store_run_begin(struct trial *t, const struct dn_run_info *ri,
    char **cause)
{
	int	rv;

	pthread_mutex_lock(&t->store->mu);
	rv = dn_store_run_begin(t->store->db, ri, &t->run_id, cause);
	if (rv == 0)
		rv = dn_store_commit(t->store->db, cause);
	pthread_mutex_unlock(&t->store->mu);
	return (rv);
}

int
trial_store_node_add(struct trial *t, int k, const char *binary,
    const char *sha, char **cause)
{
	int	rv;

	pthread_mutex_lock(&t->store->mu);
	rv = dn_store_node_add(t->store->db, t->run_id, k,
	    t->nodes[k].proc.pid, binary, sha, t->nodes[k].cmdline, cause);
	pthread_mutex_unlock(&t->store->mu);
	return (rv);
}

int
trial_store_node_host(struct trial *t, int k, const char *host,
    char **cause)
{
	int	rv;

	pthread_mutex_lock(&t->store->mu);
	rv = dn_store_node_set_host(t->store->db, t->run_id, k, host, cause);
	pthread_mutex_unlock(&t->store->mu);
	return (rv);
}

void
trial_store_event(struct trial *t, int node, int64_t t_ms, const char *kind,
    const char *detail)
{
	char	*cause = NULL;

	pthread_mutex_lock(&t->store->mu);
	if (dn_store_event(t->store->db, t->run_id, node, t_ms, kind, detail,
	    &cause) != 0)
		failed(t, cause);
	pthread_mutex_unlock(&t->store->mu);
}

void
trial_store_fact(struct trial *t, int node, const char *key,
    const char *value)
{
	char	*cause = NULL;

	pthread_mutex_lock(&t->store->mu);
	if (dn_store_fact(t->store->db, t->run_id, node, key, value,
	    &cause) != 0)
		failed(t, cause);
	pthread_mutex_unlock(&t->store->mu);
}

void
trial_store_links(struct trial *t, const struct dn_link_sample *v,
    size_t n)
{
	char	*cause = NULL;

	pthread_mutex_lock(&t->store->mu);
	if (dn_store_link_samples(t->store->db, t->run_id, v, n, &cause) != 0)
		failed(t, cause);
	pthread_mutex_unlock(&t->store->mu);
}

int
trial_store_metric_named(struct trial *t, const char *name, int counter,
    int *id)
{
	char	*cause = NULL;
	int	 rv;

	pthread_mutex_lock(&t->store->mu);
	if ((rv = dn_store_metric_named(t->store->db, name, counter, NULL, id,
	    &cause)) != 0)
		failed(t, cause);
	pthread_mutex_unlock(&t->store->mu);
	return (rv != 0 ? -1 : 0);
}

int
trial_store_samples(struct trial *t, const struct trial_row *rows, size_t n,
    size_t *done)
{
	char	*cause = NULL;
	size_t	 i;
	int	 rv = 0;

	/* The lock is taken a chunk at a time: a writer that fell behind
	 * (857,494 rows at once, 200 nodes on two starved cores) held it
	 * for minutes, and the main thread's next fact waited that long. */
	for (i = 0; i < n && rv == 0;) {
		size_t	end = n - i > STORE_CHUNK ? i + STORE_CHUNK : n;

		pthread_mutex_lock(&t->store->mu);
		if (t->store->down) {
			pthread_mutex_unlock(&t->store->mu);
			*done = i;
			return (TRIAL_STORE_DOWN);
		}
		for (; i < end; i++) {
			rv = dn_store_sample(t->store->db, t->run_id,
			    rows[i].node, rows[i].metric, rows[i].t_ms,
			    rows[i].value, &cause);
			if (rv == DN_STORE_EBUSY)
				break;
			if (rv != 0) {
				failed(t, cause);
				cause = NULL;
				rv = -1;
				break;
			}
		}
		pthread_mutex_unlock(&t->store->mu);
	}
	free(cause);
	*done = i;
	return (rv);
}

int
trial_store_try_commit(struct trial *t)
{
	char	*cause = NULL;
	int	 rv = 0;

	pthread_mutex_lock(&t->store->mu);
	if (!t->store->down &&
	    (rv = dn_store_try_commit(t->store->db, &cause)) != 0 &&
	    rv != DN_STORE_EBUSY) {
		failed(t, cause);
		cause = NULL;
		rv = -1;
	}
	pthread_mutex_unlock(&t->store->mu);
	free(cause);
	return (rv);
}

void
trial_store_begin(struct trial *t)
{
	char	*cause = NULL;

	pthread_mutex_lock(&t->store->mu);
	(void)dn_store_begin(t->store->db, &cause);
	pthread_mutex_unlock(&t->store->mu);
	free(cause);
}

int
trial_store_run_end(struct trial *t, const char *status, const char *reason,
    char **cause)
{
	int	rv;

	pthread_mutex_lock(&t->store->mu);
	rv = dn_store_run_end(t->store->db, t->run_id, status, reason, cause);
	if (rv == 0)
		rv = dn_store_commit(t->store->db, cause);
	pthread_mutex_unlock(&t->store->mu);
	return (rv);
}

int
trial_store_commit(struct trial *t, char **cause)
{
	int	rv;

	pthread_mutex_lock(&t->store->mu);
	rv = dn_store_commit(t->store->db, cause);
	pthread_mutex_unlock(&t->store->mu);
	return (rv);
}

int
trial_store_metric_find(struct trial *t, const char *name, int *id,
    char **cause)
{
	int	rv;

	pthread_mutex_lock(&t->store->mu);
	rv = dn_store_metric_find(t->store->db, name, id, NULL, cause);
	pthread_mutex_unlock(&t->store->mu);
	return (rv);
}

int
trial_store_series(struct trial *t, int id, int64_t from_ms,
    struct dn_series **sr, size_t *n, char **cause)
{
	int	rv;

	pthread_mutex_lock(&t->store->mu);
	rv = dn_store_series(t->store->db, t->run_id, id, from_ms, sr, n,
	    cause);
	pthread_mutex_unlock(&t->store->mu);
	return (rv);
}

int
trial_store_has_metric(struct trial *t, const char *name, int *has,
    char **cause)
{
	int	rv;

	pthread_mutex_lock(&t->store->mu);
	rv = dn_store_run_has_metric(t->store->db, t->run_id, name, has,
	    cause);
	pthread_mutex_unlock(&t->store->mu);
	return (rv);
}

int
trial_store_assertion(struct trial *t, const struct dn_assert_row *r,
    char **cause)
{
	int	rv;

	pthread_mutex_lock(&t->store->mu);
	rv = dn_store_assertion(t->store->db, r, cause);
	pthread_mutex_unlock(&t->store->mu);
	return (rv);
}
