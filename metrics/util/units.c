/*
 * units.c: parsing of durations, sizes and plain numbers given by humans
 * (see units.h).  Not formatting: output is the callers' business.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

int
dn_parse_duration_ms(const char *s, int64_t *ms, const char **why)
{
	static const struct {
		const char	*name;
		int64_t		 num, den; /* ms = v * num / den */
	} units[] = {
		{ "ns", 1, 1000000 }, { "us", 1, 1000 }, { "ms", 1, 1 },
		{ "s", 1000, 1 }, { "m", 60000, 1 }, { "h", 3600000, 1 },
	};
	const char	*p = s;
	int64_t		 total = 0;
	int		 parts = 0;

	if (*p == '\0') {
		*why = "empty duration";
		return (-1);
	}
	while (*p != '\0') {
		int64_t	v = 0, add;
		size_t	i, best = 0, bestlen = 0;

		if (*p < '0' || *p > '9') {
			*why = "expected a number (durations look like 500ms, "
			    "90s, 15m, 2h30m)";
			return (-1);
		}
		while (*p >= '0' && *p <= '9') {
			if (v > (INT64_MAX - 9) / 10) {
				*why = "duration too large";
				return (-1);
			}
			v = v * 10 + (*p++ - '0');
		}
		if (*p == '\0' && parts == 0) {
			best = 3; /* bare number: seconds */
			bestlen = 0;
		} else {
			for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
				size_t l = strlen(units[i].name);
				if (strncmp(p, units[i].name, l) == 0 &&
				    l > bestlen &&
				    !(l == 1 && p[0] == 'm' && p[1] == 's')) {
					best = i;
					bestlen = l;
				}
			}
			if (bestlen == 0) {
				*why = "unknown duration unit (use ns, us, ms, "
				    "s, m or h)";
				return (-1);
			}
		}
		if (units[best].num > 1 && v > INT64_MAX / units[best].num) {
			*why = "duration too large";
			return (-1);
		}
		add = v * units[best].num / units[best].den;
		if (total > INT64_MAX - add) {
			*why = "duration too large";
			return (-1);
		}
		total += add;
		p += bestlen;
		parts++;
	}
	*ms = total;
	return (0);
}

int
dn_parse_size(const char *s, uint64_t *bytes, const char **why)
{
	static const struct {
		const char	*name;
		uint64_t	 mult;
	} units[] = {
		{ "", 1 }, { "B", 1 }, { "KB", 1000 }, { "MB", 1000000 },
		{ "GB", 1000000000 }, { "KiB", 1024 }, { "MiB", 1024 * 1024 },
		{ "GiB", 1024ull * 1024 * 1024 },
		{ "TiB", 1024ull * 1024 * 1024 * 1024 },
	};
	const char	*p = s;
	uint64_t	 v = 0;
	size_t		 i;

	if (*p < '0' || *p > '9') {
		*why = "expected a size like 64MiB or 1GiB";
		return (-1);
	}
	while (*p >= '0' && *p <= '9') {
		if (v > (UINT64_MAX - 9) / 10) {
			*why = "size too large";
			return (-1);
		}
		v = v * 10 + (uint64_t)(*p++ - '0');
	}
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].name) == 0) {
			if (v > UINT64_MAX / units[i].mult) {
				*why = "size too large";
				return (-1);
			}
			*bytes = v * units[i].mult;
			return (0);
		}
	}
	*why = "unknown size unit (use B, KB, MB, GB, KiB, MiB, GiB or TiB)";
	return (-1);
}

int
dn_parse_i64(const char *s, int64_t *v)
{
	char	*end;
	long long x;

	if (*s == '\0')
		return (-1);
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return (-1);
	*v = x;
	return (0);
}

int
dn_parse_u64(const char *s, uint64_t *v)
{
	char	*end;
	unsigned long long x;

	if (*s < '0' || *s > '9')
		return (-1);
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return (-1);
	*v = x;
	return (0);
}

int
dn_parse_double(const char *s, double *v)
{
	char	*end;
	double	 x;

	if (*s == '\0')
		return (-1);
	errno = 0;
	x = strtod(s, &end);
	if (errno != 0 || *end != '\0' || !isfinite(x))
		return (-1);
	*v = x;
	return (0);
}

int
dn_same_but_digits(const char *a, const char *b)
{
	for (;;) {
		while (*a >= '0' && *a <= '9')
			a++;
		while (*b >= '0' && *b <= '9')
			b++;
		if (*a != *b)
			return (0);
		if (*a == '\0')
			return (1);
		a++;
		b++;
	}
}
