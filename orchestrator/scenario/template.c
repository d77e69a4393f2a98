/*
 * template.c: the one template language of scenarios (template.h has the
 * syntax and each use's placeholders), for node commands, http requests
 * and load commands.  Parsing happens twice: when the scenario loads, to
 * name a bad placeholder at FILE:LINE:COL, and once more into parts; each
 * expansion then only concatenates.
 *
 * Not here: what the values are (plan/plan-foreign.c for nodes,
 * trial/loadgen-http.c, trial/loadgen-cmd.c).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "scenario/template.h"
#include "xalloc.h"

static const struct {
	const char	*name;
	enum load_ph	 ph;
	int		 in[3];	/* allowed in http, command, node */
} names[] = {
	{ "index", LPH_INDEX, { 1, 0, 1 } },
	{ "node", LPH_INDEX, { 1, 0, 0 } },
	{ "nodes", LPH_NODES, { 1, 1, 1 } },
	{ "port", LPH_PORT, { 1, 1, 1 } },
	{ "seq", LPH_SEQ, { 1, 0, 0 } },
	{ "key", LPH_KEY, { 1, 0, 0 } },
	{ "key_b64", LPH_KEY_B64, { 1, 0, 0 } },
	{ "value_b64", LPH_VALUE_B64, { 1, 0, 0 } },
	{ "tps", LPH_TPS, { 0, 1, 0 } },
	{ "duration_s", LPH_DURATION_S, { 0, 1, 0 } },
	{ "duration_ms", LPH_DURATION_MS, { 0, 1, 0 } },
	{ "dir", LPH_DIR, { 0, 1, 1 } },
	{ "ports", LPH_PORTS, { 0, 1, 0 } },
	{ "run_dir", LPH_RUN_DIR, { 0, 0, 1 } },
	{ "peers", LPH_PEERS, { 0, 0, 1 } },
	{ "addr", LPH_ADDR, { 1, 1, 1 } },
	{ "addrs", LPH_ADDRS, { 0, 1, 0 } },
};
#define NNAMES	(sizeof(names) / sizeof(names[0]))

static const char *const known[] = {
	"{index}, {node}, {nodes}, {addr}, {port}, {port+N}, {seq}, {key}, "
	"{key_b64}, {value_b64}",
	"{nodes}, {tps}, {duration_s}, {duration_ms}, {dir}, {addr}, "
	"{port}, {port+N}, {addrs}, {ports}",
	"{index}, {nodes}, {dir}, {run_dir}, {addr}, {port}, {port+N}, "
	"{peers}; another node's: {addr:K}, {port:K}, {port+N:K}"
};
/* What an unknown placeholder's message adds after the known ones. */
static const char *const hint[] = {
	"; a literal brace is written {{ or }}, as in JSON bodies",
	"; a literal brace is written {{ or }}, as in JSON bodies",
	""
};

/* The placeholder NAME (LEN bytes) of SET, or LPH_LIT if unknown; a
 * node template's {addr:K}, {port:K} and {port+N:K} name node K (*NODE;
 * -1 for the node itself). */
static enum load_ph
lookup(const char *name, size_t len, enum load_tmpl_set set, long *off,
    int *node)
{
	const char	*colon;
	char		*end;
	size_t		 i;
	long		 k;

	*off = 0;
	*node = -1;
	colon = memchr(name, ':', len);
	if (colon != NULL) {
		enum load_ph	ph;
		int		inner;

		if (set != LOAD_TMPL_NODE || colon + 1 == name + len ||
		    !isdigit((unsigned char)colon[1]))
			return (LPH_LIT);
		errno = 0;
		k = strtol(colon + 1, &end, 10);
		if (errno != 0 || end != name + len || k > 65535)
			return (LPH_LIT);
		ph = lookup(name, (size_t)(colon - name), set, off, &inner);
		if (ph != LPH_ADDR && ph != LPH_PORT)
			return (LPH_LIT);
		*node = (int)k;
		return (ph);
	}
	for (i = 0; i < NNAMES; i++) {
		if (strlen(names[i].name) != len ||
		    strncmp(names[i].name, name, len) != 0)
			continue;
		if (names[i].in[set])
			return (names[i].ph);
		return (LPH_LIT);
	}
	if (len > 5 && strncmp(name, "port+", 5) == 0 &&
	    isdigit((unsigned char)name[5])) {
		errno = 0;
		*off = strtol(name + 5, &end, 10);
		if (errno == 0 && end == name + len && *off < 65536)
			return (LPH_PORT);
	}
	return (LPH_LIT);
}

/* "; did you mean '{NEAR}'?" for the unknown placeholder NAME (LEN
 * bytes) of SET into BUF, when a known one is within two edits (a node's
 * {addr:K} keeps its ':K'); else "". */
static void
suggest(const char *name, size_t len, enum load_tmpl_set set, char *buf,
    size_t cap)
{
	const char	*words[NNAMES + 1], *colon;
	char		 word[64], near[64];
	size_t		 i, n = 0, base;

	buf[0] = '\0';
	colon = memchr(name, ':', len);
	base = colon != NULL ? (size_t)(colon - name) : len;
	if (base == 0 || base >= sizeof(word))
		return;
	for (i = 0; i < NNAMES; i++) {
		if (names[i].in[set])
			words[n++] = names[i].name;
	}
	words[n] = NULL;
	memcpy(word, name, base);
	word[base] = '\0';
	if (scn_nearest(word, words, near, sizeof(near)) == 0)
		snprintf(buf, cap, "; did you mean '{%s%.*s}'?", near,
		    (int)(len - base), name + base);
}

/*
 * The first error of template S in SET, or 0: braces balanced,
 * placeholders known; for nodes (PEERS, PORTS >= 0) also {peers} only
 * where allowed and {port+N} below PORTS.
 */
static int
check(const char *s, enum load_tmpl_set set, int peers, int ports,
    int nodes, char **why)
{
	const char	*p = s, *e;
	enum load_ph	 ph;
	long		 off;
	int		 node;

	while ((p = strpbrk(p, "{}")) != NULL) {
		if (p[0] == p[1]) {
			p += 2;
			continue;
		}
		if (*p == '}' || (e = strchr(p, '}')) == NULL) {
			*why = dn_xasprintf("unbalanced '%c' in '%s' (write "
			    "{{ or }} for a literal brace)", *p, s);
			return (-1);
		}
		if ((ph = lookup(p + 1, (size_t)(e - p - 1), set, &off,
		    &node)) == LPH_LIT) {
			char	sug[160];

			suggest(p + 1, (size_t)(e - p - 1), set, sug,
			    sizeof(sug));
			*why = dn_xasprintf("unknown placeholder '%.*s'%s "
			    "(known: %s%s)", (int)(e - p + 1), p, sug,
			    known[set], hint[set]);
			return (-1);
		}
		if (node >= 0 && nodes > 0 && node >= nodes) {
			*why = dn_xasprintf("'%.*s' names node %d, but the "
			    "devnet has %d (0..%d)", (int)(e - p + 1), p,
			    node, nodes, nodes - 1);
			return (-1);
		}
		if (ph == LPH_PEERS && !peers) {
			*why = dn_xstrdup("{peers} cannot be used here "
			    "(node.peer is what {peers} is made of)");
			return (-1);
		}
		if (ph == LPH_PORT && ports >= 0 && off >= ports) {
			*why = dn_xasprintf("{port+%ld} is beyond the node's "
			    "%d ports (node.ports_per_node)", off, ports);
			return (-1);
		}
		p = e + 1;
	}
	return (0);
}

int
load_tmpl_check(const char *s, enum load_tmpl_set set, char **why)
{
	return (check(s, set, 0, -1, 0, why));
}

int
load_tmpl_check_node(const char *s, int peers, int ports, int nodes,
    char **why)
{
	return (check(s, LOAD_TMPL_NODE, peers, ports, nodes, why));
}

static void
add_part(struct load_tmpl *t, enum load_ph ph, const char *lit, size_t len,
    long off, int node)
{
	struct load_part	*pt;

	if (ph == LPH_LIT && len == 0)
		return;
	t->parts = dn_xreallocarray(t->parts, t->nparts + 1,
	    sizeof(*t->parts));
	pt = &t->parts[t->nparts++];
	pt->ph = ph;
	pt->lit = ph == LPH_LIT ? dn_xstrndup(lit, len) : NULL;
	pt->len = len;
	pt->off = off;
	pt->node = node;
}

void
load_tmpl_compile(struct load_tmpl *t, const char *s, enum load_tmpl_set set)
{
	struct dn_buf	 lit = { 0 };
	const char	*p = s, *e;
	long		 off;
	int		 node;

	memset(t, 0, sizeof(*t));
	while (*p != '\0') {
		enum load_ph	ph;

		if ((p[0] == '{' && p[1] == '{') ||
		    (p[0] == '}' && p[1] == '}')) {
			dn_buf_add(&lit, p, 1);
			p += 2;
			continue;
		}
		if (*p != '{' || (e = strchr(p, '}')) == NULL ||
		    (ph = lookup(p + 1, (size_t)(e - p - 1), set, &off,
		    &node)) == LPH_LIT) {
			dn_buf_add(&lit, p, 1);
			p++;
			continue;
		}
		add_part(t, LPH_LIT, lit.p, lit.len, 0, -1);
		lit.len = 0;
		add_part(t, ph, NULL, 0, off, node);
		p = e + 1;
	}
	add_part(t, LPH_LIT, lit.p, lit.len, 0, -1);
	free(lit.p);
}

void
load_tmpl_free(struct load_tmpl *t)
{
	size_t	i;

	for (i = 0; i < t->nparts; i++)
		free(t->parts[i].lit);
	free(t->parts);
	memset(t, 0, sizeof(*t));
}

int
load_tmpl_uses(const struct load_tmpl *t, enum load_ph ph)
{
	size_t	i;

	for (i = 0; i < t->nparts; i++) {
		if (t->parts[i].ph == ph)
			return (1);
	}
	return (0);
}

void
load_tmpl_expand(const struct load_tmpl *t, struct dn_buf *b,
    load_ph_fn fn, void *arg)
{
	size_t	i;

	dn_buf_setlen(b, 0);
	for (i = 0; i < t->nparts; i++) {
		if (t->parts[i].ph == LPH_LIT)
			dn_buf_add(b, t->parts[i].lit, t->parts[i].len);
		else
			fn(arg, &t->parts[i], b);
	}
}

void
load_base64(struct dn_buf *b, const uint8_t *s, size_t len)
{
	static const char	abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	char			q[4];
	size_t			i;

	for (i = 0; i + 2 < len; i += 3) {
		q[0] = abc[s[i] >> 2];
		q[1] = abc[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
		q[2] = abc[((s[i + 1] & 15) << 2) | (s[i + 2] >> 6)];
		q[3] = abc[s[i + 2] & 63];
		dn_buf_add(b, q, 4);
	}
	if (len - i == 1) {
		q[0] = abc[s[i] >> 2];
		q[1] = abc[(s[i] & 3) << 4];
		q[2] = q[3] = '=';
		dn_buf_add(b, q, 4);
	} else if (len - i == 2) {
		q[0] = abc[s[i] >> 2];
		q[1] = abc[((s[i] & 3) << 4) | (s[i + 1] >> 4)];
		q[2] = abc[(s[i + 1] & 15) << 2];
		q[3] = '=';
		dn_buf_add(b, q, 4);
	}
}
