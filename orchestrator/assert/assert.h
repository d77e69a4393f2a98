/*
 * assert.h: the scenario's assertions (assert:, docs/scenarios.md
 * "Assertions") judged in each trial: `eventually` and `always` live,
 * sample by sample, from the runner's tick; `value` at the trial's end
 * from the stored samples; one row per assertion per run in the table
 * `assertions`.  Called by run/ (the trial's life) and cmd/ (output).
 * Relative assertions are the verdict's (verdict/), not judged here.
 */
#ifndef DN_ASSERT_H
#define DN_ASSERT_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

struct trial;
struct dn_store;

/* At t=0 of trial T: its assertions' state in T->asserts (NULL when the
 * scenario has none).  Main thread, like the calls below. */
void	 assert_begin(struct trial *t);

/* Once per runner tick: when a sample interval has passed, judge the live
 * assertions on the nodes' and the load generator's last samples;
 * `eventually` passes as soon as it holds, `always` fails as soon as it
 * is broken (for `sustained`), each decided once. */
void	 assert_tick(struct trial *t);

/* Scenario event E of T fired at trial time T_MS (its row's t_ms): the
 * windows anchored on it begin there.  Events not fired are not anchors:
 * an `after:` or `during:` window stays closed until its event fires. */
void	 assert_event_fired(struct trial *t, size_t e, int64_t t_ms);

/* 1 when an `always` with abort_on_fail failed and its grace is over:
 * the runner ends the trial now. */
int	 assert_should_end(const struct trial *t);
/* The name of the assertion that ended T early, or NULL (owned by the
 * scenario). */
const char *assert_ended_by(const struct trial *t);

/*
 * After the run's end is stored (every sample committed): decide what is
 * left (an `eventually` that never held fails; an `always` whose window
 * saw samples passes; none seen: inconclusive), judge the `value`
 * assertions on the stored samples, store one row per assertion and set
 * T->asserts_failed / asserts_inconclusive.  OUT (may be NULL) gets one
 * line per assertion.  Frees T->asserts.
 */
void	 assert_finish(struct trial *t, FILE *out);

/* Free T->asserts (a trial that never reached t=0); accepts NULL. */
void	 assert_free(struct trial *t);

/*
 * JUnit XML of the assertions of runs RUN_IDS[0..N-1] (one testsuite per
 * run, one testcase per assertion; a failure's message readable alone)
 * on OUT.  0, or -1 with *CAUSE.
 */
int	 assert_junit(FILE *out, struct dn_store *s, const int64_t *run_ids,
	    size_t n, char **cause);

/*
 * One assertion's result as a JUnit test case: NAME (owned by whoever
 * made it), STATUS "pass", "fail", "inconclusive" or "not judged",
 * MESSAGE readable alone (why it failed, or why it was not decided).
 */
struct assert_case {
	char		*name;
	const char	*status;
	char		*message;
};

/*
 * One JUnit test suite NAME of CASES[0..N-1] on OUT, as assert_junit
 * writes each run's: a test case per result, class devnet.assert.SCENARIO
 * (devnet.assert when SCENARIO is NULL); a failure carries its message, a
 * result neither passed nor failed is skipped with "STATUS: MESSAGE".
 * For results judged outside a run (compare's relative assertions).
 */
void	 assert_junit_suite(FILE *out, const char *name, const char *scenario,
	    const struct assert_case *cases, size_t n);

/* The assertions of runs RUN_IDS[0..N-1], one line each, and the counts,
 * on OUT (nothing when there are none): how `run` and `ab` end.  QUIET
 * (run --quiet) leaves out the passed ones, never the counts or a failed
 * or inconclusive one: quiet drops progress, not the answer. */
int	 assert_summary(FILE *out, struct dn_store *s, const int64_t *run_ids,
	    size_t n, int quiet, char **cause);

#endif
