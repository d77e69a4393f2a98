/*
 * ab-seq.c: the looks of `devnet ab --until decided` (ab-seq.h).  After
 * every ABBA block (two trials per variant) the group so far is analysed
 * as a group-sequential design (verdict/compare-seq.c, docs/statistics.md
 * section 8); the plan stops when every metric is decided, when none of
 * the undecided ones can be decided in the trials or budget left
 * (futility), at the maximum, or at the budget.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/ab-seq.h"
#include "store.h"
#include "clock.h"
#include "xalloc.h"

/* Trials per variant in one look's block. */
#define AB_SEQ_BLOCK	2
/* Futility only from this look on: the spread of 2 or 4 trials per side
 * is too uncertain to give up on (a loaded machine's A/A went futile at
 * look 2 and would have been shown not-worse at look 3). */
#define AB_SEQ_FUTILE_LOOKS	3

int
ab_seq_init(struct ab_seq *s, const struct compare_opts *co, int max_trials,
    int64_t budget_ms, FILE *out)
{
	size_t	per_side;

	memset(s, 0, sizeof(*s));
	s->co = *co;
	s->co.seq = &s->q;
	per_side = (size_t)(max_trials > 0 ? max_trials :
	    AB_SEQ_MAX_TRIALS) / 2;
	per_side -= per_side % AB_SEQ_BLOCK;
	if (per_side < AB_SEQ_BLOCK)
		per_side = AB_SEQ_BLOCK;
	if (per_side > AB_SEQ_BLOCK * COMPARE_SEQ_LOOKS)
		per_side = AB_SEQ_BLOCK * COMPARE_SEQ_LOOKS;
	s->q.max_per_side = per_side;
	s->budget_ms = budget_ms;
	s->out = out;
	s->t0_ns = s->last_ns = dn_now_ns();
	return ((int)per_side);
}

static void
fmt_hms(char *buf, size_t len, double sec)
{
	long	v = (long)(sec < 0 ? 0 : sec + 0.5);

	snprintf(buf, len, "%ld:%02ld:%02ld", v / 3600, v / 60 % 60, v % 60);
}

/* The trials per side reachable: the design's maximum, or fewer when
 * the budget runs out first. */
static size_t
reachable(const struct ab_seq *s, size_t per_side, double elapsed_s)
{
	double	blocks;
	size_t	reach = s->q.max_per_side;

	if (s->budget_ms > 0 && s->block_s > 0) {
		blocks = floor((s->budget_ms / 1000.0 - elapsed_s) /
		    s->block_s);
		if (blocks < 0)
			blocks = 0;
		if (per_side + (size_t)blocks * AB_SEQ_BLOCK < reach)
			reach = per_side + (size_t)blocks * AB_SEQ_BLOCK;
	}
	return (reach);
}

/* What is decided and what is left among the primary metrics, one line
 * after each look (issue 35): the answer so far without reading the
 * rows. */
static void
say_state(const struct ab_seq *s, const struct compare_result *r,
    size_t reach)
{
	size_t	i, ndone = 0, nleft = 0;

	fputs("devnet: decided:", s->out);
	for (i = 0; i < r->nprimary; i++)
		if (r->rows[i].verdict[0] != 'u')
			fprintf(s->out, "%s %s %s", ndone++ ? "," : "",
			    r->rows[i].name, r->rows[i].verdict);
	fprintf(s->out, "%s; left:", ndone ? "" : " none");
	for (i = 0; i < r->nprimary; i++) {
		const struct compare_row *row = &r->rows[i];

		if (row->verdict[0] != 'u')
			continue;
		fprintf(s->out, "%s %s (", nleft++ ? "," : "", row->name);
		if (compare_row_a_zero(row))
			fputs("A is 0", s->out);
		else if (row->seq_needed > 0)
			fprintf(s->out, "needs ~%ld per side%s",
			    row->seq_needed, (size_t)row->seq_needed > reach ?
			    ", out of reach" : "");
		else if (row->seq_needed < 0)
			fputs("out of reach", s->out);
		else
			fputs("no spread yet", s->out);
		fputc(')', s->out);
	}
	fprintf(s->out, "%s\n", nleft ? "" : " none");
}

/* Why the design stops, naming the limit that bound it: --max-trials,
 * --budget, or the default budget when none was given. */
static void
say_stop(const struct ab_seq *s, const char *stop)
{
	char	b[32];

	fmt_hms(b, sizeof(b), s->budget_ms / 1000.0);
	if (strcmp(stop, "futile") == 0 && s->q.budget_bound)
		fprintf(s->out, "devnet: stopping: futile: no undecided "
		    "primary metric can be decided in the %s left (%s)\n",
		    s->budget_default ? "default budget" : "--budget", b);
	else if (strcmp(stop, "futile") == 0)
		fprintf(s->out, "devnet: stopping: futile: no undecided "
		    "primary metric can be decided within --max-trials (%zu "
		    "per side)\n", s->q.max_per_side);
	else if (strcmp(stop, "budget") == 0 && s->budget_default)
		fprintf(s->out, "devnet: stopping: budget: the default "
		    "budget (%s) allows no further block (--budget DUR to "
		    "change it)\n", b);
	else
		fprintf(s->out, "devnet: stopping: %s\n", stop);
}

/* Print the look and decide: the stop word, or NULL to go on.  Only the
 * primary metrics decide when to stop (the secondary ones are
 * exploratory); every row is printed. */
static const char *
look(struct ab_seq *s, const struct compare_result *r, size_t per_side)
{
	double		 elapsed = (double)(dn_now_ns() - s->t0_ns) / 1e9;
	size_t		 i, reach, most = 0, unreachable = 0;
	int		 futile = 1, undecided = 0;
	char		 el[32], eta[32];
	const char	*stop = NULL;

	reach = reachable(s, per_side, elapsed);
	for (i = 0; i < r->nprimary; i++) {
		const struct compare_row *row = &r->rows[i];

		if (row->verdict[0] != 'u')	/* decided */
			continue;
		undecided++;
		if (compare_row_a_zero(row))
			unreachable++;	/* no trial count decides it */
		else if (row->seq_needed == 0 || (row->seq_needed > 0 &&
		    (size_t)row->seq_needed <= reach)) {
			futile = 0;
			if (row->seq_needed > 0 &&
			    (size_t)row->seq_needed > most)
				most = (size_t)row->seq_needed;
		} else
			unreachable++;
	}
	/* What bounds the trials: the budget when it ends before the
	 * design's maximum (the stored `why` names it). */
	s->q.budget_bound = reach < s->q.max_per_side;
	if (undecided == 0)
		stop = "decided";
	else if (futile && s->q.nlooks >= AB_SEQ_FUTILE_LOOKS)
		stop = "futile";
	else if (per_side >= s->q.max_per_side)
		stop = "max-trials";
	else if (reach <= per_side)
		stop = "budget";
	if (s->out == NULL)
		return (stop);
	fmt_hms(el, sizeof(el), elapsed);
	fprintf(s->out, "devnet: look %zu: %zu trials (%zu per side, at most "
	    "%zu), %s so far\n", s->q.nlooks, 2 * per_side, per_side,
	    s->q.max_per_side, el);
	for (i = 0; i < r->nrows; i++) {
		const struct compare_row *row = &r->rows[i];

		if (i == r->nprimary)
			fprintf(s->out, "  secondary (exploratory, not "
			    "waited for):\n");
		fprintf(s->out, "  %-18s %-10s %+7.2f%% [%+.1f%%, %+.1f%%] "
		    "p %.2g", row->name, row->verdict, row->delta_pct,
		    row->delta_ci_low, row->delta_ci_high, row->p);
		if (row->verdict[0] == 'u' && compare_row_a_zero(row))
			fprintf(s->out, ", A is 0");
		else if (row->verdict[0] == 'u' && row->seq_needed > 0)
			fprintf(s->out, ", needs ~%ld per side%s",
			    row->seq_needed, (size_t)row->seq_needed > reach ?
			    " (out of reach)" : "");
		else if (row->verdict[0] == 'u' && row->seq_needed < 0)
			fprintf(s->out, ", out of reach");
		fputc('\n', s->out);
	}
	say_state(s, r, reach);
	if (stop != NULL)
		say_stop(s, stop);
	else if (futile) {
		/* Every undecided one is out of reach, but it is too early
		 * to give up: say so, not "about 1 more block". */
		fmt_hms(eta, sizeof(eta), s->block_s);
		fprintf(s->out, "devnet: to a decision: out of reach at this "
		    "spread (%zu undecided primary metric%s); futility is "
		    "judged from look %d on, so one more block, %s\n",
		    unreachable, unreachable == 1 ? "" : "s",
		    AB_SEQ_FUTILE_LOOKS, eta);
	} else {
		size_t	left = most > per_side ? most - per_side :
		    AB_SEQ_BLOCK;

		if (per_side + left > reach)
			left = reach - per_side;
		left = (left + AB_SEQ_BLOCK - 1) / AB_SEQ_BLOCK;
		fmt_hms(eta, sizeof(eta), (double)left * s->block_s);
		fprintf(s->out, "devnet: to a decision: about %zu more "
		    "block%s, %s (estimate%s)\n", left, left == 1 ? "" : "s",
		    eta, unreachable ? "; some undecided metrics are out of "
		    "reach" : "");
	}
	fflush(s->out);
	return (stop);
}

int
ab_seq_after_slot(void *arg, const struct scenario *scn,
    struct dn_store *store, const struct runner_result *res)
{
	struct ab_seq		*s = arg;
	struct compare_result	*r = NULL;
	char			*sa, *sb, *cause = NULL;
	const char		*stop;
	uint64_t		 now;
	size_t			 per_side;

	if (scn->nvariants != 2) {
		fprintf(stderr, "devnet: --until decided compares two "
		    "variants; the scenario has %zu\n", scn->nvariants);
		s->failed = 1;
		snprintf(s->q.stop, sizeof(s->q.stop), "failed");
		return (1);
	}
	if (res->nfailed > 0) {
		snprintf(s->q.stop, sizeof(s->q.stop), "failed");
		fprintf(stderr, "devnet: stopping: a trial failed (a "
		    "sequential design needs every trial of its blocks)\n");
		return (1);
	}
	if (res->nruns % (2 * AB_SEQ_BLOCK) != 0)
		return (0);
	now = dn_now_ns();
	s->block_s = (double)(now - s->last_ns) / 1e9;
	s->last_ns = now;
	per_side = res->nruns / 2;
	if (s->q.nlooks >= COMPARE_SEQ_LOOKS)
		return (1);
	s->q.looks[s->q.nlooks++] = per_side;
	sa = dn_xasprintf("%lld:%s", (long long)res->group_id,
	    scn->variants[0].name);
	sb = dn_xasprintf("%lld:%s", (long long)res->group_id,
	    scn->variants[1].name);
	if (compare_analyze(store, sa, sb, &s->co, &r, &cause) != 0) {
		fprintf(stderr, "devnet: look %zu: %s\n", s->q.nlooks, cause);
		free(cause);
		stop = per_side >= s->q.max_per_side ? "max-trials" : NULL;
	} else
		stop = look(s, r, per_side);
	compare_result_free(r);
	free(sa);
	free(sb);
	if (stop == NULL)
		return (0);
	snprintf(s->q.stop, sizeof(s->q.stop), "%s", stop);
	return (1);
}

int
ab_seq_finish(struct ab_seq *s, struct dn_store *store,
    const struct runner_result *res, char **cause)
{
	char	*v;
	size_t	 i;
	int	 rv = 0;

	if (s->q.stop[0] == '\0')
		snprintf(s->q.stop, sizeof(s->q.stop), "%s", res->signal ?
		    "interrupted" : res->nfailed ? "failed" : "max-trials");
	if (s->q.nlooks == 0)
		return (0);
	v = compare_seq_format(&s->q, s->co.require_pct);
	for (i = 0; i < res->nruns && rv == 0; i++)
		rv = dn_store_fact(store, res->run_ids[i], -1, "sequential", v,
		    cause);
	free(v);
	if (rv == 0)
		rv = dn_store_commit(store, cause);
	return (rv);
}
