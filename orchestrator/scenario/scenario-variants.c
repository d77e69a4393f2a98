/*
 * scenario-variants.c: the variants: section, NAME: {settings} per variant
 * (one variant "A" with no changes when absent); a variant may name a git
 * revision (`rev:`) instead of a binary, built before the trials
 * (plan/rev-build.c).  Not here: the settings
 * (scenario-settings.c), the order trials run in (plan/plan.c).
 */
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "xalloc.h"

#define SCN_MAX_VARIANTS 64

static const char *const settings_keys[] = { "binary", "rev",
	"read_options", "write_options", "rocksdb", "args", "env", "image",
	"resources", "node", "vars", NULL };

static int
valid_variant_name(const char *s)
{
	size_t	n = strlen(s);

	return (n > 0 && n <= 64 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_-") == n);
}

int
scn_load_variants(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	size_t	i;
	char	*w;
	int	 rc;

	if (n == NULL) {
		s->variants = dn_xcalloc(1, sizeof(*s->variants));
		s->variants[0].name = dn_xstrdup("A");
		s->nvariants = 1;
		return (0);
	}
	if (n->type != Y_MAP || n->nkids == 0)
		return (scn_fail(c, n, "variants must be a mapping of NAME: "
		    "{settings} with at least one variant, e.g. A: "
		    "{read_options: per-call}"));
	if (n->nkids / 2 > SCN_MAX_VARIANTS)
		return (scn_fail(c, n->kids[2 * SCN_MAX_VARIANTS], "more than "
		    "%d variants; split the scenario", SCN_MAX_VARIANTS));
	s->variants = dn_xcalloc(n->nkids / 2, sizeof(*s->variants));
	for (i = 0; i + 1 < n->nkids; i += 2) {
		const struct ynode *k = n->kids[i], *v = n->kids[i + 1];
		struct scn_variant *var = &s->variants[s->nvariants++];

		if (!valid_variant_name(k->value))
			return (scn_fail(c, k, "variant name '%s' must be "
			    "1..64 letters, digits, '_' or '-'", k->value));
		var->name = dn_xstrdup(k->value);
		if (ynode_is_null(v))
			continue;	/* "A:" alone: no changes */
		w = dn_xasprintf("variants.%s", k->value);
		rc = scn_load_settings(c, v, w, settings_keys, &var->set);
		free(w);
		if (rc != 0)
			return (-1);
		if (var->set.rev != NULL && var->set.binary != NULL)
			return (scn_fail(c, ymap_get(v, "rev"), "variants.%s "
			    "sets both 'binary' and 'rev'; a variant runs "
			    "one or the other", var->name));
	}
	return (0);
}
