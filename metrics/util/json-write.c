/* json-write.c: the JSON writer and the number printer (see
 * json-write.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json-write.h"

const char *
dn_num_fmt(double v, char *buf, size_t len)
{
	int	prec;

	/* 17 significant digits always read back as the same double
	 * (IEEE 754 binary64); fewer when they already do. */
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (!isfinite(v) || strtod(buf, NULL) == v)
			return (buf);
	}
	snprintf(buf, len, "%.17g", v);
	return (buf);
}

void
dn_csv_num(FILE *out, double v)
{
	char	buf[DN_NUM_MAX];

	fputs(dn_num_fmt(v, buf, sizeof(buf)), out);
}

void
dn_json_num(FILE *out, double v)
{
	char	buf[DN_NUM_MAX];

	if (isfinite(v))
		fputs(dn_num_fmt(v, buf, sizeof(buf)), out);
	else
		fputs("null", out);
}

void
dn_json_numtext(FILE *out, const char *text)
{
	char	*end;
	double	 v = strtod(text, &end);

	if (end != text && *end == '\0' && isfinite(v))
		fputs(text, out);
	else
		fputs("null", out);
}

void
dn_json_str(FILE *out, const char *s)
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
dn_json_optstr(FILE *out, const char *s)
{
	if (s == NULL)
		fputs("null", out);
	else
		dn_json_str(out, s);
}
