/*
 * unmeasured.c: at a foreign trial's end, the metrics its scenario
 * declares (node.metrics: log patterns, JSON fields, Prometheus map and
 * keep) of which no node gave a single sample, and why, as far as devnet
 * knows: each probe says it in node-K.out as it ends
 * (DN-PROBE-UNMEASURED NAME: WHY, probe/scrape.c and probe/logpump.c: a
 * page that answered 404 on every scrape, a path or a name the page does
 * not have, a pattern no line matched).  Said as the run fact
 * `unmeasured` (the names) and an event `unmeasured` per metric ("NAME:
 * WHY; see node-0.out"), which compare, ab and report turn into warnings,
 * and kept on the trial for its summary and its assertions.  The trial
 * stays ok: a metric nobody measured is absent, never 0.
 *
 * Not here: the probe's reasons, the warnings (verdict/compare-sides.c),
 * the assertions' words (assert/assert-end.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node-kind/node-kind.h"
#include "escape.h"
#include "store.h"
#include "trial/trial-store.h"
#include "units.h"
#include "xalloc.h"

#define TAIL_MAX	((long)256 * 1024)	/* the probe says it last */
#define TAG		"DN-PROBE-UNMEASURED "

/* Every name T's scenario declares for its nodes, into *NAMES (owned). */
static size_t
declared(const struct trial *t, char ***names)
{
	const struct scn_node	*o = &t->var->node;
	size_t			 i, n = 0;

	*names = dn_xcalloc(o->nlogm + o->nprom_map + o->nprom_keep + 1,
	    sizeof(char *));
	for (i = 0; i < o->nlogm; i++)
		(*names)[n++] = dn_xstrdup(o->logm[i].name);
	for (i = 0; i < o->nprom_map; i++)
		(*names)[n++] = dn_xstrndup(o->prom_map[i],
		    strcspn(o->prom_map[i], "="));
	for (i = 0; i < o->nprom_keep; i++)
		(*names)[n++] = dn_xstrdup(o->prom_keep[i]);
	return (n);
}

/*
 * What the probe of node K last said of each of the N NAMES, from the end
 * of its output, into WHY[i] (escaped, owned; left NULL when it said
 * nothing: it did not end normally, or the line is not there).
 */
static void
probe_says(const struct trial *t, int k, char **names, size_t n, char **why)
{
	char	*line = NULL, *p;
	size_t	 cap = 0, i, l;
	long	 size;
	FILE	*f;

	if ((f = fopen(t->nodes[k].out_path, "r")) == NULL)
		return;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > TAIL_MAX) {
		(void)fseek(f, size - TAIL_MAX, SEEK_SET);
		(void)getline(&line, &cap, f);	/* a part of a line */
	} else
		rewind(f);
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, TAG, sizeof(TAG) - 1) != 0)
			continue;
		p = line + sizeof(TAG) - 1;
		line[strcspn(line, "\n")] = '\0';
		for (i = 0; i < n; i++) {
			l = strlen(names[i]);
			if (strncmp(p, names[i], l) != 0 ||
			    strncmp(p + l, ": ", 2) != 0)
				continue;
			free(why[i]);
			why[i] = dn_escape_line(p + l + 2);
		}
	}
	free(line);
	fclose(f);
}

/* "0, 2, 5": the nodes K of T with SEL[K] == MARK, or NULL for none. */
static char *
node_list(const struct trial *t, const int *sel, int mark, int *count)
{
	char	*out = NULL, *s;
	int	 k;

	*count = 0;
	for (k = 0; k < t->nnodes; k++) {
		if (sel[k] != mark)
			continue;
		s = dn_xasprintf("%s%s%d", out ? out : "", out ? ", " : "", k);
		free(out);
		out = s;
		(*count)++;
	}
	return (out);
}

/*
 * One metric's reason over T's nodes from WHY (WHY[k * STRIDE]: node K's
 * words, or NULL): the words of the first node that said any, and which
 * nodes said alike; each other kind of words with its nodes; the nodes
 * whose probe said nothing; then where to read more.  Caller frees.
 */
static char *
over_nodes(const struct trial *t, char **why, size_t stride)
{
	char	*out = NULL, *s, *nodes;
	int	 k, j, first = -1, cnt, *grp;

	/* grp[k]: 1 + the first node of k's kind of words; 0: said none */
	grp = dn_xcalloc((size_t)t->nnodes, sizeof(int));
	for (k = 0; k < t->nnodes; k++) {
		const char *w = why[(size_t)k * stride];

		if (grp[k] != 0 || w == NULL)
			continue;
		for (j = k; j < t->nnodes; j++)
			if (grp[j] == 0 && why[(size_t)j * stride] != NULL &&
			    dn_same_but_digits(w,
			    why[(size_t)j * stride]))
				grp[j] = k + 1;
		if (first < 0)
			first = k;
		nodes = node_list(t, grp, k + 1, &cnt);
		if (t->nnodes == 1)
			s = dn_xstrdup(w);
		else if (cnt == t->nnodes)
			s = dn_xasprintf("%s (node %d's numbers; alike on "
			    "every node)", w, k);
		else
			s = dn_xasprintf("%s%s%s: %s", out ? "; " : "",
			    cnt > 1 ? "nodes " : "node ", nodes, w);
		free(nodes);
		nodes = dn_xasprintf("%s%s", out ? out : "", s);
		free(s);
		free(out);
		out = nodes;
	}
	if (out == NULL) {
		out = dn_xstrdup("no node sent a value of it, and no probe "
		    "said why (a probe says it as it ends normally)");
		first = 0;
	} else if ((nodes = node_list(t, grp, 0, &cnt)) != NULL) {
		s = dn_xasprintf("%s; %s %s: its probe said nothing of it",
		    out, cnt > 1 ? "nodes" : "node", nodes);
		free(out);
		free(nodes);
		out = s;
	}
	free(grp);
	s = dn_xasprintf("%s; see node-%d.out (devnet logs --node %d %lld)",
	    out, first, first, (long long)t->run_id);
	free(out);
	return (s);
}

void
foreign_unmeasured(struct trial *t)
{
	char		**names, **why, *cause = NULL, *list = NULL, *s;
	size_t		  n, i;
	int		  k, has;

	if (t->t0_ns == 0)
		return;		/* never ready: nothing was measured */
	n = declared(t, &names);
	why = dn_xcalloc(n * (size_t)t->nnodes + 1, sizeof(char *));
	for (k = 0; k < t->nnodes; k++)
		probe_says(t, k, names, n, why + (size_t)k * n);
	for (i = 0; i < n; i++) {
		if (trial_store_has_metric(t, names[i], &has, &cause) != 0) {
			free(cause);	/* the store's trouble is said */
			cause = NULL;	/* where its writes fail */
			has = 1;
		}
		if (has)
			continue;
		t->unmeasured = dn_xreallocarray(t->unmeasured,
		    t->nunmeasured + 1, sizeof(*t->unmeasured));
		t->unmeasured[t->nunmeasured].name = dn_xstrdup(names[i]);
		t->unmeasured[t->nunmeasured++].why = over_nodes(t, why + i,
		    n);
		trial_event(t, -1, "unmeasured", "%s: %s", names[i],
		    t->unmeasured[t->nunmeasured - 1].why);
		s = dn_xasprintf("%s%s%s", list ? list : "", list ? "," : "",
		    names[i]);
		free(list);
		list = s;
	}
	if (list != NULL)
		trial_fact(t, -1, "unmeasured", "%s", list);
	free(list);
	for (i = 0; i < n * (size_t)t->nnodes; i++)
		free(why[i]);
	free(why);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
