/*
 * qtab.c: query results kept as text and printed as a table, markdown,
 * CSV or JSON, for `devnet runs`, `devnet show` and `devnet query`.
 * The formats are compare's (enum compare_format in compare.h).  The
 * table and markdown are for a terminal: their cells show control bytes
 * escaped (a stored label's ESC sequences show, never act); CSV and JSON
 * keep the text as stored (JSON escapes what it must).
 *
 * Not here: the A/B comparison and its output (compare*.c); the store
 * itself (metrics/store/ (schema.c, store-write.c, store-read.c)).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict/compare.h"
#include "report/qtab.h"
#include "escape.h"
#include "store.h"
#include "xalloc.h"
#include "json-write.h"

int
qtab_row(void *arg, int ncols, const char *const *names,
    const char *const *values, const int *types)
{
	struct qtab	*t = arg;
	size_t		 base;
	int		 i;

	if (t->names == NULL) {
		t->ncols = ncols;
		t->names = dn_xcalloc(ncols + 1, sizeof(char *));
		for (i = 0; i < ncols; i++)
			t->names[i] = dn_xstrdup(names[i]);
	}
	base = t->nrows * t->ncols;
	t->cells = dn_xreallocarray(t->cells, base + ncols + 1,
	    sizeof(char *));
	t->types = dn_xreallocarray(t->types, base + ncols + 1, sizeof(int));
	for (i = 0; i < ncols; i++) {
		t->cells[base + i] = values[i] ? dn_xstrdup(values[i]) : NULL;
		t->types[base + i] = types[i];
	}
	t->nrows++;
	return (0);
}

void
qtab_release(struct qtab *t)
{
	size_t	i;

	for (i = 0; i < (size_t)t->ncols; i++)
		free(t->names[i]);
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->names);
	free(t->cells);
	free(t->types);
	memset(t, 0, sizeof(*t));
}

static void
csv_cell(FILE *out, const char *v)
{
	const char	*p;

	if (v == NULL)
		return;
	if (strpbrk(v, ",\"\n\r") == NULL) {
		fputs(v, out);
		return;
	}
	fputc('"', out);
	for (p = v; *p != '\0'; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

/* Width of V in a table cell: up to the first newline, at most 60. */
static size_t
cell_width(const char *v)
{
	size_t	n = v ? strcspn(v, "\n") : 4;

	return (n > 60 ? 60 : n);
}

void
qtab_print(const struct qtab *t, int format, FILE *out)
{
	size_t	 r, w, *width;
	char	**shown;
	int	 c;

	if (format == COMPARE_JSON) {
		fputs("[", out);
		for (r = 0; r < t->nrows; r++) {
			fputs(r ? ",\n {" : "\n {", out);
			for (c = 0; c < t->ncols; c++) {
				const char	*v = t->cells[r * t->ncols + c];
				int		 ty = t->types[r * t->ncols + c];

				fputs(c ? ", " : "", out);
				dn_json_str(out, t->names[c]);
				fputs(": ", out);
				if (v == NULL)
					fputs("null", out);
				else if (ty == 1 || (ty == 2 &&
				    isfinite(atof(v))))
					fputs(v, out);
				else
					dn_json_str(out, v);
			}
			fputs("}", out);
		}
		fputs("\n]\n", out);
		return;
	}
	if (t->ncols == 0)
		return;
	if (format == COMPARE_CSV) {
		for (c = 0; c < t->ncols; c++) {
			fputs(c ? "," : "", out);
			csv_cell(out, t->names[c]);
		}
		fputc('\n', out);
		for (r = 0; r < t->nrows; r++) {
			for (c = 0; c < t->ncols; c++) {
				fputs(c ? "," : "", out);
				csv_cell(out, t->cells[r * t->ncols + c]);
			}
			fputc('\n', out);
		}
		return;
	}
	shown = dn_xcalloc(t->nrows * t->ncols + 1, sizeof(char *));
	for (r = 0; r < t->nrows * t->ncols; r++)
		shown[r] = dn_escape_ctl(t->cells[r]);
	width = dn_xcalloc(t->ncols, sizeof(size_t));
	for (c = 0; c < t->ncols; c++) {
		width[c] = cell_width(t->names[c]);
		for (r = 0; r < t->nrows; r++) {
			w = cell_width(shown[r * t->ncols + c]);
			if (w > width[c])
				width[c] = w;
		}
	}
	for (c = 0; c < t->ncols; c++) {
		if (format == COMPARE_MARKDOWN)
			fprintf(out, "| %s ", t->names[c]);
		else
			fprintf(out, "%s%-*s", c ? "  " : "", c + 1 <
			    t->ncols ? (int)width[c] : 0, t->names[c]);
	}
	fputs(format == COMPARE_MARKDOWN ? "|\n" : "\n", out);
	for (c = 0; format == COMPARE_MARKDOWN && c < t->ncols; c++)
		fputs(c + 1 < t->ncols ? "|---" : "|---|\n", out);
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const char	*v = shown[r * t->ncols + c];
			int		 ty = t->types[r * t->ncols + c];
			int		 len = (int)cell_width(v);

			if (v == NULL)
				v = "NULL";
			if (format == COMPARE_MARKDOWN)
				fprintf(out, "| %.*s ", len, v);
			else if (ty == 1 || ty == 2)
				fprintf(out, "%s%*.*s", c ? "  " : "",
				    (int)width[c], len, v);
			else
				fprintf(out, "%s%.*s%*s", c ? "  " : "", len,
				    v, c + 1 < t->ncols ?
				    (int)(width[c] - len) : 0, "");
		}
		fputs(format == COMPARE_MARKDOWN ? "|\n" : "\n", out);
	}
	for (r = 0; r < t->nrows * t->ncols; r++)
		free(shown[r]);
	free(shown);
	free(width);
}
