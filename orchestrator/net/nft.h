/*
 * nft.h: the conditions on a network's links as nf_tables rules in the hub
 * namespace (net/topo.h), through libnftnl: the only nf_tables caller.
 *
 * One table "devnet" (family ip).  Its chain on the forward hook holds
 * one rule, "ip saddr vmap @src": a packet jumps to its source K's chain
 * "sK" (or passes), so it meets its source's rules only, never all
 * N * (N - 1) links' (issue 40).  There every directed link src -> dst
 * with a condition gets rules that match its addresses, each with a
 * counter: a partition drops all, loss drops a share drawn by numgen, a
 * link with a mark gets it on its packets (the shaper's classes match
 * it, net/shape.h), and latency hands them to NFQUEUE QUEUE (xt NFQUEUE
 * through nft_compat: this kernel has no nft queue expression), where
 * the emulator holds it (net/delay.h).  Drops come first, so a dropped
 * packet is never queued.  Up to DN_NET_MAX endpoints (net/topo.h).
 */
#ifndef DN_NET_NFT_H
#define DN_NET_NFT_H

#include <stddef.h>
#include <stdint.h>

#define DN_NFT_TABLE	"devnet"

enum dn_nft_kind { DN_NFT_BLOCK = 1, DN_NFT_LOSS = 2, DN_NFT_DELAY = 3 };

/* One directed link's conditions; a link not listed passes untouched. */
struct dn_nft_link {
	int		 src, dst;	/* node indices */
	int		 blocked;	/* drop everything (a partition) */
	uint32_t	 loss_ppm;	/* drop this many per million */
	uint32_t	 mark;		/* != 0: mark (latency, bandwidth) */
	int		 queue;		/* with a mark: and queue (latency) */
};

/* A rule's counter, read back. */
struct dn_nft_counter {
	int		 src, dst;
	enum dn_nft_kind kind;
	uint64_t	 packets, bytes;
};

/*
 * Replace the table in hub namespace HUBFD with the rules for LINKS[N]
 * (N may be 0: an empty chain), in one nf_tables transaction: either the
 * new rules hold or the old ones still do.  Counters start at 0.  Returns
 * 0, or -1 with ERR.
 */
int	 dn_nft_apply(int hubfd, const struct dn_nft_link *links, size_t n,
	    unsigned queue, char *err, size_t errlen);
/*
 * Every rule's counter (read a source's chain at a time).  *OUT (malloc'd,
 * the caller frees it) holds *N entries.  Returns 0, or -1 with ERR (the
 * table or its hook's chain missing is an error).
 */
int	 dn_nft_counters(int hubfd, struct dn_nft_counter **out, size_t *n,
	    char *err, size_t errlen);

#endif
