/*
 * strv.c: string vectors (strv.h), for building argv and environment
 * arrays.  Not here: what goes into them (plan/).
 */
#include <stdlib.h>

#include "sys/strv.h"
#include "buf.h"
#include "xalloc.h"

void
strv_add(struct strv *a, char *s)
{
	a->v = dn_xgrow(a->v, &a->cap, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

void
strv_flag(struct strv *a, const char *flag, char *value)
{
	strv_add(a, dn_xstrdup(flag));
	strv_add(a, value);
}

void
strv_free(char **v)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}
