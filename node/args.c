/*
 * args.c: devnet-node's command line: the usage text, and the options
 * parsed and checked into a struct opts (exit 2 on a usage error).  Not
 * the place where options are used: that is start() in node.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "block.h"
#include "node-internal.h"
#include "protocol.h"
#include "rocks.h"
#include "units.h"
#include "workload.h"
#include "xalloc.h"

static const char usage_text[] =
"usage: devnet-node --index K --nodes N --dir DIR [options]\n"
"\n"
"  --index K               this node's index, 0..N-1\n"
"  --nodes N               devnet size (proposer of block h: h mod N)\n"
"  --dir DIR               the node's own directory (DIR/db is its RocksDB)\n"
"  --log FILE              log file (default DIR/node.log)\n"
"  --net DIR               ipc endpoints ipc://DIR/nK.in, ipc://DIR/nK.ctl\n"
"  --tcp-base PORT         instead of --net: tcp://127.0.0.1:PORT+2K (in),\n"
"                          PORT+2K+1 (ctl)\n"
"  --peer-hosts H0,H1,...  with --tcp-base: node K's host (IPv4 address or\n"
"                          name), one per node in node order; node K\n"
"                          listens on HK and dials peer J at HJ:PORT+2J\n"
"  --peers K1,K2,...       gossip: connect to these nodes only and relay\n"
"                          blocks and transactions hop by hop (default:\n"
"                          every node, no relay: the full mesh)\n"
"  --net DIR --tcp-base P   both: peers over TCP (P, --peer-hosts), this\n"
"                          node's control on ipc in DIR and its inbound on\n"
"                          both (an orchestrator in another network\n"
"                          namespace reaches it through the ipc ones)\n"
"  --metrics URL           the collector's PULL endpoint (absent = none)\n"
"  --token HEX             the trial's run token (16 hex digits; 0 = any);\n"
"                          devnet passes it as DN_NODE_TOKEN in the\n"
"                          environment instead (a command line is\n"
"                          readable by every local user); this wins\n"
"  --sample-interval MS    metrics sample interval (default 1000)\n"
"  --block-interval MS     time between blocks (default 1000)\n"
"  --block-max-txs N       transactions per block at most (default 10000)\n"
"  --block-reads N         extra consensus reads per block (default 0)\n"
"  --accounts N            genesis accounts (default 10000)\n"
"  --seed S                genesis seed (default 1)\n"
"  --read-options cached|per-call    (default cached)\n"
"  --write-options cached|per-call   (default cached)\n"
"  --rocksdb-options STR   rocksdb_get_options_from_string text\n"
"  --block-cache SIZE      LRU block cache (bytes or 64MiB; default 8MiB)\n"
"  --workload transfer|idle|readrandom|cf-churn   (default transfer)\n"
"  --read-rate R           readrandom: reads/s (0 = as fast as possible)\n"
"  --reads N               readrandom: stop the workload after N reads\n"
"  --keys N                readrandom: 16-byte keys with 100-byte values\n"
"                          written at genesis (default: read the accounts)\n"
"  --cf-count N            cf-churn: column families per create/drop cycle\n"
"  --cf-options STR        cf-churn: options string for created families\n"
"  --cf-cycles N           cf-churn: stop after N cycles (default 0 = never)\n"
"  --help                  this text\n"
"\n"
"Exit status: 0 after a clean stop (SIGTERM, SIGINT, control STOP), 1 on a\n"
"runtime error, 2 on a usage error.  See docs/node.md.\n";

static void
usage_error(const char *fmt, ...)
{
	va_list	ap;

	fputs("devnet-node: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'devnet-node --help'.\n", stderr);
	exit(2);
}

static uint64_t
arg_u64(const char *flag, const char *v, uint64_t max)
{
	uint64_t	x;

	if (dn_parse_u64(v, &x) != 0 || x > max)
		usage_error("bad value '%s' for %s: expected an integer "
		    "0..%" PRIu64, v, flag, max);
	return (x);
}

static enum store_mode
arg_mode(const char *flag, const char *v)
{
	if (strcmp(v, "cached") == 0)
		return (STORE_CACHED);
	if (strcmp(v, "per-call") == 0)
		return (STORE_PER_CALL);
	usage_error("bad value '%s' for %s: expected cached or per-call", v,
	    flag);
	return (STORE_CACHED);
}

/* --peer-hosts LIST: exactly one host per node, with --tcp-base.  A host
 * is an IPv4 address or a name (no port, no IPv6: it goes into
 * tcp://HOST:PORT as it is). */
static char **
split_hosts(const char *list, const struct opts *o)
{
	const char	*p, *comma;
	char		**v;
	size_t		 len, n = 1;
	uint32_t	 k;

	if (o->tcp_base == 0)
		usage_error("--peer-hosts needs --tcp-base PORT");
	for (p = list; (p = strchr(p, ',')) != NULL; p++)
		n++;
	if (n != o->nodes)
		usage_error("--peer-hosts lists %zu host(s) for %u nodes: "
		    "give exactly one per node, in node order", n, o->nodes);
	v = dn_xcalloc(n + 1, sizeof(*v));
	for (p = list, k = 0; k < o->nodes; k++, p = comma + 1) {
		comma = strchr(p, ',');
		len = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (len == 0 || len > 253 || strcspn(p, ":/[] \t") < len)
			usage_error("bad host '%.*s' in --peer-hosts: "
			    "expected an IPv4 address or a host name",
			    (int)len, p);
		v[k] = dn_xstrndup(p, len);
		if (comma == NULL)
			break;
	}
	return (v);
}

/* --peers LIST: the indices of this node's peers (the graph devnet
 * made; plan/peer-graph.c), each once, none this node. */
static void
split_peers(const char *list, struct opts *o)
{
	const char	*p = list;
	char		*end;
	uint8_t		*have;
	unsigned long	 k;

	have = dn_xcalloc(o->nodes, 1);
	o->peer_list = dn_xcalloc(o->nodes, sizeof(*o->peer_list));
	for (;;) {
		errno = 0;
		k = strtoul(p, &end, 10);
		if (errno != 0 || end == p || *p == '-' || *p == '+' ||
		    k >= o->nodes || k == o->index || have[k] ||
		    (*end != ',' && *end != '\0'))
			usage_error("bad --peers '%s': expected distinct node "
			    "indices 0..%u other than %u, comma separated",
			    list, o->nodes - 1, o->index);
		have[k] = 1;
		o->peer_list[o->npeer_list++] = (uint32_t)k;
		if (*end == '\0')
			break;
		p = end + 1;
	}
	free(have);
}

enum {
	O_INDEX = 256, O_NODES, O_DIR, O_LOG, O_NET, O_TCP_BASE, O_PEER_HOSTS,
	O_METRICS, O_PEERS,
	O_TOKEN, O_SAMPLE, O_BLOCK_INT, O_BLOCK_MAX, O_BLOCK_READS,
	O_ACCOUNTS, O_SEED, O_READ_OPT, O_WRITE_OPT, O_ROCKS_OPT,
	O_BLOCK_CACHE, O_WORKLOAD, O_READ_RATE, O_READS, O_KEYS, O_CF_COUNT,
	O_CF_OPTIONS, O_CF_CYCLES, O_HELP
};

static const struct option longopts[] = {
	{ "index", required_argument, NULL, O_INDEX },
	{ "nodes", required_argument, NULL, O_NODES },
	{ "dir", required_argument, NULL, O_DIR },
	{ "log", required_argument, NULL, O_LOG },
	{ "net", required_argument, NULL, O_NET },
	{ "tcp-base", required_argument, NULL, O_TCP_BASE },
	{ "peer-hosts", required_argument, NULL, O_PEER_HOSTS },
	{ "metrics", required_argument, NULL, O_METRICS },
	{ "peers", required_argument, NULL, O_PEERS },
	{ "token", required_argument, NULL, O_TOKEN },
	{ "sample-interval", required_argument, NULL, O_SAMPLE },
	{ "block-interval", required_argument, NULL, O_BLOCK_INT },
	{ "block-max-txs", required_argument, NULL, O_BLOCK_MAX },
	{ "block-reads", required_argument, NULL, O_BLOCK_READS },
	{ "accounts", required_argument, NULL, O_ACCOUNTS },
	{ "seed", required_argument, NULL, O_SEED },
	{ "read-options", required_argument, NULL, O_READ_OPT },
	{ "write-options", required_argument, NULL, O_WRITE_OPT },
	{ "rocksdb-options", required_argument, NULL, O_ROCKS_OPT },
	{ "block-cache", required_argument, NULL, O_BLOCK_CACHE },
	{ "workload", required_argument, NULL, O_WORKLOAD },
	{ "read-rate", required_argument, NULL, O_READ_RATE },
	{ "reads", required_argument, NULL, O_READS },
	{ "keys", required_argument, NULL, O_KEYS },
	{ "cf-count", required_argument, NULL, O_CF_COUNT },
	{ "cf-options", required_argument, NULL, O_CF_OPTIONS },
	{ "cf-cycles", required_argument, NULL, O_CF_CYCLES },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 }
};

/* What parse_args checks once every option is in. */
struct seen {
	const char	*peer_hosts;
	const char	*peers;
	int		 have_index, have_nodes;
};

/* A run token of 1..16 hex digits from WHAT (exits on a bad one). */
static uint64_t
parse_token(const char *arg, const char *what)
{
	uint64_t	 v;
	char		*end;

	errno = 0;
	v = strtoull(arg, &end, 16);
	if (errno != 0 || *arg == '\0' || *end != '\0' || strlen(arg) > 16 ||
	    *arg == '-' || *arg == '+')
		usage_error("bad value '%s' for %s: expected up to 16 hex "
		    "digits", arg, what);
	return (v);
}

/* One option C with its argument ARG into O (exits on a bad one). */
static void
parse_one(struct opts *o, int c, char *arg, char **argv, struct seen *seen)
{
	const char	*why;

	switch (c) {
	case O_INDEX:
		o->index = (uint32_t)arg_u64("--index", arg, 4095);
		seen->have_index = 1;
		break;
	case O_NODES:
		o->nodes = (uint32_t)arg_u64("--nodes", arg, 4096);
		seen->have_nodes = 1;
		break;
	case O_DIR:
		o->dir = arg;
		break;
	case O_LOG:
		o->log = arg;
		break;
	case O_NET:
		o->net = arg;
		break;
	case O_TCP_BASE:
		o->tcp_base = (uint32_t)arg_u64("--tcp-base", arg,
		    65535);
		break;
	case O_PEER_HOSTS:
		seen->peer_hosts = arg;
		break;
	case O_METRICS:
		o->metrics = arg;
		break;
	case O_PEERS:
		seen->peers = arg;
		break;
	case O_TOKEN:
		o->token = parse_token(arg, "--token");
		break;
	case O_SAMPLE:
		o->sample_ms = (uint32_t)arg_u64("--sample-interval",
		    arg, 3600000);
		break;
	case O_BLOCK_INT:
		o->block_ms = (uint32_t)arg_u64("--block-interval",
		    arg, 3600000);
		break;
	case O_BLOCK_MAX:
		o->block_max_txs = (uint32_t)arg_u64("--block-max-txs",
		    arg, BLOCK_TXS_MAX);
		break;
	case O_BLOCK_READS:
		o->block_reads = (uint32_t)arg_u64("--block-reads",
		    arg, 1000000);
		break;
	case O_ACCOUNTS:
		o->accounts = (uint32_t)arg_u64("--accounts", arg,
		    100000000);
		break;
	case O_SEED:
		o->seed = arg_u64("--seed", arg, UINT64_MAX);
		break;
	case O_READ_OPT:
		o->read_mode = arg_mode("--read-options", arg);
		break;
	case O_WRITE_OPT:
		o->write_mode = arg_mode("--write-options", arg);
		break;
	case O_ROCKS_OPT:
		o->rocksdb_options = arg;
		break;
	case O_BLOCK_CACHE:
		if (dn_parse_size(arg, &o->block_cache, &why) != 0)
			usage_error("bad value '%s' for --block-cache:"
			    " %s (e.g. 67108864 or 64MiB)", arg,
			    why);
		break;
	case O_WORKLOAD:
		if (workload_parse(arg, &o->workload) != 0)
			usage_error("unknown workload '%s': expected "
			    "transfer, idle, readrandom or cf-churn",
			    arg);
		break;
	case O_READ_RATE:
		if (dn_parse_double(arg, &o->read_rate) != 0 ||
		    !(o->read_rate >= 0) || o->read_rate > 1e9)
			usage_error("bad value '%s' for --read-rate: "
			    "expected reads per second >= 0", arg);
		break;
	case O_READS:
		o->reads = arg_u64("--reads", arg, UINT64_MAX);
		break;
	case O_KEYS:
		o->keys = arg_u64("--keys", arg, 100000000);
		break;
	case O_CF_COUNT:
		o->cf_count = (uint32_t)arg_u64("--cf-count", arg,
		    100000);
		break;
	case O_CF_OPTIONS:
		o->cf_options = arg;
		break;
	case O_CF_CYCLES:
		o->cf_cycles = (uint32_t)arg_u64("--cf-cycles", arg,
		    UINT32_MAX);
		break;
	case O_HELP:
		fputs(usage_text, stdout);
		printf("\nallocation counter: %s (this build)\n",
		    dn_alloc_enabled() ? "on" : "off");
		exit(0);
	case ':':
		usage_error("option '%s' needs a value",
		    argv[optind - 1]);
		break;
	default:
		usage_error("unknown option '%s'", argv[optind - 1]);
	}
}

void
parse_args(int argc, char **argv, struct opts *o)
{
	struct seen	 seen = { NULL, NULL, 0, 0 };
	const char	*tok;
	int		 c;

	memset(o, 0, sizeof(*o));
	o->sample_ms = 1000;
	o->block_ms = 1000;
	o->block_max_txs = 10000;
	o->accounts = 10000;
	o->seed = 1;
	o->block_cache = 8u << 20;
	o->workload = WL_TRANSFER;
	/* The token from the environment (devnet's way: /proc/PID/environ
	 * is private to its user, a command line is not; issue 38), not
	 * left there for whatever the node might start; --token wins. */
	if ((tok = getenv(DN_NODE_TOKEN_ENV)) != NULL) {
		o->token = parse_token(tok, DN_NODE_TOKEN_ENV);
		unsetenv(DN_NODE_TOKEN_ENV);
	}
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1)
		parse_one(o, c, optarg, argv, &seen);
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!seen.have_index || !seen.have_nodes || o->dir == NULL)
		usage_error("--index, --nodes and --dir are required");
	if (o->nodes == 0 || o->index >= o->nodes)
		usage_error("--index %u is not in 0..%u (--nodes %u)",
		    o->index, o->nodes == 0 ? 0 : o->nodes - 1, o->nodes);
	if (o->net == NULL && o->tcp_base == 0)
		usage_error("give --net DIR, --tcp-base PORT, or both");
	if (o->tcp_base != 0 && o->tcp_base + 2 * o->nodes > 65535)
		usage_error("--tcp-base %u leaves no room for %u nodes",
		    o->tcp_base, o->nodes);
	if (seen.peer_hosts != NULL)
		o->peer_hosts = split_hosts(seen.peer_hosts, o);
	if (seen.peers != NULL)
		split_peers(seen.peers, o);
	if (o->accounts == 0)
		usage_error("--accounts must be at least 1");
	if (o->sample_ms == 0 || o->block_ms == 0)
		usage_error("--sample-interval and --block-interval must be "
		    "at least 1 ms");
	if (o->workload == WL_CF_CHURN && o->cf_count == 0)
		usage_error("--workload cf-churn needs --cf-count N (N > 0)");
}
