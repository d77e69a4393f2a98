/*
 * assert-text.c: what an assertion's result says, so that a failure
 * needs no second look: the condition as written, the events active at
 * the failing sample, the last lines of the node's log; and where an
 * assertion's window and the events' spans fall in a trial.
 * Not here: judging (assert-live.c, assert-end.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assert/assert-internal.h"
#include "sys/spawn.h"
#include "xalloc.h"

void
ast_fmt_num(char *buf, size_t cap, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, cap, "%.0f", v);
	else if (fabs(v) >= 1000 && fabs(v) < 1e15)
		snprintf(buf, cap, "%.1f", v);
	else
		snprintf(buf, cap, "%.4g", v);
}

void
ast_cond(char *buf, size_t cap, const struct scn_assert *a)
{
	char	lim[48];

	ast_fmt_num(lim, sizeof(lim), a->limit);
	snprintf(buf, cap, "%s %s %s%s%s", a->metric, scn_cmp_text(a->cmp),
	    lim, a->unit[0] ? " " : "", a->unit);
}

int
ast_window(const struct trial *t, const struct scn_assert *a, int64_t *from,
    int64_t *to)
{
	const int64_t	*ev = t->asserts->event_ms;

	if (a->during_event >= 0) {
		scn_event_span(t->scn, (size_t)a->during_event, ev, from, to);
		return (*to < 0 ? -1 : 0);
	}
	*from = scn_anchor_ms(t->scn, &a->from, ev);
	*to = scn_anchor_ms(t->scn, &a->to, ev);
	if (*from < 0 || *to < 0)
		return (-1);
	if (a->form == SCN_AF_EVENTUALLY && a->within_ms > 0 &&
	    *from + a->within_ms < *to)
		*to = *from + a->within_ms;
	return (0);
}

int
ast_in_event(const struct trial *t, int64_t t_ms)
{
	int64_t	from, to;
	size_t	i;

	for (i = 0; i < t->scn->nevents; i++) {
		scn_event_span(t->scn, i, t->asserts->event_ms, &from, &to);
		if (to >= 0 && t_ms >= from && t_ms <= to)
			return (1);
	}
	return (0);
}

char *
ast_events_active(const struct trial *t, int64_t t_ms)
{
	const struct scenario	*s = t->scn;
	char			*acc = NULL, *tmp, node[32];
	int64_t			 from, to;
	size_t			 i;

	for (i = 0; i < s->nevents; i++) {
		scn_event_span(s, i, t->asserts->event_ms, &from, &to);
		if (to < 0 || t_ms < from || t_ms > to)
			continue;
		snprintf(node, sizeof(node), " node %d", s->events[i].node);
		tmp = dn_xasprintf("%s%s%s%s%s%s%s since t=%.1f s",
		    acc ? acc : "", acc ? ", " : "",
		    scenario_action_name(s->events[i].action),
		    s->events[i].node >= 0 ? node : "",
		    s->events[i].name ? " ('" : "",
		    s->events[i].name ? s->events[i].name : "",
		    s->events[i].name ? "')" : "", (double)from / 1000.0);
		free(acc);
		acc = tmp;
	}
	tmp = dn_xasprintf("; events active: %s", acc ? acc : "none");
	free(acc);
	return (tmp);
}

char *
ast_log_tail(const struct trial *t, int node)
{
	const char	*path, *base;
	char		*tail, *msg, *p;

	if (node < 0 || node >= t->nnodes)
		return (dn_xstrdup(""));
	path = t->nodes[node].log_path;
	if (path == NULL || (tail = spawn_tail(path, 3)) == NULL) {
		path = t->nodes[node].out_path;
		if (path == NULL || (tail = spawn_tail(path, 3)) == NULL)
			return (dn_xstrdup(""));
	}
	/* one line of text: " | " between the log's lines */
	for (p = tail; (p = strchr(p, '\n')) != NULL; p++)
		*p = '|';
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	msg = dn_xasprintf("; last lines of %s: %s", base, tail);
	free(tail);
	return (msg);
}
