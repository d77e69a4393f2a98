/*
 * The markup escape (the HTML pages, JUnit).  JSON is written by
 * metrics/util/json-write.c.
 */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "verdict/compare.h"

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
