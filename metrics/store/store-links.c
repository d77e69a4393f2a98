/*
 * store-links.c: the emulated network's probe samples (table
 * link_samples, read by the view link_stats; docs/schema.md).  Not here:
 * measuring them (orchestrator/net/probe.c).
 */
#include <math.h>
#include <sqlite3.h>

#include "store-internal.h"

int
dn_store_link_samples(struct dn_store *s, int64_t run_id,
    const struct dn_link_sample *v, size_t n, char **cause)
{
	sqlite3_stmt	*st = NULL;
	size_t		 i;
	int		 rc = 0;

	if (n == 0)
		return (0);
	if (sql_prepare(s, "INSERT OR IGNORE INTO link_samples (run_id, src, "
	    "dst, t_ms, owd_ms, rtt_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)", &st,
	    cause) != 0)
		return (-1);
	for (i = 0; i < n && rc == 0; i++) {
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int(st, 2, v[i].src);
		sqlite3_bind_int(st, 3, v[i].dst);
		sqlite3_bind_int64(st, 4, v[i].t_ms);
		if (isnan(v[i].owd_ms))
			sqlite3_bind_null(st, 5);
		else
			sqlite3_bind_double(st, 5, v[i].owd_ms);
		if (isnan(v[i].rtt_ms))
			sqlite3_bind_null(st, 6);
		else
			sqlite3_bind_double(st, 6, v[i].rtt_ms);
		rc = sql_step_done(s, st, "insert link sample", cause);
	}
	sqlite3_finalize(st);
	return (rc);
}
