/* buf.c: the growable buffer and array growth (see buf.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "xalloc.h"

void *
dn_xgrow(void *p, size_t *cap, size_t need, size_t sz)
{
	size_t	c = *cap;

	if (need <= c)
		return (p);
	if (c < 16)
		c = 16;
	while (c < need)
		c = c > SIZE_MAX / 2 ? need : c * 2;
	p = dn_xreallocarray(p, c, sz);
	*cap = c;
	return (p);
}

char *
dn_buf_room(struct dn_buf *b, size_t room)
{
	if (room >= SIZE_MAX - b->len)
		dn_xmalloc(SIZE_MAX);	/* cannot be had: aborts, says why */
	b->p = dn_xgrow(b->p, &b->cap, b->len + room + 1, 1);
	b->p[b->len] = '\0';
	return (b->p + b->len);
}

void
dn_buf_setlen(struct dn_buf *b, size_t len)
{
	dn_buf_room(b, 0);
	if (len >= b->cap)
		len = b->cap - 1;
	b->len = len;
	b->p[len] = '\0';
}

void
dn_buf_add(struct dn_buf *b, const void *data, size_t n)
{
	char	*at = dn_buf_room(b, n);

	if (n != 0)
		memcpy(at, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
dn_buf_puts(struct dn_buf *b, const char *s)
{
	dn_buf_add(b, s, strlen(s));
}

void
dn_buf_addf(struct dn_buf *b, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	dn_buf_room(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *
dn_buf_detach(struct dn_buf *b, size_t *len)
{
	char	*p;

	dn_buf_room(b, 0);
	p = b->p;
	if (len != NULL)
		*len = b->len;
	b->p = NULL;
	b->len = b->cap = 0;
	return (p);
}

void
dn_buf_release(struct dn_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}
