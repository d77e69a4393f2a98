/*
 * scenario-settings.c: the settings a variant or a per-node override may
 * change (binary, rev, read_options, write_options, rocksdb, args, env;
 * rev is for variants only), and
 * the rocksdb: {options, block_cache} mapping the top level shares.  A
 * binary is resolved to an absolute path and checked to be executable.
 * Not here: which variants or overrides exist (scenario-variants.c,
 * scenario-network.c), the default binary (scenario.c).
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scenario/scenario-internal.h"
#include "xalloc.h"

static const char *const rocksdb_keys[] = { "options", "block_cache", NULL };

/* rocksdb: {options, block_cache} into *OPTS / *CACHE. */
int
scn_load_rocksdb(struct ctx *c, const struct ynode *n, const char *what,
    char **opts, uint64_t *cache)
{
	const struct ynode *v;
	char		   *w;
	int		    rc = -1;

	if (scn_check_map(c, n, what, rocksdb_keys) != 0)
		return (-1);
	if ((v = ymap_get(n, "options")) != NULL) {
		w = dn_xasprintf("%s.options", what);
		rc = scn_get_str(c, v, w, opts);
		free(w);
		if (rc != 0)
			return (-1);
	}
	if ((v = ymap_get(n, "block_cache")) != NULL) {
		w = dn_xasprintf("%s.block_cache", what);
		rc = scn_get_size(c, v, w, 1, 1ULL << 40, cache);
		free(w);
		if (rc != 0)
			return (-1);
	}
	return (0);
}

static int
valid_env_name(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return (0);
	for (; *s != '\0'; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return (0);
	return (1);
}

static int
load_binary(struct ctx *c, const struct ynode *n, const char *what,
    char **out)
{
	struct stat	 st;
	char		*abs;

	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	free(*out);
	*out = NULL;
	if (c->default_binary == NULL) {
		*out = dn_xstrdup(n->value);
		return (0);
	}
	if ((abs = realpath(n->value, NULL)) == NULL)
		return (scn_fail(c, n, "%s '%s' not found: %s (paths are "
		    "relative to the current directory; build it or fix the "
		    "path)", what, n->value, strerror(errno)));
	if (stat(abs, &st) != 0 || !S_ISREG(st.st_mode) ||
	    access(abs, X_OK) != 0) {
		free(abs);
		return (scn_fail(c, n, "%s '%s' is not an executable file "
		    "(build it or fix the path)", what, n->value));
	}
	*out = abs;
	return (0);
}

/* A variant's or an override's settings; KEYS are the accepted keys. */
int
scn_load_settings(struct ctx *c, const struct ynode *n, const char *what,
    const char *const *keys, struct scn_settings *set)
{
	const struct ynode *v;
	char		   *w = NULL;
	size_t		    i;
	int		    rc = -1;

	if (scn_check_map(c, n, what, keys) != 0)
		return (-1);
	/* "node" (variants only) is scenario-node.c's. */
#define SUB(key) (free(w), w = dn_xasprintf("%s.%s", what, key), w)
	if ((v = ymap_get(n, "binary")) != NULL &&
	    load_binary(c, v, SUB("binary"), &set->binary) != 0)
		goto out;
	if ((v = ymap_get(n, "rev")) != NULL) {
		if (scn_get_str(c, v, SUB("rev"), &set->rev) != 0)
			goto out;
		/* Handed to git as an argument: never an option. */
		if (set->rev[0] == '\0' || set->rev[0] == '-') {
			scn_fail(c, v, "%s must be a git revision (HEAD~1, a "
			    "tag, a branch, a commit id), not '%s'", w,
			    set->rev);
			goto out;
		}
	}
	if ((v = ymap_get(n, "read_options")) != NULL &&
	    scn_get_mode(c, v, SUB("read_options"), &set->read_options) != 0)
		goto out;
	if ((v = ymap_get(n, "write_options")) != NULL &&
	    scn_get_mode(c, v, SUB("write_options"), &set->write_options) != 0)
		goto out;
	if ((v = ymap_get(n, "rocksdb")) != NULL &&
	    scn_load_rocksdb(c, v, SUB("rocksdb"), &set->rocksdb_options,
	    &set->block_cache) != 0)
		goto out;
	if ((v = ymap_get(n, "args")) != NULL) {
		if (v->type != Y_SEQ) {
			scn_fail(c, v, "%s must be a list of strings, e.g. "
			    "[--foo, bar], not a %s", SUB("args"),
			    ynode_type_name(v));
			goto out;
		}
		set->args = dn_xcalloc(v->nkids + 1, sizeof(*set->args));
		for (i = 0; i < v->nkids; i++) {
			if (scn_get_str(c, v->kids[i], SUB("args"),
			    &set->args[set->nargs]) != 0)
				goto out;
			set->nargs++;
		}
	}
	if ((v = ymap_get(n, "env")) != NULL) {
		if (v->type != Y_MAP) {
			scn_fail(c, v, "%s must be a mapping of NAME: value, "
			    "not a %s", SUB("env"), ynode_type_name(v));
			goto out;
		}
		set->env = dn_xcalloc(v->nkids / 2 + 1, sizeof(*set->env));
		for (i = 0; i + 1 < v->nkids; i += 2) {
			const struct ynode *k = v->kids[i];
			const struct ynode *x = v->kids[i + 1];

			if (!valid_env_name(k->value)) {
				scn_fail(c, k, "'%s' is not a valid "
				    "environment variable name (letters, "
				    "digits, _; not starting with a digit)",
				    k->value);
				goto out;
			}
			free(w);
			w = dn_xasprintf("%s.env.%s", what, k->value);
			if (scn_want_scalar(c, x, w) != 0)
				goto out;
			set->env[set->nenv++] = dn_xasprintf("%s=%s",
			    k->value, x->value);
		}
	}
	if (scn_load_container(c, n, what, set) != 0)
		goto out;
#undef SUB
	rc = 0;
out:
	free(w);
	return (rc);
}

void
scn_settings_release(struct scn_settings *set)
{
	size_t	i;

	free(set->binary);
	free(set->rev);
	free(set->read_options);
	free(set->write_options);
	free(set->rocksdb_options);
	for (i = 0; i < set->nargs; i++)
		free(set->args[i]);
	free(set->args);
	for (i = 0; i < set->nenv; i++)
		free(set->env[i]);
	free(set->env);
	free(set->image);
	free(set->cpuset);
}
