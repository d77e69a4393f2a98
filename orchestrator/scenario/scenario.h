/*
 * scenario.h: a loaded, validated scenario (what to start from it:
 * plan/plan.h).
 * The loader (scenario.c and its parts, scenario-internal.h) is the only
 * door to libyaml.  Reference: docs/scenarios.md.
 *
 * A scenario loads strictly: unknown keys, wrong types, out-of-range
 * values, duplicate keys, a missing node binary are errors with
 * FILE:LINE:COL, before anything is spawned.
 */
#ifndef DN_SCENARIO_H
#define DN_SCENARIO_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

enum scn_workload {
	SCN_WL_TRANSFER,
	SCN_WL_READRANDOM,
	SCN_WL_CF_CHURN,
	SCN_WL_IDLE,
	SCN_WL_HTTP,		/* HTTP requests at tps (loadgen-http.c) */
	SCN_WL_COMMAND		/* an external load generator (loadgen-cmd.c) */
};
enum scn_dist { SCN_DIST_UNIFORM, SCN_DIST_ZIPF };
enum scn_order { SCN_ORDER_ABBA, SCN_ORDER_CONCURRENT };
/* `pin:` (issue 36): a concurrent slot's variants on disjoint CPU sets
 * (duet), or not; DEFAULT is duet where it can be had (run/duet.c). */
enum scn_pin { SCN_PIN_DEFAULT, SCN_PIN_DUET, SCN_PIN_NONE };
/* Where the nodes run (docs/providers.md): processes of this machine, a
 * container each on the local Docker engine, or a Docker Swarm stack. */
enum scn_provider { SCN_PROV_LOCAL, SCN_PROV_DOCKER, SCN_PROV_SWARM };
/* The providers' names, indexed by enum scn_provider, NULL-terminated:
 * the one list the loader, --provider and the run's records read. */
extern const char *const scenario_provider_names[];
enum scn_action {
	SCN_EV_KILL,	/* SIGKILL */
	SCN_EV_TERM,	/* SIGTERM */
	SCN_EV_STOP,	/* SIGSTOP */
	SCN_EV_CONT,	/* SIGCONT */
	SCN_EV_RESTART,	/* SIGKILL if alive, then start again on its dir */
	SCN_EV_UPGRADE,	/* stop, then start the `to:` variant's build on
			   its own dir (issue 39) */
	SCN_EV_CLOCK_SKEW, /* its wall clock moved by OFFSET_MS (issue 39) */
	SCN_EV_DISK,	/* its data disk full, or slow (issue 39) */
	/* the emulated network (scenario-links.c; docs/scenarios.md) */
	SCN_EV_PARTITION, /* groups cannot reach each other */
	SCN_EV_HEAL,	/* partitions and link events end */
	SCN_EV_LINK	/* conditions on some nodes' links, for a time */
};
/* "kill", ..., "upgrade", "clock_skew", "disk", "partition", "heal",
 * "link". */
const char *scenario_action_name(enum scn_action a);

/* One link's conditions (network.links, a link event); 0 = not asked.
 * Latency is one way, in each direction: a pair at 80 ms has an RTT of
 * 160 ms. */
struct scn_link {
	int64_t		 latency_us;
	int64_t		 jitter_us;	/* spread around it, no reordering */
	uint32_t	 loss_ppm;	/* per packet, per million */
	uint64_t	 bandwidth_bps;	/* a rate with a queue; bits/s */
};
/* network.links' entry for zones ZA-ZB (indices into network.zones;
 * either direction). */
struct scn_zone_link {
	int		 za, zb;
	struct scn_link	 c;
};

/* Settings a variant or a per-node override may change.  NULL / 0 = not
 * set (inherit). */
struct scn_settings {
	char		*binary;	/* absolute path once loaded */
	char		*rev;		/* variants only: a git revision to
					   build instead (plan/rev-build.c) */
	char		*read_options;	/* "cached" | "per-call" */
	char		*write_options;
	char		*rocksdb_options; /* rocksdb options string */
	uint64_t	 block_cache;	/* bytes, 0 = not set */
	char		**args;		/* extra node arguments */
	size_t		 nargs;
	char		**env;		/* "K=V" added to the node's env */
	size_t		 nenv;
	/* docker and swarm only (docs/providers.md) */
	char		*image;		/* container image */
	double		 cpus;		/* resources.cpus, 0 = not set */
	uint64_t	 memory;	/* resources.memory bytes, 0 = not set */
	char		*cpuset;	/* resources.cpuset: "0-1,3", "auto";
					   NULL = not set (local only) */
};

/* How a node is run (scenario-node.c; docs/foreign-nodes.md): devnet's
 * own devnet-node (the default), or any program (a "foreign" node) run by
 * devnet-probe.  Strings marked "template" hold placeholders ({index},
 * {port+1}, ...; scenario/template.h) that plan_node_argv expands per
 * node. */
enum scn_node_kind { SCN_NODE_DEVNET, SCN_NODE_COMMAND };
enum scn_ready_kind {
	SCN_READY_TCP,		/* "HOST:PORT" accepts a connection */
	SCN_READY_HTTP,		/* URL answers 2xx */
	SCN_READY_LOG,		/* a line of the output matches a regex */
	SCN_READY_DELAY		/* a fixed time after the start */
};

struct scn_ready {
	enum scn_ready_kind	 kind;
	char			*arg;	/* template; NULL for delay */
	int64_t			 ms;	/* delay */
};

/* A named metric the scenario defines from the node's own output: a log
 * line (metrics.log: REGEX set) or a field of its JSON page (metrics.
 * json.fields: PATH set).  One list, so that the directions, the kinds
 * and the names are checked and declared once for both. */
struct scn_log_metric {
	char		*name;
	char		*regex;		/* POSIX extended, one capture */
	char		*path;		/* or a JSON path (json-path.h) */
	char		*better;	/* higher | lower | NULL (neutral) */
	int		 counter;	/* type: counter (a per-second rate) */
};

struct scn_node {
	enum scn_node_kind	 kind;
	char			**command;	/* templates; [0] program */
	size_t			 ncommand;
	char			**env;		/* "K=V", V a template */
	size_t			 nenv;
	char			*cwd;		/* template */
	char			*user;		/* run as; NULL: devnet's */
	int			 port_base;	/* default 20000 */
	int			 ports_per_node; /* default 10 */
	char			*peer;		/* template, for {peers} */
	struct scn_ready	*ready;
	size_t			 nready;
	int			 stop_signal;	/* default SIGTERM */
	int64_t			 stop_grace_ms;	/* default 5000 */
	int			 exit_expected;	/* runs to completion */
	int			 count_allocs;
	uint64_t		 log_limit;	/* bytes of output; 0 = none */
	struct scn_log_metric	*logm;
	size_t			 nlogm;
	char			*prom_url;	/* template */
	int			 prom_every;	/* scrape every Nth sample; 0: 1 */
	char			**prom_map;	/* "DEVNET_NAME=EXPOSITION" */
	size_t			 nprom_map;
	char			**prom_keep;
	size_t			 nprom_keep;
	char			*json_url;	/* template; fields in logm */
	int			 json_every;	/* 0: prom_every's, or 1 */
};

struct scn_variant {
	char			*name;
	struct scn_settings	 set;
	/* Filled before the trials by plan/rev-build.c, stored
	 * with every run; NULL when unknown. */
	char			*git_commit;	/* rev variants only */
	char			*git_describe;
	struct scn_node		 node;	/* top level's node:, then its own */
	/* vars: (scenario-vars.c): the top level's defaults, then its own
	 * values; already put into node's command and env */
	char			**var_names, **var_values;
	size_t			 nvars;
};

/* How a variant's `rev:` becomes a binary (top-level `build:`, or the
 * default recipe for devnet-node when a variant names a rev). */
struct scn_build {
	char		*repo;		/* absolute once loaded */
	char		**command;	/* argv, NULL-terminated */
	size_t		 ncommand;
	char		*binary;	/* relative to the worktree */
	int		 given;		/* 1: from the file or --set */
};

struct scn_override {
	int			 node;
	struct scn_settings	 set;
};

/* swarm.engines: the Docker engine of a host of the swarm. */
struct scn_engine {
	char		*host;		/* its hostname, as `docker node ls` */
	char		*url;		/* `docker --host` URL */
};

struct scn_event {
	char		*name;		/* for assertion windows; NULL = none */
	int64_t		 at_ms;		/* since t=0 of the trial */
	enum scn_action	 action;
	int		 node;
	char		*variant;	/* only in this variant's trials; NULL = all */
	/* partition: GROUP_OF[node] is its group, -1 for the nodes no group
	 * names (they form one more); ONE_WAY: only group 0's packets to
	 * the others are dropped.  node is -1 for the network's events. */
	int		*group_of;
	int		 ngroups;
	int		 one_way;
	/* upgrade: the variant (index into variants) whose build node
	 * runs from here on; a rolling one (nodes: [...]) is loaded as
	 * one event per node, PAUSE_MS apart */
	int		 to;
	int64_t		 pause_ms;
	/* link: NODES' links (both ways) get COND for FOR_MS (0: until
	 * heal or the end) */
	int		*nodes;
	size_t		 nnodes;
	struct scn_link	 cond;
	int64_t		 for_ms;
	/* clock_skew: the node's wall clock from here on is the true one
	 * plus OFFSET_MS (0: healed; HAS_OFFSET 0: where it is now), moving
	 * DRIFT_PPM millionths of a second a second from then on (0: none).
	 * disk: its data disk from here on is full or not, and limited to
	 * RATE_BPS bytes/s and IOPS (0: no limit) */
	int64_t		 offset_ms;
	int		 has_offset;
	double		 drift_ppm;
	int		 full;
	uint64_t	 rate_bps;
	uint32_t	 iops;
	int		 line, col;	/* where it is written */
};

/*
 * assert: (scenario-assert.c; docs/scenarios.md "Assertions"): what must
 * hold.  Evaluated by orchestrator/assert/, relative ones by the verdict.
 */
enum scn_aform { SCN_AF_EVENTUALLY, SCN_AF_ALWAYS, SCN_AF_VALUE,
	SCN_AF_RELATIVE };
enum scn_ascope { SCN_AS_EACH_NODE, SCN_AS_ALL_NODES, SCN_AS_ANY_NODE,
	SCN_AS_MAX_SPREAD, SCN_AS_LOAD };
enum scn_acmp { SCN_CMP_LT, SCN_CMP_LE, SCN_CMP_GT, SCN_CMP_GE,
	SCN_CMP_EQ };
/* How a value assertion reduces a metric's samples in its window: a
 * gauge's mean (or max, min, p99, growth per minute as the least-squares
 * slope), a counter's rate per second; NONE = the live sample. */
enum scn_afold { SCN_FOLD_NONE, SCN_FOLD_MEAN, SCN_FOLD_MAX, SCN_FOLD_MIN,
	SCN_FOLD_P99, SCN_FOLD_GROWTH, SCN_FOLD_RATE, SCN_FOLD_MEDIAN };
enum scn_anchor_kind { SCN_ANC_START, SCN_ANC_WARMUP, SCN_ANC_END,
	SCN_ANC_EVENT };

/* A point of a trial's time line: t=0, the end of the warmup, the end of
 * the run or an event (its index in scenario.events), plus an offset. */
struct scn_anchor {
	enum scn_anchor_kind	 kind;
	int			 event;		/* SCN_ANC_EVENT */
	int64_t			 offset_ms;
};

struct scn_assert {
	char		*name;
	int		 line, col;	/* of the entry, for messages */
	enum scn_aform	 form;
	enum scn_ascope	 scope;
	char		*metric;	/* as written: "rss_growth" */
	int		 metric_id;	/* the metric-table row read */
	int		 metric_id2;	/* -1, or a second counter whose rate
					   adds to METRIC_ID's (a verdict
					   metric such as cpu_s_per_s) */
	char		*named;		/* or a named metric (log, prom) */
	enum scn_afold	 fold;
	char		*unit;		/* of the value compared: "bytes/min" */
	enum scn_acmp	 cmp;
	double		 limit;		/* in UNIT */
	char		*limit_text;	/* as written: "1MiB/min" */
	/* The window: FROM..TO, or while event DURING is active (-1: not). */
	struct scn_anchor from, to;
	int		 during_event;
	int64_t		 within_ms;	/* eventually: from FROM; 0 = to TO */
	int		 except_events;	/* not while any event is active */
	int64_t		 sustained_ms;	/* always: broken this long to fail */
	int		 abort_on_fail;	/* always: end the trial on failure */
	int64_t		 grace_ms;	/* ... this long after it */
	/* relative: METRIC of variant REL_B vs REL_A, REL_CMP REL_PCT %. */
	char		*rel_b, *rel_a;
	enum scn_acmp	 rel_cmp;
	double		 rel_pct;
};

enum { SCN_PROBE_AUTO, SCN_PROBE_ALL, SCN_PROBE_SAMPLED };

struct scenario {
	char		*path;		/* as given */
	char		*text;		/* the whole file as read */
	char		*name;
	char		*description;
	int64_t		 duration_ms;
	int64_t		 warmup_ms;
	int64_t		 sample_interval_ms;	/* default 1s */
	uint64_t	 seed;

	struct {
		int		 nodes;
		/* gossip: each devnet-node's peers (plan/peer-graph.c);
		 * 0: every other node, no relay (the default) */
		int		 peers;
		/* the emulated network's probed links (plan/probe-links.c):
		 * SCN_PROBE_AUTO (the default: every link up to
		 * PLAN_PROBE_ALL_MAX directed links, a sample beyond), _ALL,
		 * _SAMPLED */
		int		 probe_links;
		int64_t		 block_interval_ms;	/* default 1s */
		uint32_t	 accounts;		/* default 10000 */
		uint32_t	 block_max_txs;		/* default 10000 */
		uint32_t	 block_reads;		/* consensus reads per block */
		char		*listen;	/* "ipc" (default) | "tcp" */
		int		 tcp_base_port;	/* with tcp */
		struct scn_override *overrides;
		size_t		 noverrides;
		/* zones: names, and each node's zone (-1: none) */
		char		**zones;
		size_t		 nzones;
		int		*zone_of;
		/* links: the default, then zone pairs */
		struct scn_link	 link_default;
		struct scn_zone_link *zlinks;
		size_t		 nzlinks;
	} network;

	struct {
		enum scn_workload kind;
		double		 tps;		/* transfer: total tx/s */
		double		 ramp_from_tps;	/* ramp start (0 = no ramp) */
		int64_t		 ramp_ms;	/* ramp length */
		int		 realtime;	/* SCHED_FIFO + spin */
		enum scn_dist	 dist;
		double		 zipf_s;
		double		 read_rate;	/* readrandom: reads/s per node, 0 = flat out */
		uint32_t	 cf_count;	/* cf-churn: families per cycle */
		char		*cf_options;	/* cf-churn: options string */
		/* readrandom: db_bench-shaped keys (--keys), 0 = the
		 * accounts; stop after N reads (--reads), 0 = at the end */
		uint64_t	 read_keys;
		uint64_t	 reads;
		/* cf-churn: stop after N cycles (--cf-cycles), 0 = at the
		 * end */
		uint32_t	 cf_cycles;
		/* http: one request per transaction, templates of
		 * scenario/template.h; success = a status in expect_status */
		char		*method;	/* GET; POST with a body */
		char		*url;
		char		*body;		/* NULL: none */
		char		**headers;	/* "Name: value" */
		size_t		 nheaders;
		int		*expect_status;	/* default { 200 } */
		size_t		 nexpect_status;
		int64_t		 timeout_ms;	/* per request, default 5 s */
		uint32_t	 key_space;	/* {key}s, default 10000 */
		uint32_t	 value_size;	/* {value_b64} bytes, 100 */
		uint32_t	 max_inflight;	/* then send errors; 10000 */
		/* command: argv templates, extra env, stop grace */
		char		**command;
		size_t		 ncommand;
		char		**cmd_env;	/* "K=V" */
		size_t		 ncmd_env;
		int64_t		 cmd_grace_ms;	/* default 5 s */
	} workload;

	char		*rocksdb_options;	/* base options string */
	uint64_t	 block_cache;		/* base block cache bytes */
	char		*read_options;		/* base, default "cached" */
	char		*write_options;

	struct scn_variant *variants;
	size_t		 nvariants;
	struct scn_build build;		/* repo NULL: no variant has a rev */
	int		 repeats;		/* default 1 */
	int		 repeats_set;	/* the file or a --set named it */
	enum scn_order	 order;
	enum scn_pin	 pin;		/* default: duet where it can be */
	struct scn_event *events;
	size_t		 nevents;
	struct scn_assert *asserts;
	size_t		 nasserts;

	/* Where the nodes run (scenario-provider.c, docs/providers.md). */
	enum scn_provider provider;
	struct scn_settings container;	/* base image and resources only */
	char		*placement;	/* swarm: "spread" or "LABEL=VALUE" */
	struct scn_engine *engines;	/* swarm.engines */
	size_t		 nengines;

	/* compare.primary (scenario-compare.c): what the comparisons are
	 * about; NULL-terminated, NPRIMARY 0 when not given (the node
	 * kind's default then). */
	char		**primary;
	size_t		 nprimary;
};

/* "FROM:name,name,...": S's primary metrics and where they come from
 * ("scenario" or the node kind's default), as stored with every run
 * (fact compare_primary).  Caller frees. */
char	*scenario_primary_text(const struct scenario *s);

/*
 * Load PATH, apply the --set overrides SETS ("key.path=value", same checks
 * as the file; errors name "--set" instead of FILE:LINE:COL), validate, and
 * resolve binaries (DEFAULT_BINARY when a variant sets none).  On error
 * returns -1 and *CAUSE holds "FILE:LINE:COL: what is wrong (hint)".
 * *SP is owned by the caller: scenario_free.
 */
int	 scenario_load(struct scenario **sp, const char *path,
	    char *const *sets, size_t nsets, const char *default_binary,
	    char **cause);
/* The same from a buffer (NAME is used in messages); for tests and fuzzing.
 * Binaries are not checked for existence when DEFAULT_BINARY is NULL. */
int	 scenario_load_buffer(struct scenario **sp, const char *name,
	    const char *buf, size_t len, char *const *sets, size_t nsets,
	    const char *default_binary, char **cause);
void	 scenario_free(struct scenario *);
/* "<", "<=", ">", ">=", "==". */
const char *scn_cmp_text(enum scn_acmp);
/* "each_node", "all_nodes", "any_node", "max_spread", "load". */
const char *scn_scope_text(enum scn_ascope);
/* Does V CMP LIMIT hold?  (A NaN holds nothing.) */
int	 scn_cmp_holds(enum scn_acmp, double v, double limit);
/* Assertion A as devnet understood it, one line without the name, into
 * BUF of CAP bytes ("always, each node: lag_ms < 500 ms, from warmup
 * (10s) to end (60s), except while an event is active"). */
void	 scn_assert_describe(char *buf, size_t cap, const struct scenario *s,
	    const struct scn_assert *a);
/* Where anchor A falls in a trial (ms since t=0), given when each event
 * fired (EVENT_MS[i], -1 = it did not fire in this trial): -1 when the
 * event did not fire.  Clamped to [0, duration]. */
int64_t	 scn_anchor_ms(const struct scenario *s, const struct scn_anchor *a,
	    const int64_t *event_ms);
/* The span over which event I is active in a trial: from when it fired
 * to when the event that undoes it fired (stop..cont, kill or term..
 * restart of the same node, partition or link..heal, a link's `for`, or
 * the end; cont, restart and heal: their instant), plus two block
 * intervals to catch up; *TO_MS = -1 when it did not fire. */
void	 scn_event_span(const struct scenario *s, size_t i,
	    const int64_t *event_ms, int64_t *from_ms, int64_t *to_ms);
/* Does S ask for an emulated network (a condition in network.links, or
 * a partition, heal or link event)? */
int	 scenario_has_conditions(const struct scenario *s);
/* The most nodes an emulated network takes: its address plan's 255
 * endpoints (net/topo.h), one of them the load's (issue 40). */
#define SCN_NET_NODES_MAX	254
/* The network conditions a trial of VARIANT (NULL: any) runs under, as
 * one line ("default: latency 2 ms; eu-us: latency 80 ms jitter 5 ms;
 * events: partition at 60 s, heal at 90 s"), stored as the run fact
 * net_conditions and compared by compare; NULL without conditions (the
 * loopback).  The caller frees it. */
char	*scenario_conditions_text(const struct scenario *s,
	    const char *variant);
/* The conditions of the directed link SRC -> DST from network.links (the
 * zone pair's, else the default; each key from the zone pair when it sets
 * it, else from the default). */
void	 scenario_link_of(const struct scenario *s, int src, int dst,
	    struct scn_link *out);
/* swarm.engines' URL for HOST, or NULL. */
const char *scn_engine_of(const struct scenario *, const char *host);
/* A duration the way a scenario writes it ("2h", "90s", "500ms") into
 * BUF of CAP bytes. */
void	 scenario_fmt_ms(char *buf, size_t cap, int64_t ms);

#endif
