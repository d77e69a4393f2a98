/*
 * args.c: devnet-probe's command line into struct probe_opts.  Checks
 * every value (regexes compile, names are valid, numbers in range); does
 * not start anything.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-path.h"
#include "metric-table.h"
#include "probe.h"
#include "protocol.h"
#include "units.h"
#include "xalloc.h"

const char probe_usage[] =
"usage: devnet-probe [options] -- COMMAND [ARGS...]\n"
"\n"
"Runs COMMAND as a devnet node: its own process group, signals forwarded,\n"
"its stdout+stderr captured, metrics of its whole process tree sent to\n"
"devnet's collector.  Exits with COMMAND's status (code, or 128+signal).\n"
"\n"
"  --out PATH              append COMMAND's stdout+stderr to PATH\n"
"                          (default: the probe's stdout)\n"
"  --metrics URL           the collector's PULL endpoint (absent = none)\n"
"  --token HEX             the trial's run token (1-16 hex digits); devnet\n"
"                          passes it as DN_PROBE_TOKEN in the environment\n"
"                          instead (a command line is readable by anyone)\n"
"  --index K               node index in every message (default 0)\n"
"  --sample-interval MS    sample interval (default 1000)\n"
"  --count-allocs          count COMMAND's heap allocations through\n"
"                          LD_PRELOAD=libdevnet-alloc.so\n"
"  --alloc-lib PATH        the shim (default $DN_ALLOC_LIB, else\n"
"                          ../lib/libdevnet-alloc.so beside the probe)\n"
"  --alloc-shm PATH        the counter file (default /dev/shm/devnet-\n"
"                          alloc.PID, removed at exit)\n"
"  --log-metric NAME=REGEX a metric from the log: REGEX (POSIX extended)\n"
"                          with one capture group holding a number; the\n"
"                          last match so far is the value (repeatable)\n"
"  --ready CHECK           tcp:HOST:PORT | http:URL (2xx) | log:REGEX |\n"
"                          delay:MS; repeatable, all must pass; default:\n"
"                          ready once COMMAND is started\n"
"  --ready-timeout MS      give up (stop COMMAND, exit 124) after MS\n"
"                          (default 30000)\n"
"  --stop-signal SIG       what SIGTERM/SIGINT to the probe sends to\n"
"                          COMMAND's group (default TERM)\n"
"  --stop-grace MS         then SIGKILL after MS (default 5000)\n"
"  --env K=V               extra environment for COMMAND (repeatable)\n"
"  --clock-env K=V         environment that moves COMMAND's wall clock\n"
"                          (libfaketime's, devnet's clock_skew), unless\n"
"                          the probe moves it itself (repeatable)\n"
"  --clock-file PATH       the wall clock offset (\"+30.000000\", seconds)\n"
"                          that a Go or static COMMAND, which libfaketime\n"
"                          cannot reach, gets from the probe: its clock\n"
"                          reads trapped (seccomp), its vDSO hidden\n"
"  --clock-witness PATH    where the probe writes the clock it gave\n"
"                          COMMAND beside the true one (devnet's proof)\n"
"  --cwd DIR               COMMAND's working directory\n"
"  --user NAME             run COMMAND as NAME, with its groups, HOME,\n"
"                          USER and LOGNAME (the probe stays root)\n"
"  --prom-url URL          scrape COMMAND's Prometheus page (text format)\n"
"                          once per sample interval, once it is ready\n"
"  --prom-map NAME=EXPO    the sum of EXPO over its label sets as devnet's\n"
"                          NAME (a table metric such as height, or a name\n"
"                          of its own) (repeatable)\n"
"  --prom-keep EXPO        the same under EXPO's own name (repeatable)\n"
"  --scrape-every N        scrape every Nth sample only (default 1); the\n"
"                          samples between carry no scraped value\n"
"  --json-url URL          read numbers from COMMAND's JSON page, with\n"
"                          the Prometheus scrape (same time, same\n"
"                          --scrape-every)\n"
"  --json-map NAME=PATH    the number (or boolean) at PATH (a.b[0],\n"
"                          [\"a.b\"].c) as devnet's NAME (repeatable)\n"
"  --counter NAME          NAME (a --log-metric or --json-map) is a\n"
"                          running count: sent as a counter, compared\n"
"                          and charted as a per-second rate\n"
"  --help\n"
"\n"
"devnet-probe --hold: do nothing until SIGTERM, SIGINT or SIGHUP, then\n"
"exit 0 (devnet's docker provider holds a container's network namespace\n"
"with it under network conditions).\n"
"\n"
"Exit status: COMMAND's; 124 when not ready in time; 125 on a usage or\n"
"probe error; 127 when COMMAND cannot be executed.\n";

enum {
	O_OUT = 256, O_METRICS, O_TOKEN, O_INDEX, O_INTERVAL, O_ALLOCS,
	O_ALLOC_LIB, O_ALLOC_SHM, O_LOGM, O_READY, O_READY_TO, O_STOPSIG,
	O_GRACE, O_ENV, O_CWD, O_PROM_URL, O_PROM_MAP, O_PROM_KEEP,
	O_SCRAPE_EVERY, O_JSON_URL, O_JSON_MAP, O_COUNTER, O_HELP,
	O_CLOCK_ENV, O_CLOCK_FILE, O_CLOCK_WITNESS, O_USER
};

static const struct option longopts[] = {
	{ "out", required_argument, NULL, O_OUT },
	{ "metrics", required_argument, NULL, O_METRICS },
	{ "token", required_argument, NULL, O_TOKEN },
	{ "index", required_argument, NULL, O_INDEX },
	{ "sample-interval", required_argument, NULL, O_INTERVAL },
	{ "count-allocs", no_argument, NULL, O_ALLOCS },
	{ "alloc-lib", required_argument, NULL, O_ALLOC_LIB },
	{ "alloc-shm", required_argument, NULL, O_ALLOC_SHM },
	{ "log-metric", required_argument, NULL, O_LOGM },
	{ "ready", required_argument, NULL, O_READY },
	{ "ready-timeout", required_argument, NULL, O_READY_TO },
	{ "stop-signal", required_argument, NULL, O_STOPSIG },
	{ "stop-grace", required_argument, NULL, O_GRACE },
	{ "env", required_argument, NULL, O_ENV },
	{ "clock-env", required_argument, NULL, O_CLOCK_ENV },
	{ "clock-file", required_argument, NULL, O_CLOCK_FILE },
	{ "clock-witness", required_argument, NULL, O_CLOCK_WITNESS },
	{ "cwd", required_argument, NULL, O_CWD },
	{ "user", required_argument, NULL, O_USER },
	{ "prom-url", required_argument, NULL, O_PROM_URL },
	{ "prom-map", required_argument, NULL, O_PROM_MAP },
	{ "prom-keep", required_argument, NULL, O_PROM_KEEP },
	{ "scrape-every", required_argument, NULL, O_SCRAPE_EVERY },
	{ "json-url", required_argument, NULL, O_JSON_URL },
	{ "json-map", required_argument, NULL, O_JSON_MAP },
	{ "counter", required_argument, NULL, O_COUNTER },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 }
};

static int
parse_ms(const char *flag, const char *s, int min, int *out, char **cause)
{
	int64_t	v;

	if (dn_parse_i64(s, &v) != 0 || v < min || v > 86400000) {
		*cause = dn_xasprintf("bad value '%s' for --%s: want "
		    "milliseconds, %d or more", s, flag, min);
		return (-1);
	}
	*out = (int)v;
	return (0);
}

static int
parse_signal(const char *s, int *sig, char **cause)
{
	int64_t		v;
	const char	*name = s;
	int		i;

	if (dn_parse_i64(s, &v) == 0 && v > 0 && v < NSIG) {
		*sig = (int)v;
		return (0);
	}
	if (strncmp(name, "SIG", 3) == 0)
		name += 3;
	for (i = 1; i < NSIG; i++) {
		const char	*abbrev = sigabbrev_np(i);

		if (abbrev != NULL && strcmp(abbrev, name) == 0) {
			*sig = i;
			return (0);
		}
	}
	*cause = dn_xasprintf("unknown signal '%s' for --stop-signal "
	    "(try TERM, INT, QUIT or a number)", s);
	return (-1);
}

static int
compile(regex_t *re, const char *pattern, const char *what, size_t nsub,
    char **cause)
{
	char	err[256];
	int	rv;

	rv = regcomp(re, pattern, REG_EXTENDED);
	if (rv != 0) {
		regerror(rv, re, err, sizeof(err));
		*cause = dn_xasprintf("bad regex '%s' for %s: %s", pattern,
		    what, err);
		return (-1);
	}
	if (nsub != (size_t)-1 && re->re_nsub != nsub) {
		*cause = dn_xasprintf("regex '%s' for %s has %zu capture "
		    "groups; it needs exactly %zu", pattern, what,
		    (size_t)re->re_nsub, nsub);
		regfree(re);
		return (-1);
	}
	return (0);
}

/* 1 if NAME is taken by an extractor or a scrape mapping already. */
static int
name_taken(const struct probe_opts *o, const char *name)
{
	size_t	i;

	for (i = 0; i < o->next; i++) {
		if (strcmp(o->ext[i].name, name) == 0)
			return (1);
	}
	for (i = 0; i < o->nprom; i++) {
		if (strcmp(o->prom[i].devnet, name) == 0)
			return (1);
	}
	for (i = 0; i < o->njson; i++) {
		if (strcmp(o->json[i].name, name) == 0)
			return (1);
	}
	return (0);
}

/* How many names travel in NAMED (outside the table). */
static size_t
named_count(const struct probe_opts *o)
{
	size_t	i, n = 0;

	for (i = 0; i < o->next; i++)
		n += o->ext[i].table_id < 0;
	for (i = 0; i < o->nprom; i++)
		n += o->prom[i].table_id < 0;
	for (i = 0; i < o->njson; i++)
		n += o->json[i].table_id < 0;
	return (n);
}

static int
add_extractor(struct probe_opts *o, const char *arg, char **cause)
{
	const char		*eq = strchr(arg, '=');
	struct probe_extractor	*e;
	char			*name;
	int			 id;

	if (eq == NULL || eq == arg || eq[1] == '\0') {
		*cause = dn_xasprintf("bad --log-metric '%s': want "
		    "NAME=REGEX", arg);
		return (-1);
	}
	name = dn_xstrndup(arg, (size_t)(eq - arg));
	id = dn_metric_lookup(name);
	if (id >= 0 && dn_metric_defs[id].source != DN_SOURCE_N) {
		*cause = dn_xasprintf("--log-metric '%s': that metric comes "
		    "from the load generator, not a node", name);
		free(name);
		return (-1);
	}
	if (id < 0 && !dn_named_name_ok(name)) {
		*cause = dn_xasprintf("--log-metric: bad name '%s' (1-%d of "
		    "A-Z a-z 0-9 _ : ., not starting with a digit)", name,
		    DN_NAME_MAX);
		free(name);
		return (-1);
	}
	if (strcmp(name, DN_NAME_SCRAPE_FAILURES) == 0) {
		*cause = dn_xasprintf("--log-metric: '%s' is reserved (the "
		    "probe's count of failed scrapes)", name);
		free(name);
		return (-1);
	}
	if (name_taken(o, name)) {
		*cause = dn_xasprintf("--log-metric: the metric '%s' is "
		    "given twice (--log-metric, --prom-map, --prom-keep)",
		    name);
		free(name);
		return (-1);
	}
	if (named_count(o) + 2 > DN_NAMED_MAX) {
		*cause = dn_xasprintf("too many --log-metric (at most %d "
		    "with --prom-map, --prom-keep and --json-map)",
		    DN_NAMED_MAX - 1);
		free(name);
		return (-1);
	}
	o->ext = dn_xreallocarray(o->ext, o->next + 1, sizeof(*o->ext));
	e = &o->ext[o->next];
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->pattern = dn_xstrdup(eq + 1);
	e->table_id = id;
	o->next++;
	if (compile(&e->re, eq + 1, "--log-metric", 1, cause) != 0)
		return (-1);
	e->have_re = 1;
	return (0);
}

/* 1 if S is an exposition metric name: [a-zA-Z_:][a-zA-Z0-9_:]*. */
static int
expo_name_ok(const char *s)
{
	size_t	i;

	if (s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return (0);
	for (i = 0; s[i] != '\0'; i++) {
		char	c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == ':'))
			return (0);
	}
	return (1);
}

/* --prom-map NAME=EXPO (KEEP 0) or --prom-keep EXPO (KEEP 1). */
static int
add_prom(struct probe_opts *o, const char *arg, int keep, char **cause)
{
	const char		*flag = keep ? "--prom-keep" : "--prom-map";
	const char		*eq = keep ? NULL : strchr(arg, '=');
	struct probe_prom	*p;
	char			*devnet, *expo;
	int			 id;

	if (!keep && (eq == NULL || eq == arg || eq[1] == '\0')) {
		*cause = dn_xasprintf("bad --prom-map '%s': want "
		    "DEVNET_NAME=EXPOSITION_NAME", arg);
		return (-1);
	}
	devnet = keep ? dn_xstrdup(arg) : dn_xstrndup(arg,
	    (size_t)(eq - arg));
	expo = dn_xstrdup(keep ? arg : eq + 1);
	if (!expo_name_ok(expo)) {
		*cause = dn_xasprintf("%s: '%s' is not a Prometheus metric "
		    "name ([a-zA-Z_:][a-zA-Z0-9_:]*)", flag, expo);
		goto fail;
	}
	id = dn_metric_lookup(devnet);
	if (id >= 0 && keep) {
		*cause = dn_xasprintf("--prom-keep '%s': that is a devnet "
		    "metric's name; use --prom-map %s=%s", devnet, devnet,
		    devnet);
		goto fail;
	}
	if (id >= 0 && dn_metric_defs[id].source != DN_SOURCE_N) {
		*cause = dn_xasprintf("%s '%s': that metric comes from the "
		    "load generator, not a node", flag, devnet);
		goto fail;
	}
	if (id < 0 && !dn_named_name_ok(devnet)) {
		*cause = dn_xasprintf("%s: bad name '%s' (1-%d of A-Z a-z "
		    "0-9 _ : ., not starting with a digit)", flag, devnet,
		    DN_NAME_MAX);
		goto fail;
	}
	if (strcmp(devnet, DN_NAME_SCRAPE_FAILURES) == 0) {
		*cause = dn_xasprintf("%s: '%s' is reserved (the probe's "
		    "count of failed scrapes)", flag, devnet);
		goto fail;
	}
	if (name_taken(o, devnet)) {
		*cause = dn_xasprintf("%s: the metric '%s' is given twice "
		    "(--log-metric, --prom-map, --prom-keep)", flag, devnet);
		goto fail;
	}
	/* one NAMED slot stays free for probe_scrape_failures */
	if (id < 0 && named_count(o) + 2 > DN_NAMED_MAX) {
		*cause = dn_xasprintf("too many named metrics (at most %d)",
		    DN_NAMED_MAX - 1);
		goto fail;
	}
	o->prom = dn_xreallocarray(o->prom, o->nprom + 1, sizeof(*o->prom));
	p = &o->prom[o->nprom++];
	p->devnet = devnet;
	p->expo = expo;
	p->table_id = id;
	p->implied = 0;
	return (0);
fail:
	free(devnet);
	free(expo);
	return (-1);
}

static int
add_ready(struct probe_opts *o, const char *arg, char **cause)
{
	struct probe_ready	*r;
	const char		*colon;

	o->ready = dn_xreallocarray(o->ready, o->nready + 1,
	    sizeof(*o->ready));
	r = &o->ready[o->nready++];
	memset(r, 0, sizeof(*r));
	r->spec = dn_xstrdup(arg);
	if (strncmp(arg, "tcp:", 4) == 0) {
		r->kind = READY_TCP;
		colon = strrchr(arg + 4, ':');
		if (colon == NULL || colon == arg + 4 || colon[1] == '\0')
			goto bad;
		r->host = dn_xstrndup(arg + 4, (size_t)(colon - arg - 4));
		r->port = dn_xstrdup(colon + 1);
		return (0);
	}
	if (strncmp(arg, "http:", 5) == 0) {
		r->kind = READY_HTTP;
		r->url = dn_xstrdup(arg + 5);
		if (strncmp(r->url, "http://", 7) != 0 &&
		    strncmp(r->url, "https://", 8) != 0)
			goto bad;
		return (0);
	}
	if (strncmp(arg, "log:", 4) == 0) {
		r->kind = READY_LOG;
		if (compile(&r->re, arg + 4, "--ready log:", (size_t)-1,
		    cause) != 0)
			return (-1);
		r->have_re = 1;
		return (0);
	}
	if (strncmp(arg, "delay:", 6) == 0) {
		int	ms;

		r->kind = READY_DELAY;
		if (parse_ms("ready delay:", arg + 6, 0, &ms, cause) != 0)
			return (-1);
		r->ms = ms;
		return (0);
	}
bad:
	*cause = dn_xasprintf("bad --ready '%s': want tcp:HOST:PORT, "
	    "http:URL, log:REGEX or delay:MS", arg);
	return (-1);
}

/* --json-map NAME=PATH */
static int
add_json(struct probe_opts *o, const char *arg, char **cause)
{
	const char		*eq = strchr(arg, '='), *why;
	struct probe_json	*j;
	char			*name;
	int			 id;

	if (eq == NULL || eq == arg || eq[1] == '\0') {
		*cause = dn_xasprintf("bad --json-map '%s': want NAME=PATH "
		    "(e.g. recv=recvAppendRequestCnt, m=a.b[0])", arg);
		return (-1);
	}
	if (dn_json_path_check(eq + 1, &why) != 0) {
		*cause = dn_xasprintf("--json-map '%s': bad path: %s", arg,
		    why);
		return (-1);
	}
	name = dn_xstrndup(arg, (size_t)(eq - arg));
	id = dn_metric_lookup(name);
	if (id >= 0 && dn_metric_defs[id].source != DN_SOURCE_N)
		*cause = dn_xasprintf("--json-map '%s': that metric comes "
		    "from the load generator, not a node", name);
	else if (id < 0 && !dn_named_name_ok(name))
		*cause = dn_xasprintf("--json-map: bad name '%s' (1-%d of "
		    "A-Z a-z 0-9 _ : ., not starting with a digit)", name,
		    DN_NAME_MAX);
	else if (strcmp(name, DN_NAME_SCRAPE_FAILURES) == 0)
		*cause = dn_xasprintf("--json-map: '%s' is reserved (the "
		    "probe's count of failed scrapes)", name);
	else if (name_taken(o, name))
		*cause = dn_xasprintf("--json-map: the metric '%s' is given "
		    "twice (--log-metric, --prom-map, --prom-keep, "
		    "--json-map)", name);
	else if (id < 0 && named_count(o) + 2 > DN_NAMED_MAX)
		*cause = dn_xasprintf("too many named metrics (at most %d)",
		    DN_NAMED_MAX - 1);
	if (*cause != NULL) {
		free(name);
		return (-1);
	}
	o->json = dn_xreallocarray(o->json, o->njson + 1, sizeof(*o->json));
	j = &o->json[o->njson++];
	memset(j, 0, sizeof(*j));
	j->name = name;
	j->path = dn_xstrdup(eq + 1);
	j->table_id = id;
	return (0);
}

/* --counter NAME, after every option: mark that extractor or mapping. */
static int
mark_counter(struct probe_opts *o, const char *name, char **cause)
{
	size_t	i;
	int	id = dn_metric_lookup(name);

	if (id >= 0) {
		*cause = dn_xasprintf("--counter '%s': a table metric's kind "
		    "is fixed", name);
		return (-1);
	}
	for (i = 0; i < o->next; i++)
		if (strcmp(o->ext[i].name, name) == 0) {
			o->ext[i].counter = 1;
			return (0);
		}
	for (i = 0; i < o->njson; i++)
		if (strcmp(o->json[i].name, name) == 0) {
			o->json[i].counter = 1;
			return (0);
		}
	*cause = dn_xasprintf("--counter '%s': no --log-metric or --json-map "
	    "of that name (a Prometheus page says its own counters)", name);
	return (-1);
}

static int
parse_token(const char *arg, const char *what, uint64_t *token, char **cause)
{
	if (strlen(arg) == 0 || strlen(arg) > 16 ||
	    strspn(arg, "0123456789abcdefABCDEF") != strlen(arg)) {
		*cause = dn_xasprintf("bad value '%s' for %s: want 1-16 hex "
		    "digits", arg, what);
		return (-1);
	}
	*token = strtoull(arg, NULL, 16);
	return (0);
}

/* One option CH with its argument ARG into O: 0, 1 for --help, -1 with
 * *CAUSE, -2 for an option it does not know. */
/* K=V of --FLAG onto the NULL-terminated *ENV of *N. */
static int
add_env(char ***env, size_t *n, const char *flag, char *arg, char **cause)
{
	if (strchr(arg, '=') == NULL || arg[0] == '=') {
		*cause = dn_xasprintf("bad --%s '%s': want K=V", flag, arg);
		return (-1);
	}
	*env = dn_xreallocarray(*env, *n + 2, sizeof(**env));
	(*env)[(*n)++] = arg;
	(*env)[*n] = NULL;
	return (0);
}

static int
parse_one(struct probe_opts *o, int ch, char *arg, char **cause)
{
	int64_t	v;

	switch (ch) {
	case O_OUT:
		o->out_path = arg;
		break;
	case O_METRICS:
		o->metrics_url = arg;
		break;
	case O_TOKEN:
		if (parse_token(arg, "--token", &o->token,
		    cause) != 0)
			return (-1);
		break;
	case O_INDEX:
		if (dn_parse_i64(arg, &v) != 0 || v < 0 ||
		    v > 4095) {
			*cause = dn_xasprintf("bad value '%s' for "
			    "--index: want 0..4095", arg);
			return (-1);
		}
		o->index = (uint32_t)v;
		break;
	case O_INTERVAL:
		if (parse_ms("sample-interval", arg, 10,
		    &o->interval_ms, cause) != 0)
			return (-1);
		break;
	case O_ALLOCS:
		o->count_allocs = 1;
		break;
	case O_ALLOC_LIB:
		free(o->alloc_lib);
		o->alloc_lib = dn_xstrdup(arg);
		break;
	case O_ALLOC_SHM:
		free(o->alloc_shm);
		o->alloc_shm = dn_xstrdup(arg);
		break;
	case O_LOGM:
		if (add_extractor(o, arg, cause) != 0)
			return (-1);
		break;
	case O_READY:
		if (add_ready(o, arg, cause) != 0)
			return (-1);
		break;
	case O_READY_TO:
		if (parse_ms("ready-timeout", arg, 1,
		    &o->ready_timeout_ms, cause) != 0)
			return (-1);
		break;
	case O_STOPSIG:
		if (parse_signal(arg, &o->stop_signal, cause) != 0)
			return (-1);
		break;
	case O_GRACE:
		if (parse_ms("stop-grace", arg, 0,
		    &o->stop_grace_ms, cause) != 0)
			return (-1);
		break;
	case O_ENV:
		return (add_env(&o->env_add, &o->nenv, "env", arg, cause));
	case O_CLOCK_ENV:
		return (add_env(&o->clock_env, &o->nclock_env, "clock-env",
		    arg, cause));
	case O_CLOCK_FILE:
		o->clock_file = arg;
		break;
	case O_CLOCK_WITNESS:
		o->clock_witness = arg;
		break;
	case O_CWD:
		o->cwd = arg;
		break;
	case O_USER:
		o->user = arg;
		break;
	case O_PROM_URL:
	case O_JSON_URL:
		if (strncmp(arg, "http://", 7) != 0 &&
		    strncmp(arg, "https://", 8) != 0) {
			*cause = dn_xasprintf("bad --%s-url '%s': want "
			    "http://... or https://...", ch == O_PROM_URL ?
			    "prom" : "json", arg);
			return (-1);
		}
		*(ch == O_PROM_URL ? &o->prom_url : &o->json_url) = arg;
		break;
	case O_SCRAPE_EVERY: {
		int64_t	every;

		if (dn_parse_i64(arg, &every) != 0 || every < 1 ||
		    every > 1000) {
			*cause = dn_xasprintf("bad value '%s' for "
			    "--scrape-every: want 1..1000", arg);
			return (-1);
		}
		o->scrape_every = (int)every;
		break;
	}

	case O_JSON_MAP:
		if (add_json(o, arg, cause) != 0)
			return (-1);
		break;
	case O_COUNTER:
		break;		/* once every name is known */
	case O_PROM_MAP:
	case O_PROM_KEEP:
		if (add_prom(o, arg, ch == O_PROM_KEEP, cause) != 0)
			return (-1);
		break;
	case O_HELP:
		return (1);
	default:
		return (-2);
	}
	return (0);
}

int
probe_args_parse(struct probe_opts *o, int argc, char **argv, char **cause)
{
	const char	*tok;
	int		 ch, rv;

	memset(o, 0, sizeof(*o));
	o->interval_ms = 1000;
	o->ready_timeout_ms = 30000;
	o->stop_signal = SIGTERM;
	o->stop_grace_ms = 5000;
	o->scrape_every = 1;
	/* The token from the environment (devnet's way: /proc/PID/environ
	 * is private to its user, a command line is not), not passed on to
	 * COMMAND; --token overrides it. */
	if ((tok = getenv(DN_PROBE_TOKEN_ENV)) != NULL) {
		if (parse_token(tok, DN_PROBE_TOKEN_ENV, &o->token, cause) != 0)
			return (-1);
		unsetenv(DN_PROBE_TOKEN_ENV);
	}
	o->env_add = dn_xcalloc(1, sizeof(*o->env_add));
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		if ((rv = parse_one(o, ch, optarg, cause)) == -2) {
			*cause = dn_xasprintf("unknown option '%s' (see "
			    "--help)", argv[optind - 1]);
			return (-1);
		}
		if (rv != 0)
			return (rv);
	}
	if (optind >= argc) {
		*cause = dn_xstrdup("no command given: devnet-probe "
		    "[options] -- COMMAND [ARGS...]");
		return (-1);
	}
	if (o->nprom > 0 && o->prom_url == NULL) {
		*cause = dn_xstrdup("--prom-map and --prom-keep need "
		    "--prom-url");
		return (-1);
	}
	if (o->scrape_every > 1 && o->prom_url == NULL &&
	    o->json_url == NULL) {
		*cause = dn_xstrdup("--scrape-every needs --prom-url or "
		    "--json-url");
		return (-1);
	}
	if ((o->njson > 0) != (o->json_url != NULL)) {
		*cause = dn_xstrdup(o->njson > 0 ? "--json-map needs "
		    "--json-url" : "--json-url needs at least one --json-map");
		return (-1);
	}
	optind = 1;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1)
		if (ch == O_COUNTER && mark_counter(o, optarg, cause) != 0)
			return (-1);
	o->argv = argv + optind;
	return (0);
}

void
probe_args_release(struct probe_opts *o)
{
	size_t	i;

	for (i = 0; i < o->next; i++) {
		free(o->ext[i].name);
		free(o->ext[i].pattern);
		if (o->ext[i].have_re)
			regfree(&o->ext[i].re);
	}
	free(o->ext);
	for (i = 0; i < o->nready; i++) {
		free(o->ready[i].spec);
		free(o->ready[i].host);
		free(o->ready[i].port);
		free(o->ready[i].url);
		if (o->ready[i].have_re)
			regfree(&o->ready[i].re);
	}
	free(o->ready);
	for (i = 0; i < o->nprom; i++) {
		free(o->prom[i].devnet);
		free(o->prom[i].expo);
	}
	free(o->prom);
	for (i = 0; i < o->njson; i++) {
		free(o->json[i].name);
		free(o->json[i].path);
	}
	free(o->json);
	free(o->env_add);
	free(o->clock_env);
	free(o->alloc_lib);
	free(o->alloc_shm);
	memset(o, 0, sizeof(*o));
}

int
probe_args_add_prom(struct probe_opts *o, const char *devnet,
    const char *expo, char **cause)
{
	char	*arg;
	int	 rv;

	if (name_taken(o, devnet))
		return (1);
	arg = dn_xasprintf("%s=%s", devnet, expo);
	rv = add_prom(o, arg, 0, cause);
	free(arg);
	return (rv);
}
