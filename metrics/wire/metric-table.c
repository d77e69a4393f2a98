/* metric-table.c: the metric table as data (see metric-table.h). */
#include <string.h>

#include "metric-table.h"

const struct dn_metric_def dn_metric_defs[DN_METRIC_COUNT] = {
#define DN_METRIC_DEF(id, name, unit, kind, better, source, desc)             \
	[DN_M_##id] = { name, unit, DN_KIND_##kind, DN_BETTER_##better,        \
	    DN_SOURCE_##source, desc },
	DN_METRICS(DN_METRIC_DEF)
#undef DN_METRIC_DEF
};

int
dn_metric_lookup(const char *name)
{
	int	i;

	for (i = 0; i < DN_METRIC_COUNT; i++) {
		if (strcmp(dn_metric_defs[i].name, name) == 0)
			return (i);
	}
	return (-1);
}

const struct dn_verdict_def dn_verdict_defs[DN_VERDICT_COUNT] = {
#define DN_VERDICT_DEF(name, unit, better, m1, m2, fold, agg_max, desc)       \
	{ name, unit, better, m1, m2, DN_FOLD_##fold, agg_max, desc },
	DN_VERDICT_METRICS(DN_VERDICT_DEF)
#undef DN_VERDICT_DEF
};

int
dn_verdict_lookup(const char *name)
{
	int	i;

	for (i = 0; i < DN_VERDICT_COUNT; i++) {
		if (strcmp(dn_verdict_defs[i].name, name) == 0)
			return (i);
	}
	return (-1);
}

int
dn_verdict_of(int id, enum dn_fold fold)
{
	int	i;

	for (i = 0; i < DN_VERDICT_COUNT; i++) {
		if (dn_verdict_defs[i].m1 == id && dn_verdict_defs[i].m2 < 0 &&
		    dn_verdict_defs[i].fold == fold)
			return (i);
	}
	return (-1);
}

#include "protocol.h"
_Static_assert(DN_METRIC_COUNT <= DN_SAMPLE_MAX,
    "the sample payload holds at most DN_SAMPLE_MAX metrics");
