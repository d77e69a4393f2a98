/*
 * protocol.h: devnet's wire protocol, one header for every message that
 * crosses a process boundary (node <-> node, node <-> orchestrator).
 *
 * BUMP DN_PROTOCOL_VERSION ON ANY CHANGE to a header field, a payload
 * layout, a message kind's meaning, or the metric table (the sample payload
 * is indexed by metric id).  Nodes and orchestrator of different versions
 * refuse each other's messages (counted as rejected), never misread them.
 *
 * Everything is little-endian, fixed layout, no padding on the wire.  Every
 * decoder checks the whole length before it reads a field; see
 * docs/architecture.md ("Wire protocol") for the layouts in prose.
 *
 * Header, 40 bytes:
 *   0 u32 magic 'DNET'    4 u16 version     6 u16 kind
 *   8 u64 run token      16 u32 node index 20 u32 payload length
 *  24 u64 sequence       32 u64 CLOCK_MONOTONIC ns at send
 */
#ifndef DN_PROTOCOL_H
#define DN_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#define DN_PROTOCOL_VERSION	5 /* 3: SAMPLE absent bitmap, NAMED; 4: cgroup_mem_bytes; 5: block_prop_ms */
#define DN_MAGIC		0x54454e44u /* "DNET" as LE bytes */
#define DN_HDR_SIZE		40
#define DN_MSG_MAX		(8u << 20) /* largest message accepted, 8 MiB;
				      every socket's receive limit, so a
				      larger frame is refused (its connection
				      closed) before it is read */
#define DN_NODE_NONE		0xffffffffu /* header node of a non-node sender */

enum dn_msg_kind {
	DN_MSG_SAMPLE = 1,	/* node -> collector: one value per metric */
	DN_MSG_HELLO = 2,	/* node -> collector: ready (pid) */
	DN_MSG_TXS = 3,		/* loadgen -> node, node -> peers */
	DN_MSG_INCLUDED = 4,	/* proposer -> collector: tx outcomes */
	DN_MSG_BLOCK = 5,	/* node -> node (payload: node/block.h) */
	DN_MSG_HEAD = 6,	/* node -> node: height announcement */
	DN_MSG_BLOCK_REQ = 7,	/* node -> node: send me blocks from h */
	DN_MSG_CTL_STATUS = 8,	/* orchestrator <-> node (req/rep) */
	DN_MSG_CTL_STOP = 9,	/* orchestrator <-> node (req/rep) */
	DN_MSG_NAMED = 10,	/* node -> collector: (name, value) pairs of
				   metrics outside the table */
	DN_MSG_KIND_MAX = 10
};

/* Why a message was rejected (negative return values of the decoders). */
enum dn_reject {
	DN_REJ_SHORT = 1,	/* shorter than a header */
	DN_REJ_MAGIC,
	DN_REJ_VERSION,
	DN_REJ_TOKEN,
	DN_REJ_NODE,		/* node index out of range */
	DN_REJ_LENGTH,		/* payload length disagrees with the message */
	DN_REJ_KIND,
	DN_REJ_PAYLOAD,		/* payload malformed for its kind */
	DN_REJ_TX_ID,		/* INCLUDED names a tx never submitted */
	DN_REJ_NAME,		/* NAMED name the scenario does not declare */
	DN_REJ_CLOCK,		/* stamped far ahead of the node's clock */
	/* Not of one message but of a connection (issue 38): */
	DN_REJ_CONN,		/* a connection beyond the trial's cap */
	DN_REJ_UNAUTH,		/* from, or the end of, a connection that
				   never showed the token (its first message
				   did not have it, or it sent none: a frame
				   over the size limit, a close) */
	DN_REJ_PIPE,		/* a node index another connection holds */
	DN_REJ_COUNT
};

struct dn_hdr {
	uint16_t	kind;
	uint64_t	token;
	uint32_t	node;
	uint32_t	len;	/* payload bytes after the header */
	uint64_t	seq;
	uint64_t	t_ns;
};

/* Little-endian field access, for every codec in the project. */
static inline void
dn_put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}
static inline void
dn_put_u32(uint8_t *p, uint32_t v)
{
	dn_put_u16(p, (uint16_t)v);
	dn_put_u16(p + 2, (uint16_t)(v >> 16));
}
static inline void
dn_put_u64(uint8_t *p, uint64_t v)
{
	dn_put_u32(p, (uint32_t)v);
	dn_put_u32(p + 4, (uint32_t)(v >> 32));
}
static inline uint16_t
dn_get_u16(const uint8_t *p)
{
	return ((uint16_t)(p[0] | (p[1] << 8)));
}
static inline uint32_t
dn_get_u32(const uint8_t *p)
{
	return ((uint32_t)dn_get_u16(p) | ((uint32_t)dn_get_u16(p + 2) << 16));
}
static inline uint64_t
dn_get_u64(const uint8_t *p)
{
	return ((uint64_t)dn_get_u32(p) | ((uint64_t)dn_get_u32(p + 4) << 32));
}
void	 dn_put_f64(uint8_t *, double);
double	 dn_get_f64(const uint8_t *);

/* Write H (with magic and version) into the first DN_HDR_SIZE bytes. */
void	 dn_hdr_put(uint8_t *buf, const struct dn_hdr *h);

/*
 * Check a received message and decode its header into *H.  Checks, in
 * order: length >= header, magic, version, kind, token (unless TOKEN is 0),
 * node index < NNODES (unless NNODES is 0; DN_NODE_NONE is allowed when
 * ALLOW_NONE), payload length == LEN - header.  Returns 0 or -enum dn_reject.
 */
int	 dn_hdr_check(const void *buf, size_t len, uint64_t token,
	    uint32_t nnodes, int allow_none, struct dn_hdr *h);

/* Human name of a reject reason ("bad token"). */
const char *dn_reject_name(int reason);

/* --- DN_MSG_SAMPLE: u16 count, u16 flags, u32 dropped,
 *     [u64 absent, only when flags has DN_SAMPLE_ABSENT], count x f64 ---
 *
 * Value i is metric id i.  A value the sender cannot see (allocations of a
 * program the counter cannot reach) is absent: its bit in `absent` is set
 * and it travels as 0.  Absent is not zero: a receiver stores nothing for
 * it.  Without DN_SAMPLE_ABSENT every value is present (devnet-node). */
#define DN_SAMPLE_FINAL	0x1	/* the node's last sample before exit */
#define DN_SAMPLE_ABSENT 0x2	/* the absent bitmap follows `dropped` */

struct dn_sample {
	uint16_t	count;	/* values present, <= DN_METRIC_COUNT known */
	uint16_t	flags;
	uint32_t	dropped; /* messages the agent failed to send so far */
	uint64_t	absent;	/* bit i set: values[i] unavailable (0) */
	double		values[64];
};
#define DN_SAMPLE_MAX	64

/* 1 if value I of S is absent (not measured). */
static inline int
dn_sample_absent(const struct dn_sample *s, int i)
{
	return (i < 64 && ((s->absent >> i) & 1) != 0);
}

/* Encode a whole message into BUF (size CAP); returns its length or 0.
 * DN_SAMPLE_ABSENT is set from S->absent (nonzero), whatever S->flags
 * says; absent values are sent as 0. */
size_t	 dn_sample_encode(uint8_t *buf, size_t cap, const struct dn_hdr *h,
	    const struct dn_sample *s);
/* Decode a SAMPLE payload.  Rejects count 0 or > DN_SAMPLE_MAX, length
 * mismatch, non-finite values, absent bits at or beyond count and absent
 * values other than 0.  S->absent is 0 without DN_SAMPLE_ABSENT.
 * Returns 0 or -DN_REJ_PAYLOAD. */
int	 dn_sample_decode(const uint8_t *payload, size_t len,
	    struct dn_sample *s);

/* --- DN_MSG_NAMED: u16 count, u16 flags, u32 0, count x entry --------
 *   entry: u8 name length L, u8 kind (enum dn_named_kind), L bytes name,
 *   f64 value
 *
 * Metrics that are not in metric-table.h (a foreign node's log extractors
 * and Prometheus series), sent by devnet-probe beside each SAMPLE with the
 * same header time.  A name is 1..DN_NAME_MAX bytes of [A-Za-z0-9_:.],
 * not starting with a digit or '.', unique within the message, and never
 * the name of a metric of the table (those go in SAMPLE).  Flags: only
 * DN_SAMPLE_FINAL. */
#define DN_NAME_MAX	63
#define DN_NAMED_MAX	256	/* entries per message */
enum dn_named_kind { DN_NAMED_GAUGE = 0, DN_NAMED_COUNTER = 1 };

struct dn_named {
	char		name[DN_NAME_MAX + 1];
	uint8_t		kind;	/* enum dn_named_kind */
	double		value;
};

/* devnet-probe's own NAMED counter (failed Prometheus scrapes), sent
 * with every sample of a scraping probe: reserved, no extractor or
 * scrape mapping may take it (two entries of one name make every NAMED
 * message fail to encode; issue 19 #6).  Not a wire change. */
#define DN_NAME_SCRAPE_FAILURES	"probe_scrape_failures"

/* 1 if NAME is acceptable as a NAMED metric name (see above). */
int	 dn_named_name_ok(const char *name);
/* Encode N entries of V (1..DN_NAMED_MAX, each valid) with FLAGS into
 * BUF (size CAP); returns the message length or 0. */
size_t	 dn_named_encode(uint8_t *buf, size_t cap, const struct dn_hdr *h,
	    uint16_t flags, const struct dn_named *v, size_t n);
/* Decode a NAMED payload into V (room for CAP entries), *N and *FLAGS.
 * Rejects count 0, > DN_NAMED_MAX or > CAP, a bad length, a bad name, a
 * duplicate, a table name, an unknown kind, a non-finite value, unknown
 * flags and a nonzero reserved word.  Returns 0 or -DN_REJ_PAYLOAD. */
int	 dn_named_decode(const uint8_t *payload, size_t len, uint16_t *flags,
	    struct dn_named *v, size_t cap, size_t *n);

/* --- DN_MSG_HELLO: u32 pid, u32 flags -------------------------------- */

/* devnet hands devnet-probe the run token in this environment variable
 * (hex), never on its command line (readable by any local user). */
#define DN_PROBE_TOKEN_ENV	"DN_PROBE_TOKEN"
/* and devnet-node in this one (issue 38); its --token still works, and a
 * node binary that does not know this name gets --token as before. */
#define DN_NODE_TOKEN_ENV	"DN_NODE_TOKEN"
#define DN_HELLO_SIZE	8

/* --- DN_MSG_TXS: u32 count, u32 hops, count x 40-byte tx -------------- */
struct dn_tx {
	uint64_t	id;		/* unique within a trial */
	uint64_t	intended_ns;	/* loadgen's intended send time */
	uint32_t	from;		/* account index */
	uint32_t	to;
	uint64_t	amount;
	uint64_t	nonce;
};
#define DN_TX_SIZE	40
#define DN_TXS_MAX	65536	/* transactions per message */

void	 dn_tx_put(uint8_t *p, const struct dn_tx *tx);
void	 dn_tx_get(const uint8_t *p, struct dn_tx *tx);
/* Check a TXS payload; on success *COUNT, *HOPS and *TXS (pointer into
 * PAYLOAD, read each with dn_tx_get).  Returns 0 or -DN_REJ_PAYLOAD. */
int	 dn_txs_check(const uint8_t *payload, size_t len, uint32_t *count,
	    uint32_t *hops, const uint8_t **txs);

/* --- DN_MSG_INCLUDED: u64 height, u64 proposed_ns, u32 count, u32 0,
 *     count x (u64 tx id, u64 intended_ns, u32 status, u32 0) ---------- */
#define DN_INCL_ENTRY	24
enum dn_tx_status {
	DN_TX_OK = 0,
	DN_TX_NO_FUNDS = 1,
	DN_TX_BAD_NONCE = 2,
	DN_TX_DUPLICATE = 3,
	DN_TX_BAD_ACCOUNT = 4
};
int	 dn_included_check(const uint8_t *payload, size_t len,
	    uint64_t *height, uint64_t *proposed_ns, uint32_t *count,
	    const uint8_t **entries);

/* --- DN_MSG_CTL_STATUS request: u32 flags; reply: ------------------- *
 *   u64 height, u64 txs_applied, u64 txs_rejected, u32 mempool,
 *   u32 peers, u32 pid, u32 flags, 32 bytes state hash (zero unless
 *   DN_CTL_WANT_HASH was asked)                                        */
#define DN_CTL_WANT_HASH	0x1
#define DN_CTL_HALT		0x2	/* stop proposing blocks from now on
					   (end of a trial: heights converge,
					   so state hashes compare cleanly) */
#define DN_CTL_READY		0x1	/* reply flag */
#define DN_STATUS_SIZE		(8 * 3 + 4 * 4 + 32)
struct dn_status {
	uint64_t	height;
	uint64_t	txs_applied;
	uint64_t	txs_rejected;
	uint32_t	mempool;
	uint32_t	peers;
	uint32_t	pid;
	uint32_t	flags;
	uint8_t		state_hash[32];
};
void	 dn_status_put(uint8_t *p, const struct dn_status *st);
int	 dn_status_get(const uint8_t *payload, size_t len,
	    struct dn_status *st);

#endif
