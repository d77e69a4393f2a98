/*
 * json-path.c: one number out of a JSON document by a path (json-path.h).
 * A walk, not a parse: at each step of the path the object's members or
 * the array's elements are passed over by their brackets and quotes
 * until the wanted one, so a page with many fields costs one pass per
 * field over what comes before it, and nothing is allocated.  Nesting is
 * followed with a counter, not recursion: a hostile page cannot exhaust
 * the stack (tools/fuzz/fuzz-json.c).
 *
 * Not here: fetching the page (http.c), what the numbers mean (the
 * probe's scrape.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-path.h"

#define KEY_MAX		256

struct step {
	int		 index;		/* 1: [N]; 0: a member */
	size_t		 n;		/* the index */
	char		 key[KEY_MAX];	/* the member's name, decoded */
	size_t		 klen;
};

struct walk {
	const char	*doc, *p, *end;
	const char	*path;
	size_t		 at;		/* path bytes walked so far */
	char		*err;
	size_t		 errlen;
};

static int
name_char(int c)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '@' ||
	    c == '-');
}

/* The next step of *PP into *S; *PP moves past it.  1 for a step, 0 at
 * the end, -1 with *ERR. */
static int
next_step(const char **pp, struct step *s, int first, const char **err)
{
	const char	*p = *pp;
	char		*end;

	if (*p == '\0')
		return (0);
	memset(s, 0, sizeof(*s));
	if (!first && *p == '.')
		p++;
	else if (!first && *p != '[') {
		*err = "expected '.' or '[' between steps";
		return (-1);
	} else if (*p == '[' && p[1] == '"') {
		for (p += 2; *p != '"'; p++) {
			if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
				p++;
			if (*p == '\0') {
				*err = "a quoted key has no closing quote";
				return (-1);
			}
			if (s->klen + 1 >= KEY_MAX) {
				*err = "a key is over 255 bytes";
				return (-1);
			}
			s->key[s->klen++] = *p;
		}
		if (p[1] != ']') {
			*err = "a quoted key must end with '\"]'";
			return (-1);
		}
		*pp = p + 2;
		return (1);
	} else if (*p == '[') {
		if (p[1] < '0' || p[1] > '9') {
			*err = "an index must be [N], N a number from 0, or "
			    "a key [\"name\"]";
			return (-1);
		}
		s->index = 1;
		s->n = strtoul(p + 1, &end, 10);
		if (*end != ']' || end - p > 10) {
			*err = "an index must be [N], N a number from 0";
			return (-1);
		}
		*pp = end + 1;
		return (1);
	}
	while (name_char((unsigned char)*p)) {
		if (s->klen + 1 >= KEY_MAX) {
			*err = "a key is over 255 bytes";
			return (-1);
		}
		s->key[s->klen++] = *p++;
	}
	if (s->klen == 0) {
		*err = "an empty key (write [\"name\"] for a name with other "
		    "characters)";
		return (-1);
	}
	*pp = p;
	return (1);
}

int
dn_json_path_check(const char *path, const char **err)
{
	struct step	s;
	const char	*p = path;
	int		rv, first = 1;

	if (path == NULL || *path == '\0') {
		*err = "an empty path";
		return (-1);
	}
	while ((rv = next_step(&p, &s, first, err)) == 1)
		first = 0;
	return (rv);
}

/* --- the document -------------------------------------------------------- */

static void
fail(struct walk *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
fail(struct walk *w, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(w->err, w->errlen, fmt, ap);
	va_end(ap);
}

static void
malformed(struct walk *w)
{
	fail(w, "malformed JSON at byte %zu", (size_t)(w->p - w->doc));
}

static void
ws(struct walk *w)
{
	while (w->p < w->end && (*w->p == ' ' || *w->p == '\t' ||
	    *w->p == '\n' || *w->p == '\r'))
		w->p++;
}

/* Past the string at w->p (its opening quote). */
static int
skip_string(struct walk *w)
{
	for (w->p++; w->p < w->end; w->p++) {
		if (*w->p == '\\')
			w->p++;
		else if (*w->p == '"') {
			w->p++;
			return (0);
		}
	}
	malformed(w);
	return (-1);
}

static int
scalar_char(int c)
{
	return (c != ',' && c != '}' && c != ']' && c != ' ' && c != '\t' &&
	    c != '\n' && c != '\r' && c != ':' && c != '"' && c != '{' &&
	    c != '[');
}

/* Past the value at w->p (after blanks). */
static int
skip_value(struct walk *w)
{
	size_t		depth = 0;
	const char	*start;

	ws(w);
	if (w->p >= w->end) {
		malformed(w);
		return (-1);
	}
	if (*w->p == '"')
		return (skip_string(w));
	if (*w->p != '{' && *w->p != '[') {
		for (start = w->p; w->p < w->end &&
		    scalar_char((unsigned char)*w->p); w->p++)
			;
		if (w->p == start) {
			malformed(w);
			return (-1);
		}
		return (0);
	}
	while (w->p < w->end) {
		if (*w->p == '"') {
			if (skip_string(w) != 0)
				return (-1);
			continue;
		}
		if (*w->p == '{' || *w->p == '[')
			depth++;
		else if (*w->p == '}' || *w->p == ']') {
			if (--depth == 0) {
				w->p++;
				return (0);
			}
		}
		w->p++;
	}
	malformed(w);
	return (-1);
}

/* 1 if the JSON string at w->p (its opening quote) is KEY; w->p moves
 * past it either way.  -1 when malformed. */
static int
key_is(struct walk *w, const struct step *s)
{
	size_t	i = 0;
	int	same = 1, c;

	for (w->p++; w->p < w->end && *w->p != '"'; w->p++) {
		c = (unsigned char)*w->p;
		if (c == '\\') {
			if (++w->p >= w->end)
				break;
			switch (*w->p) {
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':	/* ASCII only; others never match */
				if (w->end - w->p < 5) {
					malformed(w);
					return (-1);
				}
				c = (int)strtol((char[]){ w->p[1], w->p[2],
				    w->p[3], w->p[4], 0 }, NULL, 16);
				if (c == 0 || c > 0x7f)
					same = 0;
				w->p += 4;
				break;
			default: c = (unsigned char)*w->p; break;
			}
		}
		if (i >= s->klen || s->key[i] != c)
			same = 0;
		i++;
	}
	if (w->p >= w->end) {
		malformed(w);
		return (-1);
	}
	w->p++;
	return (same && i == s->klen);
}

/* The path walked so far, for messages: 'a.b' or "the top". */
static const char *
where(const struct walk *w, char *buf, size_t len)
{
	if (w->at == 0)
		return ("the top");
	snprintf(buf, len, "'%.*s'", (int)w->at, w->path);
	return (buf);
}

/* What the value at w->p is, for messages. */
static const char *
kind_of(const struct walk *w)
{
	switch (w->p < w->end ? *w->p : 0) {
	case '{': return ("an object");
	case '[': return ("an array");
	case '"': return ("a string");
	case 'n': return ("null");
	default: return ("not a JSON value");
	}
}

/* Move w->p to member S of the object there. */
static int
enter_member(struct walk *w, const struct step *s)
{
	char		 buf[300], has[200];
	const char	*k0;
	size_t		 nhas = 0, used = 0;
	int		 rv, n;

	w->p++;
	has[0] = '\0';
	for (;;) {
		ws(w);
		if (w->p < w->end && *w->p == '}')
			break;
		if (w->p >= w->end || *w->p != '"') {
			malformed(w);
			return (-1);
		}
		k0 = w->p + 1;
		if ((rv = key_is(w, s)) < 0)
			return (-1);
		/* the first members by name, for a path that misses */
		if (nhas++ < 8 && used < sizeof(has)) {
			n = snprintf(has + used, sizeof(has) - used, "%s%.*s",
			    nhas > 1 ? ", " : "", (int)(w->p - 1 - k0 > 40 ?
			    40 : w->p - 1 - k0), k0);
			used += n > 0 ? (size_t)n : 0;
		}
		ws(w);
		if (w->p >= w->end || *w->p != ':') {
			malformed(w);
			return (-1);
		}
		w->p++;
		if (rv == 1) {
			ws(w);
			return (0);
		}
		if (skip_value(w) != 0)
			return (-1);
		ws(w);
		if (w->p < w->end && *w->p == ',')
			w->p++;
		else if (w->p >= w->end || *w->p != '}') {
			malformed(w);
			return (-1);
		}
	}
	fail(w, "no member '%.*s' in the object at %s (%s%s%s)", (int)s->klen,
	    s->key, where(w, buf, sizeof(buf)), nhas == 0 ? "it is empty" :
	    "its members: ", has, nhas > 8 ? ", ..." : "");
	return (-1);
}

/* Move w->p to element S->n of the array there. */
static int
enter_element(struct walk *w, const struct step *s)
{
	char	buf[300];
	size_t	i;

	w->p++;
	for (i = 0;; i++) {
		ws(w);
		if (w->p < w->end && *w->p == ']')
			break;
		if (i == s->n)
			return (0);
		if (skip_value(w) != 0)
			return (-1);
		ws(w);
		if (w->p < w->end && *w->p == ',')
			w->p++;
		else if (w->p >= w->end || *w->p != ']') {
			malformed(w);
			return (-1);
		}
	}
	fail(w, "index %zu is past the end of the array at %s (%zu "
	    "element%s)", s->n, where(w, buf, sizeof(buf)), i,
	    i == 1 ? "" : "s");
	return (-1);
}

/* The number or boolean at w->p into *OUT. */
static int
read_number(struct walk *w, double *out)
{
	const char	*p = w->p, *start = w->p;
	char		 num[64], buf[300], *end;
	size_t		 n;

	if (w->end - p >= 4 && memcmp(p, "true", 4) == 0) {
		*out = 1;
		return (0);
	}
	if (w->end - p >= 5 && memcmp(p, "false", 5) == 0) {
		*out = 0;
		return (0);
	}
	if (p < w->end && *p == '-')
		p++;
	if (p >= w->end || *p < '0' || *p > '9') {
		fail(w, "%s is %s, not a number", where(w, buf, sizeof(buf)),
		    kind_of(w));
		return (-1);
	}
	while (p < w->end && ((*p >= '0' && *p <= '9') || *p == '.' ||
	    *p == 'e' || *p == 'E' || *p == '+' || *p == '-'))
		p++;
	n = (size_t)(p - start);
	if (n >= sizeof(num)) {
		fail(w, "%s: a number over 63 characters", where(w, buf,
		    sizeof(buf)));
		return (-1);
	}
	memcpy(num, start, n);
	num[n] = '\0';
	*out = strtod(num, &end);
	if (*end != '\0' || !isfinite(*out)) {
		fail(w, "%s is '%s', not a finite number", where(w, buf,
		    sizeof(buf)), num);
		return (-1);
	}
	return (0);
}

int
dn_json_path_get(const char *doc, size_t len, const char *path,
    double *out, char *err, size_t errlen)
{
	struct walk	 w = { doc, doc, doc + len, path, 0, err, errlen };
	struct step	 s;
	const char	*pp = path, *why;
	char		 buf[300];
	int		 rv, first = 1;

	if (dn_json_path_check(path, &why) != 0) {
		snprintf(err, errlen, "bad path '%s': %s", path, why);
		return (-1);
	}
	ws(&w);
	while ((rv = next_step(&pp, &s, first, &why)) == 1) {
		first = 0;
		if (w.p >= w.end) {
			malformed(&w);
			return (-1);
		}
		if (!s.index && *w.p == '{')
			rv = enter_member(&w, &s);
		else if (s.index && *w.p == '[')
			rv = enter_element(&w, &s);
		else {
			fail(&w, "%s is %s, not %s", where(&w, buf,
			    sizeof(buf)), *w.p == '{' || *w.p == '[' ||
			    *w.p == '"' || *w.p == 'n' ? kind_of(&w) :
			    "a number or a boolean", s.index ? "an array" :
			    "an object");
			return (-1);
		}
		if (rv != 0)
			return (-1);
		w.at = (size_t)(pp - path);
	}
	return (read_number(&w, out));
}
