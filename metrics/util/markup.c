/* markup.c: the markup escaper and the JUnit writer (see markup.h). */
#include <stdio.h>

#include "markup.h"

void
dn_markup_str(FILE *out, const char *s, int xml)
{
	for (; s != NULL && *s != '\0'; s++) {
		unsigned char	c = (unsigned char)*s;

		if (c == '&')
			fputs("&amp;", out);
		else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (xml && c == '\n')
			fputs("&#10;", out);
		else if (xml && c < 0x20 && c != '\t')
			fputc('?', out);
		else
			fputc(c, out);
	}
}

void
dn_junit_begin(FILE *out)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<testsuites name=\"devnet\">\n", out);
}

void
dn_junit_end(FILE *out)
{
	fputs("</testsuites>\n", out);
}

static void
junit_case(FILE *out, const struct dn_junit_case *c)
{
	fputs("    <testcase classname=\"", out);
	dn_markup_str(out, c->classname, 1);
	fputs("\" name=\"", out);
	dn_markup_str(out, c->name, 1);
	fputc('"', out);
	if (c->status == DN_JUNIT_PASS) {
		if (c->text == NULL) {
			fputs("/>\n", out);
			return;
		}
		fputs("><system-out>", out);
		dn_markup_str(out, c->text, 1);
		fputs("</system-out></testcase>\n", out);
		return;
	}
	if (c->status == DN_JUNIT_FAIL) {
		fputs(">\n      <failure", out);
		if (c->type != NULL) {
			fputs(" type=\"", out);
			dn_markup_str(out, c->type, 1);
			fputc('"', out);
		}
		fputs(" message=\"", out);
		dn_markup_str(out, c->message, 1);
		fputs("\">", out);
		dn_markup_str(out, c->text, 1);
		fputs("</failure>\n", out);
	} else {
		fputs(">\n      <skipped message=\"", out);
		dn_markup_str(out, c->message, 1);
		fputs("\"/>\n", out);
	}
	fputs("    </testcase>\n", out);
}

void
dn_junit_suite(FILE *out, const char *name, const char *headline,
    const struct dn_junit_case *c, size_t n)
{
	size_t	i, fail = 0, skip = 0;

	for (i = 0; i < n; i++) {
		fail += c[i].status == DN_JUNIT_FAIL;
		skip += c[i].status == DN_JUNIT_SKIP;
	}
	fputs("  <testsuite name=\"", out);
	dn_markup_str(out, name, 1);
	fprintf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
	    "skipped=\"%zu\">\n", n, fail, skip);
	if (headline != NULL) {
		fputs("    <properties><property name=\"headline\" value=\"",
		    out);
		dn_markup_str(out, headline, 1);
		fputs("\"/></properties>\n", out);
	}
	for (i = 0; i < n; i++)
		junit_case(out, &c[i]);
	fputs("  </testsuite>\n", out);
}
