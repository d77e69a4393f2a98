/*
 * prom.c: a reader of the Prometheus text exposition format 0.0.4 (prom.h
 * has the grammar and each function's contract).  Works in place on the
 * page: nothing is allocated, nothing is copied but label names and
 * values on request.
 *
 * Not here: fetching the page (http.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "prom.h"

static int
is_blank(char c)
{
	return (c == ' ' || c == '\t');
}

static int
name_start(char c, int colon)
{
	return ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    c == '_' || (colon && c == ':'));
}

static int
name_char(char c, int colon)
{
	return (name_start(c, colon) || (c >= '0' && c <= '9'));
}

static const char *
skip_blanks(const char *p, const char *end)
{
	while (p < end && is_blank(*p))
		p++;
	return (p);
}

/* 1 if the LEN bytes at P are a metric name. */
static int
valid_name(const char *p, size_t len)
{
	size_t	i;

	if (len == 0 || !name_start(p[0], 1))
		return (0);
	for (i = 1; i < len; i++) {
		if (!name_char(p[i], 1))
			return (0);
	}
	return (1);
}

/* Walk one label at *P (blanks, name, '=', quoted value); decode into the
 * buffers when they are not NULL.  0 or -1 with *ERR. */
static int
label(const char **pp, const char *end, char *name, size_t ncap,
    char *value, size_t vcap, const char **err)
{
	const char	*p = *pp, *n0;
	size_t		 vl = 0;

	p = skip_blanks(p, end);
	if (p == end || !name_start(*p, 0)) {
		*err = "bad label name";
		return (-1);
	}
	n0 = p;
	while (p < end && name_char(*p, 0))
		p++;
	if (name != NULL && ncap > 0) {
		size_t	l = (size_t)(p - n0) < ncap - 1 ? (size_t)(p - n0) :
			    ncap - 1;

		memcpy(name, n0, l);
		name[l] = '\0';
	}
	p = skip_blanks(p, end);
	if (p == end || *p != '=') {
		*err = "missing '=' after a label name";
		return (-1);
	}
	p = skip_blanks(p + 1, end);
	if (p == end || *p != '"') {
		*err = "label value not in double quotes";
		return (-1);
	}
	for (p++;; p++) {
		char	c;

		if (p == end) {
			*err = "unterminated label value";
			return (-1);
		}
		c = *p;
		if (c == '"')
			break;
		if (c == '\\') {
			if (++p == end) {
				*err = "unterminated label value";
				return (-1);
			}
			if (*p == 'n')
				c = '\n';
			else if (*p == '\\' || *p == '"')
				c = *p;
			else {
				*err = "bad escape in a label value (only "
				    "\\\\ \\\" \\n)";
				return (-1);
			}
		}
		if (value != NULL && vl + 1 < vcap)
			value[vl++] = c;
	}
	if (value != NULL && vcap > 0)
		value[vl] = '\0';
	*pp = p + 1;
	return (0);
}

/* A float the way Go writes them: digits, exponents, NaN, +Inf, -Inf. */
static int
parse_value(const char *p, const char *end, double *v)
{
	char	 buf[64], *e;
	size_t	 n = (size_t)(end - p);

	if (n == 0 || n >= sizeof(buf))
		return (-1);
	memcpy(buf, p, n);
	buf[n] = '\0';
	if (strcmp(buf, "NaN") == 0) {
		*v = NAN;
		return (0);
	}
	if (strcmp(buf, "+Inf") == 0 || strcmp(buf, "Inf") == 0) {
		*v = INFINITY;
		return (0);
	}
	if (strcmp(buf, "-Inf") == 0) {
		*v = -INFINITY;
		return (0);
	}
	/* strtod would also take "inf", "nan(...)" and hex: not the format */
	if (strpbrk(buf, "nNiIxX") != NULL)
		return (-1);
	errno = 0;
	*v = strtod(buf, &e);
	if (*e != '\0' || e == buf)
		return (-1);
	return (0);
}

static int
parse_ts(const char *p, const char *end, int64_t *ts)
{
	char		 buf[32], *e;
	size_t		 n = (size_t)(end - p);
	long long	 v;

	if (n == 0 || n >= sizeof(buf))
		return (-1);
	memcpy(buf, p, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoll(buf, &e, 10);
	if (*e != '\0' || errno != 0)
		return (-1);
	*ts = (int64_t)v;
	return (0);
}

int
dn_prom_parse_line(const char *line, size_t len, struct dn_prom_sample *s,
    const char **err)
{
	const char	*p = line, *end = line + len, *tok;

	if (len > 0 && end[-1] == '\r')
		end--;
	memset(s, 0, sizeof(*s));
	p = skip_blanks(p, end);
	if (p == end || *p == '#')
		return (0);
	if (!name_start(*p, 1)) {
		*err = "bad metric name";
		return (-1);
	}
	s->name = p;
	while (p < end && name_char(*p, 1))
		p++;
	s->name_len = (size_t)(p - s->name);
	p = skip_blanks(p, end);
	if (p < end && *p == '{') {
		s->labels = ++p;
		for (;;) {
			p = skip_blanks(p, end);
			if (p < end && *p == '}')
				break;
			if (label(&p, end, NULL, 0, NULL, 0, err) != 0)
				return (-1);
			s->nlabels++;
			p = skip_blanks(p, end);
			if (p < end && *p == ',') {
				p++;
				continue;
			}
			if (p < end && *p == '}')
				break;
			*err = "expected ',' or '}' after a label";
			return (-1);
		}
		s->labels_len = (size_t)(p - s->labels);
		p = skip_blanks(p + 1, end);
	} else if (p < end && !is_blank(p[-1])) {
		*err = "bad character in a metric name";
		return (-1);
	}
	tok = p;
	while (p < end && !is_blank(*p))
		p++;
	if (p == tok) {
		*err = "missing value";
		return (-1);
	}
	if (parse_value(tok, p, &s->value) != 0) {
		*err = "bad value";
		return (-1);
	}
	p = skip_blanks(p, end);
	if (p == end)
		return (1);
	tok = p;
	while (p < end && !is_blank(*p))
		p++;
	if (parse_ts(tok, p, &s->ts_ms) != 0) {
		*err = "bad timestamp";
		return (-1);
	}
	s->has_ts = 1;
	if (skip_blanks(p, end) != end) {
		*err = "text after the timestamp";
		return (-1);
	}
	return (1);
}

int
dn_prom_label_next(const char **p, const char *end, char *name,
    size_t name_cap, char *value, size_t value_cap)
{
	const char	*q, *err;

	q = skip_blanks(*p, end);
	if (q < end && *q == ',')
		q = skip_blanks(q + 1, end);
	if (q == end) {
		*p = q;
		return (0);
	}
	if (label(&q, end, name, name_cap, value, value_cap, &err) != 0)
		return (-1);
	*p = q;
	return (1);
}

static const struct {
	const char		*name;
	enum dn_prom_type	 type;
} type_names[] = {
	{ "untyped", DN_PROM_UNTYPED }, { "counter", DN_PROM_COUNTER },
	{ "gauge", DN_PROM_GAUGE }, { "histogram", DN_PROM_HISTOGRAM },
	{ "summary", DN_PROM_SUMMARY },
};

const char *
dn_prom_type_name(enum dn_prom_type t)
{
	size_t	i;

	for (i = 0; i < sizeof(type_names) / sizeof(type_names[0]); i++) {
		if (type_names[i].type == t)
			return (type_names[i].name);
	}
	return ("untyped");
}

/* W's name is FAMILY's, or FAMILY's plus a histogram/summary suffix. */
static int
of_family(const struct dn_prom_want *w, const char *fam, size_t flen)
{
	static const char *const suffix[] = { "_bucket", "_sum", "_count" };
	size_t			 i;

	if (w->name_len < flen || memcmp(w->name, fam, flen) != 0)
		return (0);
	if (w->name_len == flen)
		return (1);
	for (i = 0; i < 3; i++) {
		if (strlen(suffix[i]) == w->name_len - flen &&
		    memcmp(w->name + flen, suffix[i], w->name_len - flen) == 0)
			return (1);
	}
	return (0);
}

/* "# TYPE name kind": set the type of the wants of that family. */
static void
on_type(const char *p, const char *end, struct dn_prom_want *w, size_t nw)
{
	const char	*fam, *k;
	size_t		 flen, klen, i, j;

	p = skip_blanks(p, end);
	fam = p;
	while (p < end && name_char(*p, 1))
		p++;
	flen = (size_t)(p - fam);
	k = skip_blanks(p, end);
	for (p = k; p < end && !is_blank(*p) && *p != '\r';)
		p++;
	klen = (size_t)(p - k);
	for (i = 0; i < nw; i++) {
		if (!of_family(&w[i], fam, flen))
			continue;
		for (j = 0; j < sizeof(type_names) / sizeof(type_names[0]);
		    j++) {
			if (strlen(type_names[j].name) == klen &&
			    memcmp(type_names[j].name, k, klen) == 0)
				w[i].type = type_names[j].type;
		}
	}
}

size_t
dn_prom_sum(const char *text, size_t len, struct dn_prom_want *w,
    size_t nw, struct dn_prom_stats *st)
{
	struct dn_prom_stats	 local;
	const char		*p = text, *end = text + len;
	size_t			 i, seen = 0;

	if (st == NULL)
		st = &local;
	memset(st, 0, sizeof(*st));
	for (i = 0; i < nw; i++) {
		if (w[i].name_len == 0)
			w[i].name_len = strlen(w[i].name);
		w[i].sum = 0;
		w[i].series = 0;
		w[i].bad = 0;
		w[i].type = DN_PROM_UNTYPED;
	}
	while (p < end) {
		const char	*nl = memchr(p, '\n', (size_t)(end - p));
		const char	*le = nl != NULL ? nl : end, *q, *n0;
		size_t		 nlen;

		st->lines++;
		q = skip_blanks(p, le);
		if (q < le && *q == '#') {
			if (le - q > 7 && memcmp(q, "# TYPE ", 7) == 0)
				on_type(q + 7, le, w, nw);
			goto next;
		}
		if (q == le || (q + 1 == le && *q == '\r'))
			goto next;
		st->samples++;
		/* The line's name is a wanted one when it starts with it and
		 * goes on with no name character: no scan of every line's
		 * name (most are not wanted). */
		n0 = q;
		for (i = 0; i < nw; i++) {
			struct dn_prom_sample	 s;
			const char		*err;

			nlen = w[i].name_len;
			if ((size_t)(le - n0) < nlen || nlen == 0 ||
			    memcmp(w[i].name, n0, nlen) != 0 ||
			    (n0 + nlen < le && name_char(n0[nlen], 1)) ||
			    !valid_name(n0, nlen))
				continue;
			if (dn_prom_parse_line(p, (size_t)(le - p), &s,
			    &err) != 1) {
				st->bad++;
				w[i].bad = 1;
				break;
			}
			w[i].sum += s.value;
			w[i].series++;
			break;
		}
	next:
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	for (i = 0; i < nw; i++) {
		if (w[i].series > 0)
			seen++;
	}
	return (seen);
}
