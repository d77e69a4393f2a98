/*
 * buf.h: the one growable buffer (git's strbuf, redis' sds) and the one
 * rule for growing an array (git's ALLOC_GROW): capacity doubles, so N
 * appends cost O(N) copies.  Not a string library: no search, no split.
 */
#ifndef DN_BUF_H
#define DN_BUF_H

#include <stddef.h>

/*
 * Bytes P[0..LEN) and, once anything was added, a NUL at P[LEN] (so P
 * reads as a C string when the bytes hold none).  CAP is what P holds.
 * Start from DN_BUF_INIT (or all zero); dn_buf_release frees.
 */
struct dn_buf {
	char	*p;
	size_t	 len, cap;
};

#define DN_BUF_INIT	{ NULL, 0, 0 }

/*
 * P, an array of *CAP elements of SZ bytes, grown to hold at least NEED
 * (doubling, from at least 16): the new array, *CAP updated.  Elements
 * past the old *CAP are uninitialised.  Aborts on exhaustion (xalloc.h).
 */
void	*dn_xgrow(void *p, size_t *cap, size_t need, size_t sz);

/* Room for ROOM more bytes and the NUL after them; returns B->p + B->len
 * (write there, then dn_buf_setlen). */
char	*dn_buf_room(struct dn_buf *b, size_t room);
/* B's length set to LEN (at most its capacity less one), NUL after. */
void	 dn_buf_setlen(struct dn_buf *b, size_t len);
/* N bytes of DATA appended. */
void	 dn_buf_add(struct dn_buf *b, const void *data, size_t n);
/* The string S appended. */
void	 dn_buf_puts(struct dn_buf *b, const char *s);
/* printf appended. */
void	 dn_buf_addf(struct dn_buf *b, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* B's bytes as a string the caller frees ("" when empty); B is empty
 * again. */
char	*dn_buf_detach(struct dn_buf *b, size_t *len);
/* B's memory freed; B is empty again. */
void	 dn_buf_release(struct dn_buf *b);

#endif
