/*
 * xalloc.c: allocation that aborts with a message instead of returning
 * NULL, and printf into a new string (see xalloc.h).  Not a pool or an
 * arena: every call goes straight to malloc & co.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static void
oom(size_t n)
{
	fprintf(stderr, "devnet: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *
dn_xmalloc(size_t n)
{
	void	*p = malloc(n ? n : 1);

	if (p == NULL)
		oom(n);
	return (p);
}

void *
dn_xcalloc(size_t n, size_t sz)
{
	void	*p = calloc(n ? n : 1, sz ? sz : 1);

	if (p == NULL)
		oom(n * sz);
	return (p);
}

void *
dn_xrealloc(void *p, size_t n)
{
	void	*q = realloc(p, n ? n : 1);

	if (q == NULL)
		oom(n);
	return (q);
}

void *
dn_xreallocarray(void *p, size_t n, size_t sz)
{
	if (sz != 0 && n > SIZE_MAX / sz)
		oom(SIZE_MAX);
	return (dn_xrealloc(p, n * sz));
}

char *
dn_xstrdup(const char *s)
{
	return (dn_xstrndup(s, strlen(s)));
}

void *
dn_xmemdup(const void *p, size_t n)
{
	void	*q = dn_xmalloc(n > 0 ? n : 1);

	memcpy(q, p, n);
	return (q);
}

char *
dn_xstrndup(const char *s, size_t n)
{
	char	*p = dn_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return (p);
}

char *
dn_xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*p;
	int	 n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(0);
	return (p);
}
