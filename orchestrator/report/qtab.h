/*
 * qtab.h: query results kept as text, printed as a table, markdown, CSV or
 * JSON (runs, show, query).  FORMAT is an enum compare_format (compare.h).
 */
#ifndef DN_QTAB_H
#define DN_QTAB_H

#include <stddef.h>
#include <stdio.h>

/*
 * QTAB_ROW is a dn_store_row_fn with a struct qtab * as its argument;
 * qtab_release frees what it collected.
 */
struct qtab {
	int	  ncols;
	char	**names;
	char	**cells;	/* nrows * ncols, NULL for SQL NULL */
	int	 *types;	/* sqlite types per cell (1 int, 2 float) */
	size_t	  nrows;
};
int	 qtab_row(void *arg, int ncols, const char *const *names,
	    const char *const *values, const int *types);
void	 qtab_print(const struct qtab *t, int format, FILE *out);
void	 qtab_release(struct qtab *t);

#endif
