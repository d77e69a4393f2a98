/*
 * scenario-keys.c: strict key checks for the scenario schema: a mapping
 * may hold only its known keys, and an unknown one is reported with the
 * nearest known key ("did you mean 'tps'?") or the list of valid keys.
 * Not here: which keys each section knows (its loader holds the list), the
 * values (scenario-get.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "scenario/scenario-internal.h"

/* Optimal string alignment distance, for "did you mean". */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t	la = strlen(a), lb = strlen(b), i, j;
	size_t	d[33][33];

	if (la > 32 || lb > 32)
		return (SIZE_MAX);
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t	cost = a[i - 1] != b[j - 1];
			size_t	v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return (d[la][lb]);
}

void
scn_list_words(char *buf, size_t cap, const char *const *words)
{
	size_t	used = 0, i;

	buf[0] = '\0';
	for (i = 0; words[i] != NULL && used < cap; i++) {
		int	n = snprintf(buf + used, cap - used, "%s'%s'",
		    i ? ", " : "", words[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

int
scn_nearest(const char *word, const char *const *words, char *buf,
    size_t cap)
{
	const char	*best = NULL;
	size_t		 bestd = SIZE_MAX, d, i;

	for (i = 0; words[i] != NULL; i++) {
		d = edit_distance(word, words[i]);
		if (d < bestd) {
			bestd = d;
			best = words[i];
		}
	}
	if (best == NULL || bestd > 2 || bestd >= strlen(word))
		return (-1);
	snprintf(buf, cap, "%s", best);
	return (0);
}

/* Is N a mapping whose keys are all in KEYS?  WHAT names it in messages. */
int
scn_check_map(struct ctx *c, const struct ynode *n, const char *what,
    const char *const *keys)
{
	size_t	i, j;

	if (n->type != Y_MAP)
		return (scn_fail(c, n, "%s must be a mapping of 'key: value' "
		    "lines, not a %s", what, ynode_type_name(n)));
	for (i = 0; i < n->nkids; i += 2) {
		const struct ynode *k = n->kids[i];
		const char	*best = NULL;
		size_t		 bestd = SIZE_MAX;
		char		 all[512];

		for (j = 0; keys[j] != NULL; j++) {
			size_t	d;

			if (strcmp(k->value, keys[j]) == 0)
				break;
			d = edit_distance(k->value, keys[j]);
			if (d < bestd) {
				bestd = d;
				best = keys[j];
			}
		}
		if (keys[j] != NULL)
			continue;
		if (best != NULL && bestd <= 2 && bestd < strlen(k->value))
			return (scn_fail(c, k, "unknown key '%s' in %s (did "
			    "you mean '%s'?)", k->value, what, best));
		scn_list_words(all, sizeof(all), keys);
		return (scn_fail(c, k, "unknown key '%s' in %s (valid keys: "
		    "%s)", k->value, what, all));
	}
	return (0);
}
