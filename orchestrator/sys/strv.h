/*
 * strv.h: a growing NULL-terminated array of owned strings, the shape of
 * an argv or an environment (execve).  Knows no orchestrator types.
 */
#ifndef DN_STRV_H
#define DN_STRV_H

#include <stddef.h>

/* Start zeroed; hand out .v (NULL-terminated once anything was added);
 * release with strv_free. */
struct strv {
	char	**v;
	size_t	  n, cap;
};

/* Append S, which the vector takes.  S NULL adds a terminator only (an
 * empty vector is still an array); reset n to 0 after. */
void	 strv_add(struct strv *, char *s);
/* Append a copy of FLAG, then VALUE, which the vector takes. */
void	 strv_flag(struct strv *, const char *flag, char *value);
/* Free NULL-terminated V and its strings; V may be NULL. */
void	 strv_free(char **v);

#endif
