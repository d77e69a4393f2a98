/*
 * The escapes of the text every output form writes: JSON numbers and
 * strings (compare's and history's --format json, the serve API) and
 * markup (the HTML pages, JUnit).  Its own file because compare-render.c
 * and compare-seq.c both write JSON, and render calls seq.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "verdict/compare.h"

/* V as a JSON number; NaN and infinities (no value) as null. */
void
compare_json_num(FILE *out, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", out);
	else
		fprintf(out, "%.10g", v);
}

/* TEXT, sqlite's text of a REAL, as a JSON number: as it is when it
 * reads as a finite number ("Inf" and "-Inf", stored by a hand-made file,
 * are none: JSON has no infinities), else null. */
void
compare_json_numtext(FILE *out, const char *text)
{
	char	*end;
	double	 v = strtod(text, &end);

	if (end != text && *end == '\0' && isfinite(v))
		fputs(text, out);
	else
		fputs("null", out);
}

/* JSON string with the escapes RFC 8259 requires. */
void
compare_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		unsigned char	c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void
compare_markup_str(FILE *out, const char *s, int xml)
{
	for (; s != NULL && *s != '\0'; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs(xml ? "&apos;" : "'", out);
			break;
		default:
			/* Control characters are not allowed in XML 1.0. */
			if (xml && (unsigned char)*s < 0x20 && *s != '\n' &&
			    *s != '\t')
				fputc('?', out);
			else
				fputc(*s, out);
		}
	}
}
