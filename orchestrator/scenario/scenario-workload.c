/*
 * scenario-workload.c: the workload: section (kind, tps and its ramp, key
 * distribution, the readrandom and cf-churn knobs, the http request and
 * the external command), each knob checked against the kind it applies
 * to.  Not here: generating the load (loadgen.c, loadgen-http.c,
 * loadgen-cmd.c); the placeholders themselves (template.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/template.h"
#include "scenario/scenario-internal.h"
#include "xalloc.h"

static const char *const workload_keys[] = { "kind", "tps", "ramp", "keys",
	"zipf_s", "read_rate", "read_keys", "reads", "cf_count", "cf_options",
	"cf_cycles", "method", "url", "body", "headers", "expect_status",
	"timeout", "key_space", "value_size", "max_inflight", "command", "env",
	"stop_grace", "realtime", NULL };
static const char *const ramp_keys[] = { "from", "over", NULL };
/* Indexed by enum scn_workload; then "none", which is "idle" under the
 * name foreign nodes use (no devnet load). */
static const char *const wl_names[] = { "transfer", "readrandom", "cf-churn",
	"idle", "http", "command", "none", NULL };
/* Keys of one kind only. */
static const char *const http_only[] = { "method", "url", "body",
	"headers", "expect_status", "timeout", "key_space", "value_size",
	"max_inflight", NULL };
static const char *const command_only[] = { "command", "env", "stop_grace",
	NULL };
static const char *const methods[] = { "GET", "POST", "PUT", "DELETE",
	"PATCH", "HEAD", NULL };
static const char *const dist_names[] = { "uniform", "zipf", NULL };
static const char *const bool_names[] = { "false", "true", NULL };

#define MAX_TPS		1000000.0

/* A template scalar N of SET into *OUT, placeholders checked. */
static int
get_tmpl(struct ctx *c, const struct ynode *n, const char *what,
    enum load_tmpl_set set, char **out)
{
	char	*why = NULL;
	int	 rv;

	if (scn_get_str(c, n, what, out) != 0)
		return (-1);
	if (load_tmpl_check(*out, set, &why) == 0)
		return (0);
	rv = scn_fail(c, n, "%s: %s", what, why);
	free(why);
	/* not counted in a list's length: freed here */
	free(*out);
	*out = NULL;
	return (rv);
}

/* A list of template scalars N into *OUT (*NOUT entries, NULL-ended). */
static int
get_tmpl_list(struct ctx *c, const struct ynode *n, const char *what,
    enum load_tmpl_set set, int min, char ***out, size_t *nout)
{
	size_t	i;

	if (n->type != Y_SEQ || n->nkids < (size_t)min)
		return (scn_fail(c, n, "%s must be a list%s, e.g. [a, b], not "
		    "a %s", what, min > 0 ? " of at least one item" : "",
		    ynode_type_name(n)));
	*out = dn_xcalloc(n->nkids + 1, sizeof(**out));
	for (i = 0; i < n->nkids; i++) {
		if (get_tmpl(c, n->kids[i], what, set, &(*out)[i]) != 0)
			return (-1);
		(*nout)++;
	}
	return (0);
}

/* The keys of kind command. */
static int
load_command(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	const struct ynode	*v;
	size_t			 i;

	s->workload.cmd_grace_ms = 5000;
	if ((v = ymap_get(n, "command")) == NULL)
		return (scn_fail(c, n, "workload kind command needs "
		    "'command' (the load generator's argv, a list)"));
	if (get_tmpl_list(c, v, "workload.command", LOAD_TMPL_COMMAND,
	    1, &s->workload.command, &s->workload.ncommand) != 0)
		return (-1);
	if ((v = ymap_get(n, "env")) != NULL) {
		if (get_tmpl_list(c, v, "workload.env",
		    LOAD_TMPL_COMMAND, 0, &s->workload.cmd_env,
		    &s->workload.ncmd_env) != 0)
			return (-1);
		for (i = 0; i < s->workload.ncmd_env; i++) {
			const char *e = s->workload.cmd_env[i];

			if (strchr(e, '=') == NULL || e[0] == '=')
				return (scn_fail(c, v->kids[i],
				    "workload.env: '%s' is not K=V",
				    e));
		}
	}
	if ((v = ymap_get(n, "stop_grace")) != NULL &&
	    scn_get_duration(c, v, "workload.stop_grace", 0,
	    3600 * 1000, &s->workload.cmd_grace_ms) != 0)
		return (-1);
	return (0);
}

/* The keys of kind http. */
static int
load_http(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	const struct ynode	*v;
	size_t			 i;
	int			 k;

	s->workload.timeout_ms = 5000;
	s->workload.key_space = 10000;
	s->workload.value_size = 100;
	s->workload.max_inflight = 10000;
	if ((v = ymap_get(n, "url")) == NULL)
		return (scn_fail(c, n, "workload kind http needs 'url' (e.g. "
		    "'http://127.0.0.1:{port}/v3/kv/put')"));
	if (get_tmpl(c, v, "workload.url", LOAD_TMPL_HTTP,
	    &s->workload.url) != 0)
		return (-1);
	if (strncmp(s->workload.url, "http://", 7) != 0 &&
	    strncmp(s->workload.url, "https://", 8) != 0)
		return (scn_fail(c, v, "workload.url must start with http:// "
		    "or https://"));
	if ((v = ymap_get(n, "body")) != NULL && get_tmpl(c, v,
	    "workload.body", LOAD_TMPL_HTTP, &s->workload.body) != 0)
		return (-1);
	k = s->workload.body != NULL ? 1 : 0;	/* POST with a body */
	if ((v = ymap_get(n, "method")) != NULL &&
	    scn_get_enum(c, v, "workload.method", methods, &k) != 0)
		return (-1);
	s->workload.method = dn_xstrdup(methods[k]);
	if ((v = ymap_get(n, "headers")) != NULL) {
		if (get_tmpl_list(c, v, "workload.headers", LOAD_TMPL_HTTP, 0,
		    &s->workload.headers, &s->workload.nheaders) != 0)
			return (-1);
		for (i = 0; i < s->workload.nheaders; i++) {
			const char	*h = s->workload.headers[i];
			struct load_tmpl tm;
			int		 lit;

			load_tmpl_compile(&tm, h, LOAD_TMPL_HTTP);
			lit = tm.nparts == 0 || (tm.nparts == 1 &&
			    tm.parts[0].ph == LPH_LIT);
			load_tmpl_free(&tm);
			if (!lit)
				return (scn_fail(c, v->kids[i],
				    "workload.headers: '%s': headers are the "
				    "same for every request; no placeholders "
				    "(write {{ and }} for braces)", h));
			if (strchr(h, ':') == NULL || h[0] == ':' ||
			    strpbrk(h, "\r\n") != NULL)
				return (scn_fail(c, v->kids[i],
				    "workload.headers: '%s' is not "
				    "'Name: value'", h));
		}
	}
	if ((v = ymap_get(n, "expect_status")) != NULL) {
		if (v->type != Y_SEQ || v->nkids == 0)
			return (scn_fail(c, v, "workload.expect_status must "
			    "be a list of HTTP status codes, e.g. [200, 201]"));
		s->workload.expect_status = dn_xcalloc(v->nkids,
		    sizeof(int));
		for (i = 0; i < v->nkids; i++) {
			int64_t	code;

			if (scn_get_int(c, v->kids[i],
			    "workload.expect_status", 100, 599, &code) != 0)
				return (-1);
			s->workload.expect_status[
			    s->workload.nexpect_status++] = (int)code;
		}
	} else {
		s->workload.expect_status = dn_xcalloc(1, sizeof(int));
		s->workload.expect_status[0] = 200;
		s->workload.nexpect_status = 1;
	}
	if ((v = ymap_get(n, "timeout")) != NULL &&
	    scn_get_duration(c, v, "workload.timeout", 1, 600 * 1000,
	    &s->workload.timeout_ms) != 0)
		return (-1);
	if ((v = ymap_get(n, "key_space")) != NULL &&
	    scn_get_u32(c, v, "workload.key_space", 1, 1000000000,
	    &s->workload.key_space) != 0)
		return (-1);
	if ((v = ymap_get(n, "value_size")) != NULL &&
	    scn_get_u32(c, v, "workload.value_size", 0, 1 << 20,
	    &s->workload.value_size) != 0)
		return (-1);
	if ((v = ymap_get(n, "max_inflight")) != NULL &&
	    scn_get_u32(c, v, "workload.max_inflight", 1, 1000000,
	    &s->workload.max_inflight) != 0)
		return (-1);
	return (0);
}

/* The http and command keys (after kind and tps). */
static int
load_foreign_load(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	size_t	i, j;

	for (i = 0; i + 1 < n->nkids; i += 2) {
		const char	*key = n->kids[i]->value;

		for (j = 0; http_only[j] != NULL; j++) {
			if (strcmp(key, http_only[j]) == 0 &&
			    s->workload.kind != SCN_WL_HTTP)
				return (scn_fail(c, n->kids[i], "workload.%s "
				    "only applies to kind http", key));
		}
		for (j = 0; command_only[j] != NULL; j++) {
			if (strcmp(key, command_only[j]) == 0 &&
			    s->workload.kind != SCN_WL_COMMAND)
				return (scn_fail(c, n->kids[i], "workload.%s "
				    "only applies to kind command", key));
		}
	}
	if (s->workload.kind == SCN_WL_COMMAND)
		return (load_command(c, s, n));
	if (s->workload.kind == SCN_WL_HTTP)
		return (load_http(c, s, n));
	return (0);
}

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
		    "readrandom, cf-churn, idle, http, command or none)"));
	if (scn_get_enum(c, v, "workload.kind", wl_names, &k) != 0)
		return (-1);
	if (strcmp(wl_names[k], "none") == 0)
		k = SCN_WL_IDLE;
	s->workload.kind = (enum scn_workload)k;
	tps = ymap_get(n, "tps");
	if (tps != NULL && scn_get_double(c, tps, "workload.tps", 0,
	    k == SCN_WL_TRANSFER || k == SCN_WL_HTTP, MAX_TPS,
	    &s->workload.tps) != 0)
		return (-1);
	if (k == SCN_WL_TRANSFER && tps == NULL)
		return (scn_fail(c, n, "workload kind transfer needs 'tps' "
		    "(total transactions per second, > 0)"));
	if (k == SCN_WL_HTTP && tps == NULL)
		return (scn_fail(c, n, "workload kind http needs 'tps' "
		    "(total requests per second, > 0)"));
	if (load_foreign_load(c, s, n) != 0)
		return (-1);
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
