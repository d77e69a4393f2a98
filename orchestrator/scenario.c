/*
 * scenario.c: load a scenario YAML file strictly into struct scenario.  The
 * only file that calls yaml_*.  Reference for every key: docs/scenarios.md.
 *
 * Two passes.  First libyaml's event API builds a small tree of scalars,
 * mappings and sequences, each node with its 1-based line and column;
 * anchors, aliases, tags, deep nesting and duplicate keys are refused here.
 * Then --set overrides are grafted onto the tree (marked with their origin
 * so that their errors name "--set K=V" instead of a position), and a
 * hand-written schema walk fills struct scenario, checking every key, type
 * and range.  Not here: the trial plan and node argv (plan.c).
 */
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <yaml.h>

#include "scenario.h"
#include "util.h"

#define SCN_MAX_BYTES	(1024 * 1024)	/* larger files are refused unread */
#define SCN_MAX_DEPTH	32		/* nesting of mappings/sequences */
#define SCN_MAX_VARIANTS 64
#define SCN_MAX_EVENTS	10000

/* --- the tree ----------------------------------------------------------- */
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

static void
ynode_free(struct ynode *n)
{
	size_t	i;

	if (n == NULL)
		return;
	for (i = 0; i < n->nkids; i++)
		ynode_free(n->kids[i]);
	free(n->kids);
	free(n->value);
	free(n);
}

static struct ynode *
ynode_new(enum ytype type, int line, int col)
{
	struct ynode	*n = dn_xcalloc(1, sizeof(*n));

	n->type = type;
	n->line = line;
	n->col = col;
	return (n);
}

static void
ynode_add(struct ynode *n, struct ynode *kid)
{
	if (n->nkids == n->cap) {
		n->cap = n->cap ? n->cap * 2 : 8;
		n->kids = dn_xreallocarray(n->kids, n->cap, sizeof(*n->kids));
	}
	n->kids[n->nkids++] = kid;
}

static int
is_null(const struct ynode *n)
{
	return (n->type == Y_SCALAR && n->plain &&
	    (n->value[0] == '\0' || strcmp(n->value, "~") == 0 ||
	    strcmp(n->value, "null") == 0 || strcmp(n->value, "Null") == 0 ||
	    strcmp(n->value, "NULL") == 0));
}

static const char *
type_name(const struct ynode *n)
{
	if (n->type == Y_MAP)
		return ("mapping");
	if (n->type == Y_SEQ)
		return ("list");
	if (is_null(n))
		return ("empty value");
	return ("scalar");
}

/* Record the first error, at node N (or at LINE:COL when N is NULL). */
static int
failv(struct ctx *c, const struct ynode *n, int line, int col,
    const char *fmt, va_list ap)
{
	char	*msg;

	if (c->cause != NULL)
		return (-1);
	if (vasprintf(&msg, fmt, ap) < 0)
		abort();
	if (n != NULL && n->origin != NULL)
		c->cause = dn_xasprintf("%s: %s", n->origin, msg);
	else {
		if (n != NULL) {
			line = n->line;
			col = n->col;
		}
		c->cause = dn_xasprintf("%s:%d:%d: %s", c->name, line, col,
		    msg);
	}
	free(msg);
	return (-1);
}

static int
fail(struct ctx *c, const struct ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int
fail(struct ctx *c, const struct ynode *n, const char *fmt, ...)
{
	va_list	ap;
	int	rc;

	va_start(ap, fmt);
	rc = failv(c, n, 0, 0, fmt, ap);
	va_end(ap);
	return (rc);
}

static int
fail_at(struct ctx *c, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int
fail_at(struct ctx *c, int line, int col, const char *fmt, ...)
{
	va_list	ap;
	int	rc;

	va_start(ap, fmt);
	rc = failv(c, NULL, line, col, fmt, ap);
	va_end(ap);
	return (rc);
}

/* --- pass 1: libyaml events -> tree -------------------------------------- */
static int
parser_fail(struct ctx *c, yaml_parser_t *p)
{
	const char	*hint = "";
	size_t		 at = p->problem_mark.index;

	if (at < c->len && c->text[at] == '\t')
		hint = " (tabs are not allowed in YAML indentation; use "
		    "spaces)";
	else if (p->error == YAML_READER_ERROR)
		hint = " (is this a UTF-8 text file?)";
	if (p->context != NULL)
		return (fail_at(c, (int)p->problem_mark.line + 1,
		    (int)p->problem_mark.column + 1,
		    "not valid YAML: %s %s%s", p->problem ? p->problem :
		    "syntax error", p->context, hint));
	return (fail_at(c, (int)p->problem_mark.line + 1,
	    (int)p->problem_mark.column + 1, "not valid YAML: %s%s",
	    p->problem ? p->problem : "syntax error", hint));
}

static int
next_event(struct ctx *c, yaml_parser_t *p, yaml_event_t *ev)
{
	if (!yaml_parser_parse(p, ev))
		return (parser_fail(c, p));
	return (0);
}

static int
key_cmp(const void *a, const void *b)
{
	const struct ynode *x = *(struct ynode *const *)a;
	const struct ynode *y = *(struct ynode *const *)b;
	int	r = strcmp(x->value, y->value);

	if (r != 0)
		return (r);
	if (x->line != y->line)
		return (x->line < y->line ? -1 : 1);
	return (x->col < y->col ? -1 : x->col > y->col);
}

/* Duplicate keys of map M, found by sorting (a mapping may be large). */
static int
check_duplicates(struct ctx *c, const struct ynode *m)
{
	struct ynode	**keys;
	size_t		  n = m->nkids / 2, i;
	int		  rc = 0;

	if (n < 2)
		return (0);
	keys = dn_xreallocarray(NULL, n, sizeof(*keys));
	for (i = 0; i < n; i++)
		keys[i] = m->kids[2 * i];
	qsort(keys, n, sizeof(*keys), key_cmp);
	for (i = 1; i < n; i++) {
		if (strcmp(keys[i - 1]->value, keys[i]->value) == 0) {
			rc = fail(c, keys[i], "duplicate key '%s' (first at "
			    "line %d, column %d; keep one)", keys[i]->value,
			    keys[i - 1]->line, keys[i - 1]->col);
			break;
		}
	}
	free(keys);
	return (rc);
}

static int
refuse_anchor_tag(struct ctx *c, const yaml_mark_t *m,
    const yaml_char_t *anchor, const yaml_char_t *tag, int implicit)
{
	if (anchor != NULL)
		return (fail_at(c, (int)m->line + 1, (int)m->column + 1,
		    "anchors (&%s) are not allowed in scenarios; write the "
		    "value out", (const char *)anchor));
	if (tag != NULL && !implicit)
		return (fail_at(c, (int)m->line + 1, (int)m->column + 1,
		    "tags (%s) are not allowed in scenarios; remove the tag",
		    (const char *)tag));
	return (0);
}

/* Build the node that starts with event EV (consumed by the caller). */
static int
build(struct ctx *c, yaml_parser_t *p, yaml_event_t *ev, int depth,
    struct ynode **out)
{
	const yaml_mark_t *m = &ev->start_mark;
	struct ynode	*n = NULL, *kid;
	yaml_event_t	 e;
	int		 line = (int)m->line + 1, col = (int)m->column + 1;
	int		 end;

	*out = NULL;
	switch (ev->type) {
	case YAML_ALIAS_EVENT:
		return (fail_at(c, line, col, "aliases (*%s) are not allowed "
		    "in scenarios; write the value out",
		    (const char *)ev->data.alias.anchor));
	case YAML_SCALAR_EVENT:
		if (refuse_anchor_tag(c, m, ev->data.scalar.anchor,
		    ev->data.scalar.tag, ev->data.scalar.tag == NULL) != 0)
			return (-1);
		if (memchr(ev->data.scalar.value, '\0',
		    ev->data.scalar.length) != NULL)
			return (fail_at(c, line, col, "a value contains a NUL "
			    "character; remove it"));
		n = ynode_new(Y_SCALAR, line, col);
		n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		n->value = dn_xstrndup((const char *)ev->data.scalar.value,
		    ev->data.scalar.length);
		*out = n;
		return (0);
	case YAML_SEQUENCE_START_EVENT:
		if (refuse_anchor_tag(c, m, ev->data.sequence_start.anchor,
		    ev->data.sequence_start.tag,
		    ev->data.sequence_start.implicit) != 0)
			return (-1);
		n = ynode_new(Y_SEQ, line, col);
		end = YAML_SEQUENCE_END_EVENT;
		break;
	case YAML_MAPPING_START_EVENT:
		if (refuse_anchor_tag(c, m, ev->data.mapping_start.anchor,
		    ev->data.mapping_start.tag,
		    ev->data.mapping_start.implicit) != 0)
			return (-1);
		n = ynode_new(Y_MAP, line, col);
		end = YAML_MAPPING_END_EVENT;
		break;
	default:
		return (fail_at(c, line, col, "unexpected YAML event"));
	}
	if (depth >= SCN_MAX_DEPTH) {
		ynode_free(n);
		return (fail_at(c, line, col, "nesting deeper than %d levels; "
		    "a scenario needs at most 4", SCN_MAX_DEPTH));
	}
	for (;;) {
		int	done, rc;

		if (next_event(c, p, &e) != 0)
			goto fail;
		done = (int)e.type == end;
		rc = done ? 0 : build(c, p, &e, depth + 1, &kid);
		yaml_event_delete(&e);
		if (done)
			break;
		if (rc != 0)
			goto fail;
		if (n->type == Y_MAP && n->nkids % 2 == 0 &&
		    kid->type != Y_SCALAR) {
			fail(c, kid, "a key must be a plain word, not a %s",
			    type_name(kid));
			ynode_free(kid);
			goto fail;
		}
		ynode_add(n, kid);
	}
	if (n->type == Y_MAP && check_duplicates(c, n) != 0)
		goto fail;
	*out = n;
	return (0);
fail:
	ynode_free(n);
	return (-1);
}

/* Parse the text into a tree; the root is a mapping. */
static int
parse_tree(struct ctx *c, struct ynode **rootp)
{
	yaml_parser_t	 p;
	yaml_event_t	 e;
	struct ynode	*root = NULL;
	int		 rc = -1, have = 0;

	*rootp = NULL;
	if (!yaml_parser_initialize(&p))
		abort();
	yaml_parser_set_input_string(&p, (const unsigned char *)c->text,
	    c->len);
	for (;;) {
		if (next_event(c, &p, &e) != 0)
			goto out;
		if (e.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&e);
			break;
		}
		if (e.type == YAML_STREAM_START_EVENT ||
		    e.type == YAML_DOCUMENT_END_EVENT) {
			yaml_event_delete(&e);
			continue;
		}
		if (e.type == YAML_DOCUMENT_START_EVENT) {
			if (have) {
				fail_at(c, (int)e.start_mark.line + 1,
				    (int)e.start_mark.column + 1, "a second "
				    "YAML document; a scenario file holds "
				    "one");
				yaml_event_delete(&e);
				goto out;
			}
			have = 1;
			yaml_event_delete(&e);
			continue;
		}
		if (build(c, &p, &e, 0, &root) != 0) {
			yaml_event_delete(&e);
			goto out;
		}
		yaml_event_delete(&e);
	}
	if (root == NULL || is_null(root)) {
		fail_at(c, 1, 1, "empty scenario; it needs at least 'name', "
		    "'duration' and 'network' (see docs/scenarios.md)");
		goto out;
	}
	if (root->type != Y_MAP) {
		fail(c, root, "the top level must be a mapping of 'key: "
		    "value' lines, not a %s (see docs/scenarios.md)",
		    type_name(root));
		goto out;
	}
	*rootp = root;
	root = NULL;
	rc = 0;
out:
	ynode_free(root);
	yaml_parser_delete(&p);
	return (rc);
}

/* --- --set overrides ---------------------------------------------------- */
static struct ynode *
map_get(const struct ynode *m, const char *key)
{
	size_t	i;

	for (i = 0; i + 1 < m->nkids; i += 2)
		if (strcmp(m->kids[i]->value, key) == 0)
			return (m->kids[i + 1]);
	return (NULL);
}

static int
seq_index(const struct ynode *s, const char *seg, size_t *ix)
{
	uint64_t	v;

	if (dn_parse_u64(seg, &v) != 0 || v >= s->nkids)
		return (-1);
	*ix = (size_t)v;
	return (0);
}

/* Graft SET ("a.b.c=value") onto ROOT; ORIGIN (kept alive by the caller)
 * marks what it adds. */
static int
apply_set(struct ctx *c, struct ynode *root, const char *set, char *origin)
{
	struct ynode	*n = root, *kid, *val;
	const char	*eq = strchr(set, '=');
	char		*path = NULL, *seg, *dot;
	const char	*prev = "";
	size_t		 ix;
	int		 rc = -1;

	if (eq == NULL || eq == set) {
		c->cause = dn_xasprintf("%s: expected KEY.PATH=VALUE, e.g. "
		    "--set workload.tps=100", origin);
		return (-1);
	}
	path = dn_xstrndup(set, (size_t)(eq - set));
	val = ynode_new(Y_SCALAR, 0, 0);
	val->plain = 1;
	val->value = dn_xstrdup(eq + 1);
	val->origin = origin;
	if (val->value[0] == '\0') {
		c->cause = dn_xasprintf("%s: empty value; remove the --set or "
		    "give a value", origin);
		goto out;
	}
	for (seg = path;; seg = dot + 1) {
		dot = strchr(seg, '.');
		if (dot != NULL)
			*dot = '\0';
		if (*seg == '\0') {
			c->cause = dn_xasprintf("%s: empty key in '%s'",
			    origin, set);
			goto out;
		}
		if (n->type == Y_SEQ) {
			if (seq_index(n, seg, &ix) != 0) {
				c->cause = dn_xasprintf("%s: '%s' has %zu "
				    "item(s); use an index 0..%zu", origin,
				    prev, n->nkids,
				    n->nkids ? n->nkids - 1 : 0);
				goto out;
			}
			if (dot == NULL) {
				ynode_free(n->kids[ix]);
				n->kids[ix] = val;
				val = NULL;
				break;
			}
			n = n->kids[ix];
			prev = seg;
			continue;
		}
		if (n->type != Y_MAP) {
			c->cause = dn_xasprintf("%s: cannot set '%s' inside "
			    "a single value", origin, seg);
			goto out;
		}
		kid = map_get(n, seg);
		if (dot == NULL) {
			if (kid != NULL) {
				size_t	i;

				for (i = 1; i < n->nkids; i += 2)
					if (n->kids[i] == kid)
						n->kids[i] = val;
				ynode_free(kid);
			} else {
				kid = ynode_new(Y_SCALAR, 0, 0);
				kid->plain = 1;
				kid->value = dn_xstrdup(seg);
				kid->origin = origin;
				ynode_add(n, kid);
				ynode_add(n, val);
			}
			val = NULL;
			break;
		}
		if (kid != NULL && is_null(kid)) {
			/* "B:" with nothing after it becomes a mapping */
			free(kid->value);
			kid->value = NULL;
			kid->type = Y_MAP;
		}
		if (kid == NULL) {
			kid = ynode_new(Y_SCALAR, 0, 0);
			kid->plain = 1;
			kid->value = dn_xstrdup(seg);
			kid->origin = origin;
			ynode_add(n, kid);
			kid = ynode_new(Y_MAP, 0, 0);
			kid->origin = origin;
			ynode_add(n, kid);
		}
		n = kid;
		prev = seg;
	}
	rc = 0;
out:
	ynode_free(val);
	free(path);
	return (rc);
}

/* --- pass 2: typed getters ---------------------------------------------- */
/* Optimal string alignment distance, for "did you mean". */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t	la = strlen(a), lb = strlen(b), i, j;
	size_t	d[33][33];

	if (la > 32 || lb > 32)
		return (SIZE_MAX);
	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			size_t	cost = a[i - 1] != b[j - 1];
			size_t	v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return (d[la][lb]);
}

static void
list_words(char *buf, size_t cap, const char *const *words)
{
	size_t	used = 0, i;

	buf[0] = '\0';
	for (i = 0; words[i] != NULL && used < cap; i++) {
		int	n = snprintf(buf + used, cap - used, "%s'%s'",
		    i ? ", " : "", words[i]);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* Is N a mapping whose keys are all in KEYS?  WHAT names it in messages. */
static int
check_map(struct ctx *c, const struct ynode *n, const char *what,
    const char *const *keys)
{
	size_t	i, j;

	if (n->type != Y_MAP)
		return (fail(c, n, "%s must be a mapping of 'key: value' "
		    "lines, not a %s", what, type_name(n)));
	for (i = 0; i < n->nkids; i += 2) {
		const struct ynode *k = n->kids[i];
		const char	*best = NULL;
		size_t		 bestd = SIZE_MAX;
		char		 all[512];

		for (j = 0; keys[j] != NULL; j++) {
			size_t	d;

			if (strcmp(k->value, keys[j]) == 0)
				break;
			d = edit_distance(k->value, keys[j]);
			if (d < bestd) {
				bestd = d;
				best = keys[j];
			}
		}
		if (keys[j] != NULL)
			continue;
		if (best != NULL && bestd <= 2 && bestd < strlen(k->value))
			return (fail(c, k, "unknown key '%s' in %s (did you "
			    "mean '%s'?)", k->value, what, best));
		list_words(all, sizeof(all), keys);
		return (fail(c, k, "unknown key '%s' in %s (valid keys: %s)",
		    k->value, what, all));
	}
	return (0);
}

static int
want_scalar(struct ctx *c, const struct ynode *n, const char *what)
{
	if (n->type != Y_SCALAR || is_null(n))
		return (fail(c, n, "%s must be a single value, not a %s",
		    what, type_name(n)));
	return (0);
}

static int
get_str(struct ctx *c, const struct ynode *n, const char *what, char **out)
{
	if (want_scalar(c, n, what) != 0)
		return (-1);
	free(*out);
	*out = dn_xstrdup(n->value);
	return (0);
}

/* A decimal integer in MIN..MAX, written as a plain scalar. */
static int
get_int(struct ctx *c, const struct ynode *n, const char *what, int64_t min,
    int64_t max, int64_t *out)
{
	const char	*s;
	int64_t		 v = 0;
	int		 neg = 0;

	if (want_scalar(c, n, what) != 0)
		return (-1);
	s = n->value;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (!n->plain || *s == '\0' || strspn(s, "0123456789") != strlen(s))
		return (fail(c, n, "%s must be a whole number%s (got '%s')",
		    what, n->plain ? "" : " without quotes", n->value));
	for (; *s != '\0'; s++) {
		if (v > (INT64_MAX - 9) / 10)
			return (fail(c, n, "%s is too large (got '%s'; at "
			    "most %" PRId64 ")", what, n->value, max));
		v = v * 10 + (*s - '0');
	}
	if (neg)
		v = -v;
	if (v < min || v > max)
		return (fail(c, n, "%s must be between %" PRId64 " and %"
		    PRId64 " (got %s)", what, min, max, n->value));
	*out = v;
	return (0);
}

static int
get_int32(struct ctx *c, const struct ynode *n, const char *what,
    int64_t min, int64_t max, int *out)
{
	int64_t	v;

	if (get_int(c, n, what, min, max, &v) != 0)
		return (-1);
	*out = (int)v;
	return (0);
}

static int
get_u32(struct ctx *c, const struct ynode *n, const char *what,
    int64_t min, int64_t max, uint32_t *out)
{
	int64_t	v;

	if (get_int(c, n, what, min, max, &v) != 0)
		return (-1);
	*out = (uint32_t)v;
	return (0);
}

/* A plain decimal number (no hex, inf or nan) with MIN <= v <= MAX; when
 * ABOVE, v must be > MIN. */
static int
get_double(struct ctx *c, const struct ynode *n, const char *what,
    double min, int above, double max, double *out)
{
	double	v;

	if (want_scalar(c, n, what) != 0)
		return (-1);
	if (!n->plain || strspn(n->value, "0123456789.-+eE") !=
	    strlen(n->value) || dn_parse_double(n->value, &v) != 0)
		return (fail(c, n, "%s must be a number (got '%s')", what,
		    n->value));
	if ((above && v <= min) || v < min || v > max) {
		if (above)
			return (fail(c, n, "%s must be > %g and at most %g "
			    "(got %s)", what, min, max, n->value));
		return (fail(c, n, "%s must be between %g and %g (got %s)",
		    what, min, max, n->value));
	}
	*out = v;
	return (0);
}

void
scenario_fmt_ms(char *buf, size_t cap, int64_t ms)
{
	static const struct {
		const char	*unit;
		int64_t		 ms;
	} parts[] = { { "h", 3600000 }, { "m", 60000 }, { "s", 1000 },
		{ "ms", 1 } };
	size_t	used = 0, i;

	if (cap == 0)
		return;
	buf[0] = '\0';
	if (ms <= 0) {
		snprintf(buf, cap, "%" PRId64 "ms", ms);
		return;
	}
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]) && used < cap; i++) {
		int	n;

		if (ms / parts[i].ms == 0)
			continue;
		n = snprintf(buf + used, cap - used, "%" PRId64 "%s",
		    ms / parts[i].ms, parts[i].unit);
		if (n < 0)
			break;
		used += (size_t)n;
		ms %= parts[i].ms;
	}
}

static int
get_duration(struct ctx *c, const struct ynode *n, const char *what,
    int64_t min, int64_t max, int64_t *out)
{
	const char	*why;
	char		 lo[32], hi[32];
	int64_t		 v;

	if (want_scalar(c, n, what) != 0)
		return (-1);
	if (dn_parse_duration_ms(n->value, &v, &why) != 0)
		return (fail(c, n, "%s: %s (got '%s'; write e.g. 500ms, 90s, "
		    "15m, 2h30m)", what, why, n->value));
	if (v < min || v > max) {
		scenario_fmt_ms(lo, sizeof(lo), min);
		scenario_fmt_ms(hi, sizeof(hi), max);
		return (fail(c, n, "%s must be between %s and %s (got '%s')",
		    what, lo, hi, n->value));
	}
	*out = v;
	return (0);
}

static int
get_size(struct ctx *c, const struct ynode *n, const char *what,
    uint64_t min, uint64_t max, uint64_t *out)
{
	const char	*why;
	uint64_t	 v;

	if (want_scalar(c, n, what) != 0)
		return (-1);
	if (dn_parse_size(n->value, &v, &why) != 0)
		return (fail(c, n, "%s: %s (got '%s'; write e.g. 64MiB, 1GiB)",
		    what, why, n->value));
	if (v < min || v > max)
		return (fail(c, n, "%s must be between %" PRIu64 " and %"
		    PRIu64 " bytes (got '%s')", what, min, max, n->value));
	*out = v;
	return (0);
}

static int
get_enum(struct ctx *c, const struct ynode *n, const char *what,
    const char *const *names, int *out)
{
	char	all[256];
	int	i;

	if (want_scalar(c, n, what) != 0)
		return (-1);
	for (i = 0; names[i] != NULL; i++) {
		if (strcmp(n->value, names[i]) == 0) {
			*out = i;
			return (0);
		}
	}
	list_words(all, sizeof(all), names);
	return (fail(c, n, "%s must be one of %s (got '%s')", what, all,
	    n->value));
}

static const char *const opt_modes[] = { "cached", "per-call", NULL };

static int
get_mode(struct ctx *c, const struct ynode *n, const char *what, char **out)
{
	int	i;

	if (get_enum(c, n, what, opt_modes, &i) != 0)
		return (-1);
	free(*out);
	*out = dn_xstrdup(opt_modes[i]);
	return (0);
}

/* --- pass 2: the schema ------------------------------------------------- */
static const char *const top_keys[] = { "name", "description", "duration",
	"warmup", "sample_interval", "seed", "network", "workload", "rocksdb",
	"read_options", "write_options", "variants", "repeats", "order",
	"events", NULL };
static const char *const network_keys[] = { "nodes", "block_interval",
	"accounts", "block_max_txs", "block_reads", "listen", "tcp_base_port",
	"overrides", NULL };
static const char *const workload_keys[] = { "kind", "tps", "ramp", "keys",
	"zipf_s", "read_rate", "read_keys", "reads", "cf_count", "cf_options",
	"cf_cycles", "realtime", NULL };
static const char *const ramp_keys[] = { "from", "over", NULL };
static const char *const rocksdb_keys[] = { "options", "block_cache", NULL };
static const char *const settings_keys[] = { "binary", "read_options",
	"write_options", "rocksdb", "args", "env", NULL };
static const char *const override_keys[] = { "node", "binary",
	"read_options", "write_options", "rocksdb", "args", "env", NULL };
static const char *const event_keys[] = { "at", "action", "node", "variant",
	NULL };
static const char *const wl_names[] = { "transfer", "readrandom", "cf-churn",
	"idle", NULL };
static const char *const dist_names[] = { "uniform", "zipf", NULL };
static const char *const bool_names[] = { "false", "true", NULL };
static const char *const order_names[] = { "abba", "concurrent", NULL };
static const char *const action_names[] = { "kill", "term", "stop", "cont",
	"restart", NULL };
static const char *const listen_names[] = { "ipc", "tcp", NULL };

#define DAY_MS		(24 * 3600 * 1000LL)
#define MAX_TPS		1000000.0

/* rocksdb: {options, block_cache} into *OPTS / *CACHE. */
static int
load_rocksdb(struct ctx *c, const struct ynode *n, const char *what,
    char **opts, uint64_t *cache)
{
	const struct ynode *v;
	char		   *w;
	int		    rc = -1;

	if (check_map(c, n, what, rocksdb_keys) != 0)
		return (-1);
	if ((v = map_get(n, "options")) != NULL) {
		w = dn_xasprintf("%s.options", what);
		rc = get_str(c, v, w, opts);
		free(w);
		if (rc != 0)
			return (-1);
	}
	if ((v = map_get(n, "block_cache")) != NULL) {
		w = dn_xasprintf("%s.block_cache", what);
		rc = get_size(c, v, w, 1, 1ULL << 40, cache);
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

	if (want_scalar(c, n, what) != 0)
		return (-1);
	free(*out);
	*out = NULL;
	if (c->default_binary == NULL) {
		*out = dn_xstrdup(n->value);
		return (0);
	}
	if ((abs = realpath(n->value, NULL)) == NULL)
		return (fail(c, n, "%s '%s' not found: %s (paths are relative "
		    "to the current directory; build it or fix the path)",
		    what, n->value, strerror(errno)));
	if (stat(abs, &st) != 0 || !S_ISREG(st.st_mode) ||
	    access(abs, X_OK) != 0) {
		free(abs);
		return (fail(c, n, "%s '%s' is not an executable file (build "
		    "it or fix the path)", what, n->value));
	}
	*out = abs;
	return (0);
}

/* A variant's or an override's settings; KEYS are the accepted keys. */
static int
load_settings(struct ctx *c, const struct ynode *n, const char *what,
    const char *const *keys, struct scn_settings *set)
{
	const struct ynode *v;
	char		   *w = NULL;
	size_t		    i;
	int		    rc = -1;

	if (check_map(c, n, what, keys) != 0)
		return (-1);
#define SUB(key) (free(w), w = dn_xasprintf("%s.%s", what, key), w)
	if ((v = map_get(n, "binary")) != NULL &&
	    load_binary(c, v, SUB("binary"), &set->binary) != 0)
		goto out;
	if ((v = map_get(n, "read_options")) != NULL &&
	    get_mode(c, v, SUB("read_options"), &set->read_options) != 0)
		goto out;
	if ((v = map_get(n, "write_options")) != NULL &&
	    get_mode(c, v, SUB("write_options"), &set->write_options) != 0)
		goto out;
	if ((v = map_get(n, "rocksdb")) != NULL &&
	    load_rocksdb(c, v, SUB("rocksdb"), &set->rocksdb_options,
	    &set->block_cache) != 0)
		goto out;
	if ((v = map_get(n, "args")) != NULL) {
		if (v->type != Y_SEQ) {
			fail(c, v, "%s must be a list of strings, e.g. "
			    "[--foo, bar], not a %s", SUB("args"),
			    type_name(v));
			goto out;
		}
		set->args = dn_xcalloc(v->nkids + 1, sizeof(*set->args));
		for (i = 0; i < v->nkids; i++) {
			if (get_str(c, v->kids[i], SUB("args"),
			    &set->args[set->nargs]) != 0)
				goto out;
			set->nargs++;
		}
	}
	if ((v = map_get(n, "env")) != NULL) {
		if (v->type != Y_MAP) {
			fail(c, v, "%s must be a mapping of NAME: value, not "
			    "a %s", SUB("env"), type_name(v));
			goto out;
		}
		set->env = dn_xcalloc(v->nkids / 2 + 1, sizeof(*set->env));
		for (i = 0; i + 1 < v->nkids; i += 2) {
			const struct ynode *k = v->kids[i];
			const struct ynode *x = v->kids[i + 1];

			if (!valid_env_name(k->value)) {
				fail(c, k, "'%s' is not a valid environment "
				    "variable name (letters, digits, _; not "
				    "starting with a digit)", k->value);
				goto out;
			}
			free(w);
			w = dn_xasprintf("%s.env.%s", what, k->value);
			if (want_scalar(c, x, w) != 0)
				goto out;
			set->env[set->nenv++] = dn_xasprintf("%s=%s",
			    k->value, x->value);
		}
	}
#undef SUB
	rc = 0;
out:
	free(w);
	return (rc);
}

static int
load_network(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	const struct ynode *v, *ov, *nodev = NULL;
	char		   *w;
	size_t		    i, j;
	int		    li = 0;

	if (check_map(c, n, "network", network_keys) != 0)
		return (-1);
	if ((v = map_get(n, "nodes")) == NULL)
		return (fail(c, n, "network needs 'nodes' (how many "
		    "devnet-node processes, 1..256)"));
	if (get_int32(c, v, "network.nodes", 1, 256, &s->network.nodes) != 0)
		return (-1);
	if ((v = map_get(n, "block_interval")) != NULL &&
	    get_duration(c, v, "network.block_interval", 10, 3600000,
	    &s->network.block_interval_ms) != 0)
		return (-1);
	if ((v = map_get(n, "accounts")) != NULL &&
	    get_u32(c, v, "network.accounts", 2, 100000000,
	    &s->network.accounts) != 0)
		return (-1);
	if ((v = map_get(n, "block_max_txs")) != NULL &&
	    get_u32(c, v, "network.block_max_txs", 1, 1000000,
	    &s->network.block_max_txs) != 0)
		return (-1);
	if ((v = map_get(n, "block_reads")) != NULL &&
	    get_u32(c, v, "network.block_reads", 0, 10000000,
	    &s->network.block_reads) != 0)
		return (-1);
	if ((v = map_get(n, "listen")) != NULL &&
	    get_enum(c, v, "network.listen", listen_names, &li) != 0)
		return (-1);
	free(s->network.listen);
	s->network.listen = dn_xstrdup(listen_names[li]);
	v = map_get(n, "tcp_base_port");
	if (li == 1 && v == NULL)
		return (fail(c, map_get(n, "listen"), "network.listen tcp "
		    "needs network.tcp_base_port (nodes listen on 127.0.0.1, "
		    "two ports per node from there)"));
	if (li == 0 && v != NULL)
		return (fail(c, v, "network.tcp_base_port only applies with "
		    "'listen: tcp'; remove it or set listen"));
	if (v != NULL && get_int32(c, v, "network.tcp_base_port", 1024,
	    65535 - 2 * s->network.nodes + 1, &s->network.tcp_base_port) != 0)
		return (-1);
	if ((ov = map_get(n, "overrides")) == NULL)
		return (0);
	if (ov->type != Y_SEQ)
		return (fail(c, ov, "network.overrides must be a list of "
		    "{node: K, ...settings}, not a %s", type_name(ov)));
	s->network.overrides = dn_xcalloc(ov->nkids ? ov->nkids : 1,
	    sizeof(*s->network.overrides));
	for (i = 0; i < ov->nkids; i++) {
		struct scn_override *o = &s->network.overrides[i];
		int		     rc;

		s->network.noverrides++;
		w = dn_xasprintf("network.overrides[%zu]", i);
		rc = load_settings(c, ov->kids[i], w, override_keys, &o->set);
		if (rc == 0 && (nodev = map_get(ov->kids[i], "node")) == NULL)
			rc = fail(c, ov->kids[i], "%s needs 'node' (the index "
			    "of the node it changes)", w);
		free(w);
		if (rc != 0 || get_int32(c, nodev, "network.overrides[].node",
		    0, s->network.nodes - 1, &o->node) != 0)
			return (-1);
		for (j = 0; j < i; j++)
			if (s->network.overrides[j].node == o->node)
				return (fail(c, nodev, "node %d already has "
				    "an override (overrides[%zu]); merge them",
				    o->node, j));
	}
	return (0);
}

static int
load_workload(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	const struct ynode *v, *tps, *r;
	int64_t		    i64;
	int		    k;

	if (check_map(c, n, "workload", workload_keys) != 0)
		return (-1);
	if ((v = map_get(n, "kind")) == NULL)
		return (fail(c, n, "workload needs 'kind' (transfer, "
		    "readrandom, cf-churn or idle)"));
	if (get_enum(c, v, "workload.kind", wl_names, &k) != 0)
		return (-1);
	s->workload.kind = (enum scn_workload)k;
	tps = map_get(n, "tps");
	if (tps != NULL && get_double(c, tps, "workload.tps", 0,
	    k == SCN_WL_TRANSFER, MAX_TPS, &s->workload.tps) != 0)
		return (-1);
	if (k == SCN_WL_TRANSFER && tps == NULL)
		return (fail(c, n, "workload kind transfer needs 'tps' (total "
		    "transactions per second, > 0)"));
	if (k == SCN_WL_IDLE && s->workload.tps != 0)
		return (fail(c, tps, "workload kind idle sends no "
		    "transactions; remove tps or set it to 0"));
	if ((r = map_get(n, "ramp")) != NULL) {
		if (check_map(c, r, "workload.ramp", ramp_keys) != 0)
			return (-1);
		if (s->workload.tps == 0)
			return (fail(c, r, "workload.ramp needs a tps > 0 to "
			    "ramp to"));
		if ((v = map_get(r, "from")) == NULL ||
		    map_get(r, "over") == NULL)
			return (fail(c, r, "workload.ramp needs 'from' (TPS) "
			    "and 'over' (a duration)"));
		if (get_double(c, v, "workload.ramp.from", 0, 0, MAX_TPS,
		    &s->workload.ramp_from_tps) != 0 ||
		    get_duration(c, map_get(r, "over"), "workload.ramp.over",
		    1, 30 * DAY_MS, &s->workload.ramp_ms) != 0)
			return (-1);
	}
	k = 0;
	if ((v = map_get(n, "realtime")) != NULL &&
	    get_enum(c, v, "workload.realtime", bool_names, &k) != 0)
		return (-1);
	s->workload.realtime = k;
	k = SCN_DIST_UNIFORM;
	if ((v = map_get(n, "keys")) != NULL &&
	    get_enum(c, v, "workload.keys", dist_names, &k) != 0)
		return (-1);
	s->workload.dist = (enum scn_dist)k;
	if ((v = map_get(n, "zipf_s")) != NULL) {
		if (s->workload.dist != SCN_DIST_ZIPF)
			return (fail(c, v, "workload.zipf_s only applies with "
			    "'keys: zipf'"));
		if (get_double(c, v, "workload.zipf_s", 0, 1, 100,
		    &s->workload.zipf_s) != 0)
			return (-1);
	}
	if ((v = map_get(n, "read_rate")) != NULL) {
		if (s->workload.kind != SCN_WL_READRANDOM)
			return (fail(c, v, "workload.read_rate only applies "
			    "to kind readrandom"));
		if (get_double(c, v, "workload.read_rate", 0, 0, 1e9,
		    &s->workload.read_rate) != 0)
			return (-1);
	}
	if ((v = map_get(n, "read_keys")) != NULL) {
		if (s->workload.kind != SCN_WL_READRANDOM)
			return (fail(c, v, "workload.read_keys only applies "
			    "to kind readrandom"));
		if (get_int(c, v, "workload.read_keys", 1, 1000000000,
		    &i64) != 0)
			return (-1);
		s->workload.read_keys = (uint64_t)i64;
	}
	if ((v = map_get(n, "reads")) != NULL) {
		if (s->workload.kind != SCN_WL_READRANDOM)
			return (fail(c, v, "workload.reads only applies "
			    "to kind readrandom"));
		if (get_int(c, v, "workload.reads", 1, INT64_MAX, &i64) != 0)
			return (-1);
		s->workload.reads = (uint64_t)i64;
	}
	if ((v = map_get(n, "cf_cycles")) != NULL) {
		if (s->workload.kind != SCN_WL_CF_CHURN)
			return (fail(c, v, "workload.cf_cycles only applies "
			    "to kind cf-churn"));
		if (get_u32(c, v, "workload.cf_cycles", 1, 1000000000,
		    &s->workload.cf_cycles) != 0)
			return (-1);
	}
	if ((v = map_get(n, "cf_count")) != NULL) {
		if (s->workload.kind != SCN_WL_CF_CHURN)
			return (fail(c, v, "workload.cf_count only applies "
			    "to kind cf-churn"));
		if (get_u32(c, v, "workload.cf_count", 1, 100000,
		    &s->workload.cf_count) != 0)
			return (-1);
	}
	if ((v = map_get(n, "cf_options")) != NULL) {
		if (s->workload.kind != SCN_WL_CF_CHURN)
			return (fail(c, v, "workload.cf_options only applies "
			    "to kind cf-churn"));
		if (get_str(c, v, "workload.cf_options",
		    &s->workload.cf_options) != 0)
			return (-1);
	}
	return (0);
}

static int
valid_variant_name(const char *s)
{
	size_t	n = strlen(s);

	return (n > 0 && n <= 64 && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_-") == n);
}

static int
load_variants(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	size_t	i;
	char	*w;
	int	 rc;

	if (n == NULL) {
		s->variants = dn_xcalloc(1, sizeof(*s->variants));
		s->variants[0].name = dn_xstrdup("A");
		s->nvariants = 1;
		return (0);
	}
	if (n->type != Y_MAP || n->nkids == 0)
		return (fail(c, n, "variants must be a mapping of NAME: "
		    "{settings} with at least one variant, e.g. A: "
		    "{read_options: per-call}"));
	if (n->nkids / 2 > SCN_MAX_VARIANTS)
		return (fail(c, n->kids[2 * SCN_MAX_VARIANTS], "more than %d "
		    "variants; split the scenario", SCN_MAX_VARIANTS));
	s->variants = dn_xcalloc(n->nkids / 2, sizeof(*s->variants));
	for (i = 0; i + 1 < n->nkids; i += 2) {
		const struct ynode *k = n->kids[i], *v = n->kids[i + 1];
		struct scn_variant *var = &s->variants[s->nvariants++];

		if (!valid_variant_name(k->value))
			return (fail(c, k, "variant name '%s' must be 1..64 "
			    "letters, digits, '_' or '-'", k->value));
		var->name = dn_xstrdup(k->value);
		if (is_null(v))
			continue;	/* "A:" alone: no changes */
		w = dn_xasprintf("variants.%s", k->value);
		rc = load_settings(c, v, w, settings_keys, &var->set);
		free(w);
		if (rc != 0)
			return (-1);
	}
	return (0);
}

static int
load_events(struct ctx *c, struct scenario *s, const struct ynode *n)
{
	size_t	i, j;
	int	a;

	if (n->type != Y_SEQ)
		return (fail(c, n, "events must be a list of {at, action, "
		    "node}, not a %s", type_name(n)));
	if (n->nkids > SCN_MAX_EVENTS)
		return (fail(c, n->kids[SCN_MAX_EVENTS], "more than %d "
		    "events; split the scenario", SCN_MAX_EVENTS));
	s->events = dn_xcalloc(n->nkids ? n->nkids : 1, sizeof(*s->events));
	for (i = 0; i < n->nkids; i++) {
		const struct ynode *e = n->kids[i], *v;
		struct scn_event   *ev = &s->events[s->nevents++];

		if (check_map(c, e, "events[]", event_keys) != 0)
			return (-1);
		if (map_get(e, "at") == NULL || map_get(e, "action") == NULL ||
		    map_get(e, "node") == NULL)
			return (fail(c, e, "an event needs 'at', 'action' and "
			    "'node', e.g. {at: 30s, action: kill, node: 1}"));
		v = map_get(e, "at");
		if (get_duration(c, v, "events[].at", 0, 30 * DAY_MS,
		    &ev->at_ms) != 0)
			return (-1);
		if (ev->at_ms >= s->duration_ms)
			return (fail(c, v, "event at '%s' is not before the "
			    "end of the run (duration %" PRId64 " ms); move "
			    "it earlier", v->value, s->duration_ms));
		if (get_enum(c, map_get(e, "action"), "events[].action",
		    action_names, &a) != 0)
			return (-1);
		ev->action = (enum scn_action)a;
		if (get_int32(c, map_get(e, "node"), "events[].node", 0,
		    s->network.nodes - 1, &ev->node) != 0)
			return (-1);
		if ((v = map_get(e, "variant")) == NULL)
			continue;
		if (want_scalar(c, v, "events[].variant") != 0)
			return (-1);
		for (j = 0; j < s->nvariants; j++)
			if (strcmp(s->variants[j].name, v->value) == 0)
				break;
		if (j == s->nvariants)
			return (fail(c, v, "event names variant '%s', which "
			    "is not in variants", v->value));
		ev->variant = dn_xstrdup(v->value);
	}
	return (0);
}

static int
load_top(struct ctx *c, struct scenario *s, const struct ynode *root)
{
	const struct ynode *v;
	int64_t		    i64;
	int		    k;

	if (check_map(c, root, "the scenario", top_keys) != 0)
		return (-1);
	if ((v = map_get(root, "name")) == NULL)
		return (fail(c, root, "the scenario needs a 'name'"));
	if (get_str(c, v, "name", &s->name) != 0)
		return (-1);
	if (s->name[0] == '\0')
		return (fail(c, v, "name must not be empty"));
	if ((v = map_get(root, "description")) != NULL &&
	    get_str(c, v, "description", &s->description) != 0)
		return (-1);
	if ((v = map_get(root, "duration")) == NULL)
		return (fail(c, root, "the scenario needs a 'duration' (e.g. "
		    "10s, 15m, 2h30m)"));
	if (get_duration(c, v, "duration", 1, 30 * DAY_MS,
	    &s->duration_ms) != 0)
		return (-1);
	if ((v = map_get(root, "warmup")) != NULL) {
		if (get_duration(c, v, "warmup", 0, 30 * DAY_MS,
		    &s->warmup_ms) != 0)
			return (-1);
		if (s->warmup_ms >= s->duration_ms)
			return (fail(c, v, "warmup (%s) must be shorter than "
			    "duration", v->value));
	}
	if ((v = map_get(root, "sample_interval")) != NULL &&
	    get_duration(c, v, "sample_interval", 100, 3600000,
	    &s->sample_interval_ms) != 0)
		return (-1);
	if (s->sample_interval_ms > s->duration_ms)
		return (fail(c, v != NULL ? v : map_get(root, "duration"),
		    "sample_interval must not exceed duration (a run needs at "
		    "least one sample)"));
	if ((v = map_get(root, "seed")) != NULL) {
		if (get_int(c, v, "seed", 0, INT64_MAX, &i64) != 0)
			return (-1);
		s->seed = (uint64_t)i64;
	}
	if ((v = map_get(root, "network")) == NULL)
		return (fail(c, root, "the scenario needs 'network' with at "
		    "least 'nodes'"));
	if (load_network(c, s, v) != 0)
		return (-1);
	if ((v = map_get(root, "workload")) != NULL) {
		if (load_workload(c, s, v) != 0)
			return (-1);
	}
	if (s->workload.ramp_ms > s->duration_ms)
		return (fail(c, map_get(map_get(root, "workload"), "ramp"),
		    "workload.ramp.over must not exceed duration"));
	if ((v = map_get(root, "rocksdb")) != NULL &&
	    load_rocksdb(c, v, "rocksdb", &s->rocksdb_options,
	    &s->block_cache) != 0)
		return (-1);
	if ((v = map_get(root, "read_options")) != NULL &&
	    get_mode(c, v, "read_options", &s->read_options) != 0)
		return (-1);
	if ((v = map_get(root, "write_options")) != NULL &&
	    get_mode(c, v, "write_options", &s->write_options) != 0)
		return (-1);
	if (load_variants(c, s, map_get(root, "variants")) != 0)
		return (-1);
	if ((v = map_get(root, "repeats")) != NULL &&
	    get_int32(c, v, "repeats", 1, 1000, &s->repeats) != 0)
		return (-1);
	k = SCN_ORDER_ABBA;
	if ((v = map_get(root, "order")) != NULL &&
	    get_enum(c, v, "order", order_names, &k) != 0)
		return (-1);
	s->order = (enum scn_order)k;
	if (s->order == SCN_ORDER_CONCURRENT &&
	    s->network.tcp_base_port != 0 && s->network.tcp_base_port +
	    2 * s->network.nodes * (int)s->nvariants > 65536)
		return (fail(c, map_get(map_get(root, "network"),
		    "tcp_base_port"), "network.tcp_base_port %d leaves too "
		    "few ports for %zu concurrent devnets of %d nodes (2 "
		    "ports per node); lower it", s->network.tcp_base_port,
		    s->nvariants, s->network.nodes));
	if ((v = map_get(root, "events")) != NULL && load_events(c, s, v) != 0)
		return (-1);
	return (0);
}

/* Every variant runs a binary: its own, or the default one. */
static int
resolve_binaries(struct ctx *c, struct scenario *s)
{
	struct stat	 st;
	char		*abs;
	size_t		 i;

	if (c->default_binary == NULL)
		return (0);
	for (i = 0; i < s->nvariants; i++) {
		if (s->variants[i].set.binary != NULL)
			continue;
		if ((abs = realpath(c->default_binary, NULL)) == NULL ||
		    stat(abs, &st) != 0 || !S_ISREG(st.st_mode) ||
		    access(abs, X_OK) != 0) {
			free(abs);
			c->cause = dn_xasprintf("%s: node binary '%s' is "
			    "missing or not executable (build devnet-node, "
			    "or set variants.%s.binary)", c->name,
			    c->default_binary, s->variants[i].name);
			return (-1);
		}
		s->variants[i].set.binary = abs;
	}
	return (0);
}

static void
settings_release(struct scn_settings *set)
{
	size_t	i;

	free(set->binary);
	free(set->read_options);
	free(set->write_options);
	free(set->rocksdb_options);
	for (i = 0; i < set->nargs; i++)
		free(set->args[i]);
	free(set->args);
	for (i = 0; i < set->nenv; i++)
		free(set->env[i]);
	free(set->env);
}

void
scenario_free(struct scenario *s)
{
	size_t	i;

	if (s == NULL)
		return;
	free(s->path);
	free(s->text);
	free(s->name);
	free(s->description);
	free(s->network.listen);
	for (i = 0; i < s->network.noverrides; i++)
		settings_release(&s->network.overrides[i].set);
	free(s->network.overrides);
	free(s->workload.cf_options);
	free(s->rocksdb_options);
	free(s->read_options);
	free(s->write_options);
	for (i = 0; i < s->nvariants; i++) {
		free(s->variants[i].name);
		settings_release(&s->variants[i].set);
	}
	free(s->variants);
	for (i = 0; i < s->nevents; i++)
		free(s->events[i].variant);
	free(s->events);
	free(s);
}

int
scenario_load_buffer(struct scenario **sp, const char *name, const char *buf,
    size_t len, char *const *sets, size_t nsets, const char *default_binary,
    char **cause)
{
	struct ctx	  c = { .name = name, .text = buf, .len = len,
			    .default_binary = default_binary };
	struct scenario	 *s = NULL;
	struct ynode	 *root = NULL;
	char		**origins = NULL;
	size_t		  i;
	int		  rc = -1;

	*sp = NULL;
	*cause = NULL;
	if (len > SCN_MAX_BYTES) {
		c.cause = dn_xasprintf("%s: %zu bytes is too large for a "
		    "scenario (at most 1 MiB); is it the right file?", name,
		    len);
		goto out;
	}
	for (i = 0; i < len && strchr(" \t\r\n", buf[i]) != NULL &&
	    buf[i] != '\0'; i++)
		continue;
	if (i == len) {
		c.cause = dn_xasprintf("%s:1:1: empty scenario; it needs at "
		    "least 'name', 'duration' and 'network' (see "
		    "docs/scenarios.md)", name);
		goto out;
	}
	if (memchr(buf, '\0', len) != NULL) {
		const char *z = memchr(buf, '\0', len);
		int	    line = 1, col = 1;
		const char *q;

		for (q = buf; q < z; q++, col++)
			if (*q == '\n') {
				line++;
				col = 0;
			}
		c.cause = dn_xasprintf("%s:%d:%d: a NUL byte; a scenario is a "
		    "YAML text file, is it the right file?", name, line, col);
		goto out;
	}
	if (parse_tree(&c, &root) != 0)
		goto out;
	origins = dn_xcalloc(nsets ? nsets : 1, sizeof(*origins));
	for (i = 0; i < nsets; i++) {
		origins[i] = dn_xasprintf("--set %s", sets[i]);
		if (apply_set(&c, root, sets[i], origins[i]) != 0)
			goto out;
	}
	s = dn_xcalloc(1, sizeof(*s));
	s->path = dn_xstrdup(name);
	s->text = dn_xstrndup(buf, len);
	s->sample_interval_ms = 1000;
	s->seed = 1;
	s->network.block_interval_ms = 1000;
	s->network.accounts = 10000;
	s->network.block_max_txs = 10000;
	s->network.listen = dn_xstrdup("ipc");
	s->workload.kind = SCN_WL_IDLE;
	s->workload.zipf_s = 1.1;
	s->workload.cf_count = 200;
	s->read_options = dn_xstrdup("cached");
	s->write_options = dn_xstrdup("cached");
	s->repeats = 1;
	if (load_top(&c, s, root) != 0 || resolve_binaries(&c, s) != 0)
		goto out;
	*sp = s;
	s = NULL;
	rc = 0;
out:
	if (rc != 0)
		*cause = c.cause != NULL ? c.cause :
		    dn_xasprintf("%s: invalid scenario", name);
	else
		free(c.cause);
	scenario_free(s);
	ynode_free(root);
	for (i = 0; origins != NULL && i < nsets; i++)
		free(origins[i]);
	free(origins);
	return (rc);
}

int
scenario_load(struct scenario **sp, const char *path, char *const *sets,
    size_t nsets, const char *default_binary, char **cause)
{
	struct stat	 st;
	char		*buf = NULL;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd, rc = -1;

	*sp = NULL;
	*cause = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		*cause = dn_xasprintf("%s: cannot open: %s", path,
		    strerror(errno));
		return (-1);
	}
	if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		*cause = dn_xasprintf("%s: not a scenario file (a directory?)",
		    path);
		goto out;
	}
	if (S_ISREG(st.st_mode) && st.st_size > SCN_MAX_BYTES) {
		*cause = dn_xasprintf("%s: %lld bytes is too large for a "
		    "scenario (at most 1 MiB); is it the right file?", path,
		    (long long)st.st_size);
		goto out;
	}
	/* Read at most one byte past the limit: pipes have no size. */
	buf = dn_xmalloc(SCN_MAX_BYTES + 2);
	while (len < SCN_MAX_BYTES + 1) {
		n = read(fd, buf + len, SCN_MAX_BYTES + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*cause = dn_xasprintf("%s: cannot read: %s", path,
			    strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	rc = scenario_load_buffer(sp, path, buf, len, sets, nsets,
	    default_binary, cause);
out:
	free(buf);
	close(fd);
	return (rc);
}
