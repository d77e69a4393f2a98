/*
 * node-internal.h: internal to devnet-node, shared only by the files of
 * the process (node.c, args.c, log.c, net.c, gossip.c, sync.c,
 * chain-thread.c, control.c, fill-metrics.c).  Not for dn_node_core,
 * the tests or the tools: they use chain.h, rocks.h, block.h, workload.h.
 * The options, the struct node every thread shares, and the functions
 * one of these files offers the others (contracts beside the code).
 */
#ifndef DN_NODE_INTERNAL_H
#define DN_NODE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "rocks.h"
#include "workload.h"

struct block;
struct chain;
struct dn_agent;
struct dn_hdr;
struct dn_sock;

#define BUFFER_SLOTS	256	/* early blocks kept, ahead of the head */
#define TX_SEEN_SLOTS	65536	/* gossip: transaction ids remembered */
#define GOSSIP_HOPS_MAX	64	/* a TXS relayed this often is dropped */

struct opts {
	uint32_t		 index;
	uint32_t		 nodes;
	const char		*dir;
	const char		*log;
	const char		*net;
	uint32_t		 tcp_base;
	/* --peer-hosts: the host of node K (IPv4 address or name), one per
	 * node, or NULL: every node at 127.0.0.1 */
	char			**peer_hosts;
	const char		*metrics;
	/* --peers: gossip over these nodes only (npeer_list of them), or
	 * NULL: the full mesh, no relay */
	uint32_t		*peer_list;
	uint32_t		 npeer_list;
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
	uint32_t	 from;		/* the node it came from */
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
	/* Main thread only: peer K dialled yet (dial_peers), and how many
	 * are not */
	uint8_t			*dialed;	/* [nodes] */
	uint32_t		 dials_pending;
	uint32_t		 npeers;	/* peers dialled in all */
	int			 gossip;	/* --peers: relay hop by hop */
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
	/* Blocks of other proposers that arrived since the last sample:
	 * count << PROP_SHIFT | sum of their propagation times in µs, one
	 * word so that the agent takes both at once (note_arrival). */
	atomic_uint_fast64_t	 prop_acc;
	atomic_uint_fast64_t	 log_lines;
	atomic_uint_fast64_t	 rejected;

	/* Chain thread only. */
	uint64_t		 seq;
	uint64_t		*peer_height;	/* [nodes] heard in HEAD */
	uint64_t		*peer_head_ns;	/* [nodes], on our clock */
	/* --peer-hosts: a node of another host counts time from its own
	 * boot.  clock_d[k]: the least receive - send over k's messages
	 * (0 and unused for nodes of our host: clock_other[k] 0). */
	int64_t			*clock_d;
	uint8_t			*clock_other;
	uint8_t			*clock_known;
	uint64_t		 best_block;	/* highest block received */
	uint64_t		 best_block_ns;
	uint64_t		 last_apply_delay_ns;
	uint64_t		 next_head_ns;
	uint64_t		 next_fetch_ns;
	uint64_t		 propose_at_ns;	/* UINT64_MAX: not our turn */
	struct buffered		 buf[BUFFER_SLOTS];
	uint8_t			*status;	/* per-tx outcome scratch */
	/* Gossip: transaction ids relayed already, direct-mapped (a
	 * collision forgets the older id: at worst it is relayed twice) */
	uint64_t		*tx_seen;	/* [TX_SEEN_SLOTS] */
	size_t			 status_cap;

	/* Agent thread only. */
	uint64_t		 prev_wl_ops;
	uint64_t		 prev_wl_ns;
};

/* sync.c: a block time of height HEIGHT's proposer, on our clock */
uint64_t block_ns(const struct node *n, uint64_t height, uint64_t ns);
/* sync.c: a message from peer K stamped T_NS arrived at NOW */
void	 clock_seen(struct node *n, uint32_t k, uint64_t t_ns, uint64_t now);

/* args.c */
void	 parse_args(int argc, char **argv, struct opts *o);

/* log.c */
void	 nlog(struct node *n, const char *id, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* net.c */
char	*endpoint(const struct opts *o, uint32_t k, int ctl);
int	 open_sockets(struct node *n, char **cause);
int	 dial_peers(struct node *n, char **cause);
void	 close_sockets(struct node *n);
uint8_t	*message(struct node *n, uint16_t kind, const void *payload,
	    size_t len, uint64_t seq);
void	 send_peer(struct node *n, uint32_t k, uint16_t kind,
	    const void *payload, size_t len);
void	 broadcast(struct node *n, uint16_t kind, const void *payload,
	    size_t len);
/* To every peer but node EXCEPT (UINT32_MAX: none). */
void	 relay(struct node *n, uint32_t except, uint16_t kind,
	    const void *payload, size_t len);
int	 peers_connected(struct node *n);
void	 count_reject(struct node *n, int reason, const struct dn_hdr *h);

/* gossip.c */
void	 on_message(struct node *n, const uint8_t *msg, size_t len);

/* sync.c */
uint64_t best_height(struct node *n);
void	 publish_state(struct node *n);
int	 apply(struct node *n, const uint8_t *p, size_t len, int mine);
/* A block of another proposer arrived now: its propagation time into
 * prop_acc (block_prop_ms). */
void	 note_arrival(struct node *n, const struct block *b);
#define PROP_SHIFT	44	/* prop_acc: µs below, count above */
/* 1 when the block is new here (buffered now), 0 when it was already. */
int	 buffer_put(struct node *n, const uint8_t *p, size_t len,
	    const struct block *b, uint32_t from);
void	 drain_buffer(struct node *n);
void	 maybe_fetch(struct node *n, uint64_t now);

/* chain-thread.c */
void	*chain_main(void *arg);

/* fill-metrics.c */
void	 fill_metrics(void *arg, double *v);

/* control.c */
void	 on_control(struct node *n, const uint8_t *msg, size_t len);
void	 check_ready(struct node *n);

#endif
