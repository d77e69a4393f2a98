/*
 * units.h: parsing of human units (durations, sizes) and strict parsing of
 * plain numbers; texts alike but for their numbers.  Not formatting.
 */
#ifndef DN_UNITS_H
#define DN_UNITS_H

#include <stdint.h>

/*
 * Human units.  Durations: an integer followed by ns, us, ms, s, m or h,
 * concatenated ("2h30m", "500ms", "90s"); a bare number is seconds.
 * Sizes: an integer with optional B, KB, MB, GB (x1000), KiB, MiB, GiB,
 * TiB (x1024).  Return 0, or -1 with a static reason in *WHY (overflow,
 * unknown unit, empty).
 */
int	 dn_parse_duration_ms(const char *s, int64_t *ms, const char **why);
int	 dn_parse_size(const char *s, uint64_t *bytes, const char **why);
/* Strict decimal integer / float parse of the whole string. */
int	 dn_parse_i64(const char *s, int64_t *v);
int	 dn_parse_u64(const char *s, uint64_t *v);
int	 dn_parse_double(const char *s, double *v);
/* 1 if texts A and B are the same but for their digits ("404 (12
 * scrapes)" and "404 (11 scrapes)"): one reason said by several nodes or
 * runs, each with its own counts and ports. */
int	 dn_same_but_digits(const char *a, const char *b);

#endif
