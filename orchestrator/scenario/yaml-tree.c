/*
 * yaml-tree.c: scenario YAML text -> a small tree of scalars, mappings and
 * sequences, each node with its 1-based line and column.  The only file
 * that calls yaml_*.  Also the tree's node operations and the located
 * errors ("FILE:LINE:COL: ..." or "--set K=V: ...") every part of the
 * loader reports through.
 *
 * libyaml's event API builds the tree; anchors, aliases, tags, deep
 * nesting and duplicate keys are refused here.  Not here: what the keys
 * mean (scenario*.c), --set (scenario-set.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "scenario/scenario-internal.h"
#include "buf.h"
#include "xalloc.h"

#define SCN_MAX_DEPTH	32		/* nesting of mappings/sequences */

/* --- the tree ----------------------------------------------------------- */
void
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

struct ynode *
ynode_new(enum ytype type, int line, int col)
{
	struct ynode	*n = dn_xcalloc(1, sizeof(*n));

	n->type = type;
	n->line = line;
	n->col = col;
	return (n);
}

void
ynode_add(struct ynode *n, struct ynode *kid)
{
	n->kids = dn_xgrow(n->kids, &n->cap, n->nkids + 1, sizeof(*n->kids));
	n->kids[n->nkids++] = kid;
}

int
ynode_is_null(const struct ynode *n)
{
	return (n->type == Y_SCALAR && n->plain &&
	    (n->value[0] == '\0' || strcmp(n->value, "~") == 0 ||
	    strcmp(n->value, "null") == 0 || strcmp(n->value, "Null") == 0 ||
	    strcmp(n->value, "NULL") == 0));
}

const char *
ynode_type_name(const struct ynode *n)
{
	if (n->type == Y_MAP)
		return ("mapping");
	if (n->type == Y_SEQ)
		return ("list");
	if (ynode_is_null(n))
		return ("empty value");
	return ("scalar");
}

struct ynode *
ymap_get(const struct ynode *m, const char *key)
{
	size_t	i;

	for (i = 0; i + 1 < m->nkids; i += 2)
		if (strcmp(m->kids[i]->value, key) == 0)
			return (m->kids[i + 1]);
	return (NULL);
}

/* --- located errors ---------------------------------------------------- */
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

int
scn_fail(struct ctx *c, const struct ynode *n, const char *fmt, ...)
{
	va_list	ap;
	int	rc;

	va_start(ap, fmt);
	rc = failv(c, n, 0, 0, fmt, ap);
	va_end(ap);
	return (rc);
}

static int scn_fail_at(struct ctx *c, int line, int col, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));

/* Record the first error in C->cause at LINE:COL of the file; -1. */
static int
scn_fail_at(struct ctx *c, int line, int col, const char *fmt, ...)
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
		return (scn_fail_at(c, (int)p->problem_mark.line + 1,
		    (int)p->problem_mark.column + 1,
		    "not valid YAML: %s %s%s", p->problem ? p->problem :
		    "syntax error", p->context, hint));
	return (scn_fail_at(c, (int)p->problem_mark.line + 1,
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
			rc = scn_fail(c, keys[i], "duplicate key '%s' (first "
			    "at line %d, column %d; keep one)", keys[i]->value,
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
		return (scn_fail_at(c, (int)m->line + 1, (int)m->column + 1,
		    "anchors (&%s) are not allowed in scenarios; write the "
		    "value out", (const char *)anchor));
	if (tag != NULL && !implicit)
		return (scn_fail_at(c, (int)m->line + 1, (int)m->column + 1,
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
		return (scn_fail_at(c, line, col, "aliases (*%s) are not "
		    "allowed in scenarios; write the value out",
		    (const char *)ev->data.alias.anchor));
	case YAML_SCALAR_EVENT:
		if (refuse_anchor_tag(c, m, ev->data.scalar.anchor,
		    ev->data.scalar.tag, ev->data.scalar.tag == NULL) != 0)
			return (-1);
		if (memchr(ev->data.scalar.value, '\0',
		    ev->data.scalar.length) != NULL)
			return (scn_fail_at(c, line, col, "a value contains a "
			    "NUL character; remove it"));
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
		return (scn_fail_at(c, line, col, "unexpected YAML event"));
	}
	if (depth >= SCN_MAX_DEPTH) {
		ynode_free(n);
		return (scn_fail_at(c, line, col, "nesting deeper than %d "
		    "levels; a scenario needs at most 4", SCN_MAX_DEPTH));
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
			scn_fail(c, kid, "a key must be a plain word, not a "
			    "%s", ynode_type_name(kid));
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
int
ytree_parse(struct ctx *c, struct ynode **rootp)
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
				scn_fail_at(c, (int)e.start_mark.line + 1,
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
	if (root == NULL || ynode_is_null(root)) {
		scn_fail_at(c, 1, 1, "empty scenario; it needs at least "
		    "'name', 'duration' and 'network' (see "
		    "docs/scenarios.md)");
		goto out;
	}
	if (root->type != Y_MAP) {
		scn_fail(c, root, "the top level must be a mapping of 'key: "
		    "value' lines, not a %s (see docs/scenarios.md)",
		    ynode_type_name(root));
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
