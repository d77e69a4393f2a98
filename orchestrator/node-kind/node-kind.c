/*
 * node-kind.c: which kind a trial's nodes are (node-kind.h).
 */
#include "node-kind/node-kind.h"

static const struct node_kind_ops *const kinds[] = {
	&node_kind_devnet, &node_kind_foreign
};

const struct node_kind_ops *
node_kind_of(const struct scn_variant *var)
{
	return (plan_is_foreign(var) ? &node_kind_foreign : &node_kind_devnet);
}

const struct node_kind_ops *
node_kind(const struct trial *t)
{
	return (t->kind != NULL ? t->kind : &node_kind_devnet);
}

int
node_kind_declare(const struct scenario *s, struct dn_store *st,
    char **cause)
{
	size_t	i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i]->declare(s, st, cause) != 0)
			return (-1);
	return (0);
}
