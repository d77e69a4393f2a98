/*
 * template.h: the one template language of scenarios (template.c): text
 * with placeholders in braces, "{{" and "}}" for literal braces
 * (docs/scenarios.md).  Each use allows its own set of placeholders:
 *
 *   node (per node):     {index}, {nodes}, {dir} (the node's dir),
 *                        {run_dir}, {addr} (the node's address: 127.0.0.1,
 *                        10.99.I.2 under network conditions, a swarm
 *                        host's), {port}, {port+N}, {peers} (node.peer
 *                        for every node, comma-separated); {addr:K},
 *                        {port:K}, {port+N:K}: node K's (a primary
 *                        that replicas name)
 *   http (per request):  {index} {node} (the same: the node's index),
 *                        {nodes}, {addr}, {port}, {port+N}, {seq}, {key},
 *                        {key_b64}, {value_b64}
 *   command (per trial): {nodes}, {tps}, {duration_s}, {duration_ms},
 *                        {dir}, {addr}, {port}, {port+N} (node 0's),
 *                        {addrs}, {ports} (every node's, comma-separated)
 *
 * Checked when the scenario loads (load_tmpl_check, load_tmpl_check_node),
 * compiled once (load_tmpl_compile) and expanded without parsing again
 * (load_tmpl_expand, which asks the user for each placeholder's value).
 */
#ifndef DN_LOAD_TMPL_H
#define DN_LOAD_TMPL_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

enum load_ph {
	LPH_LIT,	/* literal text */
	LPH_INDEX, LPH_NODES, LPH_PORT, LPH_SEQ, LPH_KEY, LPH_KEY_B64,
	LPH_VALUE_B64, LPH_TPS, LPH_DURATION_S, LPH_DURATION_MS, LPH_DIR,
	LPH_PORTS, LPH_RUN_DIR, LPH_PEERS, LPH_ADDR, LPH_ADDRS
};

/* Which placeholders a template may use. */
enum load_tmpl_set { LOAD_TMPL_HTTP, LOAD_TMPL_COMMAND, LOAD_TMPL_NODE };

/*
 * 0 if S is a well-formed template of SET; else -1 with *WHY (caller
 * frees) naming the bad placeholder or brace and the known ones.
 */
int	 load_tmpl_check(const char *s, enum load_tmpl_set set, char **why);
/* The same for a node template, which also keeps {port+N} below PORTS
 * (node.ports_per_node), the K of {addr:K} and {port:K} below NODES, and
 * allows {peers} only when PEERS is 1. */
int	 load_tmpl_check_node(const char *s, int peers, int ports,
	    int nodes, char **why);

struct load_part {
	enum load_ph	 ph;
	char		*lit;	/* LPH_LIT */
	size_t		 len;
	long		 off;	/* {port+N}: N */
	int		 node;	/* {addr:K}, {port+N:K}: K; -1: this node */
};

struct load_tmpl {
	struct load_part	*parts;
	size_t			 nparts;
};

/* Compile S (checked already) into *T; load_tmpl_free after. */
void	 load_tmpl_compile(struct load_tmpl *t, const char *s,
	    enum load_tmpl_set set);
void	 load_tmpl_free(struct load_tmpl *t);
/* 1 if T uses placeholder PH. */
int	 load_tmpl_uses(const struct load_tmpl *t, enum load_ph ph);

/* Append the value of placeholder PART to B. */
typedef void (*load_ph_fn)(void *arg, const struct load_part *part,
    struct dn_buf *b);
/* Expand T into B (emptied first, NUL-terminated). */
void	 load_tmpl_expand(const struct load_tmpl *t, struct dn_buf *b,
	    load_ph_fn fn, void *arg);

/* Standard base64 (with padding) of LEN bytes of S, appended to B. */
void	 load_base64(struct dn_buf *b, const uint8_t *s, size_t len);

#endif
