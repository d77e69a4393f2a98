/*
 * util.h: small helpers shared by node and orchestrator: allocation that
 * aborts on exhaustion, formatted strings, clocks, SHA-256, human units.
 * No I/O beyond reading a file for hashing.
 */
#ifndef DN_UTIL_H
#define DN_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Allocation wrappers: never return NULL (abort with a message instead). */
void	*dn_xmalloc(size_t);
void	*dn_xcalloc(size_t, size_t);
void	*dn_xrealloc(void *, size_t);
void	*dn_xreallocarray(void *, size_t, size_t);
char	*dn_xstrdup(const char *);
char	*dn_xstrndup(const char *, size_t);
/* printf into a new string the caller frees. */
char	*dn_xasprintf(const char *, ...)
	    __attribute__((format(printf, 1, 2)));

/* CLOCK_MONOTONIC (system-wide on Linux, so comparable across processes)
 * and CLOCK_REALTIME, in nanoseconds / milliseconds. */
uint64_t dn_now_ns(void);
int64_t	 dn_wall_ms(void);

/* SHA-256. */
struct dn_sha256 {
	uint32_t	h[8];
	uint64_t	len;
	uint8_t		buf[64];
	size_t		nbuf;
};
void	 dn_sha256_init(struct dn_sha256 *);
void	 dn_sha256_update(struct dn_sha256 *, const void *, size_t);
void	 dn_sha256_final(struct dn_sha256 *, uint8_t out[32]);
/* Hex digest of a file's contents into OUT (65 bytes); 0 or -1 (errno). */
int	 dn_sha256_file(const char *path, char out[65]);
/* Lower-case hex of LEN bytes into OUT (2*LEN+1 bytes). */
void	 dn_hex(const uint8_t *, size_t len, char *out);

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

/* splitmix64: a tiny deterministic PRNG (state updated in place). */
uint64_t dn_rand64(uint64_t *state);
/* Uniform double in [0, 1). */
double	 dn_rand01(uint64_t *state);

#endif
