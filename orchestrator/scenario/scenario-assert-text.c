/*
 * scenario-assert-text.c: what an assertion of the assert: section means
 * in a trial's time line (where its anchors fall, when an event is
 * active) and in words (the line `devnet validate` prints, the
 * comparison signs).  Not here: loading (scenario-assert.c), evaluating
 * (orchestrator/assert/).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scenario/scenario.h"
#include "metric-table.h"

static const char *const cmp_text[] = { "<", "<=", ">", ">=", "==" };
static const char *const scope_text[] = { "each_node", "all_nodes",
	"any_node", "max_spread", "load" };
static const char *const form_names[] = { "eventually", "always", "value",
	"relative" };

const char *
scn_cmp_text(enum scn_acmp c)
{
	return (cmp_text[c]);
}

const char *
scn_scope_text(enum scn_ascope sc)
{
	return (scope_text[sc]);
}

int
scn_cmp_holds(enum scn_acmp c, double v, double limit)
{
	if (isnan(v))
		return (0);
	switch (c) {
	case SCN_CMP_LT:
		return (v < limit);
	case SCN_CMP_LE:
		return (v <= limit);
	case SCN_CMP_GT:
		return (v > limit);
	case SCN_CMP_GE:
		return (v >= limit);
	case SCN_CMP_EQ:
		return (v == limit);
	}
	return (0);
}

/* --- the time line and the description ---------------------------------- */

int64_t
scn_anchor_ms(const struct scenario *s, const struct scn_anchor *a,
    const int64_t *event_ms)
{
	int64_t	base = 0;

	switch (a->kind) {
	case SCN_ANC_START:
		base = 0;
		break;
	case SCN_ANC_WARMUP:
		base = s->warmup_ms;
		break;
	case SCN_ANC_END:
		base = s->duration_ms;
		break;
	case SCN_ANC_EVENT:
		if ((base = event_ms[a->event]) < 0)
			return (-1);
		break;
	}
	base += a->offset_ms;
	if (base < 0)
		base = 0;
	return (base > s->duration_ms ? s->duration_ms : base);
}

void
scn_event_span(const struct scenario *s, size_t i, const int64_t *event_ms,
    int64_t *from_ms, int64_t *to_ms)
{
	const struct scn_event	*e = &s->events[i];
	int64_t			 end = s->duration_ms;
	size_t			 j;

	*from_ms = event_ms[i];
	*to_ms = -1;
	if (event_ms[i] < 0)
		return;
	/* what undoes it: stop..cont, kill or term..restart of the same
	 * node; partition or link..heal (a link with `for` ends by itself) */
	for (j = 0; j < s->nevents; j++) {
		const struct scn_event *u = &s->events[j];
		int	undoes;

		if (j == i || event_ms[j] < event_ms[i] || event_ms[j] >= end)
			continue;
		switch (e->action) {
		case SCN_EV_STOP:
			undoes = u->action == SCN_EV_CONT && u->node == e->node;
			break;
		case SCN_EV_KILL:
		case SCN_EV_TERM:
			undoes = u->action == SCN_EV_RESTART &&
			    u->node == e->node;
			break;
		case SCN_EV_PARTITION:
		case SCN_EV_LINK:
			undoes = u->action == SCN_EV_HEAL;
			break;
		default:
			undoes = 0;
			break;
		}
		if (undoes)
			end = event_ms[j];
	}
	if (e->action == SCN_EV_LINK && e->for_ms > 0 &&
	    event_ms[i] + e->for_ms < end)
		end = event_ms[i] + e->for_ms;
	if (e->action == SCN_EV_CONT || e->action == SCN_EV_RESTART ||
	    e->action == SCN_EV_HEAL)
		end = event_ms[i];
	end += 2 * s->network.block_interval_ms;
	*to_ms = end > s->duration_ms ? s->duration_ms : end;
}

static int64_t
clamp(const struct scenario *s, int64_t ms)
{
	return (ms < 0 ? 0 : ms > s->duration_ms ? s->duration_ms : ms);
}

static size_t
put_anchor(char *buf, size_t cap, const struct scenario *s,
    const struct scn_anchor *a)
{
	char	off[32], at[32];
	int	n;

	off[0] = '\0';
	if (a->offset_ms != 0) {
		scenario_fmt_ms(off + 1, sizeof(off) - 1, a->offset_ms < 0 ?
		    -a->offset_ms : a->offset_ms);
		off[0] = a->offset_ms < 0 ? '-' : '+';
	}
	switch (a->kind) {
	case SCN_ANC_START:
		n = snprintf(buf, cap, "t=0%s", off);
		break;
	case SCN_ANC_WARMUP:
		scenario_fmt_ms(at, sizeof(at), clamp(s, s->warmup_ms +
		    a->offset_ms));
		n = snprintf(buf, cap, "warmup%s (t=%s)", off, at);
		break;
	case SCN_ANC_END:
		scenario_fmt_ms(at, sizeof(at), clamp(s, s->duration_ms +
		    a->offset_ms));
		n = snprintf(buf, cap, "end%s (t=%s)", off, at);
		break;
	default:
		scenario_fmt_ms(at, sizeof(at), clamp(s,
		    s->events[a->event].at_ms + a->offset_ms));
		n = snprintf(buf, cap, "event '%s'%s (t=%s)",
		    s->events[a->event].name, off, at);
		break;
	}
	return (n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n);
}

void
scn_assert_describe(char *buf, size_t cap, const struct scenario *s,
    const struct scn_assert *a)
{
	static const char *const sc[] = { "each node", "all nodes at once",
		"any node", "the spread over nodes (max - min)",
		"the load generator" };
	static const char *const fold_text[] = { "", "mean of ", "max of ",
		"min of ", "p99 of ", "growth per minute (slope) of ",
		"rate per second of ", "median of " };
	char	w[32], what[160];
	size_t	u = 0;

#define PUT(...) do {							\
	int n_ = snprintf(buf + u, cap - u, __VA_ARGS__);		\
	if (n_ > 0)							\
		u += (size_t)n_ >= cap - u ? cap - u - 1 : (size_t)n_;	\
} while (0)
	snprintf(what, sizeof(what), "%s", a->metric);
	if (a->fold != SCN_FOLD_NONE && a->metric_id2 >= 0)
		snprintf(what, sizeof(what), "%s (%s%s + %s)", a->metric,
		    fold_text[a->fold], dn_metric_defs[a->metric_id].name,
		    dn_metric_defs[a->metric_id2].name);
	else if (a->fold != SCN_FOLD_NONE && a->metric_id >= 0 &&
	    strcmp(a->metric, dn_metric_defs[a->metric_id].name) != 0)
		snprintf(what, sizeof(what), "%s (%s%s)", a->metric,
		    fold_text[a->fold], dn_metric_defs[a->metric_id].name);
	else if (a->fold != SCN_FOLD_NONE)
		snprintf(what, sizeof(what), "%s%s", fold_text[a->fold],
		    a->metric);
	buf[0] = '\0';
	if (a->form == SCN_AF_RELATIVE) {
		PUT("relative: %s of %s vs %s %s %g%% (judged by the verdict "
		    "of ab/compare: pass only when the data show it)", what,
		    a->rel_b, a->rel_a, cmp_text[a->rel_cmp], a->rel_pct);
		return;
	}
	PUT("%s, %s: %s %s %.10g%s%s", form_names[a->form], sc[a->scope],
	    what, cmp_text[a->cmp], a->limit, a->unit[0] ? " " : "",
	    a->unit);
	if (a->form == SCN_AF_VALUE)
		PUT(" at the end");
	if (a->during_event >= 0) {
		scenario_fmt_ms(w, sizeof(w),
		    s->events[a->during_event].at_ms);
		PUT(", while event '%s' (t=%s) is active",
		    s->events[a->during_event].name, w);
	} else {
		PUT(", from ");
		u += put_anchor(buf + u, cap - u, s, &a->from);
		if (a->form == SCN_AF_EVENTUALLY && a->within_ms > 0) {
			scenario_fmt_ms(w, sizeof(w), a->within_ms);
			PUT(" within %s", w);
		} else {
			PUT(" to ");
			u += put_anchor(buf + u, cap - u, s, &a->to);
		}
	}
	if (a->except_events)
		PUT(", except while an event is active");
	if (a->sustained_ms > 0) {
		scenario_fmt_ms(w, sizeof(w), a->sustained_ms);
		PUT(", failing only when broken for %s", w);
	}
	if (a->abort_on_fail) {
		scenario_fmt_ms(w, sizeof(w), a->grace_ms);
		PUT(", a failure ends the trial (grace %s)", w);
	}
#undef PUT
}
