/*
 * xalloc.h: allocation that aborts with a message on exhaustion instead of
 * returning NULL, and formatted strings.  Not a pool or an arena.
 */
#ifndef DN_XALLOC_H
#define DN_XALLOC_H

#include <stddef.h>

/* Allocation wrappers: never return NULL (abort with a message instead). */
void	*dn_xmalloc(size_t);
void	*dn_xcalloc(size_t, size_t);
void	*dn_xrealloc(void *, size_t);
void	*dn_xreallocarray(void *, size_t, size_t);
char	*dn_xstrdup(const char *);
char	*dn_xstrndup(const char *, size_t);
/* A copy of N bytes at P. */
void	*dn_xmemdup(const void *, size_t);
/* printf into a new string the caller frees. */
char	*dn_xasprintf(const char *, ...)
	    __attribute__((format(printf, 1, 2)));

#endif
