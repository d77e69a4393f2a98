/*
 * units.h: parsing of human units (durations, sizes) and strict parsing of
 * plain numbers.  Not formatting.
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

#endif
