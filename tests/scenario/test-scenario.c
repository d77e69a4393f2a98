/*
 * test-scenario.c: the strict scenario loader (a table of bad files, each
 * with its expected FILE:LINE:COL message), good files with their values
 * and defaults, --set, the trial order and node argv precedence.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plan/plan.h"
#include "scenario/scenario.h"
#include "rng.h"
#include "xalloc.h"

#define BASE	"name: t\nduration: 10s\nnetwork:\n  nodes: 3\n"
#define XFER	"workload:\n  kind: transfer\n  tps: 50\n"
/* BASE, a named event and the head of one assertion: its form on line 9 */
#define ASRT	BASE "events:\n  - {at: 2s, action: stop, node: 1, name: " \
	"pause}\nassert:\n  - name: x\n"

static char	tmpdir[64];

/* Generated inputs the table cannot spell out. */
static char *
gen_huge(size_t *len)
{
	size_t	n = 10 * 1024 * 1024, i;
	char	*b = dn_xmalloc(n + 1);

	memcpy(b, BASE, strlen(BASE));
	for (i = strlen(BASE); i < n; i++)
		b[i] = i % 64 == 63 ? '\n' : '#';
	b[n] = '\0';
	*len = n;
	return (b);
}

static char *
gen_deep(size_t *len)
{
	char	*b = dn_xmalloc(4096);
	size_t	 n = 0, i;

	memcpy(b, BASE "x: ", strlen(BASE "x: "));
	n = strlen(BASE "x: ");
	for (i = 0; i < 1000; i++)
		b[n++] = '[';
	b[n] = '\0';
	*len = n;
	return (b);
}

static char *
gen_garbage(size_t *len)
{
	char		*b = dn_xmalloc(4097);
	uint64_t	 st = 42;
	size_t		 i;

	for (i = 0; i < 4096; i++)
		b[i] = (char)(0x80 | (dn_rand64(&st) & 0x7f));
	b[4096] = '\0';
	*len = 4096;
	return (b);
}

static char *
gen_nul(size_t *len)
{
	static const char t[] = BASE "description: a\0b\n";

	*len = sizeof(t) - 1;
	return (memcpy(dn_xmalloc(sizeof(t)), t, sizeof(t)));
}

struct bad {
	const char	*name;
	const char	*text;
	char		*(*gen)(size_t *);
	const char	*where;		/* ":LINE:COL:" or NULL */
	const char	*expect;
};

static const struct bad bad_files[] = {
	{ "rev and binary", BASE "variants:\n  A: {binary: /bin/true, rev: "
	  "HEAD}\n", NULL, ":6:31:", "sets both 'binary' and 'rev'" },
	{ "option-like rev", BASE "variants:\n  A: {rev: --all}\n", NULL,
	  ":6:12:", "must be a git revision" },
	{ "rev in an override", BASE "  overrides:\n    - {node: 0, rev: "
	  "HEAD}\n", NULL, ":6:17:", "unknown key 'rev'" },
	{ "build without command", BASE "build: {repo: ., binary: x}\n",
	  NULL, ":5:8:", "build needs 'command'" },
	{ "build command not a list", BASE "build: {repo: ., command: make, "
	  "binary: x}\n", NULL, ":5:27:", "build.command must be a list" },
	{ "build binary absolute", BASE "build: {repo: ., command: [make], "
	  "binary: /x}\n", NULL, ":5:43:", "must be a path relative" },
	{ "build repo missing", BASE "build: {repo: /nonexistent/r, "
	  "command: [make], binary: x}\n", NULL, ":5:15:",
	  "build.repo '/nonexistent/r' is not a directory" },
	/* node: (scenario-node.c), foreign nodes */
	/* vars: (scenario-vars.c) */
	{ "var not declared", BASE "node:\n  command: [true, '{x}']\n"
	  "vars: {x: 1}\nvariants:\n  A:\n  B: {vars: {y: 2}}\n", NULL,
	  ":10:14:", "variants.B.vars: 'y' is not declared in the top "
	  "level's vars:" },
	{ "var misspelt", BASE "vars: {cache: 1}\nvariants:\n  B: {vars: "
	  "{cahce: 2}}\n", NULL, ":7:14:", "did you mean cache" },
	{ "var named as a built-in", BASE "vars: {port: 1}\n", NULL, ":5:8:",
	  "'port' is a built-in placeholder ({port})" },
	{ "var not a name", BASE "vars: {2x: 1}\n", NULL, ":5:8:",
	  "'2x' is not a name" },
	{ "var value a list", BASE "vars: {x: [1]}\n", NULL, ":5:11:",
	  "a var's value" },
	{ "var placeholder misspelt", BASE "vars: {cache: 1}\nnode:\n"
	  "  command: [true, '{cahce}']\n", NULL, ":7:19:",
	  "unknown placeholder '{cahce}'" },
	{ "node unknown placeholder", BASE "node:\n  command: [true, '{prot}']\n",
	  NULL, ":6:19:", "unknown placeholder '{prot}'" },
	/* under network conditions a foreign node is in its own namespace:
	 * loopback in a peer, a command, a check or the load is refused */
	/* the emulated network's address plan: 254 nodes and the load */
	{ "255 nodes under conditions", "name: t\nduration: 10s\nnetwork:\n"
	  "  nodes: 255\n  links: {default: {latency: 1ms}}\n", NULL,
	  ":4:10:", "network.nodes 255 under network conditions: at most "
	  "254" },
	{ "node peer on loopback", BASE "  links: {default: {latency: 1ms}}\n"
	  "node:\n  command: [true, '{peers}']\n"
	  "  peer: 'n{index}=http://127.0.0.1:{port}'\n", NULL, ":8:9:",
	  "node.peer: 'n{index}=http://127.0.0.1:{port}' under network "
	  "conditions: each node runs in a network namespace of its own" },
	{ "node command on localhost", BASE "events:\n  - {at: 1s, action: "
	  "partition, groups: [[0], [1, 2]]}\nnode:\n  command: [true, "
	  "--listen, 'localhost:{port}']\n", NULL, ":8:29:",
	  "node.command: 'localhost:{port}' under network conditions" },
	{ "node ready on loopback", BASE "  links: {default: {loss: 1%}}\n"
	  "node:\n  command: [true]\n  ready: {http: "
	  "'http://127.0.0.1:{port}/'}\n", NULL, ":8:17:",
	  "node.ready.http: 'http://127.0.0.1:{port}/' under network "
	  "conditions" },
	{ "http load on loopback", BASE "  links: {default: {latency: 1ms}}\n"
	  "node:\n  command: [true]\nworkload: {kind: http, tps: 1, url: "
	  "'http://127.0.0.1:{port}/'}\n", NULL, ":8:37:",
	  "workload.url: 'http://127.0.0.1:{port}/' under network conditions:"
	  " each node runs in a network namespace of its own, where 127.0.0.1"
	  " is the node itself, out of its peers' and the load's reach; write"
	  " {addr}" },
	{ "addr placeholder misspelt", BASE "node:\n  command: [true, "
	  "'{adr}']\n", NULL, ":6:19:", "unknown placeholder '{adr}'; did you "
	  "mean '{addr}'? (known: {index}, {nodes}, {dir}, {run_dir}, {addr}, "
	  "{port}" },
	/* did-you-mean among the placeholders of that use (issue 37) */
	{ "peers misspelt", BASE "node:\n  command: [true, '{peer}']\n"
	  "  peer: 'n{index}'\n", NULL, ":6:19:", "node: unknown placeholder "
	  "'{peer}'; did you mean '{peers}'? (known: " },
	{ "another node's addr misspelt", BASE "node:\n  command: [true, "
	  "'{adr:1}']\n", NULL, ":6:19:", "unknown placeholder '{adr:1}'; "
	  "did you mean '{addr:1}'?" },
	{ "load command placeholder misspelt", BASE "node:\n  command: [true]\n"
	  "workload: {kind: command, command: [true, '{prots}']}\n", NULL,
	  ":7:43:", "unknown placeholder '{prots}'; did you mean '{ports}'?" },
	{ "nothing near: no guess", BASE "node:\n  command: [true, "
	  "'{zzzzzz}']\n", NULL, ":6:19:", "unknown placeholder '{zzzzzz}' "
	  "(known: " },
	{ "node unknown key", BASE "node:\n  comand: [true]\n", NULL, ":6:3:",
	  "unknown key 'comand' in node (did you mean 'command'?)" },
	{ "node port offset", BASE "node:\n  command: [true, '{port+10}']\n",
	  NULL, ":6:19:", "{port+10} is beyond the node's 10 ports" },
	{ "node program missing", BASE "node:\n  command: [no-such-prog-x]\n",
	  NULL, ":6:13:", "program 'no-such-prog-x' not found" },
	{ "node regex captures", BASE "node:\n  command: [true]\n  metrics:\n"
	  "    log: {x: '(a)(b)'}\n", NULL, ":8:14:", "needs exactly one" },
	/* issue 19 #6: the probe's own NAMED counter is reserved */
	{ "node log name reserved", BASE "node:\n  command: [true]\n"
	  "  metrics:\n    log: {probe_scrape_failures: 'x(1)'}\n", NULL,
	  ":8:11:", "node.metrics.log: 'probe_scrape_failures' is reserved" },
	{ "node prom map name reserved", BASE "node:\n  command: [true]\n"
	  "  metrics:\n    prometheus:\n      url: 'http://127.0.0.1:{port}/m'\n"
	  "      map: {probe_scrape_failures: x_total}\n", NULL, ":10:13:",
	  "node.metrics.prometheus.map: 'probe_scrape_failures' is reserved" },
	{ "node prom keep name reserved", BASE "node:\n  command: [true]\n"
	  "  metrics:\n    prometheus:\n      url: 'http://127.0.0.1:{port}/m'\n"
	  "      keep: [probe_scrape_failures]\n", NULL, ":10:14:",
	  "node.metrics.prometheus.keep: 'probe_scrape_failures' is reserved" },
	/* issue 25: scrape every Nth sample, N in 1..1000 */
	{ "node prom every 0", BASE "node:\n  command: [true]\n"
	  "  metrics:\n    prometheus:\n      url: 'http://127.0.0.1:{port}/m'\n"
	  "      every: 0\n", NULL, ":10:14:", "node.metrics.prometheus.every" },
	{ "node variant signal", BASE "node:\n  command: [true]\nvariants:\n"
	  "  A: {node: {stop: {signal: FOO}}}\n", NULL, ":8:29:",
	  "unknown signal 'FOO'" },
	{ "node transfer", BASE XFER "node:\n  command: [true]\n", NULL,
	  ":6:9:", "workload kind transfer needs devnet-node nodes, but "
	  "variant A runs node.command (a foreign node); use kind none, or "
	  "http or command for a load from outside the nodes" },
	{ "node peers without peer", BASE "node:\n  command: [true, '{peers}']\n",
	  NULL, ":6:19:", "{peers} needs node.peer" },
	{ "node directions differ", BASE "node:\n  command: [true]\n"
	  "  metrics:\n    log: {x: {regex: 'x(1)', better: higher}}\n"
	  "variants:\n  A:\n  B: {node: {metrics: {log: {x: {regex: 'x(1)', "
	  "better: lower}}}}}\n", NULL, ":11:57:", "node.metrics.log.x.better: "
	  "lower in variant B, higher in variant A; one name has one "
	  "direction" },
	{ "unknown key", BASE "workload:\n  kind: transfer\n  tsp: 50\n", NULL,
	  ":7:3:", "unknown key 'tsp' in workload (did you mean 'tps'?)" },
	{ "unknown top key", BASE "durtion: 5s\n", NULL, ":5:1:",
	  "unknown key 'durtion' in the scenario (did you mean 'duration'?)" },
	{ "unknown key no hint", BASE "zzzzzzzz: 1\n", NULL, ":5:1:",
	  "(valid keys: 'name'" },
	{ "wrong type map", "name: t\nduration: 10s\nnetwork: 3\n", NULL,
	  ":3:10:", "network must be a mapping" },
	{ "wrong type scalar", BASE "name2: x\n", NULL, ":5:1:",
	  "unknown key" },
	{ "scalar given a list", "name: [a, b]\nduration: 10s\n", NULL,
	  ":1:7:", "name must be a single value, not a list" },
	{ "negative tps", BASE "workload:\n  kind: transfer\n  tps: -5\n",
	  NULL, ":7:8:", "workload.tps must be > 0" },
	{ "tps not a number",
	  BASE "workload:\n  kind: transfer\n  tps: lots\n",
	  NULL, ":7:8:", "workload.tps must be a number (got 'lots')" },
	{ "tps missing", BASE "workload:\n  kind: transfer\n", NULL, ":6:3:",
	  "needs 'tps'" },
	{ "zero nodes", "name: t\nduration: 10s\nnetwork:\n  nodes: 0\n", NULL,
	  ":4:10:", "network.nodes must be between 1 and 256 (got 0)" },
	{ "too many nodes", "name: t\nduration: 10s\nnetwork: {nodes: 257}\n",
	  NULL, ":3:18:", "between 1 and 256" },
	{ "nodes overflow", "name: t\nduration: 10s\nnetwork:\n"
	  "  nodes: 99999999999999999999999\n", NULL, ":4:10:",
	  "network.nodes is too large" },
	{ "nodes quoted", "name: t\nduration: 10s\nnetwork:\n  nodes: \"3\"\n",
	  NULL, ":4:10:", "whole number without quotes" },
	{ "nodes hex", "name: t\nduration: 10s\nnetwork:\n  nodes: 0x3\n",
	  NULL, ":4:10:", "whole number (got '0x3')" },
	{ "bad duration", "name: t\nduration: ten\nnetwork: {nodes: 1}\n",
	  NULL, ":2:11:", "duration: expected a number" },
	{ "bad duration unit", "name: t\nduration: 10parsecs\n", NULL,
	  ":2:11:", "unknown duration unit" },
	{ "zero duration", "name: t\nduration: 0s\n", NULL, ":2:11:",
	  "duration must be between 1ms and 720h" },
	{ "overflowing duration", "name: t\nduration: 99999999999999999999h\n",
	  NULL, ":2:11:", "duration too large" },
	{ "overflowing duration 2",
	  "name: t\nduration: 9223372036854775807h\n",
	  NULL, ":2:11:", "duration too large" },
	{ "overflowing size", BASE "rocksdb:\n  block_cache: 99999999999TiB\n",
	  NULL, ":6:16:", "size too large" },
	{ "bad size unit", BASE "rocksdb:\n  block_cache: 64 MiB\n", NULL,
	  ":6:16:", "unknown size unit" },
	{ "duplicate key", BASE "name: u\n", NULL, ":5:1:",
	  "duplicate key 'name' (first at line 1, column 1" },
	{ "duplicate nested", BASE "  nodes: 4\n", NULL, ":5:3:",
	  "duplicate key 'nodes'" },
	{ "tabs", "name: t\nnetwork:\n\tnodes: 3\n", NULL, ":3:1:",
	  "tabs are not allowed" },
	{ "empty file", "", NULL, ":1:1:", "empty scenario" },
	{ "blank file", "\n\n   \n", NULL, ":1:1:", "empty scenario" },
	{ "comments only", "# nothing\n# here\n", NULL, ":1:1:",
	  "empty scenario" },
	{ "empty document", "---\n...\n", NULL, NULL, "empty scenario" },
	{ "not yaml", "name: [unclosed\nduration: {\n", NULL, NULL,
	  "not valid YAML" },
	{ "not yaml 2", "key: value: other\n", NULL, ":1:11:",
	  "not valid YAML" },
	{ "plain text", "hello world\n", NULL, ":1:1:",
	  "the top level must be a mapping" },
	{ "list at top", "- a\n- b\n", NULL, ":1:1:",
	  "not a list" },
	{ "binary garbage", NULL, gen_garbage, ":1:1:", "not valid YAML" },
	{ "nul byte", NULL, gen_nul, ":5:15:", "a NUL byte" },
	{ "10 MB file", NULL, gen_huge, NULL, "too large for a scenario" },
	{ "deep nesting", NULL, gen_deep, ":5:35:", "nesting deeper than 32" },
	{ "billion laughs",
	  "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	  "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
	  "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
	  "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n", NULL, ":1:4:",
	  "anchors (&a) are not allowed" },
	{ "alias", "name: *x\n", NULL, ":1:7:",
	  "aliases (*x) are not allowed" },
	{ "tag", "name: !!str t\n", NULL, ":1:7:", "tags (" },
	{ "two documents", BASE "---\nname: u\n", NULL, ":5:1:",
	  "a second YAML document" },
	{ "complex key", "? [a]\n: b\n", NULL, ":1:3:",
	  "a key must be a plain word" },
	{ "missing name", "duration: 10s\nnetwork: {nodes: 1}\n", NULL,
	  ":1:1:", "needs a 'name'" },
	{ "missing network", "name: t\nduration: 10s\n", NULL, ":1:1:",
	  "needs 'network'" },
	{ "warmup too long", BASE "warmup: 10s\n", NULL, ":5:9:",
	  "warmup (10s) must be shorter than duration" },
	{ "sample interval too small", BASE "sample_interval: 10ms\n", NULL,
	  ":5:18:", "between 100ms and 1h" },
	{ "idle with tps", BASE "workload: {kind: idle, tps: 5}\n", NULL,
	  ":5:29:", "remove tps" },
	{ "bad kind", BASE "workload: {kind: trasnfer}\n", NULL, ":5:18:",
	  "must be one of 'transfer'" },
	{ "zipf_s without zipf", BASE XFER "  zipf_s: 1.2\n", NULL, ":8:11:",
	  "only applies with 'keys: zipf'" },
	{ "read_rate with transfer", BASE XFER "  read_rate: 5\n", NULL,
	  ":8:14:", "only applies to kind readrandom" },
	{ "read_keys with transfer", BASE XFER "  read_keys: 5\n", NULL,
	  ":8:14:", "only applies to kind readrandom" },
	{ "cf_cycles zero", BASE "workload: {kind: cf-churn, cf_cycles: 0}\n",
	  NULL, ":5:39:", "between 1 and 1000000000" },
	{ "ramp without over", BASE XFER "  ramp: {from: 1}\n", NULL, ":8:9:",
	  "needs 'from' (TPS) and 'over'" },
	{ "bad listen", BASE "  listen: udp\n", NULL, ":5:11:",
	  "must be one of 'ipc', 'tcp'" },
	{ "tcp without port", BASE "  listen: tcp\n", NULL, ":5:11:",
	  "needs network.tcp_base_port" },
	{ "port out of range", BASE "  listen: tcp\n  tcp_base_port: 65534\n",
	  NULL, ":6:18:", "between 1024 and 65530" },
	{ "concurrent ports", BASE "  listen: tcp\n  tcp_base_port: 65525\n"
	  "variants: {A: {}, B: {}}\norder: concurrent\n", NULL, ":6:18:",
	  "too few ports for 2 concurrent devnets" },
	{ "override node", BASE "  overrides:\n    - {node: 3, args: [-x]}\n",
	  NULL, ":6:14:", "between 0 and 2" },
	{ "override twice", BASE "  overrides:\n    - {node: 1}\n"
	  "    - {node: 1}\n", NULL, ":7:14:", "already has an override" },
	{ "override unknown key",
	  BASE "  overrides:\n    - {node: 1, agrs: []}\n",
	  NULL, ":6:17:", "unknown key 'agrs' in network.overrides[0] "
	  "(did you mean 'args'?)" },
	{ "bad env name", BASE "variants:\n  A: {env: {1X: y}}\n", NULL,
	  ":6:13:", "'1X' is not a valid environment variable name" },
	{ "args not a list", BASE "variants:\n  A: {args: --x}\n", NULL,
	  ":6:13:", "variants.A.args must be a list" },
	{ "bad variant name", BASE "variants:\n  A.1: {}\n", NULL, ":6:3:",
	  "variant name 'A.1'" },
	{ "no variants", BASE "variants: {}\n", NULL, ":5:11:",
	  "at least one variant" },
	{ "bad read_options", BASE "read_options: sometimes\n", NULL, ":5:15:",
	  "must be one of 'cached', 'per-call'" },
	{ "repeats zero", BASE "repeats: 0\n", NULL, ":5:10:",
	  "between 1 and 1000" },
	{ "bad order", BASE "order: baab\n", NULL, ":5:8:",
	  "must be one of 'abba', 'concurrent'" },
	{ "unknown variant in event", BASE "variants: {A: {}, B: {}}\n"
	  "events:\n  - {at: 1s, action: kill, node: 1, variant: C}\n", NULL,
	  ":7:46:", "variant 'C', which is not in variants" },
	{ "event after the end", BASE "events:\n"
	  "  - {at: 20s, action: kill, node: 1}\n", NULL, ":6:10:",
	  "is not before the end of the run" },
	{ "event at the end", BASE "events:\n"
	  "  - {at: 10s, action: kill, node: 1}\n", NULL, ":6:10:",
	  "is not before the end" },
	{ "event bad node", BASE "events:\n"
	  "  - {at: 1s, action: kill, node: 3}\n", NULL, ":6:34:",
	  "events[].node must be between 0 and 2" },
	{ "event bad action", BASE "events:\n"
	  "  - {at: 1s, action: explode, node: 0}\n", NULL, ":6:22:",
	  "must be one of 'kill'" },
	{ "event missing field", BASE "events:\n  - {at: 1s}\n", NULL,
	  ":6:5:", "an event needs 'at' and 'action'" },
	{ "events not a list", BASE "events: {at: 1s}\n", NULL, ":5:9:",
	  "events must be a list" },
	{ "missing binary", BASE "variants:\n  A: {binary: ./no/such/node}\n",
	  NULL, ":6:15:", "variants.A.binary './no/such/node' not found" },
	{ "binary not executable", BASE "variants:\n"
	  "  A: {binary: /etc/passwd}\n", NULL, ":6:15:",
	  "is not an executable file" },
	/* assert: (scenario-assert.c) */
	{ "assert metric typo", ASRT "    eventually: {all_nodes: heigth >= 5, "
	  "within: 5s}\n", NULL, ":9:29:",
	  "unknown metric 'heigth' (did you mean 'height'?)" },
	{ "assert eventually without within", ASRT "    eventually: "
	  "{all_nodes: height >= 5}\n", NULL, ":9:17:",
	  "eventually needs 'within'" },
	{ "assert unknown event", ASRT "    eventually: {all_nodes: height "
	  ">= 5, within: 5s, after: paus}\n", NULL, ":9:61:",
	  "after names event 'paus', which is not in events (did you mean "
	  "'pause'?)" },
	{ "assert unit of ms", ASRT "    always: {each_node: lag_ms < 5MiB}\n",
	  NULL, ":9:25:", "'lag_ms' is in ms; 'MiB' is not" },
	{ "assert unit of growth", ASRT "    value: {each_node: rss_growth < "
	  "5ms}\n", NULL, ":9:24:",
	  "'rss_growth' is in bytes/min; 'ms' is not" },
	{ "assert window event missing", ASRT "    always: {each_node: "
	  "lag_ms < 2s, during: [warmup, nope]}\n", NULL, ":9:55:",
	  "during[1] names event 'nope', which is not in events" },
	{ "assert except", ASRT "    always: {each_node: lag_ms < 2s, except: "
	  "faults}\n", NULL, ":9:46:", "except: the one value is 'events'" },
	{ "assert value form in always", ASRT "    always: {each_node: "
	  "rss_growth < 1MiB/min}\n", NULL, ":9:25:",
	  "'rss_growth' is a value over the trial" },
	{ "assert node metric at load", ASRT "    value: {load: rss_max < 5}\n",
	  NULL, ":9:19:", "'rss_max' is reported by every node" },
	{ "assert load metric at a node", ASRT "    value: {each_node: "
	  "tx_latency_p99_ms < 250}\n", NULL, ":9:24:",
	  "is reported by the load generator; its scope is load" },
	{ "assert growth of a counter", ASRT "    value: {each_node: "
	  "allocs_growth < 5}\n", NULL, ":9:24:", "allocs is a counter" },
	{ "assert no comparison", ASRT "    value: {each_node: lag_ms 5}\n",
	  NULL, ":9:24:", "no comparison after 'lag_ms'" },
	{ "assert no number", ASRT "    value: {each_node: lag_ms < abc}\n",
	  NULL, ":9:24:", "needs a number after '<'" },
	{ "assert two scopes", ASRT "    always: {each_node: lag_ms < 5, "
	  "all_nodes: height > 1}\n", NULL, ":9:48:",
	  "one scope per assertion" },
	{ "assert two forms", ASRT "    always: {each_node: lag_ms < 5}\n"
	  "    value: {each_node: lag_ms < 5}\n", NULL, ":10:12:",
	  "has two forms" },
	{ "assert relative with one variant", ASRT "    relative: {metric: "
	  "allocs_per_s, B_vs_A: \"<= -10%\"}\n", NULL, ":9:15:",
	  "relative compares two variants" },
	{ "assert grace without abort", ASRT "    always: {each_node: lag_ms "
	  "< 5, grace: 1s}\n", NULL, ":9:44:", "it needs abort_on_fail" },
	{ "assert unknown form", ASRT "    sometimes: {each_node: lag_ms < 5}\n",
	  NULL, ":9:5:", "unknown key 'sometimes' in assert[]" },
	{ "assert key typo", ASRT "    always: {each_node: lag_ms < 5, "
	  "sustaned: 1s}\n", NULL, ":9:37:",
	  "unknown key 'sustaned' in always (did you mean 'sustained'?)" },
	{ "assert duplicate name", ASRT "    value: {each_node: lag_ms < 5}\n"
	  "  - name: x\n    value: {each_node: lag_ms < 5}\n", NULL,
	  ":10:11:", "two assertions are named 'x'" },
	{ "assert relative bad variant", BASE "variants: {A: {}, B: {}}\n"
	  "assert:\n  - name: r\n    relative: {metric: allocs_per_s, C_vs_A: "
	  "\"<= -10%\"}\n", NULL, ":8:38:", "names variant 'C'" },
	{ "assert relative no percent", BASE "variants: {A: {}, B: {}}\n"
	  "assert:\n  - name: r\n    relative: {metric: allocs_per_s, B_vs_A: "
	  "\"<= -10\"}\n", NULL, ":8:46:", "the change is a percentage" },
	{ "event name duplicate", BASE "events:\n  - {at: 1s, action: stop, "
	  "node: 1, name: p}\n  - {at: 2s, action: cont, node: 1, name: p}\n",
	  NULL, ":7:43:", "two events are named 'p'" },
	/* compare: {primary: [...]} (scenario-compare.c, issue 35) */
	{ "compare unknown key", BASE "compare: {primry: [rss_avg]}\n",
	  NULL, ":5:11:", "did you mean 'primary'" },
	{ "compare unknown metric", BASE "compare: {primary: [rss_ag]}\n",
	  NULL, ":5:21:", "unknown metric 'rss_ag' in compare.primary (did "
	  "you mean 'rss_avg'?)" },
	{ "compare metric twice", BASE "compare: {primary: [rss_avg, "
	  "rss_avg]}\n", NULL, ":5:30:", "names 'rss_avg' twice" },
	{ "compare empty list", BASE "compare: {primary: []}\n", NULL,
	  ":5:20:", "a list of 1 to 32 metric names" },
	{ "compare not a list", BASE "compare: {primary: rss_avg}\n", NULL,
	  ":5:20:", "a list of 1 to 32 metric names" },
	/* edge cases that must load or fail cleanly (expect NULL: load or
	 * not, only no crash); crashes found by tools/fuzz go here too */
	{ "null variant value", BASE "variants:\n  A:\n", NULL, NULL, NULL },
	{ "null key", BASE "~: 1\n", NULL, ":5:1:", "unknown key '~'" },
	{ "empty quoted key", BASE "'': 1\n", NULL, ":5:1:",
	  "unknown key ''" },
	{ "long key",
	  BASE "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa: 1\n",
	  NULL, ":5:1:", "(valid keys:" },
	/* the emulated network (scenario-links.c) */
	{ "zone bad node", BASE "  zones: {eu: [0, 3]}\n", NULL, ":5:19:",
	  "network.zones[]" },
	{ "zone twice", BASE "  zones: {eu: [0, 1], us: [1, 2]}\n", NULL,
	  ":5:27:", "node 1 is in zones 'eu' and 'us'" },
	/* an empty list after a good one: was a double free */
	{ "zone empty after one", BASE "  zones: {eu: [0], us: []}\n",
	  NULL, ":5:24:", "network.zones[] must be a list of node indices" },
	{ "zone name dash", BASE "  zones: {e-u: [0]}\n", NULL, ":5:11:",
	  "zone name 'e-u'" },
	{ "link unknown pair", BASE "  zones: {eu: [0]}\n  links:\n"
	  "    eu-us: {latency: 80ms}\n", NULL, ":7:5:",
	  "'eu-us' is not 'default' nor a pair" },
	{ "link same pair", BASE "  zones: {eu: [0], us: [1]}\n  links:\n"
	  "    eu-us: {latency: 80ms}\n    us-eu: {latency: 9ms}\n", NULL,
	  ":8:5:", "same pair" },
	{ "link unknown key", BASE "  links:\n    default: {latncy: 2ms}\n",
	  NULL, ":6:15:", "did you mean 'latency'" },
	{ "link bad latency", BASE "  links:\n    default: {latency: 2}\n",
	  NULL, ":6:24:", "is not a duration" },
	{ "link bad loss", BASE "  links:\n    default: {loss: 120%}\n",
	  NULL, ":6:21:", "more than 100%" },
	{ "link bad rate", BASE "  links:\n    default: {bandwidth: 10MB}\n",
	  NULL, ":6:26:", "is not a rate" },
	{ "jitter over latency", BASE "  links:\n    default: {latency: 1ms, "
	  "jitter: 2ms}\n", NULL, ":6:37:", "more than the latency" },
	{ "partition no groups", BASE "events:\n  - {at: 1s, action: "
	  "partition}\n", NULL, ":6:5:", "a partition needs 'groups'" },
	{ "partition node twice", BASE "events:\n  - {at: 1s, action: "
	  "partition, groups: [[0], [0, 1]]}\n", NULL, ":6:47:",
	  "node 0 is in two groups" },
	{ "partition with node", BASE "events:\n  - {at: 1s, action: "
	  "partition, node: 1, groups: [[0]]}\n", NULL, ":6:39:",
	  "takes no 'node'" },
	{ "heal with groups", BASE "events:\n  - {at: 1s, action: heal, "
	  "groups: [[0]]}\n", NULL, ":6:36:", "'groups' does not apply" },
	{ "link no condition", BASE "events:\n  - {at: 1s, action: link, "
	  "nodes: [1]}\n", NULL, ":6:5:", "a link event needs a condition" },
	{ "kill with loss", BASE "events:\n  - {at: 1s, action: kill, "
	  "node: 1, loss: 2%}\n", NULL, ":6:43:", "belongs to the network's" },
	{ "kill no node", BASE "events:\n  - {at: 1s, action: kill}\n", NULL,
	  ":6:5:", "a kill event needs 'node'" },
	{ NULL, NULL, NULL, NULL, NULL }
};

static int
setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/dnscn.XXXXXX");
	return (mkdtemp(tmpdir) == NULL ? -1 : 0);
}

static int
teardown(void **state)
{
	char	path[128];

	(void)state;
	snprintf(path, sizeof(path), "%s/s.yaml", tmpdir);
	unlink(path);
	return (rmdir(tmpdir));
}

/* Write TEXT to a file and load it (with binaries checked). */
static int
load_text(const char *text, size_t len, char *const *sets, size_t nsets,
    struct scenario **s, char **cause, char *path, size_t cap)
{
	FILE	*f;

	snprintf(path, cap, "%s/s.yaml", tmpdir);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return (scenario_load(s, path, sets, nsets, "/bin/true", cause));
}

static void
bad_file_table(void **state)
{
	const struct bad	*b;
	int			 failures = 0;

	(void)state;
	for (b = bad_files; b->name != NULL; b++) {
		struct scenario	*s = NULL;
		char		*cause = NULL, *text, path[128], want[160];
		size_t		 len;
		int		 rc;

		if (b->gen != NULL)
			text = b->gen(&len);
		else {
			text = dn_xstrdup(b->text);
			len = strlen(text);
		}
		rc = load_text(text, len, NULL, 0, &s, &cause, path,
		    sizeof(path));
		if (b->expect == NULL) {
			/* a regression case that must simply not crash */
			scenario_free(s);
			free(cause);
			free(text);
			continue;
		}
		snprintf(want, sizeof(want), "%s%s", path,
		    b->where != NULL ? b->where : ":");
		if (rc == 0 || s != NULL || cause == NULL ||
		    strstr(cause, b->expect) == NULL ||
		    strncmp(cause, want, strlen(want)) != 0) {
			print_error("bad file '%s': rc %d, cause '%s'\n"
			    "  want prefix '%s' and '%s'\n", b->name, rc,
			    cause ? cause : "(null)", want, b->expect);
			failures++;
		}
		scenario_free(s);
		free(cause);
		free(text);
	}
	assert_int_equal(failures, 0);
}

/* network.zones, network.links and the network's events, read. */
static void
good_network(void **state)
{
	const char *text = "name: t\nduration: 200s\nnetwork:\n  nodes: 6\n"
	    "  zones: {eu: [0, 1], us: [2, 3], ap: [4, 5]}\n  links:\n"
	    "    default: {latency: 2ms}\n"
	    "    eu-us: {latency: 80ms, jitter: 5ms}\n"
	    "    us-ap: {latency: 120ms, jitter: 10ms, loss: 0.5%}\n"
	    "    eu-ap: {latency: 200ms, bandwidth: 10Mbit}\n"
	    "events:\n"
	    "  - {at: 60s, action: partition, groups: [[0, 1, 2], [3, 4, 5]]}\n"
	    "  - {at: 90s, action: heal}\n"
	    "  - {at: 100s, action: link, nodes: [4], loss: 20%, for: 30s}\n"
	    "  - {at: 140s, action: partition, groups: [[5]], one_way: true}\n";
	struct scenario	*s = NULL;
	struct scn_link	 l;
	char		*cause = NULL, path[128];

	(void)state;
	if (load_text(text, strlen(text), NULL, 0, &s, &cause, path,
	    sizeof(path)) != 0)
		fail_msg("%s", cause);
	assert_int_equal(s->network.nzones, 3);
	assert_int_equal(s->network.zone_of[3], 1);
	assert_true(scenario_has_conditions(s));
	scenario_link_of(s, 0, 1, &l);	/* same zone: the default */
	assert_int_equal(l.latency_us, 2000);
	scenario_link_of(s, 3, 0, &l);	/* us -> eu, either direction */
	assert_int_equal(l.latency_us, 80000);
	assert_int_equal(l.jitter_us, 5000);
	scenario_link_of(s, 4, 2, &l);
	assert_int_equal(l.loss_ppm, 5000);
	assert_int_equal(l.latency_us, 120000);
	scenario_link_of(s, 0, 5, &l);
	assert_int_equal(l.bandwidth_bps, 10000000);
	assert_int_equal(l.latency_us, 200000);
	assert_int_equal(s->events[0].action, SCN_EV_PARTITION);
	assert_int_equal(s->events[0].node, -1);
	assert_int_equal(s->events[0].ngroups, 2);
	assert_int_equal(s->events[0].group_of[4], 1);
	assert_int_equal(s->events[1].action, SCN_EV_HEAL);
	assert_int_equal(s->events[2].action, SCN_EV_LINK);
	assert_int_equal(s->events[2].nnodes, 1);
	assert_int_equal(s->events[2].nodes[0], 4);
	assert_int_equal(s->events[2].cond.loss_ppm, 200000);
	assert_int_equal(s->events[2].for_ms, 30000);
	assert_int_equal(s->events[3].one_way, 1);
	assert_int_equal(s->events[3].group_of[0], -1);
	assert_string_equal(scenario_action_name(s->events[3].action),
	    "partition");
	scenario_free(s);
}

/* assert: read as written: units into the metric's, folds, windows. */
static void
good_asserts(void **state)
{
	static const char text[] = BASE "warmup: 2s\nvariants: {A: {}, B: {}}\n"
	    "events:\n  - {at: 3s, action: stop, node: 1, name: pause}\n"
	    "  - {at: 5s, action: cont, node: 1, name: heal}\n"
	    "assert:\n"
	    "  - name: e\n    eventually: {max_spread: height <= 1, within: "
	    "4s, after: heal+1s}\n"
	    "  - name: a\n    always: {each_node: lag_ms < 2s, during: "
	    "[warmup, end-1s], except: events, sustained: 2s, abort_on_fail: "
	    "true, grace: 500ms}\n"
	    "  - name: v\n    value: {each_node: rss_growth < 1MiB/s}\n"
	    "  - name: p\n    value: {any_node: allocs_per_s < 2000}\n"
	    "  - name: r\n    relative: {metric: allocs_per_s, B_vs_A: "
	    "\"<= -10%\"}\n";
	struct scenario	*s = NULL;
	char		*cause = NULL, path[128], d[1024];
	const struct scn_assert *a;
	int64_t		 ev[2] = { 3000, 5000 }, from, to;

	(void)state;
	assert_int_equal(load_text(text, strlen(text), NULL, 0, &s, &cause,
	    path, sizeof(path)), 0);
	assert_int_equal(s->nasserts, 5);
	a = &s->asserts[0];
	assert_int_equal(a->form, SCN_AF_EVENTUALLY);
	assert_int_equal(a->scope, SCN_AS_MAX_SPREAD);
	assert_int_equal(a->cmp, SCN_CMP_LE);
	assert_int_equal(a->within_ms, 4000);
	assert_int_equal(scn_anchor_ms(s, &a->from, ev), 6000);
	a = &s->asserts[1];
	assert_true(a->limit == 2000.0);
	assert_int_equal(a->sustained_ms, 2000);
	assert_int_equal(a->abort_on_fail, 1);
	assert_int_equal(a->grace_ms, 500);
	assert_int_equal(a->except_events, 1);
	assert_int_equal(scn_anchor_ms(s, &a->from, ev), 2000);
	assert_int_equal(scn_anchor_ms(s, &a->to, ev), 9000);
	a = &s->asserts[2];
	assert_int_equal(a->fold, SCN_FOLD_GROWTH);
	assert_string_equal(a->unit, "bytes/min");
	assert_true(a->limit == 60.0 * 1048576);
	assert_int_equal(scn_anchor_ms(s, &a->from, ev), 2000);
	assert_int_equal(s->asserts[3].fold, SCN_FOLD_RATE);
	assert_int_equal(s->asserts[3].scope, SCN_AS_ANY_NODE);
	a = &s->asserts[4];
	assert_string_equal(a->rel_b, "B");
	assert_string_equal(a->rel_a, "A");
	assert_true(a->rel_pct == -10.0);
	/* stop..cont, plus two block intervals to catch up */
	scn_event_span(s, 0, ev, &from, &to);
	assert_int_equal(from, 3000);
	assert_int_equal(to, 7000);
	scn_assert_describe(d, sizeof(d), s, &s->asserts[1]);
	assert_string_equal(d, "always, each node: lag_ms < 2000 ms, from "
	    "warmup (t=2s) to end-1s (t=9s), except while an event is "
	    "active, failing only when broken for 2s, a failure ends the "
	    "trial (grace 500ms)");
	scenario_free(s);
	free(cause);
}

static void
good_minimal_defaults(void **state)
{
	struct scenario	*s = NULL;
	char		*cause = NULL, path[128];
	const char	*t = BASE;

	(void)state;
	assert_int_equal(load_text(t, strlen(t), NULL, 0, &s, &cause, path,
	    sizeof(path)), 0);
	assert_null(cause);
	assert_string_equal(s->name, "t");
	assert_string_equal(s->text, t);
	assert_string_equal(s->path, path);
	assert_null(s->description);
	assert_int_equal(s->duration_ms, 10000);
	assert_int_equal(s->warmup_ms, 0);
	assert_int_equal(s->sample_interval_ms, 1000);
	assert_int_equal(s->seed, 1);
	assert_int_equal(s->network.nodes, 3);
	assert_int_equal(s->network.block_interval_ms, 1000);
	assert_int_equal(s->network.accounts, 10000);
	assert_int_equal(s->network.block_max_txs, 10000);
	assert_int_equal(s->network.block_reads, 0);
	assert_string_equal(s->network.listen, "ipc");
	assert_int_equal(s->network.noverrides, 0);
	assert_int_equal(s->workload.kind, SCN_WL_IDLE);
	assert_true(s->workload.tps == 0);
	assert_int_equal(s->workload.dist, SCN_DIST_UNIFORM);
	assert_true(s->workload.zipf_s == 1.1);
	assert_int_equal(s->workload.cf_count, 200);
	assert_null(s->rocksdb_options);
	assert_int_equal(s->block_cache, 0);
	assert_string_equal(s->read_options, "cached");
	assert_string_equal(s->write_options, "cached");
	assert_int_equal(s->nvariants, 1);
	assert_string_equal(s->variants[0].name, "A");
	assert_string_equal(s->variants[0].set.binary, "/usr/bin/true");
	assert_int_equal(s->repeats, 1);
	assert_int_equal(s->order, SCN_ORDER_ABBA);
	assert_int_equal(s->nevents, 0);
	scenario_free(s);
}

static const char full[] =
    "name: full\n"
    "description: every key\n"
    "duration: 2h30m\n"
    "warmup: 90s\n"
    "sample_interval: 500ms\n"
    "seed: 7\n"
    "network:\n"
    "  nodes: 4\n"
    "  block_interval: 250ms\n"
    "  accounts: 500\n"
    "  block_max_txs: 100\n"
    "  block_reads: 20\n"
    "  listen: tcp\n"
    "  tcp_base_port: 20000\n"
    "  overrides:\n"
    "    - node: 2\n"
    "      read_options: cached\n"
    "      rocksdb: {options: \"o=2\", block_cache: 1GiB}\n"
    "      args: [--over, two]\n"
    "      env: {OVR: \"1\", COMMON: over}\n"
    "workload:\n"
    "  kind: transfer\n"
    "  tps: 25.5\n"
    "  ramp: {from: 5, over: 1m}\n"
    "  keys: zipf\n"
    "  zipf_s: 0.9\n"
    "rocksdb:\n"
    "  options: \"base=1\"\n"
    "  block_cache: 64MiB\n"
    "read_options: per-call\n"
    "write_options: per-call\n"
    "variants:\n"
    "  A: {}\n"
    "  B:\n"
    "    binary: /bin/true\n"
    "    read_options: cached\n"
    "    rocksdb: {options: \"var=1\"}\n"
    "    args: [--var, 'x y']\n"
    "    env: {VAR: b, COMMON: var}\n"
    "  C-3_x:\n"
    "repeats: 3\n"
    "order: concurrent\n"
    "events:\n"
    "  - {at: 10m, action: kill, node: 1}\n"
    "  - {at: 1h, action: restart, node: 3, variant: B}\n";

static void
good_full(void **state)
{
	struct scenario	*s = NULL;
	char		*cause = NULL, path[128];

	(void)state;
	assert_int_equal(load_text(full, strlen(full), NULL, 0, &s, &cause,
	    path, sizeof(path)), 0);
	assert_string_equal(s->description, "every key");
	assert_int_equal(s->duration_ms, 9000000);
	assert_int_equal(s->warmup_ms, 90000);
	assert_int_equal(s->sample_interval_ms, 500);
	assert_int_equal(s->seed, 7);
	assert_int_equal(s->network.nodes, 4);
	assert_int_equal(s->network.block_interval_ms, 250);
	assert_int_equal(s->network.accounts, 500);
	assert_int_equal(s->network.block_max_txs, 100);
	assert_int_equal(s->network.block_reads, 20);
	assert_string_equal(s->network.listen, "tcp");
	assert_int_equal(s->network.tcp_base_port, 20000);
	assert_int_equal(s->network.noverrides, 1);
	assert_int_equal(s->network.overrides[0].node, 2);
	assert_int_equal(s->network.overrides[0].set.block_cache, 1 << 30);
	assert_int_equal(s->workload.kind, SCN_WL_TRANSFER);
	assert_true(s->workload.tps == 25.5);
	assert_true(s->workload.ramp_from_tps == 5);
	assert_int_equal(s->workload.ramp_ms, 60000);
	assert_int_equal(s->workload.dist, SCN_DIST_ZIPF);
	assert_true(s->workload.zipf_s == 0.9);
	assert_string_equal(s->rocksdb_options, "base=1");
	assert_int_equal(s->block_cache, 64 << 20);
	assert_string_equal(s->read_options, "per-call");
	assert_int_equal(s->nvariants, 3);
	assert_string_equal(s->variants[1].name, "B");
	assert_string_equal(s->variants[1].set.read_options, "cached");
	assert_int_equal(s->variants[1].set.nargs, 2);
	assert_string_equal(s->variants[1].set.args[1], "x y");
	assert_int_equal(s->variants[1].set.nenv, 2);
	assert_string_equal(s->variants[1].set.env[0], "VAR=b");
	assert_string_equal(s->variants[2].name, "C-3_x");
	assert_int_equal(s->repeats, 3);
	assert_int_equal(s->order, SCN_ORDER_CONCURRENT);
	assert_int_equal(s->nevents, 2);
	assert_int_equal(s->events[1].at_ms, 3600000);
	assert_int_equal(s->events[1].action, SCN_EV_RESTART);
	assert_int_equal(s->events[1].node, 3);
	assert_string_equal(s->events[1].variant, "B");
	assert_null(s->events[0].variant);
	scenario_free(s);
}

static void
good_other_workloads(void **state)
{
	static const char rr[] = BASE "workload: {kind: readrandom, "
	    "read_rate: 1000}\n";
	static const char cf[] = BASE "workload: {kind: cf-churn, "
	    "cf_count: 20, cf_options: \"write_buffer_size=1048576\"}\n";
	struct scenario	*s = NULL;
	char		*cause = NULL;

	(void)state;
	assert_int_equal(scenario_load_buffer(&s, "rr", rr, strlen(rr), NULL,
	    0, NULL, &cause), 0);
	assert_int_equal(s->workload.kind, SCN_WL_READRANDOM);
	assert_true(s->workload.read_rate == 1000);
	scenario_free(s);
	assert_int_equal(scenario_load_buffer(&s, "cf", cf, strlen(cf), NULL,
	    0, NULL, &cause), 0);
	assert_int_equal(s->workload.kind, SCN_WL_CF_CHURN);
	assert_int_equal(s->workload.cf_count, 20);
	assert_string_equal(s->workload.cf_options,
	    "write_buffer_size=1048576");
	scenario_free(s);
}

struct set_case {
	const char	*set;
	const char	*expect;	/* NULL = loads */
};

static void
set_overrides(void **state)
{
	static const struct set_case cases[] = {
		{ "workload.tps=abc", "--set workload.tps=abc: workload.tps "
		  "must be a number (got 'abc')" },
		{ "workload.tsp=100", "--set workload.tsp=100: unknown key "
		  "'tsp' in workload (did you mean 'tps'?)" },
		{ "network.nodes=0", "--set network.nodes=0: network.nodes "
		  "must be between 1 and 256" },
		{ "network=4", "--set network=4: network must be a mapping" },
		{ "noequals", "--set noequals: expected KEY.PATH=VALUE" },
		{ "workload.tps=", "--set workload.tps=: empty value" },
		{ "workload..tps=1", "--set workload..tps=1: empty key" },
		{ "name.x=1", "--set name.x=1: cannot set 'x' inside a "
		  "single value" },
		{ "events.7.at=1s", "--set events.7.at=1s: 'events' has 1 "
		  "item(s); use an index 0..0" },
		{ "events.x.at=1s", "'events' has 1 item(s)" },
		{ "events.0.at=1h", "--set events.0.at=1h: event at '1h' is "
		  "not before the end" },
		{ "variants.C.binary=/no/such", "--set variants.C.binary="
		  "/no/such: variants.C.binary '/no/such' not found" },
		{ NULL, NULL }
	};
	static const char t[] = BASE XFER "variants: {A: {}, B: }\n"
	    "events:\n  - {at: 1s, action: kill, node: 1}\n";
	struct scenario	*s = NULL;
	char		*cause = NULL, path[128];
	char		*sets[] = { (char *)"workload.tps=100",
			    (char *)"network.nodes=4",
			    (char *)"variants.B.read_options=per-call",
			    (char *)"variants.C.write_options=per-call",
			    (char *)"events.0.node=3", (char *)"duration=1h",
			    (char *)"seed=99",
			    (char *)"network.block_interval=2s" };
	const struct set_case *c;
	int		 failures = 0;

	(void)state;
	assert_int_equal(load_text(t, strlen(t), sets, 8, &s, &cause, path,
	    sizeof(path)), 0);
	assert_true(s->workload.tps == 100);
	assert_int_equal(s->network.nodes, 4);
	assert_int_equal(s->nvariants, 3);
	assert_string_equal(s->variants[1].set.read_options, "per-call");
	assert_string_equal(s->variants[2].name, "C");
	assert_string_equal(s->variants[2].set.write_options, "per-call");
	assert_int_equal(s->events[0].node, 3);
	assert_int_equal(s->duration_ms, 3600000);
	assert_int_equal(s->seed, 99);
	assert_int_equal(s->network.block_interval_ms, 2000);
	/* the stored text is the file as written, not the overridden one */
	assert_string_equal(s->text, t);
	scenario_free(s);
	for (c = cases; c->set != NULL; c++) {
		char	*one[] = { (char *)c->set };

		s = NULL;
		cause = NULL;
		if (load_text(t, strlen(t), one, 1, &s, &cause, path,
		    sizeof(path)) == 0 || cause == NULL ||
		    strstr(cause, c->expect) == NULL) {
			print_error("--set %s: cause '%s', want '%s'\n",
			    c->set, cause ? cause : "(null)", c->expect);
			failures++;
		}
		scenario_free(s);
		free(cause);
	}
	assert_int_equal(failures, 0);
}

static char *
order_of(const char *text)
{
	struct scenario		*s = NULL;
	struct plan_trial	*t = NULL;
	char			*cause = NULL, buf[256];
	size_t			 n, i, used = 0;

	assert_int_equal(scenario_load_buffer(&s, "o", text, strlen(text),
	    NULL, 0, NULL, &cause), 0);
	assert_int_equal(plan_trials(s, &t, &n), 0);
	assert_int_equal(n, s->nvariants * (size_t)s->repeats);
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		assert_int_equal(t[i].index, (int)i);
		used += (size_t)snprintf(buf + used, sizeof(buf) - used,
		    "%s%s/%d/%d", i ? " " : "", t[i].variant->name,
		    t[i].repeat, t[i].slot);
	}
	free(t);
	scenario_free(s);
	return (dn_xstrdup(buf));
}

static void
plan_order(void **state)
{
	char	*o;

	(void)state;
	o = order_of(BASE "variants: {A: {}, B: {}}\nrepeats: 2\n");
	assert_string_equal(o, "A/0/0 B/0/1 B/1/2 A/1/3");
	free(o);
	o = order_of(BASE "variants: {A: {}, B: {}}\nrepeats: 4\n");
	assert_string_equal(o, "A/0/0 B/0/1 B/1/2 A/1/3 A/2/4 B/2/5 "
	    "B/3/6 A/3/7");
	free(o);
	o = order_of(BASE "variants: {A: {}, B: {}}\n");
	assert_string_equal(o, "A/0/0 B/0/1");
	free(o);
	o = order_of(BASE "variants: {A: {}, B: {}, C: {}}\nrepeats: 2\n");
	assert_string_equal(o, "A/0/0 B/0/1 C/0/2 C/1/3 B/1/4 A/1/5");
	free(o);
	o = order_of(BASE "variants: {A: {}, B: {}}\nrepeats: 3\n"
	    "order: concurrent\n");
	assert_string_equal(o, "A/0/0 B/0/0 A/1/1 B/1/1 A/2/2 B/2/2");
	free(o);
	o = order_of(BASE);
	assert_string_equal(o, "A/0/0");
	free(o);
}

/* Index of FLAG in ARGV, or -1. */
static int
find(char **argv, const char *flag)
{
	int	i;

	for (i = 0; argv[i] != NULL; i++)
		if (strcmp(argv[i], flag) == 0)
			return (i);
	return (-1);
}

static const char *
flag_value(char **argv, const char *flag)
{
	int	i = find(argv, flag);

	return (i < 0 ? NULL : argv[i + 1]);
}

static void
argv_precedence(void **state)
{
	struct scenario		*s = NULL;
	struct plan_endpoints	 ep = { .run_dir = "/r/t1", .net_dir = "/s",
				    .metrics_url = "ipc:///s/c",
				    .token = 0xabcdef0123ull };
	char			*cause = NULL, **argv, **env, path[128];
	int			 n;

	(void)state;
	assert_int_equal(load_text(full, strlen(full), NULL, 0, &s, &cause,
	    path, sizeof(path)), 0);
	/* variant A, node 0: the scenario base only */
	assert_int_equal(plan_node_argv(s, &s->variants[0], 0, &ep, &argv,
	    &env, &cause), 0);
	assert_string_equal(argv[0], "/usr/bin/true");
	assert_string_equal(argv[1], "--index");
	assert_string_equal(argv[2], "0");
	assert_string_equal(flag_value(argv, "--nodes"), "4");
	assert_string_equal(flag_value(argv, "--dir"), "/r/t1/node-0");
	assert_string_equal(flag_value(argv, "--log"), "/r/t1/node-0.log");
	assert_string_equal(flag_value(argv, "--tcp-base"), "20000");
	assert_int_equal(plan_tcp_base(s, &s->variants[2]), 20000 + 2 * 4 * 2);
	assert_int_equal(find(argv, "--net"), -1);
	assert_string_equal(flag_value(argv, "--metrics"), "ipc:///s/c");
	/* the token in the environment, not on the command line (issue
	 * 38) */
	assert_int_equal(find(argv, "--token"), -1);
	assert_string_equal(flag_value(argv, "--sample-interval"), "500");
	assert_string_equal(flag_value(argv, "--block-interval"), "250");
	assert_string_equal(flag_value(argv, "--block-max-txs"), "100");
	assert_string_equal(flag_value(argv, "--block-reads"), "20");
	assert_string_equal(flag_value(argv, "--accounts"), "500");
	assert_string_equal(flag_value(argv, "--seed"), "7");
	assert_string_equal(flag_value(argv, "--read-options"), "per-call");
	assert_string_equal(flag_value(argv, "--write-options"), "per-call");
	assert_string_equal(flag_value(argv, "--rocksdb-options"), "base=1");
	assert_string_equal(flag_value(argv, "--block-cache"), "67108864");
	assert_string_equal(flag_value(argv, "--workload"), "transfer");
	assert_string_equal(env[0], "DN_NODE_TOKEN=000000abcdef0123");
	assert_null(env[1]);
	plan_argv_free(argv);
	plan_argv_free(env);
	/* a binary from before that: --token, and nothing in env */
	ep.token_argv = 1;
	assert_int_equal(plan_node_argv(s, &s->variants[0], 0, &ep, &argv,
	    &env, &cause), 0);
	assert_string_equal(flag_value(argv, "--token"), "000000abcdef0123");
	assert_null(env[0]);
	plan_argv_free(argv);
	plan_argv_free(env);
	ep.token_argv = 0;
	/* variant B, node 1: the variant wins over the base */
	assert_int_equal(plan_node_argv(s, &s->variants[1], 1, &ep, &argv,
	    &env, &cause), 0);
	assert_string_equal(argv[0], "/usr/bin/true");
	assert_string_equal(flag_value(argv, "--read-options"), "cached");
	assert_string_equal(flag_value(argv, "--write-options"), "per-call");
	assert_string_equal(flag_value(argv, "--rocksdb-options"), "var=1");
	assert_string_equal(flag_value(argv, "--tcp-base"), "20008");
	assert_string_equal(flag_value(argv, "--block-cache"), "67108864");
	for (n = 0; argv[n] != NULL; n++)
		continue;
	assert_string_equal(argv[n - 2], "--var");
	assert_string_equal(argv[n - 1], "x y");
	assert_string_equal(env[1], "VAR=b");
	assert_string_equal(env[2], "COMMON=var");
	assert_null(env[3]);
	plan_argv_free(argv);
	plan_argv_free(env);
	/* variant B, node 2: the override wins over both, args/env last */
	assert_int_equal(plan_node_argv(s, &s->variants[1], 2, &ep, &argv,
	    &env, &cause), 0);
	assert_string_equal(flag_value(argv, "--dir"), "/r/t1/node-2");
	assert_string_equal(flag_value(argv, "--read-options"), "cached");
	assert_string_equal(flag_value(argv, "--rocksdb-options"), "o=2");
	assert_string_equal(flag_value(argv, "--block-cache"), "1073741824");
	for (n = 0; argv[n] != NULL; n++)
		continue;
	assert_string_equal(argv[n - 4], "--var");
	assert_string_equal(argv[n - 2], "--over");
	assert_string_equal(argv[n - 1], "two");
	assert_string_equal(env[1], "VAR=b");
	assert_string_equal(env[2], "COMMON=var");
	assert_string_equal(env[3], "OVR=1");
	assert_string_equal(env[4], "COMMON=over");
	assert_null(env[5]);
	plan_argv_free(argv);
	plan_argv_free(env);
	/* out of range */
	assert_int_equal(plan_node_argv(s, &s->variants[0], 4, &ep, &argv,
	    &env, &cause), -1);
	assert_non_null(strstr(cause, "node 4"));
	free(cause);
	scenario_free(s);
}

static void
argv_ipc_and_workloads(void **state)
{
	static const char t[] = BASE "workload: {kind: cf-churn, cf_count: 7, "
	    "cf_options: \"a=1\", cf_cycles: 3}\n";
	static const char r[] = BASE "workload: {kind: readrandom}\n";
	static const char r2[] = BASE "workload: {kind: readrandom, "
	    "read_rate: 50.5, read_keys: 1000000, reads: 20}\n";
	struct scenario		*s = NULL;
	struct plan_endpoints	 ep = { .run_dir = "/r/t2" };
	char			*cause = NULL, **argv, **env;

	(void)state;
	assert_int_equal(scenario_load_buffer(&s, "t", t, strlen(t), NULL, 0,
	    NULL, &cause), 0);
	assert_int_equal(plan_node_argv(s, &s->variants[0], 2, &ep, &argv,
	    &env, &cause), 0);
	assert_string_equal(argv[0], "devnet-node");
	assert_string_equal(flag_value(argv, "--net"), "/r/t2");
	assert_int_equal(find(argv, "--metrics"), -1);
	assert_int_equal(find(argv, "--rocksdb-options"), -1);
	assert_int_equal(find(argv, "--block-cache"), -1);
	assert_int_equal(find(argv, "--token"), -1);
	assert_string_equal(env[0], "DN_NODE_TOKEN=0000000000000000");
	assert_string_equal(flag_value(argv, "--workload"), "cf-churn");
	assert_string_equal(flag_value(argv, "--cf-count"), "7");
	assert_string_equal(flag_value(argv, "--cf-options"), "a=1");
	assert_string_equal(flag_value(argv, "--cf-cycles"), "3");
	assert_int_equal(find(argv, "--read-rate"), -1);
	plan_argv_free(argv);
	plan_argv_free(env);
	scenario_free(s);
	assert_int_equal(scenario_load_buffer(&s, "r", r, strlen(r), NULL, 0,
	    NULL, &cause), 0);
	assert_int_equal(plan_node_argv(s, &s->variants[0], 0, &ep, &argv,
	    &env, &cause), 0);
	assert_string_equal(flag_value(argv, "--workload"), "readrandom");
	assert_string_equal(flag_value(argv, "--read-rate"), "0");
	assert_int_equal(find(argv, "--cf-count"), -1);
	assert_int_equal(find(argv, "--keys"), -1);
	assert_int_equal(find(argv, "--reads"), -1);
	plan_argv_free(argv);
	plan_argv_free(env);
	scenario_free(s);
	assert_int_equal(scenario_load_buffer(&s, "r2", r2, strlen(r2), NULL,
	    0, NULL, &cause), 0);
	assert_int_equal(plan_node_argv(s, &s->variants[0], 0, &ep, &argv,
	    &env, &cause), 0);
	assert_string_equal(flag_value(argv, "--read-rate"), "50.5");
	assert_string_equal(flag_value(argv, "--keys"), "1000000");
	assert_string_equal(flag_value(argv, "--reads"), "20");
	plan_argv_free(argv);
	plan_argv_free(env);
	scenario_free(s);
}

static void
format_durations(void **state)
{
	static const struct {
		int64_t		 ms;
		const char	*want;
	} cases[] = { { 0, "0ms" }, { 500, "500ms" }, { 90000, "1m30s" },
		{ 9000000, "2h30m" }, { 3600000, "1h" },
		{ 3723004, "1h2m3s4ms" },
		{ 30 * 24 * 3600000LL, "720h" } };
	char	buf[32];
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		scenario_fmt_ms(buf, sizeof(buf), cases[i].ms);
		assert_string_equal(buf, cases[i].want);
	}
	scenario_fmt_ms(buf, 4, 3723004);	/* truncates, terminated */
	assert_int_equal(strlen(buf), 3);
}

static void
buffer_limits(void **state)
{
	struct scenario	*s = NULL;
	char		*cause = NULL;
	static char	 big[16];

	(void)state;
	/* a buffer load refuses more than 1 MiB without reading it */
	assert_int_equal(scenario_load_buffer(&s, "big", big,
	    (size_t)2 << 20, NULL, 0, NULL, &cause), -1);
	assert_non_null(strstr(cause, "big: 2097152 bytes is too large"));
	free(cause);
	/* a missing file */
	assert_int_equal(scenario_load(&s, "/no/such.yaml", NULL, 0,
	    "/bin/true", &cause), -1);
	assert_non_null(strstr(cause, "/no/such.yaml: cannot open"));
	free(cause);
	assert_int_equal(scenario_load(&s, "/tmp", NULL, 0, "/bin/true",
	    &cause), -1);
	assert_non_null(strstr(cause, "not a scenario file"));
	free(cause);
	/* the default binary is checked too */
	assert_int_equal(scenario_load_buffer(&s, "x", BASE, strlen(BASE),
	    NULL, 0, "/no/devnet-node", &cause), -1);
	assert_non_null(strstr(cause, "node binary '/no/devnet-node' is "
	    "missing"));
	free(cause);
}

/* A foreign node's argv: the probe, its flags, "--", the command with
 * its placeholders expanded; a variant's node keys replace the top's. */
/* vars: a variant's values in its node's templates, the top level's
 * defaults elsewhere; a value's braces stay literal; the built-ins
 * beside them expand as before. */
static void
argv_vars(void **state)
{
	static const char t[] = BASE "vars: {flag: 0, lit: '{a}'}\n"
	    "node:\n"
	    "  command: [true, '--f={flag}', '--i={index}', '--l={lit}']\n"
	    "  env: {F: 'x{flag}'}\n"
	    "variants:\n  A:\n  B: {vars: {flag: 1}}\n";
	struct plan_endpoints	 ep = { .run_dir = "/r", .metrics_url = "M",
				    .probe = "P", .ready_timeout_ms = 900 };
	struct scenario		*s = NULL;
	char			*cause = NULL, path[128], **argv, **env, *q;
	int			 k;

	(void)state;
	assert_int_equal(load_text(t, sizeof(t) - 1, NULL, 0, &s, &cause,
	    path, sizeof(path)), 0);
	for (k = 0; k < 2; k++) {
		assert_int_equal(plan_node_argv(s, &s->variants[k], 2, &ep,
		    &argv, &env, &cause), 0);
		q = plan_quote_argv(argv);
		assert_non_null(strstr(q, k == 0 ? "-- true --f=0 --i=2 "
		    "'--l={a}'" : "-- true --f=1 --i=2 '--l={a}'"));
		assert_string_equal(s->variants[k].node.env[0], k == 0 ?
		    "F=x0" : "F=x1");
		free(q);
		plan_argv_free(argv);
		plan_argv_free(env);
	}
	scenario_free(s);
}

static void
argv_foreign(void **state)
{
	static const char t[] = BASE "node:\n"
	    "  command: [true, '--x={index}/{nodes}', '--p={port+1}',\n"
	    "    '--dir={dir}', '--c={peers}', '{{lit}}']\n"
	    "  peer: 'n{index}=h:{port+1}'\n"
	    "  count_allocs: true\n"
	    "  metrics: {log: {height: 'h=([0-9]+)'}}\n"
	    "variants:\n  A:\n  B: {node: {port_base: 30000, "
	    "stop: {signal: INT, grace: 2s}}}\n";
	struct plan_endpoints	 ep = { .run_dir = "/r", .metrics_url = "M",
				    .probe = "P", .ready_timeout_ms = 900 };
	struct scenario		*s = NULL;
	char			*cause = NULL, path[128], **argv, **env, *q;

	(void)state;
	assert_int_equal(load_text(t, sizeof(t) - 1, NULL, 0, &s, &cause,
	    path, sizeof(path)), 0);
	assert_int_equal(plan_node_argv(s, &s->variants[0], 1, &ep, &argv,
	    &env, &cause), 0);
	q = plan_quote_argv(argv);
	assert_non_null(strstr(q, "P --metrics M --index 1 --sample-interval 1000 --out /r/node-1.out "
	    "--count-allocs --log-metric 'height=h=([0-9]+)' "
	    "--ready-timeout 900 --stop-signal TERM --stop-grace 5000 -- "));
	assert_non_null(strstr(q, " --x=1/3 --p=20011 --dir=/r/node-1 "
	    "--c=n0=h:20001,n1=h:20011,n2=h:20021 '{lit}'"));
	/* the token in the environment only, never on the command line */
	assert_null(strstr(q, "--token"));
	assert_string_equal(env[0], "DN_PROBE_TOKEN=0000000000000000");
	assert_null(env[1]);
	free(q);
	plan_argv_free(argv);
	plan_argv_free(env);
	assert_int_equal(plan_node_argv(s, &s->variants[1], 0, &ep, &argv,
	    &env, &cause), 0);
	q = plan_quote_argv(argv);
	assert_non_null(strstr(q, "--stop-signal INT --stop-grace 2000"));
	assert_non_null(strstr(q, "--p=30001 "));
	assert_non_null(strstr(q, "--count-allocs"));
	free(q);
	plan_argv_free(argv);
	plan_argv_free(env);
	scenario_free(s);
}

/* metrics.json and type: counter (issue 37): the probe's flags, and
 * what the loader refuses. */
static void
argv_foreign_json(void **state)
{
	static const char t[] = BASE "node:\n"
	    "  command: [true]\n"
	    "  metrics:\n"
	    "    log: {ticks: {regex: 't ([0-9]+)', type: counter}}\n"
	    "    json:\n"
	    "      url: 'http://127.0.0.1:{port}/stats'\n"
	    "      every: 2\n"
	    "      fields:\n"
	    "        served: {path: 'a.b[0]', type: counter, better: higher}\n"
	    "        up: up\n";
	static const struct {
		const char	*yaml, *want;
	} bad[] = {
		{ "      fields: {x: 'a..b'}\n", "json.fields.x: bad path "
		    "'a..b'" },
		{ "      fields: {height: {path: h, type: counter}}\n",
		    "a table metric's kind is fixed" },
		{ "      fields: {x: {path: h, typ: counter}}\n",
		    "did you mean 'type'" },
		{ "      fields: {x: {path: h, type: rate}}\n", "rate" },
		{ "      fieldz: {x: h}\n", "did you mean 'fields'" },
	};
	struct plan_endpoints	 ep = { .run_dir = "/r", .probe = "P" };
	struct scenario		*s = NULL;
	char			*cause = NULL, path[128], **argv, **env, *q;
	char			 y[1024];
	size_t			 i;

	(void)state;
	assert_int_equal(load_text(t, sizeof(t) - 1, NULL, 0, &s, &cause,
	    path, sizeof(path)), 0);
	assert_int_equal(plan_node_argv(s, &s->variants[0], 1, &ep, &argv,
	    &env, &cause), 0);
	q = plan_quote_argv(argv);
	assert_non_null(strstr(q, "--log-metric 'ticks=t ([0-9]+)' "
	    "--json-map 'served=a.b[0]' --json-map up=up --counter ticks "
	    "--counter served --json-url http://127.0.0.1:20010/stats "
	    "--scrape-every 2 "));
	free(q);
	plan_argv_free(argv);
	plan_argv_free(env);
	scenario_free(s);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(y, sizeof(y), BASE "node:\n  command: [true]\n"
		    "  metrics:\n    json:\n      url: 'http://h/'\n%s",
		    bad[i].yaml);
		s = NULL;
		assert_int_equal(load_text(y, strlen(y), NULL, 0, &s, &cause,
		    path, sizeof(path)), -1);
		if (strstr(cause, bad[i].want) == NULL)
			fail_msg("%s: got '%s'", bad[i].want, cause);
		free(cause);
		cause = NULL;
	}
}

/* {addr}: where each node is reached (ep->hosts: its namespace's address
 * under network conditions), in the command, a peer and {peers}; the
 * loopback without hosts. */
static void
argv_addr(void **state)
{
	static const char t[] = BASE "  links: {default: {latency: 1ms}}\n"
	    "node:\n"
	    "  command: [true, '--l=http://{addr}:{port}', '--c={peers}']\n"
	    "  peer: 'n{index}=http://{addr}:{port+1}'\n"
	    "  ready: {tcp: '{addr}:{port}'}\n";
	const char *const	 hosts[] = { "10.99.0.2", "10.99.1.2",
				    "10.99.2.2", NULL };
	struct plan_endpoints	 ep = { .run_dir = "/r", .metrics_url = "M",
				    .probe = "P", .emulated = 1,
				    .hosts = hosts };
	struct scenario		*s = NULL;
	char			*cause = NULL, path[128], **argv, **env, *q;

	(void)state;
	assert_int_equal(load_text(t, sizeof(t) - 1, NULL, 0, &s, &cause,
	    path, sizeof(path)), 0);
	assert_int_equal(plan_node_argv(s, &s->variants[0], 1, &ep, &argv,
	    &env, &cause), 0);
	q = plan_quote_argv(argv);
	assert_non_null(strstr(q, "--ready tcp:10.99.1.2:20010 "));
	assert_non_null(strstr(q, "-- true --l=http://10.99.1.2:20010 "
	    "--c=n0=http://10.99.0.2:20001,n1=http://10.99.1.2:20011,"
	    "n2=http://10.99.2.2:20021"));
	free(q);
	plan_argv_free(argv);
	plan_argv_free(env);
	ep.hosts = NULL;
	assert_int_equal(plan_node_argv(s, &s->variants[0], 2, &ep, &argv,
	    &env, &cause), 0);
	q = plan_quote_argv(argv);
	assert_non_null(strstr(q, "--l=http://127.0.0.1:20020 "));
	free(q);
	plan_argv_free(argv);
	plan_argv_free(env);
	scenario_free(s);
}

/* compare.primary: the scenario's list, else the node kind's default,
 * as stored with every run ("FROM:names"); a named metric of the
 * scenario's own nodes is a metric too. */
static void
compare_primary(void **state)
{
	static const char	 own[] = BASE "compare:\n  primary: [allocs_per_s, "
				    "rss_avg]\n";
	static const char	 none[] = BASE;
	static const char	 named[] = BASE "node:\n  command: [true]\n"
				    "  metrics:\n    log: {ops_per_s: "
				    "'ops=([0-9]+)'}\ncompare: {primary: "
				    "[ops_per_s, rss_avg]}\n";
	struct scenario		*s = NULL;
	char			*cause = NULL, *t;

	(void)state;
	assert_int_equal(scenario_load_buffer(&s, "own", own, strlen(own),
	    NULL, 0, NULL, &cause), 0);
	t = scenario_primary_text(s);
	assert_string_equal(t, "scenario:allocs_per_s,rss_avg");
	free(t);
	scenario_free(s);
	assert_int_equal(scenario_load_buffer(&s, "none", none, strlen(none),
	    NULL, 0, NULL, &cause), 0);
	t = scenario_primary_text(s);
	assert_string_equal(t, "default for devnet nodes:rss_avg,cpu_s_per_s,"
	    "allocs_per_s,tx_latency_p99_ms");
	free(t);
	scenario_free(s);
	if (scenario_load_buffer(&s, "named", named, strlen(named), NULL, 0,
	    NULL, &cause) != 0)
		fail_msg("named metric: %s", cause);
	t = scenario_primary_text(s);
	assert_string_equal(t, "scenario:ops_per_s,rss_avg");
	free(t);
	scenario_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(compare_primary),
		cmocka_unit_test(bad_file_table),
		cmocka_unit_test(good_minimal_defaults),
		cmocka_unit_test(good_full),
		cmocka_unit_test(good_asserts),
		cmocka_unit_test(good_network),
		cmocka_unit_test(good_other_workloads),
		cmocka_unit_test(set_overrides),
		cmocka_unit_test(plan_order),
		cmocka_unit_test(argv_precedence),
		cmocka_unit_test(argv_ipc_and_workloads),
		cmocka_unit_test(buffer_limits),
		cmocka_unit_test(format_durations),
		cmocka_unit_test(argv_foreign),
		cmocka_unit_test(argv_foreign_json),
		cmocka_unit_test(argv_addr),
		cmocka_unit_test(argv_vars),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
