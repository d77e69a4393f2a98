/*
 * scenario-set.c: graft the --set KEY.PATH=VALUE overrides onto the YAML
 * tree before the schema walk, marked with their origin so that their
 * errors name "--set K=V" instead of a position.  Not here: parsing the
 * file (yaml-tree.c), checking the values (the schema walk checks grafted
 * nodes like any other).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "units.h"
#include "xalloc.h"

/* --- --set overrides ---------------------------------------------------- */
static int
seq_index(const struct ynode *s, const char *seg, size_t *ix)
{
	uint64_t	v;

	if (dn_parse_u64(seg, &v) != 0 || v >= s->nkids)
		return (-1);
	*ix = (size_t)v;
	return (0);
}

/* Graft SET ("a.b.c=value") onto ROOT; ORIGIN (kept alive by the caller)
 * marks what it adds. */
int
scn_apply_set(struct ctx *c, struct ynode *root, const char *set, char *origin)
{
	struct ynode	*n = root, *kid, *val;
	const char	*eq = strchr(set, '=');
	char		*path = NULL, *seg, *dot;
	const char	*prev = "";
	size_t		 ix;
	int		 rc = -1;

	if (eq == NULL || eq == set) {
		c->cause = dn_xasprintf("%s: expected KEY.PATH=VALUE, e.g. "
		    "--set workload.tps=100", origin);
		return (-1);
	}
	path = dn_xstrndup(set, (size_t)(eq - set));
	val = ynode_new(Y_SCALAR, 0, 0);
	val->plain = 1;
	val->value = dn_xstrdup(eq + 1);
	val->origin = origin;
	if (val->value[0] == '\0') {
		c->cause = dn_xasprintf("%s: empty value; remove the --set or "
		    "give a value", origin);
		goto out;
	}
	for (seg = path;; seg = dot + 1) {
		dot = strchr(seg, '.');
		if (dot != NULL)
			*dot = '\0';
		if (*seg == '\0') {
			c->cause = dn_xasprintf("%s: empty key in '%s'",
			    origin, set);
			goto out;
		}
		if (n->type == Y_SEQ) {
			if (seq_index(n, seg, &ix) != 0) {
				c->cause = dn_xasprintf("%s: '%s' has %zu "
				    "item(s); use an index 0..%zu", origin,
				    prev, n->nkids,
				    n->nkids ? n->nkids - 1 : 0);
				goto out;
			}
			if (dot == NULL) {
				ynode_free(n->kids[ix]);
				n->kids[ix] = val;
				val = NULL;
				break;
			}
			n = n->kids[ix];
			prev = seg;
			continue;
		}
		if (n->type != Y_MAP) {
			c->cause = dn_xasprintf("%s: cannot set '%s' inside "
			    "a single value", origin, seg);
			goto out;
		}
		kid = ymap_get(n, seg);
		if (dot == NULL) {
			if (kid != NULL) {
				size_t	i;

				for (i = 1; i < n->nkids; i += 2)
					if (n->kids[i] == kid)
						n->kids[i] = val;
				ynode_free(kid);
			} else {
				kid = ynode_new(Y_SCALAR, 0, 0);
				kid->plain = 1;
				kid->value = dn_xstrdup(seg);
				kid->origin = origin;
				ynode_add(n, kid);
				ynode_add(n, val);
			}
			val = NULL;
			break;
		}
		if (kid != NULL && ynode_is_null(kid)) {
			/* "B:" with nothing after it becomes a mapping */
			free(kid->value);
			kid->value = NULL;
			kid->type = Y_MAP;
		}
		if (kid == NULL) {
			kid = ynode_new(Y_SCALAR, 0, 0);
			kid->plain = 1;
			kid->value = dn_xstrdup(seg);
			kid->origin = origin;
			ynode_add(n, kid);
			kid = ynode_new(Y_MAP, 0, 0);
			kid->origin = origin;
			ynode_add(n, kid);
		}
		n = kid;
		prev = seg;
	}
	rc = 0;
out:
	ynode_free(val);
	free(path);
	return (rc);
}
