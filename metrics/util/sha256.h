/*
 * sha256.h: SHA-256, hex digests and the hash of a file's contents (the
 * only I/O here).  Identifies binaries; not for anything secret.
 */
#ifndef DN_SHA256_H
#define DN_SHA256_H

#include <stddef.h>
#include <stdint.h>

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

#endif
