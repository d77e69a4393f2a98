/*
 * scenario-get.c: typed getters for the schema walk: a tree node to a
 * string, integer, number, duration, size or one of a list of names, with
 * its range checked, or an error at the node's FILE:LINE:COL naming the
 * key and saying what is accepted.  Also scenario_fmt_ms, the duration
 * format those errors use.  Not here: which keys hold which type (the
 * section loaders).
 */
#include <inttypes.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/scenario-internal.h"
#include "units.h"
#include "xalloc.h"

/* --- pass 2: typed getters ---------------------------------------------- */
int
scn_want_scalar(struct ctx *c, const struct ynode *n, const char *what)
{
	if (n->type != Y_SCALAR || ynode_is_null(n))
		return (scn_fail(c, n, "%s must be a single value, not a %s",
		    what, ynode_type_name(n)));
	return (0);
}

int
scn_get_str(struct ctx *c, const struct ynode *n, const char *what, char **out)
{
	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	free(*out);
	*out = dn_xstrdup(n->value);
	return (0);
}

/* A decimal integer in MIN..MAX, written as a plain scalar. */
int
scn_get_int(struct ctx *c, const struct ynode *n, const char *what,
    int64_t min, int64_t max, int64_t *out)
{
	const char	*s;
	int64_t		 v = 0;
	int		 neg = 0;

	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	s = n->value;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (!n->plain || *s == '\0' || strspn(s, "0123456789") != strlen(s))
		return (scn_fail(c, n, "%s must be a whole number%s (got "
		    "'%s')", what, n->plain ? "" : " without quotes",
		    n->value));
	for (; *s != '\0'; s++) {
		if (v > (INT64_MAX - 9) / 10)
			return (scn_fail(c, n, "%s is too large (got '%s'; at "
			    "most %" PRId64 ")", what, n->value, max));
		v = v * 10 + (*s - '0');
	}
	if (neg)
		v = -v;
	if (v < min || v > max)
		return (scn_fail(c, n, "%s must be between %" PRId64 " and %"
		    PRId64 " (got %s)", what, min, max, n->value));
	*out = v;
	return (0);
}

int
scn_get_int32(struct ctx *c, const struct ynode *n, const char *what,
    int64_t min, int64_t max, int *out)
{
	int64_t	v;

	if (scn_get_int(c, n, what, min, max, &v) != 0)
		return (-1);
	*out = (int)v;
	return (0);
}

int
scn_get_u32(struct ctx *c, const struct ynode *n, const char *what,
    int64_t min, int64_t max, uint32_t *out)
{
	int64_t	v;

	if (scn_get_int(c, n, what, min, max, &v) != 0)
		return (-1);
	*out = (uint32_t)v;
	return (0);
}

/* A plain decimal number (no hex, inf or nan) with MIN <= v <= MAX; when
 * ABOVE, v must be > MIN. */
int
scn_get_double(struct ctx *c, const struct ynode *n, const char *what,
    double min, int above, double max, double *out)
{
	double	v;

	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	if (!n->plain || strspn(n->value, "0123456789.-+eE") !=
	    strlen(n->value) || dn_parse_double(n->value, &v) != 0)
		return (scn_fail(c, n, "%s must be a number (got '%s')", what,
		    n->value));
	if ((above && v <= min) || v < min || v > max) {
		if (above)
			return (scn_fail(c, n, "%s must be > %g and at most "
			    "%g (got %s)", what, min, max, n->value));
		return (scn_fail(c, n, "%s must be between %g and %g (got %s)",
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

int
scn_get_duration(struct ctx *c, const struct ynode *n, const char *what,
    int64_t min, int64_t max, int64_t *out)
{
	const char	*why;
	char		 lo[32], hi[32];
	int64_t		 v;

	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	if (dn_parse_duration_ms(n->value, &v, &why) != 0)
		return (scn_fail(c, n, "%s: %s (got '%s'; write e.g. 500ms, "
		    "90s, 15m, 2h30m)", what, why, n->value));
	if (v < min || v > max) {
		scenario_fmt_ms(lo, sizeof(lo), min);
		scenario_fmt_ms(hi, sizeof(hi), max);
		return (scn_fail(c, n, "%s must be between %s and %s (got "
		    "'%s')", what, lo, hi, n->value));
	}
	*out = v;
	return (0);
}

int
scn_get_size(struct ctx *c, const struct ynode *n, const char *what,
    uint64_t min, uint64_t max, uint64_t *out)
{
	const char	*why;
	uint64_t	 v;

	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	if (dn_parse_size(n->value, &v, &why) != 0)
		return (scn_fail(c, n, "%s: %s (got '%s'; write e.g. 64MiB, "
		    "1GiB)", what, why, n->value));
	if (v < min || v > max)
		return (scn_fail(c, n, "%s must be between %" PRIu64 " and %"
		    PRIu64 " bytes (got '%s')", what, min, max, n->value));
	*out = v;
	return (0);
}

int
scn_get_enum(struct ctx *c, const struct ynode *n, const char *what,
    const char *const *names, int *out)
{
	char	all[256];
	int	i;

	if (scn_want_scalar(c, n, what) != 0)
		return (-1);
	for (i = 0; names[i] != NULL; i++) {
		if (strcmp(n->value, names[i]) == 0) {
			*out = i;
			return (0);
		}
	}
	scn_list_words(all, sizeof(all), names);
	return (scn_fail(c, n, "%s must be one of %s (got '%s')", what, all,
	    n->value));
}

static const char *const opt_modes[] = { "cached", "per-call", NULL };

int
scn_get_mode(struct ctx *c, const struct ynode *n, const char *what,
    char **out)
{
	int	i;

	if (scn_get_enum(c, n, what, opt_modes, &i) != 0)
		return (-1);
	free(*out);
	*out = dn_xstrdup(opt_modes[i]);
	return (0);
}

void
scn_strv_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A list of strings into *V / *N (replacing them). */
int
scn_get_strv(struct ctx *c, const struct ynode *n, const char *what,
    char ***v, size_t *nv, int min)
{
	size_t	i;

	if (n->type != Y_SEQ || n->nkids < (size_t)min)
		return (scn_fail(c, n, "%s must be a list of strings%s, e.g. "
		    "[prog, --flag, '{index}'], not a %s", what, min ?
		    " (at least one)" : "", ynode_type_name(n)));
	scn_strv_free(*v, *nv);
	*v = dn_xcalloc(n->nkids + 1, sizeof(**v));
	*nv = 0;
	for (i = 0; i < n->nkids; i++) {
		if (scn_get_str(c, n->kids[i], what, &(*v)[*nv]) != 0)
			return (-1);
		(*nv)++;
	}
	return (0);
}

int
scn_check_regex(struct ctx *c, const struct ynode *n, const char *what,
    int one_capture)
{
	regex_t	re;
	char	err[200];
	int	rv;

	if ((rv = regcomp(&re, n->value, REG_EXTENDED)) != 0) {
		regerror(rv, &re, err, sizeof(err));
		return (scn_fail(c, n, "%s: bad regex '%s': %s", what,
		    n->value, err));
	}
	rv = one_capture && re.re_nsub != 1;
	if (rv)
		scn_fail(c, n, "%s: regex '%s' has %zu capture groups; it "
		    "needs exactly one, around the number", what, n->value,
		    (size_t)re.re_nsub);
	regfree(&re);
	return (rv ? -1 : 0);
}
