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

#include "protocol.h"
_Static_assert(DN_METRIC_COUNT <= DN_SAMPLE_MAX,
    "the sample payload holds at most DN_SAMPLE_MAX metrics");
