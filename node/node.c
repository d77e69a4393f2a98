/*
 * node.c: devnet-node, a RocksDB storage node that takes part in a devnet
 * (docs/node.md).  This file is the process: command line, log, sockets,
 * the chain thread (messages, proposing, catching up), the control loop
 * on the main thread, metrics through the agent, and the lifecycle.  The
 * rules live in chain.c, the storage in rocks.c, side workloads in
 * workload.c.
 *
 * Threads: main (control REP socket, signals, readiness), chain (PULL
 * socket, all chain and mempool state), the metrics agent, and at most one
 * workload worker.  They share only atomics, the log (a mutex) and the
 * thread-safe parts of the store and the sockets.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "alloc.h"
#include "block.h"
#include "chain.h"
#include "metric-table.h"
#include "protocol.h"
#include "rocks.h"
#include "transport.h"
#include "util.h"
#include "workload.h"

#define PEER_SENDBUF	8192	/* messages queued per peer */
#define IN_RECVBUF	8192
#define BUFFER_SLOTS	256	/* early blocks kept, ahead of the head */
#define FETCH_RETRY_MS	250
#define CTL_POLL_MS	100
#define REJECT_LOG_MAX	10	/* rejects logged one by one, then 1/1000 */

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
"  --metrics URL           the collector's PULL endpoint (absent = none)\n"
"  --token HEX             the trial's run token (16 hex digits; 0 = any)\n"
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

struct opts {
	uint32_t		 index;
	uint32_t		 nodes;
	const char		*dir;
	const char		*log;
	const char		*net;
	uint32_t		 tcp_base;
	const char		*metrics;
	uint64_t		 token;
	uint32_t		 sample_ms;
	uint32_t		 block_ms;
	uint32_t		 block_max_txs;
	uint32_t		 block_reads;
	uint32_t		 accounts;
	uint64_t		 seed;
	enum store_mode		 read_mode;
	enum store_mode		 write_mode;
	const char		*rocksdb_options;
	uint64_t		 block_cache;
	enum workload_kind	 workload;
	double			 read_rate;
	uint64_t		 reads;
	uint64_t		 keys;
	uint32_t		 cf_count;
	const char		*cf_options;
	uint32_t		 cf_cycles;
};

struct buffered {
	uint64_t	 height;	/* 0 = empty slot */
	uint64_t	 proposed_ns;
	uint8_t		*p;
	size_t		 len;
};

struct node {
	struct opts		 o;
	char			*in_url;
	char			*ctl_url;
	int			 logfd;
	pthread_mutex_t		 loglock;

	struct store		*store;
	struct chain		*chain;
	struct workload		*wl;
	struct store_cf_options	*cfo;
	struct dn_agent		*agent;
	struct dn_sock		*in;
	struct dn_sock		*ctl;
	struct dn_sock		**peers;	/* [nodes], NULL for self */
	pthread_t		 chain_thread;
	int			 chain_started;

	/* Shared between threads. */
	atomic_int		 stop;
	atomic_int		 ready;
	atomic_int		 halted;	/* DN_CTL_HALT: propose no more */
	atomic_uint_fast64_t	 ready_ns;
	atomic_uint_fast64_t	 height;
	atomic_uint_fast64_t	 txs_applied;
	atomic_uint_fast64_t	 txs_rejected;
	atomic_uint_fast64_t	 mempool;
	atomic_uint_fast64_t	 lag_blocks;
	atomic_uint_fast64_t	 lag_ms;
	/* Highest lag since the last sample: a catch-up that takes less
	 * than a sample interval still shows in the samples. */
	atomic_uint_fast64_t	 lag_blocks_peak;
	atomic_uint_fast64_t	 lag_ms_peak;
	atomic_uint_fast64_t	 log_lines;
	atomic_uint_fast64_t	 rejected;

	/* Chain thread only. */
	uint64_t		 seq;
	uint64_t		*peer_height;	/* [nodes] heard in HEAD */
	uint64_t		*peer_head_ns;	/* [nodes] */
	uint64_t		 best_block;	/* highest block received */
	uint64_t		 best_block_ns;
	uint64_t		 last_apply_delay_ns;
	uint64_t		 next_head_ns;
	uint64_t		 next_fetch_ns;
	uint64_t		 propose_at_ns;	/* UINT64_MAX: not our turn */
	struct buffered		 buf[BUFFER_SLOTS];
	uint8_t			*status;	/* per-tx outcome scratch */
	size_t			 status_cap;

	/* Agent thread only. */
	uint64_t		 prev_wl_ops;
	uint64_t		 prev_wl_ns;
};

static volatile sig_atomic_t got_signal;

static void
on_signal(int sig)
{
	got_signal = sig;
}

/* --- log ------------------------------------------------------------ */

/* One line "2026-12-02T17:00:00.123Z ID text" to the log (and stderr for
 * DN-NODE-ERROR).  Thread-safe; counts log_lines. */
static void __attribute__((format(printf, 3, 4)))
nlog(struct node *n, const char *id, const char *fmt, ...)
{
	char		 line[1024];
	struct timespec	 ts;
	struct tm	 tm;
	va_list		 ap;
	int		 len, k;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	len = snprintf(line, sizeof(line),
	    "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s ", tm.tm_year + 1900,
	    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
	    ts.tv_nsec / 1000000, id);
	va_start(ap, fmt);
	k = vsnprintf(line + len, sizeof(line) - (size_t)len - 1, fmt, ap);
	va_end(ap);
	if (k < 0)
		k = 0;
	len += k;
	if ((size_t)len > sizeof(line) - 2)
		len = (int)sizeof(line) - 2;
	line[len++] = '\n';
	if (strcmp(id, "DN-NODE-ERROR") == 0)
		(void)!write(STDERR_FILENO, line, (size_t)len);
	if (n->logfd >= 0) {
		pthread_mutex_lock(&n->loglock);
		(void)!write(n->logfd, line, (size_t)len);
		pthread_mutex_unlock(&n->loglock);
		atomic_fetch_add(&n->log_lines, 1);
	}
}

/* --- command line ---------------------------------------------------- */

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

enum {
	O_INDEX = 256, O_NODES, O_DIR, O_LOG, O_NET, O_TCP_BASE, O_METRICS,
	O_TOKEN, O_SAMPLE, O_BLOCK_INT, O_BLOCK_MAX, O_BLOCK_READS,
	O_ACCOUNTS, O_SEED, O_READ_OPT, O_WRITE_OPT, O_ROCKS_OPT,
	O_BLOCK_CACHE, O_WORKLOAD, O_READ_RATE, O_READS, O_KEYS, O_CF_COUNT,
	O_CF_OPTIONS, O_CF_CYCLES, O_HELP
};

static void
parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "index", required_argument, NULL, O_INDEX },
		{ "nodes", required_argument, NULL, O_NODES },
		{ "dir", required_argument, NULL, O_DIR },
		{ "log", required_argument, NULL, O_LOG },
		{ "net", required_argument, NULL, O_NET },
		{ "tcp-base", required_argument, NULL, O_TCP_BASE },
		{ "metrics", required_argument, NULL, O_METRICS },
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
	const char	*why;
	char		*end;
	int		 c, have_index = 0, have_nodes = 0;

	memset(o, 0, sizeof(*o));
	o->sample_ms = 1000;
	o->block_ms = 1000;
	o->block_max_txs = 10000;
	o->accounts = 10000;
	o->seed = 1;
	o->block_cache = 8u << 20;
	o->workload = WL_TRANSFER;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case O_INDEX:
			o->index = (uint32_t)arg_u64("--index", optarg, 4095);
			have_index = 1;
			break;
		case O_NODES:
			o->nodes = (uint32_t)arg_u64("--nodes", optarg, 4096);
			have_nodes = 1;
			break;
		case O_DIR:
			o->dir = optarg;
			break;
		case O_LOG:
			o->log = optarg;
			break;
		case O_NET:
			o->net = optarg;
			break;
		case O_TCP_BASE:
			o->tcp_base = (uint32_t)arg_u64("--tcp-base", optarg,
			    65535);
			break;
		case O_METRICS:
			o->metrics = optarg;
			break;
		case O_TOKEN:
			errno = 0;
			o->token = strtoull(optarg, &end, 16);
			if (errno != 0 || *optarg == '\0' || *end != '\0' ||
			    strlen(optarg) > 16 || *optarg == '-' ||
			    *optarg == '+')
				usage_error("bad value '%s' for --token: "
				    "expected up to 16 hex digits", optarg);
			break;
		case O_SAMPLE:
			o->sample_ms = (uint32_t)arg_u64("--sample-interval",
			    optarg, 3600000);
			break;
		case O_BLOCK_INT:
			o->block_ms = (uint32_t)arg_u64("--block-interval",
			    optarg, 3600000);
			break;
		case O_BLOCK_MAX:
			o->block_max_txs = (uint32_t)arg_u64("--block-max-txs",
			    optarg, BLOCK_TXS_MAX);
			break;
		case O_BLOCK_READS:
			o->block_reads = (uint32_t)arg_u64("--block-reads",
			    optarg, 1000000);
			break;
		case O_ACCOUNTS:
			o->accounts = (uint32_t)arg_u64("--accounts", optarg,
			    100000000);
			break;
		case O_SEED:
			o->seed = arg_u64("--seed", optarg, UINT64_MAX);
			break;
		case O_READ_OPT:
			o->read_mode = arg_mode("--read-options", optarg);
			break;
		case O_WRITE_OPT:
			o->write_mode = arg_mode("--write-options", optarg);
			break;
		case O_ROCKS_OPT:
			o->rocksdb_options = optarg;
			break;
		case O_BLOCK_CACHE:
			if (dn_parse_size(optarg, &o->block_cache, &why) != 0)
				usage_error("bad value '%s' for --block-cache:"
				    " %s (e.g. 67108864 or 64MiB)", optarg,
				    why);
			break;
		case O_WORKLOAD:
			if (workload_parse(optarg, &o->workload) != 0)
				usage_error("unknown workload '%s': expected "
				    "transfer, idle, readrandom or cf-churn",
				    optarg);
			break;
		case O_READ_RATE:
			if (dn_parse_double(optarg, &o->read_rate) != 0 ||
			    !(o->read_rate >= 0) || o->read_rate > 1e9)
				usage_error("bad value '%s' for --read-rate: "
				    "expected reads per second >= 0", optarg);
			break;
		case O_READS:
			o->reads = arg_u64("--reads", optarg, UINT64_MAX);
			break;
		case O_KEYS:
			o->keys = arg_u64("--keys", optarg, 100000000);
			break;
		case O_CF_COUNT:
			o->cf_count = (uint32_t)arg_u64("--cf-count", optarg,
			    100000);
			break;
		case O_CF_OPTIONS:
			o->cf_options = optarg;
			break;
		case O_CF_CYCLES:
			o->cf_cycles = (uint32_t)arg_u64("--cf-cycles", optarg,
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
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!have_index || !have_nodes || o->dir == NULL)
		usage_error("--index, --nodes and --dir are required");
	if (o->nodes == 0 || o->index >= o->nodes)
		usage_error("--index %u is not in 0..%u (--nodes %u)",
		    o->index, o->nodes == 0 ? 0 : o->nodes - 1, o->nodes);
	if ((o->net == NULL) == (o->tcp_base == 0))
		usage_error("give exactly one of --net DIR and --tcp-base "
		    "PORT");
	if (o->tcp_base != 0 && o->tcp_base + 2 * o->nodes > 65535)
		usage_error("--tcp-base %u leaves no room for %u nodes",
		    o->tcp_base, o->nodes);
	if (o->accounts == 0)
		usage_error("--accounts must be at least 1");
	if (o->sample_ms == 0 || o->block_ms == 0)
		usage_error("--sample-interval and --block-interval must be "
		    "at least 1 ms");
	if (o->workload == WL_CF_CHURN && o->cf_count == 0)
		usage_error("--workload cf-churn needs --cf-count N (N > 0)");
}

static char *
endpoint(const struct opts *o, uint32_t k, int ctl)
{
	if (o->net != NULL)
		return (dn_xasprintf("ipc://%s/n%u.%s", o->net, k,
		    ctl ? "ctl" : "in"));
	return (dn_xasprintf("tcp://127.0.0.1:%u", o->tcp_base + 2 * k +
	    (ctl ? 1 : 0)));
}

/* --- messages -------------------------------------------------------- */

/* A whole message of KIND with PAYLOAD; the caller frees. */
static uint8_t *
message(struct node *n, uint16_t kind, const void *payload, size_t len,
    uint64_t seq)
{
	struct dn_hdr	 h = { .kind = kind, .token = n->o.token,
			    .node = n->o.index, .len = (uint32_t)len,
			    .seq = seq, .t_ns = dn_now_ns() };
	uint8_t		*buf;

	buf = dn_xmalloc(DN_HDR_SIZE + len);
	dn_hdr_put(buf, &h);
	if (len > 0)
		memcpy(buf + DN_HDR_SIZE, payload, len);
	return (buf);
}

/* Send one message to peer K (non-blocking: a full queue drops it; the
 * peer recovers through HEAD and BLOCK_REQ). */
static void
send_peer(struct node *n, uint32_t k, uint16_t kind, const void *payload,
    size_t len)
{
	uint8_t	*buf;

	if (k == n->o.index || n->peers[k] == NULL)
		return;
	buf = message(n, kind, payload, len, ++n->seq);
	(void)dn_sock_send(n->peers[k], buf, DN_HDR_SIZE + len, 1);
	free(buf);
}

static void
broadcast(struct node *n, uint16_t kind, const void *payload, size_t len)
{
	uint32_t	k;

	for (k = 0; k < n->o.nodes; k++)
		send_peer(n, k, kind, payload, len);
}

static int
peers_connected(struct node *n)
{
	uint32_t	k;
	int		c = 0;

	for (k = 0; k < n->o.nodes; k++) {
		if (n->peers[k] != NULL && dn_sock_npipes(n->peers[k]) > 0)
			c++;
	}
	return (c);
}

static void
count_reject(struct node *n, int reason, const struct dn_hdr *h)
{
	uint64_t	k = atomic_fetch_add(&n->rejected, 1) + 1;

	if (k <= REJECT_LOG_MAX || k % 1000 == 0)
		nlog(n, "DN-NODE-REJECT", "message rejected: %s (kind %u, "
		    "node %u; %" PRIu64 " rejected so far)",
		    dn_reject_name(reason), h != NULL ? h->kind : 0,
		    h != NULL ? h->node : 0, k);
}

/* --- the chain thread ------------------------------------------------ */

static uint64_t
best_height(struct node *n)
{
	uint64_t	best = n->best_block;
	uint32_t	k;

	for (k = 0; k < n->o.nodes; k++) {
		if (n->peer_height[k] > best)
			best = n->peer_height[k];
	}
	return (best);
}

/* Set a lag gauge and raise its peak-since-last-sample. */
static void
set_lag(atomic_uint_fast64_t *cur, atomic_uint_fast64_t *peak, uint64_t v)
{
	uint_fast64_t	p = atomic_load(peak);

	atomic_store(cur, v);
	while (v > p && !atomic_compare_exchange_weak(peak, &p, v))
		;
}

static void
publish_state(struct node *n)
{
	struct chain_head	h;
	uint64_t		best, now, since = 0, lowest = UINT64_MAX;
	size_t			i;
	uint32_t		k;

	chain_head(n->chain, &h);
	atomic_store(&n->height, h.height);
	atomic_store(&n->txs_applied, h.txs_applied);
	atomic_store(&n->txs_rejected, h.txs_rejected);
	atomic_store(&n->mempool, chain_mempool_size(n->chain));
	best = best_height(n);
	if (best <= h.height) {
		uint64_t	lag = n->last_apply_delay_ns / 1000000;
		uint64_t	due = h.proposed_ns +
				    (uint64_t)n->o.block_ms * 1000000;

		/* Not behind any peer, but the chain itself may be behind
		 * its schedule (a stalled proposer): that counts too. */
		now = dn_now_ns();
		if (h.proposed_ns != 0 && now > due &&
		    (now - due) / 1000000 > lag)
			lag = (now - due) / 1000000;
		set_lag(&n->lag_blocks, &n->lag_blocks_peak, 0);
		set_lag(&n->lag_ms, &n->lag_ms_peak, lag);
		return;
	}
	set_lag(&n->lag_blocks, &n->lag_blocks_peak, best - h.height);
	/* Behind: age of the oldest block we know of and have not applied:
	 * a buffered one, else the one a peer announced. */
	for (i = 0; i < BUFFER_SLOTS; i++) {
		if (n->buf[i].height > h.height &&
		    n->buf[i].height < lowest) {
			lowest = n->buf[i].height;
			since = n->buf[i].proposed_ns;
		}
	}
	if (since == 0) {
		for (k = 0; k < n->o.nodes; k++) {
			if (n->peer_height[k] > h.height &&
			    n->peer_head_ns[k] != 0 &&
			    (since == 0 || n->peer_head_ns[k] < since))
				since = n->peer_head_ns[k];
		}
	}
	now = dn_now_ns();
	set_lag(&n->lag_ms, &n->lag_ms_peak, since != 0 && now > since ?
	    (now - since) / 1000000 : 0);
}

static void
send_included(struct node *n, const uint8_t *p, size_t len)
{
	struct block	 b;
	struct dn_tx	 tx;
	uint8_t		*pl;
	size_t		 plen;
	uint32_t	 i;

	if (n->agent == NULL || block_decode(p, len, &b) != 0)
		return;
	plen = 24 + (size_t)b.ntx * DN_INCL_ENTRY;
	pl = dn_xcalloc(1, plen);
	dn_put_u64(pl, b.height);
	dn_put_u64(pl + 8, b.proposed_ns);
	dn_put_u32(pl + 16, b.ntx);
	for (i = 0; i < b.ntx; i++) {
		uint8_t	*e = pl + 24 + (size_t)i * DN_INCL_ENTRY;

		dn_tx_get(b.txs + (size_t)i * DN_TX_SIZE, &tx);
		dn_put_u64(e, tx.id);
		dn_put_u64(e + 8, tx.intended_ns);
		dn_put_u32(e + 16, n->status[i]);
	}
	if (dn_agent_send(n->agent, DN_MSG_INCLUDED, pl, plen, 0) != 0)
		nlog(n, "DN-NODE-INCLUDED-DROP", "INCLUDED of block %" PRIu64
		    " could not be sent to the collector", b.height);
	free(pl);
}

/* Apply block payload P; 0 or -1 (refused, logged). */
static int
apply(struct node *n, const uint8_t *p, size_t len, int mine)
{
	struct block	 b;
	char		*cause = NULL;
	uint64_t	 t0 = dn_now_ns(), now;
	uint32_t	 i, ok = 0;

	if (block_decode(p, len, &b) != 0)
		return (-1);
	if (b.ntx > n->status_cap) {
		n->status = dn_xrealloc(n->status, b.ntx);
		n->status_cap = b.ntx;
	}
	if (chain_apply(n->chain, p, len, n->status, &cause) != 0) {
		nlog(n, "DN-NODE-BADBLOCK", "block %" PRIu64 " refused: %s",
		    b.height, cause);
		free(cause);
		return (-1);
	}
	now = dn_now_ns();
	n->last_apply_delay_ns = now > b.proposed_ns ? now - b.proposed_ns :
	    0;
	for (i = 0; i < b.ntx; i++)
		ok += n->status[i] == DN_TX_OK;
	nlog(n, "DN-NODE-BLOCK", "height=%" PRIu64 " proposer=%u txs=%u "
	    "ok=%u rejected=%u apply_us=%" PRIu64 " delay_ms=%" PRIu64
	    "%s", b.height, b.proposer, b.ntx, ok, b.ntx - ok,
	    (now - t0) / 1000, n->last_apply_delay_ns / 1000000,
	    mine ? " proposed" : "");
	if (mine)
		send_included(n, p, len);
	return (0);
}

static void
buffer_put(struct node *n, const uint8_t *p, size_t len,
    const struct block *b)
{
	struct buffered	*s = &n->buf[b->height % BUFFER_SLOTS];

	if (s->height == b->height)
		return;
	free(s->p);
	s->height = b->height;
	s->proposed_ns = b->proposed_ns;
	s->p = dn_xmalloc(len);
	memcpy(s->p, p, len);
	s->len = len;
}

/* Apply buffered blocks that follow the head, in order. */
static void
drain_buffer(struct node *n)
{
	struct chain_head	 h;
	struct buffered		*s;
	int			 rv;

	for (;;) {
		chain_head(n->chain, &h);
		s = &n->buf[(h.height + 1) % BUFFER_SLOTS];
		if (s->height != h.height + 1)
			return;
		rv = apply(n, s->p, s->len, 0);
		free(s->p);
		memset(s, 0, sizeof(*s));
		if (rv != 0)
			return;
		n->next_fetch_ns = 0;	/* more may be missing: ask now */
	}
}

static void
on_txs(struct node *n, const struct dn_hdr *h, const uint8_t *msg)
{
	const uint8_t	*p = msg + DN_HDR_SIZE, *txs;
	struct dn_tx	 tx;
	uint32_t	 count, hops, i;
	uint8_t		*fwd;
	int		 rv;

	if ((rv = dn_txs_check(p, h->len, &count, &hops, &txs)) != 0) {
		count_reject(n, rv, h);
		return;
	}
	for (i = 0; i < count; i++) {
		dn_tx_get(txs + (size_t)i * DN_TX_SIZE, &tx);
		(void)chain_mempool_add(n->chain, &tx);
	}
	if (hops != 0)
		return;
	/* From the load generator: every peer gets it once (full mesh). */
	fwd = dn_xmalloc(h->len);
	memcpy(fwd, p, h->len);
	dn_put_u32(fwd + 4, 1);
	broadcast(n, DN_MSG_TXS, fwd, h->len);
	free(fwd);
}

static void
on_block(struct node *n, const struct dn_hdr *h, const uint8_t *msg)
{
	const uint8_t		*p = msg + DN_HDR_SIZE;
	struct block		 b;
	struct chain_head	 head;
	int			 rv;

	if ((rv = block_decode(p, h->len, &b)) != 0 ||
	    b.proposer >= n->o.nodes) {
		count_reject(n, rv != 0 ? rv : -DN_REJ_PAYLOAD, h);
		return;
	}
	chain_head(n->chain, &head);
	if (b.height <= head.height)
		return;		/* already have it */
	if (b.height > n->best_block) {
		n->best_block = b.height;
		n->best_block_ns = b.proposed_ns;
	}
	if (b.height > head.height + BUFFER_SLOTS)
		return;		/* too far ahead: fetched later */
	buffer_put(n, p, h->len, &b);
	drain_buffer(n);
}

static void
on_head(struct node *n, const struct dn_hdr *h, const uint8_t *msg)
{
	uint64_t	height, ns;
	int		rv;

	if ((rv = head_decode(msg + DN_HDR_SIZE, h->len, &height, &ns)) != 0) {
		count_reject(n, rv, h);
		return;
	}
	n->peer_height[h->node] = height;
	n->peer_head_ns[h->node] = ns;
}

static void
on_block_req(struct node *n, const struct dn_hdr *h, const uint8_t *msg)
{
	struct chain_head	 head;
	uint64_t		 from, ht;
	uint32_t		 max, sent = 0;
	uint8_t			*p;
	size_t			 len;
	char			*cause = NULL;
	int			 rv;

	if ((rv = block_req_decode(msg + DN_HDR_SIZE, h->len, &from,
	    &max)) != 0) {
		count_reject(n, rv, h);
		return;
	}
	if (max > BLOCK_REQ_MAX)
		max = BLOCK_REQ_MAX;
	chain_head(n->chain, &head);
	for (ht = from; ht <= head.height && sent < max; ht++, sent++) {
		rv = chain_block_get(n->chain, ht, &p, &len, &cause);
		if (rv < 0) {
			nlog(n, "DN-NODE-ERROR", "cannot read block %" PRIu64
			    ": %s", ht, cause);
			free(cause);
			return;
		}
		if (rv == 0)
			return;
		send_peer(n, h->node, DN_MSG_BLOCK, p, len);
		free(p);
	}
}

static void
on_message(struct node *n, const uint8_t *msg, size_t len)
{
	struct dn_hdr	h;
	int		rv;

	rv = dn_hdr_check(msg, len, n->o.token, n->o.nodes, 1, &h);
	if (rv != 0) {
		count_reject(n, rv, NULL);
		return;
	}
	if (h.kind == DN_MSG_TXS) {
		on_txs(n, &h, msg);
		return;
	}
	/* Everything else must come from another node of the devnet. */
	if (h.node == DN_NODE_NONE || h.node == n->o.index) {
		count_reject(n, -DN_REJ_NODE, &h);
		return;
	}
	switch (h.kind) {
	case DN_MSG_BLOCK:
		on_block(n, &h, msg);
		break;
	case DN_MSG_HEAD:
		on_head(n, &h, msg);
		break;
	case DN_MSG_BLOCK_REQ:
		on_block_req(n, &h, msg);
		break;
	default:
		count_reject(n, -DN_REJ_KIND, &h);
	}
}

/* Our turn and time: build, apply (one batch), then gossip. */
static void
maybe_propose(struct node *n, uint64_t now)
{
	struct chain_head	 h;
	uint64_t		 at, interval;
	uint8_t			*p = NULL;
	size_t			 len;
	char			*cause = NULL;

	n->propose_at_ns = UINT64_MAX;
	if (!atomic_load(&n->ready) || atomic_load(&n->halted))
		return;
	interval = (uint64_t)n->o.block_ms * 1000000;
	chain_head(n->chain, &h);
	if ((h.height + 1) % n->o.nodes != n->o.index ||
	    best_height(n) > h.height)
		return;
	at = h.proposed_ns + interval;
	/* Genesis, or a head from another boot (monotonic clock reset):
	 * count from readiness. */
	if (h.proposed_ns == 0 || h.proposed_ns > now + interval)
		at = atomic_load(&n->ready_ns) + interval;
	if (now < at) {
		n->propose_at_ns = at;
		return;
	}
	if (chain_build(n->chain, n->o.index, now, n->o.block_max_txs, &p,
	    &len, &cause) != 0) {
		nlog(n, "DN-NODE-ERROR", "cannot build block %" PRIu64 ": %s",
		    h.height + 1, cause);
		free(cause);
		return;
	}
	/* Applied (durable) before anyone sees it: a crash can never leave
	 * two different blocks at one height. */
	if (apply(n, p, len, 1) == 0) {
		broadcast(n, DN_MSG_BLOCK, p, len);
		n->next_head_ns = 0;
	}
	free(p);
}

static void
maybe_fetch(struct node *n, uint64_t now)
{
	struct chain_head	h;
	uint8_t			req[BLOCK_REQ_SIZE];
	uint64_t		best = 0;
	uint32_t		k, from_peer = UINT32_MAX;

	if (now < n->next_fetch_ns)
		return;
	chain_head(n->chain, &h);
	if (best_height(n) <= h.height)
		return;
	/* Ask the peer with the highest announced head; else the proposer
	 * of the next block. */
	for (k = 0; k < n->o.nodes; k++) {
		if (k != n->o.index && n->peer_height[k] > best) {
			best = n->peer_height[k];
			from_peer = k;
		}
	}
	if (from_peer == UINT32_MAX || best <= h.height)
		from_peer = (uint32_t)((h.height + 1) % n->o.nodes);
	if (from_peer == n->o.index)
		return;
	block_req_encode(req, h.height + 1, BLOCK_REQ_MAX);
	send_peer(n, from_peer, DN_MSG_BLOCK_REQ, req, sizeof(req));
	n->next_fetch_ns = now + FETCH_RETRY_MS * 1000000ull;
}

/* How long the chain thread may wait for a message: until the next
 * thing it must do on its own (propose, announce, re-fetch), 1-100 ms. */
static int
wait_ms(struct node *n)
{
	struct chain_head	h;
	uint64_t		next = n->next_head_ns, now = dn_now_ns();

	if (n->propose_at_ns < next)
		next = n->propose_at_ns;
	chain_head(n->chain, &h);
	if (best_height(n) > h.height && n->next_fetch_ns < next)
		next = n->next_fetch_ns;
	if (next <= now + 1000000)
		return (1);
	if (next - now >= 100000000)
		return (100);
	return ((int)((next - now) / 1000000));
}

static void *
chain_main(void *arg)
{
	struct node		*n = arg;
	struct chain_head	 h;
	uint8_t			 hp[HEAD_SIZE];
	uint64_t		 now;
	void			*msg;
	size_t			 len;
	int			 rv;

	while (!atomic_load(&n->stop)) {
		rv = dn_sock_recv(n->in, &msg, &len, wait_ms(n));
		if (rv == 0) {
			on_message(n, msg, len);
			dn_msg_free(msg, len);
		} else if (rv != DN_EAGAIN) {
			nlog(n, "DN-NODE-ERROR", "receive failed: %s",
			    dn_sock_strerror(rv));
			dn_msleep(10);
		}
		now = dn_now_ns();
		maybe_propose(n, now);
		maybe_fetch(n, now);
		if (now >= n->next_head_ns) {
			chain_head(n->chain, &h);
			head_encode(hp, h.height, h.proposed_ns);
			broadcast(n, DN_MSG_HEAD, hp, sizeof(hp));
			n->next_head_ns = now +
			    (uint64_t)n->o.block_ms * 1000000;
		}
		publish_state(n);
	}
	return (NULL);
}

/* --- metrics --------------------------------------------------------- */

static void
fill_metrics(void *arg, double *v)
{
	struct node	*n = arg;
	uint64_t	 ops = 0, ns = 0;

	v[DN_M_HEIGHT] = (double)atomic_load(&n->height);
	/* The peak since the last sample; the next interval starts from
	 * the current value. */
	v[DN_M_LAG_BLOCKS] = (double)atomic_exchange(&n->lag_blocks_peak,
	    atomic_load(&n->lag_blocks));
	v[DN_M_LAG_MS] = (double)atomic_exchange(&n->lag_ms_peak,
	    atomic_load(&n->lag_ms));
	v[DN_M_TXS_APPLIED] = (double)atomic_load(&n->txs_applied);
	v[DN_M_TXS_REJECTED] = (double)atomic_load(&n->txs_rejected);
	v[DN_M_READS] = (double)store_reads(n->store);
	v[DN_M_WRITES] = (double)store_writes(n->store);
	v[DN_M_LOG_LINES] = (double)atomic_load(&n->log_lines);
	v[DN_M_ROCKSDB_BLOCK_CACHE_BYTES] = (double)store_property(n->store,
	    STORE_PROP_BLOCK_CACHE);
	v[DN_M_ROCKSDB_MEMTABLE_BYTES] = (double)store_property(n->store,
	    STORE_PROP_MEMTABLES);
	v[DN_M_ROCKSDB_TABLE_READERS_BYTES] = (double)store_property(n->store,
	    STORE_PROP_TABLE_READERS);
	v[DN_M_MEMPOOL_TXS] = (double)atomic_load(&n->mempool);
	v[DN_M_PEERS] = peers_connected(n);
	if (n->wl != NULL)
		workload_counters(n->wl, &ops, &ns);
	v[DN_M_WL_OPS] = (double)ops;
	v[DN_M_WL_OP_US] = ops > n->prev_wl_ops ? (double)(ns -
	    n->prev_wl_ns) / 1000.0 / (double)(ops - n->prev_wl_ops) : 0;
	n->prev_wl_ops = ops;
	n->prev_wl_ns = ns;
}

/* --- control (main thread) -------------------------------------------- */

static void
on_control(struct node *n, const uint8_t *msg, size_t len)
{
	struct dn_hdr		h;
	struct dn_status	st;
	uint8_t			payload[DN_STATUS_SIZE], *reply;
	uint64_t		height;
	uint32_t		flags = 0;
	char			*cause = NULL;
	int			rv;

	rv = dn_hdr_check(msg, len, n->o.token, n->o.nodes, 1, &h);
	if (rv == 0 && h.kind != DN_MSG_CTL_STATUS &&
	    h.kind != DN_MSG_CTL_STOP)
		rv = -DN_REJ_KIND;
	if (rv != 0) {
		count_reject(n, rv, rv == -DN_REJ_KIND ? &h : NULL);
		return;
	}
	if (h.kind == DN_MSG_CTL_STOP) {
		reply = message(n, DN_MSG_CTL_STOP, NULL, 0, h.seq);
		(void)dn_sock_send(n->ctl, reply, DN_HDR_SIZE, 0);
		free(reply);
		nlog(n, "DN-NODE-CTL-STOP", "stop requested over control");
		atomic_store(&n->stop, 1);
		return;
	}
	if (h.len >= 4)
		flags = dn_get_u32(msg + DN_HDR_SIZE);
	if ((flags & DN_CTL_HALT) && atomic_exchange(&n->halted, 1) == 0)
		nlog(n, "DN-NODE-HALT", "proposals halted over control (end "
		    "of the trial)");
	memset(&st, 0, sizeof(st));
	st.height = atomic_load(&n->height);
	if (flags & DN_CTL_WANT_HASH) {
		if (chain_state_hash(n->store, st.state_hash, &height,
		    &cause) != 0) {
			nlog(n, "DN-NODE-ERROR", "state hash failed: %s",
			    cause);
			free(cause);
		} else
			st.height = height;	/* of the hashed snapshot */
	}
	st.txs_applied = atomic_load(&n->txs_applied);
	st.txs_rejected = atomic_load(&n->txs_rejected);
	st.mempool = (uint32_t)atomic_load(&n->mempool);
	st.peers = (uint32_t)peers_connected(n);
	st.pid = (uint32_t)getpid();
	st.flags = atomic_load(&n->ready) ? DN_CTL_READY : 0;
	dn_status_put(payload, &st);
	reply = message(n, DN_MSG_CTL_STATUS, payload, sizeof(payload), h.seq);
	(void)dn_sock_send(n->ctl, reply, DN_HDR_SIZE + sizeof(payload), 0);
	free(reply);
}

static void
check_ready(struct node *n)
{
	uint8_t		hello[DN_HELLO_SIZE];

	if (atomic_load(&n->ready))
		return;
	if (peers_connected(n) < (int)n->o.nodes - 1)
		return;
	if (n->agent != NULL && !dn_agent_connected(n->agent))
		return;
	atomic_store(&n->ready_ns, dn_now_ns());
	atomic_store(&n->ready, 1);
	nlog(n, "DN-NODE-READY", "index=%u nodes=%u pid=%d in=%s ctl=%s",
	    n->o.index, n->o.nodes, (int)getpid(), n->in_url, n->ctl_url);
	if (n->agent != NULL) {
		dn_put_u32(hello, (uint32_t)getpid());
		dn_put_u32(hello + 4, 0);
		(void)dn_agent_send(n->agent, DN_MSG_HELLO, hello,
		    sizeof(hello), 1000);
	}
}

/* --- lifecycle ------------------------------------------------------- */

static int
open_sockets(struct node *n, char **cause)
{
	uint32_t	 k;
	char		*url;
	int		 rv;

	if (dn_sock_open(&n->in, DN_SOCK_PULL, cause) != 0)
		return (-1);
	dn_sock_set_bufs(n->in, 0, IN_RECVBUF);
	if (dn_sock_listen(n->in, n->in_url, cause) != 0)
		return (-1);
	if (dn_sock_open(&n->ctl, DN_SOCK_REP, cause) != 0)
		return (-1);
	if (dn_sock_listen(n->ctl, n->ctl_url, cause) != 0)
		return (-1);
	n->peers = dn_xcalloc(n->o.nodes, sizeof(*n->peers));
	for (k = 0; k < n->o.nodes; k++) {
		if (k == n->o.index)
			continue;
		if (dn_sock_open(&n->peers[k], DN_SOCK_PUSH, cause) != 0)
			return (-1);
		dn_sock_set_bufs(n->peers[k], PEER_SENDBUF, 0);
		url = endpoint(&n->o, k, 0);
		rv = dn_sock_dial(n->peers[k], url, cause);
		free(url);
		if (rv != 0)
			return (-1);
	}
	return (0);
}

static void
close_sockets(struct node *n)
{
	uint32_t	k;

	if (n->peers != NULL) {
		for (k = 0; k < n->o.nodes; k++)
			dn_sock_close(n->peers[k]);
	}
	free(n->peers);
	n->peers = NULL;
	dn_sock_close(n->in);
	dn_sock_close(n->ctl);
	n->in = n->ctl = NULL;
}

static int
start(struct node *n, char **cause)
{
	struct store_config	 sc;
	struct chain_config	 cc;
	struct workload_config	 wc;
	struct dn_agent_config	 ac;
	struct store_cf_options	*cfo = NULL;
	char			*dbdir;
	int			 rv;

	memset(&sc, 0, sizeof(sc));
	dbdir = dn_xasprintf("%s/db", n->o.dir);
	sc.path = dbdir;
	sc.options = n->o.rocksdb_options;
	sc.block_cache = n->o.block_cache;
	sc.read_mode = n->o.read_mode;
	sc.write_mode = n->o.write_mode;
	rv = store_open(&n->store, &sc, cause);
	free(dbdir);
	if (rv != 0)
		return (-1);

	memset(&cc, 0, sizeof(cc));
	cc.nodes = n->o.nodes;
	cc.accounts = n->o.accounts;
	cc.seed = n->o.seed;
	cc.block_reads = n->o.block_reads;
	cc.keys = n->o.keys;
	if (chain_open(&n->chain, n->store, &cc, cause) != 0)
		return (-1);
	n->peer_height = dn_xcalloc(n->o.nodes, sizeof(uint64_t));
	n->peer_head_ns = dn_xcalloc(n->o.nodes, sizeof(uint64_t));
	n->propose_at_ns = UINT64_MAX;
	publish_state(n);

	if (open_sockets(n, cause) != 0)
		return (-1);
	if (n->o.metrics != NULL) {
		memset(&ac, 0, sizeof(ac));
		ac.url = n->o.metrics;
		ac.token = n->o.token;
		ac.node = n->o.index;
		ac.interval_ms = (int)n->o.sample_ms;
		ac.fill = fill_metrics;
		ac.arg = n;
		if (dn_agent_start(&n->agent, &ac, cause) != 0)
			return (-1);
	}

	if (n->o.workload == WL_CF_CHURN &&
	    store_cf_options_parse(n->store, n->o.cf_options, &cfo,
	    cause) != 0)
		return (-1);
	memset(&wc, 0, sizeof(wc));
	wc.kind = n->o.workload;
	wc.store = n->store;
	wc.seed = n->o.seed;
	wc.keys = n->o.keys;
	wc.accounts = n->o.accounts;
	wc.rate = n->o.read_rate;
	wc.reads = n->o.reads;
	wc.cf_count = n->o.cf_count;
	wc.cf_cycles = n->o.cf_cycles;
	wc.cf_options = cfo;
	n->cfo = cfo;
	if (workload_start(&n->wl, &wc, cause) != 0)
		return (-1);

	if (pthread_create(&n->chain_thread, NULL, chain_main, n) != 0) {
		*cause = dn_xasprintf("cannot start the chain thread: %s",
		    strerror(errno));
		return (-1);
	}
	n->chain_started = 1;
	return (0);
}

/* Stop everything START started, in reverse order; safe on a partial
 * start. */
static void
finish(struct node *n)
{
	char	*summary = NULL, *error = NULL;
	size_t	 i;

	atomic_store(&n->stop, 1);
	if (n->chain_started)
		pthread_join(n->chain_thread, NULL);
	n->chain_started = 0;
	if (n->wl != NULL) {
		workload_stop(n->wl, &summary, &error);
		n->wl = NULL;
		if (error != NULL)
			nlog(n, "DN-NODE-WORKLOAD-ERROR", "%s: first error: "
			    "%s", workload_name(n->o.workload), error);
		if (summary != NULL) {
			printf("%s\n", summary);
			fflush(stdout);
			nlog(n, "DN-NODE-WORKLOAD", "%s", summary);
		}
		free(summary);
		free(error);
	}
	/* The final sample goes out while the store is still open. */
	dn_agent_stop(n->agent);
	n->agent = NULL;
	close_sockets(n);
	store_cf_options_free(n->cfo);
	n->cfo = NULL;
	chain_free(n->chain);
	n->chain = NULL;
	store_close(n->store);
	n->store = NULL;
	for (i = 0; i < BUFFER_SLOTS; i++)
		free(n->buf[i].p);
	free(n->status);
	free(n->peer_height);
	free(n->peer_head_ns);
}

int
main(int argc, char **argv)
{
	struct node		 n;
	struct sigaction	 sa;
	char			*logpath, *cause = NULL;
	void			*msg;
	size_t			 len;
	int			 rv, code = 0;

	memset(&n, 0, sizeof(n));
	parse_args(argc, argv, &n.o);
	n.logfd = -1;
	pthread_mutex_init(&n.loglock, NULL);
	atomic_init(&n.stop, 0);
	atomic_init(&n.ready, 0);
	atomic_init(&n.halted, 0);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (mkdir(n.o.dir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "DN-NODE-ERROR cannot create directory "
		    "'%s': %s\n", n.o.dir, strerror(errno));
		return (1);
	}
	logpath = n.o.log != NULL ? dn_xstrdup(n.o.log) :
	    dn_xasprintf("%s/node.log", n.o.dir);
	n.logfd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0644);
	if (n.logfd == -1) {
		fprintf(stderr, "DN-NODE-ERROR cannot open log file '%s': "
		    "%s\n", logpath, strerror(errno));
		free(logpath);
		return (1);
	}
	free(logpath);
	n.in_url = endpoint(&n.o, n.o.index, 0);
	n.ctl_url = endpoint(&n.o, n.o.index, 1);
	nlog(&n, "DN-NODE-START", "index=%u nodes=%u dir=%s workload=%s "
	    "read-options=%s write-options=%s alloc-counter=%s pid=%d",
	    n.o.index, n.o.nodes,
	    n.o.dir, workload_name(n.o.workload),
	    n.o.read_mode == STORE_CACHED ? "cached" : "per-call",
	    n.o.write_mode == STORE_CACHED ? "cached" : "per-call",
	    dn_alloc_enabled() ? "on" : "off", (int)getpid());

	if (start(&n, &cause) != 0) {
		nlog(&n, "DN-NODE-ERROR", "%s", cause);
		free(cause);
		code = 1;
		goto out;
	}
	while (!atomic_load(&n.stop)) {
		if (got_signal != 0) {
			nlog(&n, "DN-NODE-SIGNAL", "%s: stopping",
			    got_signal == SIGTERM ? "SIGTERM" : "SIGINT");
			break;
		}
		check_ready(&n);
		rv = dn_sock_recv(n.ctl, &msg, &len, CTL_POLL_MS);
		if (rv == 0) {
			on_control(&n, msg, len);
			dn_msg_free(msg, len);
		} else if (rv != DN_EAGAIN) {
			nlog(&n, "DN-NODE-ERROR", "control receive failed: %s",
			    dn_sock_strerror(rv));
			dn_msleep(CTL_POLL_MS);
		}
	}
out:
	finish(&n);
	if (code == 0)
		nlog(&n, "DN-NODE-STOP", "height=%" PRIu64 " clean stop",
		    (uint64_t)atomic_load(&n.height));
	close(n.logfd);
	free(n.in_url);
	free(n.ctl_url);
	pthread_mutex_destroy(&n.loglock);
	return (code);
}
