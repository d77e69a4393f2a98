/*
 * test-provider-view.c: a provider gets the trial's view (struct
 * provider_trial, provider.h), never the whole trial (issue 34).  The
 * view the runner makes (setup_provider_view) carries the trial's own
 * facts and node records: the local provider starts, polls and stops
 * real programs through it, their exit status and output landing in the
 * trial's node records.  What a provider says back goes through trial/'s
 * door (trial_ref_*, trial-node.h) into the trial's store: an event, a
 * fact and a node's host, read back row by row.  And the one field a
 * provider reads that the collector thread writes (final_seen) is read
 * under the trial's lock: while another thread holds it, the read waits
 * and then sees what that thread wrote.
 *
 * Not here: the docker and swarm providers (tests/e2e/docker.sh,
 * tests/e2e/swarm.sh), a whole run (tests/e2e/smoke.sh).
 */
#include <sys/wait.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "store.h"
#include "provider/provider.h"
#include "run/runner.h"
#include "run/runner-internal.h"
#include "trial/trial.h"
#include "trial/trial-store.h"
#include "clock.h"
#include "xalloc.h"

#define NODES	2

struct fixture {
	char			 dir[64];
	char			*dbpath;
	struct dn_store		*store;
	struct scenario		 scn;
	struct scn_variant	 var;
	struct trial		 t;
	struct provider_trial	*v;
};

static void
fixture_up(struct fixture *f)
{
	struct dn_run_info	 ri = { .scenario_name = "view",
				    .variant = "A", .nodes = NODES };
	char			*cause = NULL;
	int			 k;

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/dn-view-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->dbpath = dn_xasprintf("%s/t.db", f->dir);
	if (dn_store_open(&f->store, f->dbpath, 0, &cause) != 0 ||
	    dn_store_run_begin(f->store, &ri, &f->t.run_id, &cause) != 0)
		fail_msg("store: %s", cause);
	for (k = 0; k < NODES; k++)
		assert_int_equal(dn_store_node_add(f->store, f->t.run_id, k,
		    100 + k, "/bin/sh", "", "sh", &cause), 0);
	f->var.name = dn_xstrdup("A");
	f->scn.variants = &f->var;
	f->scn.nvariants = 1;
	f->scn.network.nodes = NODES;
	f->scn.provider = SCN_PROV_LOCAL;
	f->t.scn = &f->scn;
	f->t.var = &f->var;
	f->t.pt.index = 3;
	f->t.token = 0x5eedull;
	f->t.run_dir = dn_xstrdup(f->dir);
	f->t.net_dir = dn_xstrdup(f->dir);
	f->t.metrics_url = dn_xasprintf("ipc://%s/collector", f->dir);
	f->t.nnodes = NODES;
	f->t.nodes = dn_xcalloc(NODES, sizeof(*f->t.nodes));
	for (k = 0; k < NODES; k++)
		f->t.nodes[k].out_path = dn_xasprintf("%s/node-%d.out",
		    f->dir, k);
	pthread_mutex_init(&f->t.mu, NULL);
	f->t.store = trial_store_new(f->store);
	f->t.spawn_ns = dn_now_ns();
	atomic_init(&f->t.t0_ns, f->t.spawn_ns);
	f->v = setup_provider_view(&f->t);
}

static void
fixture_down(struct fixture *f)
{
	char	*rm;
	int	 k;

	free(f->v);
	free(f->var.name);
	trial_store_free(f->t.store);
	dn_store_close(f->store);
	pthread_mutex_destroy(&f->t.mu);
	for (k = 0; k < NODES; k++)
		free(f->t.nodes[k].out_path);
	free(f->t.nodes);
	free(f->t.run_dir);
	free(f->t.net_dir);
	free(f->t.metrics_url);
	free(f->t.store_error);
	rm = dn_xasprintf("rm -rf '%s'", f->dir);
	(void)!system(rm);
	free(rm);
	free(f->dbpath);
}

/* The view is the trial's: its facts, its node records, no copy. */
static void
view_is_the_trials(void **state)
{
	struct fixture	f;

	(void)state;
	fixture_up(&f);
	assert_ptr_equal(f.v->scn, &f.scn);
	assert_ptr_equal(f.v->var, &f.var);
	assert_int_equal(f.v->run_id, f.t.run_id);
	assert_true(f.v->token == 0x5eedull);
	assert_int_equal(f.v->index, 3);
	assert_string_equal(f.v->run_dir, f.dir);
	assert_string_equal(f.v->net_dir, f.dir);
	assert_ptr_equal(f.v->metrics_url, f.t.metrics_url);
	assert_ptr_equal(f.v->pin_cpus, f.t.pin_cpus);
	assert_null(f.v->net);
	assert_int_equal(f.v->nnodes, NODES);
	assert_ptr_equal(f.v->nodes, f.t.nodes);
	assert_ptr_equal(f.v->ref, &f.t.ref);
	fixture_down(&f);
}

/* The local provider runs real programs through the view: node 0 exits
 * 3 after a line of output, node 1 runs until stop_all's SIGTERM. */
static void
local_nodes_through_the_view(void **state)
{
	static char	 sh[] = "/bin/sh", c[] = "-c",
			 script[] = "echo view-out; exit 3",
			 sleep[] = "/bin/sleep", secs[] = "30";
	char		*argv0[] = { sh, c, script, NULL };
	char		*argv1[] = { sleep, secs, NULL };
	struct fixture	 f;
	char		*cause = NULL, line[64] = "";
	uint64_t	 until;
	FILE		*fp;

	(void)state;
	fixture_up(&f);
	f.t.nodes[0].argv = argv0;
	f.t.nodes[1].argv = argv1;
	if (provider_start(f.v, 0, &cause) != 0 ||
	    provider_start(f.v, 1, &cause) != 0)
		fail_msg("provider_start: %s", cause);
	assert_true(f.t.nodes[0].proc.pid > 0);
	until = dn_now_ns() + 5000000000ull;
	while (!provider_poll(f.v, 0) && dn_now_ns() < until)
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	assert_true(f.t.nodes[0].proc.exited);
	assert_true(WIFEXITED(f.t.nodes[0].proc.status));
	assert_int_equal(WEXITSTATUS(f.t.nodes[0].proc.status), 3);
	assert_false(provider_poll(f.v, 1));
	assert_int_equal(provider_stop_all(f.v, 5000), 0);
	assert_true(f.t.nodes[1].proc.exited);
	assert_true(WIFSIGNALED(f.t.nodes[1].proc.status));
	provider_teardown(f.v);
	fp = fopen(f.t.nodes[0].out_path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof(line), fp));
	fclose(fp);
	assert_string_equal(line, "view-out\n");
	fixture_down(&f);
}

static int
one_text(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	(void)names;
	(void)types;
	if (ncols == 1 && values[0] != NULL)
		snprintf(arg, 64, "%s", values[0]);
	return (0);
}

static void
query(struct fixture *f, const char *sql, char *out)
{
	char	*cause = NULL, *q;

	out[0] = '\0';
	q = dn_xasprintf(sql, (long long)f->t.run_id);
	if (dn_store_query(f->store, q, NULL, 0, one_text, out, &cause) != 0)
		fail_msg("query: %s", cause);
	free(q);
}

/* What a provider says back lands in the trial's store, under the node
 * it names. */
static void
door_writes_the_trial(void **state)
{
	struct fixture	f;
	char		got[64], *cause = NULL;

	(void)state;
	fixture_up(&f);
	trial_ref_event(f.v->ref, 1, "docker", "signal %d: no task yet", 9);
	trial_ref_fact(f.v->ref, 0, "cgroup_cpu_s", "%.3f", 1.25);
	if (trial_ref_node_host(f.v->ref, 1, "host-b", &cause) != 0)
		fail_msg("node host: %s", cause);
	query(&f, "SELECT node || ' ' || detail FROM events WHERE run_id = "
	    "%lld AND kind = 'docker'", got);
	assert_string_equal(got, "1 signal 9: no task yet");
	query(&f, "SELECT node || ' ' || value FROM run_facts WHERE run_id = "
	    "%lld AND key = 'cgroup_cpu_s'", got);
	assert_string_equal(got, "0 1.250");
	query(&f, "SELECT host FROM nodes WHERE run_id = %lld AND node = 1",
	    got);
	assert_string_equal(got, "host-b");
	assert_int_equal(f.t.store_failed, 0);
	fixture_down(&f);
}

struct holder {
	struct trial	*t;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 holding;
};

/* As the collector does: final_seen written under the trial's lock, here
 * after holding it 200 ms. */
static void *
hold_then_write(void *arg)
{
	struct holder	*h = arg;

	pthread_mutex_lock(&h->t->mu);
	pthread_mutex_lock(&h->mu);
	h->holding = 1;
	pthread_cond_signal(&h->cv);
	pthread_mutex_unlock(&h->mu);
	nanosleep(&(struct timespec){ 0, 200 * 1000 * 1000 }, NULL);
	h->t->nodes[1].final_seen = 1;
	pthread_mutex_unlock(&h->t->mu);
	return (NULL);
}

static void
final_seen_under_the_lock(void **state)
{
	struct fixture	f;
	struct holder	h;
	pthread_t	th;
	uint64_t	t0;
	int		seen;

	(void)state;
	fixture_up(&f);
	memset(&h, 0, sizeof(h));
	h.t = &f.t;
	pthread_mutex_init(&h.mu, NULL);
	pthread_cond_init(&h.cv, NULL);
	assert_int_equal(trial_ref_final_seen(f.v->ref, 1), 0);
	assert_int_equal(pthread_create(&th, NULL, hold_then_write, &h), 0);
	pthread_mutex_lock(&h.mu);
	while (!h.holding)
		pthread_cond_wait(&h.cv, &h.mu);
	pthread_mutex_unlock(&h.mu);
	t0 = dn_now_ns();
	seen = trial_ref_final_seen(f.v->ref, 1);
	assert_int_equal(seen, 1);
	assert_true(dn_now_ns() - t0 >= 100000000ull);	/* it waited */
	pthread_join(th, NULL);
	pthread_cond_destroy(&h.cv);
	pthread_mutex_destroy(&h.mu);
	fixture_down(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(view_is_the_trials),
		cmocka_unit_test(local_nodes_through_the_view),
		cmocka_unit_test(door_writes_the_trial),
		cmocka_unit_test(final_seen_under_the_lock),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
