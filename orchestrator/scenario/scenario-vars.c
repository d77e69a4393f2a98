/*
 * scenario-vars.c: vars: (docs/scenarios.md "Variables"): names a foreign
 * node's command and env use as {NAME} placeholders, declared with a
 * default at the top level and set per variant (variants.B.vars), so that
 * an A/B of one flag is one line.  A variant's values are put into its
 * node's templates before they are checked (scenario-node.c), so a
 * placeholder that is neither a variable nor a built-in is refused at
 * its FILE:LINE:COL as any other.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "scenario/template.h"
#include "xalloc.h"

#define SCN_MAX_VARS	64

/* The placeholders the template language has already (template.h). */
static const char *const builtin[] = { "index", "nodes", "dir", "run_dir",
	"port", "peers", "node", "seq", "key", "key_b64", "value_b64", "tps",
	"duration_s", "duration_ms", "ports", NULL };

static int
valid_name(const char *s)
{
	size_t	i;

	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return (0);
	for (i = 1; s[i] != '\0'; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return (0);
	return (i <= 64);
}

/* Index of NAME in VAR's variables, or -1. */
static int
find(const struct scn_variant *var, const char *name, size_t len)
{
	size_t	i;

	for (i = 0; i < var->nvars; i++)
		if (strlen(var->var_names[i]) == len &&
		    memcmp(var->var_names[i], name, len) == 0)
			return ((int)i);
	return (-1);
}

/* The top level's vars: into every variant, checked. */
static int
load_defaults(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	size_t	i, j;

	if (n->type != Y_MAP)
		return (scn_fail(c, n, "vars must be a mapping of NAME: "
		    "default value, e.g. {cache_index: 0}"));
	if (n->nkids / 2 > SCN_MAX_VARS)
		return (scn_fail(c, n, "more than %d vars", SCN_MAX_VARS));
	for (i = 0; i + 1 < n->nkids; i += 2) {
		const struct ynode *k = n->kids[i], *v = n->kids[i + 1];
		if (!valid_name(k->value))
			return (scn_fail(c, k, "vars: '%s' is not a name "
			    "(letters, digits, '_', not starting with a digit)",
			    k->value));
		for (j = 0; builtin[j] != NULL; j++)
			if (strcmp(k->value, builtin[j]) == 0)
				return (scn_fail(c, k, "vars: '%s' is a "
				    "built-in placeholder ({%s}); choose "
				    "another name", k->value, k->value));
		if (scn_want_scalar(c, v, "a var's value") != 0)
			return (-1);
	}
	for (j = 0; j < s->nvariants; j++) {
		struct scn_variant *var = &s->variants[j];

		var->var_names = dn_xcalloc(n->nkids / 2 + 1, sizeof(char *));
		var->var_values = dn_xcalloc(n->nkids / 2 + 1,
		    sizeof(char *));
		for (i = 0; i + 1 < n->nkids; i += 2) {
			var->var_names[var->nvars] =
			    dn_xstrdup(n->kids[i]->value);
			var->var_values[var->nvars++] =
			    dn_xstrdup(n->kids[i + 1]->value);
		}
	}
	return (0);
}

int
scn_load_vars(struct ctx *c, struct scenario *s, const struct ynode *root)
{
	const struct ynode	*top = ymap_get(root, "vars");
	const struct ynode	*vs = ymap_get(root, "variants"), *own, *n;
	const char		*names[SCN_MAX_VARS + 1];
	char			 near[80];
	size_t			 i, j;
	int			 k;

	if (top != NULL && load_defaults(c, s, top) != 0)
		return (-1);
	for (j = 0; j < s->nvariants; j++) {
		struct scn_variant *var = &s->variants[j];

		own = vs != NULL ? ymap_get(vs, var->name) : NULL;
		n = own != NULL && own->type == Y_MAP ? ymap_get(own,
		    "vars") : NULL;
		if (n == NULL)
			continue;
		if (n->type != Y_MAP)
			return (scn_fail(c, n, "variants.%s.vars must be a "
			    "mapping of NAME: value", var->name));
		for (i = 0; i < var->nvars && i < SCN_MAX_VARS; i++)
			names[i] = var->var_names[i];
		names[i] = NULL;
		for (i = 0; i + 1 < n->nkids; i += 2) {
			const struct ynode *kn = n->kids[i];

			k = find(var, kn->value, strlen(kn->value));
			if (k < 0) {
				int	hint = scn_nearest(kn->value, names, near,
				    sizeof(near)) == 0;

				return (scn_fail(c, kn, "variants.%s.vars: "
				    "'%s' is not declared in the top level's "
				    "vars:%s%s (declare it there with its "
				    "default)", var->name, kn->value, hint ?
				    "; did you mean " : "", hint ? near : ""));
			}
			if (scn_want_scalar(c, n->kids[i + 1],
			    "a var's value") != 0)
				return (-1);
			free(var->var_values[k]);
			var->var_values[k] = dn_xstrdup(n->kids[i + 1]->value);
		}
	}
	return (0);
}

char *
scn_vars_expand(const struct scn_variant *var, const char *s)
{
	struct dn_buf	 b = { 0 };
	const char	*p = s, *e, *v;
	int		 k;

	dn_buf_add(&b, "", 0);
	while (*p != '\0') {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' &&
		    p[1] == '}')) {
			dn_buf_add(&b, p, 2);
			p += 2;
			continue;
		}
		if (p[0] == '{' && (e = strchr(p + 1, '}')) != NULL &&
		    (k = find(var, p + 1, (size_t)(e - p - 1))) >= 0) {
			/* a value is text: its braces stay literal */
			for (v = var->var_values[k]; *v != '\0'; v++) {
				if (*v == '{' || *v == '}')
					dn_buf_add(&b, v, 1);
				dn_buf_add(&b, v, 1);
			}
			p = e + 1;
			continue;
		}
		dn_buf_add(&b, p, 1);
		p++;
	}
	return (b.p);
}

void
scn_vars_release(struct scn_variant *var)
{
	size_t	i;

	for (i = 0; i < var->nvars; i++) {
		free(var->var_names[i]);
		free(var->var_values[i]);
	}
	free(var->var_names);
	free(var->var_values);
	var->var_names = var->var_values = NULL;
	var->nvars = 0;
}
