/*
 * scenario-workload.c: the workload: section (kind, tps and its ramp, key
 * distribution, and the readrandom and cf-churn knobs), each knob checked
 * against the kind it applies to.  Not here: generating the load
 * (loadgen.c).
 */
#include <stdint.h>

#include "scenario-internal.h"

static const char *const workload_keys[] = { "kind", "tps", "ramp", "keys",
	"zipf_s", "read_rate", "read_keys", "reads", "cf_count", "cf_options",
	"cf_cycles", "realtime", NULL };
static const char *const ramp_keys[] = { "from", "over", NULL };
/* "none" is "idle" under the name foreign nodes use (no devnet load). */
static const char *const wl_names[] = { "transfer", "readrandom", "cf-churn",
	"idle", "none", NULL };
static const char *const dist_names[] = { "uniform", "zipf", NULL };
static const char *const bool_names[] = { "false", "true", NULL };

#define MAX_TPS		1000000.0

int
scn_load_workload(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	const struct ynode *v, *tps, *r;
	int64_t		    i64;
	int		    k;

	if (scn_check_map(c, n, "workload", workload_keys) != 0)
		return (-1);
	if ((v = ymap_get(n, "kind")) == NULL)
		return (scn_fail(c, n, "workload needs 'kind' (transfer, "
		    "readrandom, cf-churn, idle or none)"));
	if (scn_get_enum(c, v, "workload.kind", wl_names, &k) != 0)
		return (-1);
	if (k == SCN_WL_IDLE + 1)
		k = SCN_WL_IDLE;
	s->workload.kind = (enum scn_workload)k;
	tps = ymap_get(n, "tps");
	if (tps != NULL && scn_get_double(c, tps, "workload.tps", 0,
	    k == SCN_WL_TRANSFER, MAX_TPS, &s->workload.tps) != 0)
		return (-1);
	if (k == SCN_WL_TRANSFER && tps == NULL)
		return (scn_fail(c, n, "workload kind transfer needs 'tps' "
		    "(total transactions per second, > 0)"));
	if (k == SCN_WL_IDLE && s->workload.tps != 0)
		return (scn_fail(c, tps, "workload kind idle sends no "
		    "transactions; remove tps or set it to 0"));
	if ((r = ymap_get(n, "ramp")) != NULL) {
		if (scn_check_map(c, r, "workload.ramp", ramp_keys) != 0)
			return (-1);
		if (s->workload.tps == 0)
			return (scn_fail(c, r, "workload.ramp needs a tps > 0 "
			    "to ramp to"));
		if ((v = ymap_get(r, "from")) == NULL ||
		    ymap_get(r, "over") == NULL)
			return (scn_fail(c, r, "workload.ramp needs 'from' "
			    "(TPS) and 'over' (a duration)"));
		if (scn_get_double(c, v, "workload.ramp.from", 0, 0, MAX_TPS,
		    &s->workload.ramp_from_tps) != 0 ||
		    scn_get_duration(c, ymap_get(r, "over"),
		    "workload.ramp.over", 1, 30 * DAY_MS,
		    &s->workload.ramp_ms) != 0)
			return (-1);
	}
	k = 0;
	if ((v = ymap_get(n, "realtime")) != NULL &&
	    scn_get_enum(c, v, "workload.realtime", bool_names, &k) != 0)
		return (-1);
	s->workload.realtime = k;
	k = SCN_DIST_UNIFORM;
	if ((v = ymap_get(n, "keys")) != NULL &&
	    scn_get_enum(c, v, "workload.keys", dist_names, &k) != 0)
		return (-1);
	s->workload.dist = (enum scn_dist)k;
	if ((v = ymap_get(n, "zipf_s")) != NULL) {
		if (s->workload.dist != SCN_DIST_ZIPF)
			return (scn_fail(c, v, "workload.zipf_s only applies "
			    "with 'keys: zipf'"));
		if (scn_get_double(c, v, "workload.zipf_s", 0, 1, 100,
		    &s->workload.zipf_s) != 0)
			return (-1);
	}
	if ((v = ymap_get(n, "read_rate")) != NULL) {
		if (s->workload.kind != SCN_WL_READRANDOM)
			return (scn_fail(c, v, "workload.read_rate only "
			    "applies to kind readrandom"));
		if (scn_get_double(c, v, "workload.read_rate", 0, 0, 1e9,
		    &s->workload.read_rate) != 0)
			return (-1);
	}
	if ((v = ymap_get(n, "read_keys")) != NULL) {
		if (s->workload.kind != SCN_WL_READRANDOM)
			return (scn_fail(c, v, "workload.read_keys only "
			    "applies to kind readrandom"));
		if (scn_get_int(c, v, "workload.read_keys", 1, 1000000000,
		    &i64) != 0)
			return (-1);
		s->workload.read_keys = (uint64_t)i64;
	}
	if ((v = ymap_get(n, "reads")) != NULL) {
		if (s->workload.kind != SCN_WL_READRANDOM)
			return (scn_fail(c, v, "workload.reads only applies "
			    "to kind readrandom"));
		if (scn_get_int(c, v, "workload.reads", 1, INT64_MAX,
		    &i64) != 0)
			return (-1);
		s->workload.reads = (uint64_t)i64;
	}
	if ((v = ymap_get(n, "cf_cycles")) != NULL) {
		if (s->workload.kind != SCN_WL_CF_CHURN)
			return (scn_fail(c, v, "workload.cf_cycles only "
			    "applies to kind cf-churn"));
		if (scn_get_u32(c, v, "workload.cf_cycles", 1, 1000000000,
		    &s->workload.cf_cycles) != 0)
			return (-1);
	}
	if ((v = ymap_get(n, "cf_count")) != NULL) {
		if (s->workload.kind != SCN_WL_CF_CHURN)
			return (scn_fail(c, v, "workload.cf_count only "
			    "applies to kind cf-churn"));
		if (scn_get_u32(c, v, "workload.cf_count", 1, 100000,
		    &s->workload.cf_count) != 0)
			return (-1);
	}
	if ((v = ymap_get(n, "cf_options")) != NULL) {
		if (s->workload.kind != SCN_WL_CF_CHURN)
			return (scn_fail(c, v, "workload.cf_options only "
			    "applies to kind cf-churn"));
		if (scn_get_str(c, v, "workload.cf_options",
		    &s->workload.cf_options) != 0)
			return (-1);
	}
	return (0);
}
