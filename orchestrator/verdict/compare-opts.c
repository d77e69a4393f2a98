/*
 * compare-opts.c: the comparison options shared by `devnet compare`,
 * `devnet report` and `devnet ab` (--format, --threshold, --unit,
 * --target-effect, --strict): their values and their error messages, in
 * one place.  The --format names also serve `devnet runs` and `devnet
 * query`.
 *
 * Not here: the commands' getopt loops and help text (cmd-*.c), or
 * --metric, which the analysis checks against its table (compare.c).
 */
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "units.h"
#include "xalloc.h"

int
compare_format_parse(const char *s, int *format)
{
	static const char *const	names[] = { "table", "markdown", "csv",
					    "json" };
	int				i;

	for (i = 0; i < 4; i++) {
		if (strcmp(s, names[i]) == 0) {
			*format = i;
			return (0);
		}
	}
	return (-1);
}

static int
compare_unit_parse(const char *s, int *unit)
{
	if (strcmp(s, "auto") == 0)
		*unit = COMPARE_UNIT_AUTO;
	else if (strcmp(s, "trial") == 0)
		*unit = COMPARE_UNIT_TRIAL;
	else if (strcmp(s, "node") == 0)
		*unit = COMPARE_UNIT_NODE;
	else
		return (-1);
	return (0);
}

static int
compare_threshold_parse(const char *s, double *pct)
{
	if (dn_parse_double(s, pct) != 0 || !(*pct >= 0) || *pct > 1000)
		return (-1);
	if (*pct == 0)
		*pct = 1e-9;
	return (0);
}

/* "2", "2%", "0.5%": a margin above 0 and at most 100. */
static int
compare_require_parse(const char *s, double *pct)
{
	char	*t = dn_xstrdup(s);
	size_t	 n = strlen(t);
	int	 rv;

	if (n > 0 && t[n - 1] == '%')
		t[n - 1] = '\0';
	rv = dn_parse_double(t, pct) == 0 && *pct > 0 && *pct <= 100 ? 0 : -1;
	free(t);
	return (rv);
}

int
compare_opt_set(struct compare_opts *o, int opt, const char *val,
    char **cause)
{
	switch (opt) {
	case 'f':
		if (compare_format_parse(val, &o->format) == 0)
			return (0);
		*cause = dn_xasprintf("unknown format '%s' (table, markdown, "
		    "csv or json)", val);
		return (-1);
	case 't':
		if (compare_threshold_parse(val, &o->threshold_pct) == 0)
			return (0);
		*cause = dn_xasprintf("bad --threshold '%s' (a percentage such "
		    "as 1 or 0.5)", val);
		return (-1);
	case 'u':
		if (compare_unit_parse(val, &o->unit) == 0)
			return (0);
		*cause = dn_xasprintf("unknown --unit '%s' (auto, trial or "
		    "node)", val);
		return (-1);
	case 'e':
		if (dn_parse_double(val, &o->target_pct) == 0 &&
		    o->target_pct > 0 && o->target_pct <= 1000)
			return (0);
		*cause = dn_xasprintf("bad --target-effect '%s' (a percentage "
		    "above 0 such as 1 or 0.5)", val);
		return (-1);
	case 's':
		o->strict = 1;
		return (0);
	case 'a':
		if (*val != '\0' && strlen(val) < 19 &&
		    strspn(val, "0123456789") == strlen(val)) {
			o->aa = val;
			return (0);
		}
		*cause = dn_xasprintf("bad --aa '%s' (the number of an A/A "
		    "group, as in 3:A)", val);
		return (-1);
	case 'r':
		if (strncmp(val, "not-worse:", 10) == 0 &&
		    compare_require_parse(val + 10, &o->require_pct) == 0)
			return (0);
		*cause = dn_xasprintf("bad --require '%s' (not-worse:PCT, "
		    "such as not-worse:2%%)", val);
		return (-1);
	}
	*cause = dn_xasprintf("unknown comparison option '%c'", opt);
	return (-1);
}
