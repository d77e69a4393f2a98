/*
 * markup.h: the one markup escaper (the HTML pages of report and serve,
 * JUnit) and the one JUnit XML writer (compare's and ab's verdicts, the
 * stored assertions).  Not a template engine: the callers write their
 * own tags.
 */
#ifndef DN_MARKUP_H
#define DN_MARKUP_H

#include <stddef.h>
#include <stdio.h>

/*
 * S (NULL writes nothing) to OUT as markup text or a "-quoted attribute
 * value: & < > " escaped.  With XML, also a newline as &#10; (an
 * attribute keeps it) and the other control bytes but tab, which XML 1.0
 * does not allow, as '?'.
 */
void	dn_markup_str(FILE *out, const char *s, int xml);

enum dn_junit_status {
	DN_JUNIT_PASS,
	DN_JUNIT_FAIL,
	DN_JUNIT_SKIP
};

/* One test case of a suite. */
struct dn_junit_case {
	const char		*classname, *name;
	enum dn_junit_status	 status;
	const char		*type;	  /* a failure's type, or NULL */
	const char		*message; /* a failure's or skip's message */
	/* a failure's body, or what a pass printed (<system-out>);
	 * NULL: none */
	const char		*text;
};

/* The document's head, <testsuites name="devnet">, and its end. */
void	dn_junit_begin(FILE *out);
void	dn_junit_end(FILE *out);
/*
 * One <testsuite> named NAME of the N cases C, with their counts, and a
 * "headline" property when HEADLINE is not NULL.
 */
void	dn_junit_suite(FILE *out, const char *name, const char *headline,
	    const struct dn_junit_case *c, size_t n);

#endif
