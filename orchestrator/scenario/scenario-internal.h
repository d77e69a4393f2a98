/* scenario-internal.h: internal to the scenario loader; other files use
 * scenario.h.
 *
 * Shared by the files of the loader only: yaml-tree.c (libyaml -> tree,
 * located errors), scenario-set.c (--set), scenario-keys.c (known keys),
 * scenario-get.c (typed getters), scenario-settings.c, scenario-network.c,
 * scenario-workload.c, scenario-variants.c, scenario-build.c,
 * scenario-events.c, scenario-node.c, scenario-assert.c (the sections) and scenario.c (the
 * top level and the
 * public API).  Not a public interface: nothing outside those files
 * includes it.
 */
#ifndef DN_SCENARIO_INTERNAL_H
#define DN_SCENARIO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scenario/scenario.h"

#define DAY_MS		(24 * 3600 * 1000LL)

/* --- the tree (yaml-tree.c) --------------------------------------------- */
enum ytype { Y_SCALAR, Y_MAP, Y_SEQ };

struct ynode {
	enum ytype	 type;
	int		 line, col;	/* 1-based */
	int		 plain;		/* scalar written without quotes */
	char		*value;		/* scalar text */
	struct ynode	**kids;		/* map: key, value, ...; seq: items */
	size_t		 nkids, cap;
	const char	*origin;	/* "--set K=V" if grafted, else NULL */
};

struct ctx {
	const char	*name;		/* file name for messages */
	const char	*text;
	size_t		 len;
	char		*cause;		/* the first error */
	const char	*default_binary; /* NULL: do not check binaries */
};

/* A node of TYPE at LINE:COL (0:0 for grafted ones); free with
 * ynode_free, which frees its kids too and accepts NULL. */
struct ynode	*ynode_new(enum ytype type, int line, int col);
void		 ynode_add(struct ynode *n, struct ynode *kid);
void		 ynode_free(struct ynode *n);
/* A plain empty, "~" or "null" scalar. */
int		 ynode_is_null(const struct ynode *n);
/* "mapping", "list", "empty value" or "scalar", for messages. */
const char	*ynode_type_name(const struct ynode *n);
/* The value of KEY in mapping M, or NULL. */
struct ynode	*ymap_get(const struct ynode *m, const char *key);

/* Record the first error in C->cause, at node N (its --set origin when it
 * was grafted) or at LINE:COL of the file.  Return -1. */
int	 scn_fail(struct ctx *c, const struct ynode *n, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* Parse C->text into a tree whose root is a mapping; *ROOTP is owned by
 * the caller (ynode_free).  Anchors, aliases, tags, deep nesting, a second
 * document and duplicate keys are errors. */
int	 ytree_parse(struct ctx *c, struct ynode **rootp);

/* --- --set overrides (scenario-set.c) ----------------------------------- */
/* Graft SET ("a.b.c=value") onto ROOT; ORIGIN (kept alive by the caller)
 * marks what it adds. */
int	 scn_apply_set(struct ctx *c, struct ynode *root, const char *set,
	    char *origin);

/* --- vars: (scenario-vars.c) ------------------------------------------ */
/* The top level's vars: and each variant's into S->variants[].var_*. */
int	 scn_load_vars(struct ctx *c, struct scenario *s,
	    const struct ynode *root);
/* S with VAR's {NAME} variables put in (their braces doubled, so a value
 * is literal text); other placeholders and {{ }} as they were.  The
 * caller frees it. */
char	*scn_vars_expand(const struct scn_variant *var, const char *s);
void	 scn_vars_release(struct scn_variant *var);

/* --- known keys (scenario-keys.c) --------------------------------------- */
/* WORDS (NULL-terminated) as "'a', 'b', ..." into BUF of CAP bytes. */
void	 scn_list_words(char *buf, size_t cap, const char *const *words);
/* The word of WORDS (NULL-terminated) nearest to WORD, within two edits,
 * into BUF of CAP bytes: 0, or -1 when none is that near. */
int	 scn_nearest(const char *word, const char *const *words, char *buf,
	    size_t cap);
/* Is N a mapping whose keys are all in KEYS?  WHAT names it in messages;
 * an unknown key's error suggests the nearest known one. */
int	 scn_check_map(struct ctx *c, const struct ynode *n, const char *what,
	    const char *const *keys);

/* --- typed getters (scenario-get.c) ------------------------------------- */
/* Each checks N, names it WHAT in errors, and returns 0 or -1.  Strings
 * replace (and free) what *OUT held. */
int	 scn_want_scalar(struct ctx *c, const struct ynode *n,
	    const char *what);
int	 scn_get_str(struct ctx *c, const struct ynode *n, const char *what,
	    char **out);
int	 scn_get_int(struct ctx *c, const struct ynode *n, const char *what,
	    int64_t min, int64_t max, int64_t *out);
int	 scn_get_int32(struct ctx *c, const struct ynode *n, const char *what,
	    int64_t min, int64_t max, int *out);
int	 scn_get_u32(struct ctx *c, const struct ynode *n, const char *what,
	    int64_t min, int64_t max, uint32_t *out);
int	 scn_get_double(struct ctx *c, const struct ynode *n,
	    const char *what, double min, int above, double max, double *out);
int	 scn_get_duration(struct ctx *c, const struct ynode *n,
	    const char *what, int64_t min, int64_t max, int64_t *out);
int	 scn_get_size(struct ctx *c, const struct ynode *n, const char *what,
	    uint64_t min, uint64_t max, uint64_t *out);
/* *OUT = the index of N's value in NAMES (NULL-terminated). */
int	 scn_get_enum(struct ctx *c, const struct ynode *n, const char *what,
	    const char *const *names, int *out);
/* "cached" or "per-call" (read_options, write_options). */
int	 scn_get_mode(struct ctx *c, const struct ynode *n, const char *what,
	    char **out);
/* A list of strings into *V / *N (replacing them; at least MIN). */
int	 scn_get_strv(struct ctx *c, const struct ynode *n, const char *what,
	    char ***v, size_t *nv, int min);
/* Free the N strings of V and V. */
void	 scn_strv_free(char **v, size_t n);
/* N a POSIX extended regex (with exactly one capture group when
 * ONE_CAPTURE). */
int	 scn_check_regex(struct ctx *c, const struct ynode *n,
	    const char *what, int one_capture);

/* --- the sections ------------------------------------------------------- */
/* scenario-metrics.c: node.metrics (mapping N) into O; URLS[0] and
 * URLS[1] the Prometheus and JSON URLs' nodes when given (templates the
 * caller checks), else NULL.  scn_metrics_release frees what it loaded. */
int	 scn_load_metrics(struct ctx *c, const struct ynode *n,
	    struct scn_node *o, const struct ynode **urls);
void	 scn_metrics_release(struct scn_node *o);
/* scenario-links.c: network.zones and network.links (from the network:
 * map NET); a partition, heal or link event's own keys; the events'
 * action names (NULL-terminated, in enum scn_action's order). */
int	 scn_load_links(struct ctx *c, struct scenario *s,
	    const struct ynode *net);
extern const char *const scn_action_names[];
/* A list of node indices (each once, 0..NODES-1) into *OUT (malloc'd)
 * and *NOUT (scenario-links.c): zones, link and upgrade events. */
int	 scn_get_nodes(struct ctx *c, const struct ynode *n, const char *what,
	    int nodes, int **out, size_t *nout);
int	 scn_load_net_event(struct ctx *c, struct scenario *s,
	    const struct ynode *e, struct scn_event *ev);
/* scenario-settings.c: rocksdb: {options, block_cache} into *OPTS /
 * *CACHE; a variant's or an override's settings (KEYS are the accepted
 * keys); and freeing the contents of a struct scn_settings. */
int	 scn_load_rocksdb(struct ctx *c, const struct ynode *n,
	    const char *what, char **opts, uint64_t *cache);
int	 scn_load_settings(struct ctx *c, const struct ynode *n,
	    const char *what, const char *const *keys,
	    struct scn_settings *set);
void	 scn_settings_release(struct scn_settings *set);

/* Each fills its part of S from N (the section's value in the file). */
int	 scn_load_network(struct ctx *c, struct scenario *s,
	    const struct ynode *n);		/* scenario-network.c */
int	 scn_load_workload(struct ctx *c, struct scenario *s,
	    const struct ynode *n);		/* scenario-workload.c */
/* N may be NULL: then one variant "A" with no changes. */
int	 scn_load_variants(struct ctx *c, struct scenario *s,
	    const struct ynode *n);		/* scenario-variants.c */
/* scenario-provider.c: provider, image, resources, placement at the top
 * level; image and resources of a variant or an override (WHAT names the
 * mapping N, "" at the top level). */
int	 scn_load_provider(struct ctx *c, struct scenario *s,
	    const struct ynode *root);
int	 scn_load_container(struct ctx *c, const struct ynode *n,
	    const char *what, struct scn_settings *set);
/* After the variants: the build: section N (may be NULL: then the default
 * recipe when a variant names a rev); and freeing it. */
int	 scn_load_build(struct ctx *c, struct scenario *s,
	    const struct ynode *n);		/* scenario-build.c */
void	 scn_build_release(struct scn_build *b);
/* scenario-node.c: VAR's node: the top level's TOP, then the variant's
 * OWN (either may be NULL); after network, variants and order. */
int	 scn_load_node(struct ctx *c, struct scenario *s,
	    const struct ynode *top, const struct ynode *own,
	    struct scn_variant *var);
void	 scn_node_release(struct scn_node *node);
/* network.overrides (OV, the list's node; may be NULL) on the foreign
 * nodes of VAR: binary, args and env apply (args and env are node
 * templates, checked here); devnet-node's own settings are refused at
 * their FILE:LINE:COL.  0, or -1. */
int	 scn_check_foreign_overrides(struct ctx *c, const struct scenario *s,
	    const struct ynode *ov, const struct scn_variant *var);
/* After network, duration and variants are loaded. */
int	 scn_load_events(struct ctx *c, struct scenario *s,
	    const struct ynode *n);		/* scenario-events.c */

/* After the nodes (named metrics): the compare: section
 * (scenario-compare.c). */
int	 scn_load_compare(struct ctx *c, struct scenario *s,
	    const struct ynode *n);
/* The named metrics of every variant's node (log extractors, Prometheus
 * names, prom_map's "NAME=..."), NULL-terminated; free the array only
 * (scenario-assert.c). */
const char **scn_named_metrics(const struct scenario *s, size_t *np);

/* After events and the nodes (named metrics): the assert: section
 * (scenario-assert.c), and freeing one entry's contents. */
int	 scn_load_asserts(struct ctx *c, struct scenario *s,
	    const struct ynode *n);
void	 scn_assert_release(struct scn_assert *a);

#endif
