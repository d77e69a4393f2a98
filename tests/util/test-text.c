/*
 * test-text.c: the text library of metrics/util: the growable buffer and
 * array growth (buf.c), the JSON writer and its one number printer
 * (json-write.c: every double read back the same, random bit patterns
 * included), the markup escaper and the JUnit writer (markup.c).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "json-write.h"
#include "markup.h"
#include "rng.h"

/* What F writes to a stream, as a string the caller frees. */
static char *
capture(void (*f)(FILE *, const void *), const void *arg)
{
	char	*p = NULL;
	size_t	 n = 0;
	FILE	*out = open_memstream(&p, &n);

	assert_non_null(out);
	f(out, arg);
	fclose(out);
	return (p);
}

static void
test_buf_grows(void **state)
{
	struct dn_buf	 b = DN_BUF_INIT;
	char		*s;
	size_t		 i, len;

	(void)state;
	for (i = 0; i < 10000; i++)
		dn_buf_add(&b, "ab", 2);
	assert_int_equal(b.len, 20000);
	assert_true(b.cap > b.len && b.cap <= 2 * (b.len + 1));
	assert_int_equal(b.p[b.len], '\0');
	assert_int_equal(strspn(b.p, "ab"), 20000);
	dn_buf_addf(&b, "-%d-%s", 42, "x");
	assert_string_equal(b.p + 20000, "-42-x");
	dn_buf_setlen(&b, 3);
	dn_buf_puts(&b, "cd");
	s = dn_buf_detach(&b, &len);
	assert_string_equal(s, "abacd");
	assert_int_equal(len, 5);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	free(s);
	s = dn_buf_detach(&b, NULL);	/* nothing added: "" */
	assert_string_equal(s, "");
	free(s);
	dn_buf_release(&b);
}

static void
test_buf_room(void **state)
{
	struct dn_buf	 b = DN_BUF_INIT;
	char		*at;

	(void)state;
	at = dn_buf_room(&b, 100);
	memset(at, 'z', 100);
	dn_buf_setlen(&b, b.len + 100);
	assert_int_equal(b.len, 100);
	assert_int_equal(b.p[100], '\0');
	dn_buf_release(&b);
	assert_null(b.p);
}

static void
test_xgrow(void **state)
{
	int	*v = NULL;
	size_t	 cap = 0, i, grew = 0, last = 0;

	(void)state;
	for (i = 0; i < 100000; i++) {
		v = dn_xgrow(v, &cap, i + 1, sizeof(*v));
		grew += cap != last;
		last = cap;
		v[i] = (int)i;
	}
	assert_true(cap >= 100000);
	assert_true(grew <= 14);	/* doubling from 16: log2(100000/16) */
	assert_int_equal(v[99999], 99999);
	free(v);
}

/* V as dn_num_fmt writes it, read back. */
static void
round_trip(double v)
{
	char	buf[DN_NUM_MAX];
	double	w;

	dn_num_fmt(v, buf, sizeof(buf));
	w = strtod(buf, NULL);
	if (memcmp(&v, &w, sizeof(v)) != 0)
		fail_msg("%.17g written as '%s' reads back as %.17g", v, buf,
		    w);
	assert_true(strlen(buf) < DN_NUM_MAX);
}

static void
test_num_round_trip(void **state)
{
	static const double	fixed[] = { 0, -0.0, 1, -1, 0.1, 0.2, 0.3,
		1.0 / 3, 2.0 / 3, 1e-300, 4.9e-324, 2.2250738585072014e-308,
		1.7976931348623157e308, 9007199254740993.0, 123456789012.0,
		99.99, 0.30000000000000004, 5e-324, -1e21, 1e22 };
	uint64_t		rng = 34;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		round_trip(fixed[i]);
	/* any bit pattern that is a finite double */
	for (i = 0; i < 200000; i++) {
		uint64_t	bits = dn_rand64(&rng);
		double		v;

		memcpy(&v, &bits, sizeof(v));
		if (isfinite(v))
			round_trip(v);
	}
	/* and values as the statistics make them: ratios of measures */
	for (i = 0; i < 200000; i++)
		round_trip(dn_rand01(&rng) * 1000 / (1 + dn_rand01(&rng)));
}

static void
test_num_short(void **state)
{
	char	buf[DN_NUM_MAX];

	(void)state;
	assert_string_equal(dn_num_fmt(0.1, buf, sizeof(buf)), "0.1");
	assert_string_equal(dn_num_fmt(1500, buf, sizeof(buf)), "1500");
	assert_string_equal(dn_num_fmt(-2.5, buf, sizeof(buf)), "-2.5");
	assert_string_equal(dn_num_fmt(1e300, buf, sizeof(buf)), "1e+300");
	assert_string_equal(dn_num_fmt(0.1 + 0.2, buf, sizeof(buf)),
	    "0.30000000000000004");
	assert_string_equal(dn_num_fmt(1.0 / 3, buf, sizeof(buf)),
	    "0.3333333333333333");
}

static void
put_num(FILE *out, const void *arg)
{
	dn_json_num(out, *(const double *)arg);
}

static const double	csv_vals[] = { 0.1, 0.1 + 0.2, 1500, 1e300, 1.0 / 3,
	NAN, INFINITY, -INFINITY };

static void
put_csv(FILE *out, const void *arg)
{
	size_t	i;

	(void)arg;
	for (i = 0; i < sizeof(csv_vals) / sizeof(csv_vals[0]); i++) {
		dn_csv_num(out, csv_vals[i]);
		fputc(';', out);
	}
}

static void
put_str(FILE *out, const void *arg)
{
	dn_json_str(out, arg);
	dn_json_optstr(out, NULL);
	dn_json_numtext(out, "1.5");
	dn_json_numtext(out, "Inf");
	dn_json_numtext(out, "12x");
}

/* CSV's numbers are JSON's text (dn_num_fmt); no value is nan/inf. */
static void
test_csv_num(void **state)
{
	char	*s;

	(void)state;
	s = capture(put_csv, NULL);
	assert_string_equal(s, "0.1;0.30000000000000004;1500;1e+300;"
	    "0.3333333333333333;nan;inf;-inf;");
	free(s);
}

static void
test_json(void **state)
{
	double	v = NAN;
	char	*s;

	(void)state;
	s = capture(put_num, &v);
	assert_string_equal(s, "null");
	free(s);
	v = -INFINITY;
	s = capture(put_num, &v);
	assert_string_equal(s, "null");
	free(s);
	v = 12.25;
	s = capture(put_num, &v);
	assert_string_equal(s, "12.25");
	free(s);
	s = capture(put_str, "a\"b\\c\n\x01\xc3\xa9");
	assert_string_equal(s,
	    "\"a\\\"b\\\\c\\u000a\\u0001\xc3\xa9\"null1.5nullnull");
	free(s);
}

static void
put_html(FILE *out, const void *arg)
{
	dn_markup_str(out, arg, 0);
	dn_markup_str(out, NULL, 0);
}

static void
put_xml(FILE *out, const void *arg)
{
	dn_markup_str(out, arg, 1);
}

static void
test_markup(void **state)
{
	const char	*in = "<a href=\"x\">R&D's\n\t\x01</a>";
	char		*s;

	(void)state;
	s = capture(put_html, in);
	assert_string_equal(s, "&lt;a href=&quot;x&quot;&gt;R&amp;D's\n\t"
	    "\x01&lt;/a&gt;");
	free(s);
	s = capture(put_xml, in);
	assert_string_equal(s, "&lt;a href=&quot;x&quot;&gt;R&amp;D's&#10;"
	    "\t?&lt;/a&gt;");
	free(s);
}

static void
put_junit(FILE *out, const void *arg)
{
	const struct dn_junit_case c[] = {
		{ "devnet.s", "ok", DN_JUNIT_PASS, NULL, NULL, NULL },
		{ "devnet.s", "said", DN_JUNIT_PASS, NULL, NULL, "a < b" },
		{ "devnet.s", "bad", DN_JUNIT_FAIL, "worse", "m\"1", "body" },
		{ "devnet.s", "why", DN_JUNIT_SKIP, NULL, "not judged", NULL },
	};

	dn_junit_begin(out);
	dn_junit_suite(out, arg, "h&l", c, 4);
	dn_junit_suite(out, "empty", NULL, NULL, 0);
	dn_junit_end(out);
}

static void
test_junit(void **state)
{
	char	*s;

	(void)state;
	s = capture(put_junit, "suite <1>");
	assert_string_equal(s,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<testsuites name=\"devnet\">\n"
	    "  <testsuite name=\"suite &lt;1&gt;\" tests=\"4\" failures=\"1\" "
	    "errors=\"0\" skipped=\"1\">\n"
	    "    <properties><property name=\"headline\" value=\"h&amp;l\"/>"
	    "</properties>\n"
	    "    <testcase classname=\"devnet.s\" name=\"ok\"/>\n"
	    "    <testcase classname=\"devnet.s\" name=\"said\"><system-out>"
	    "a &lt; b</system-out></testcase>\n"
	    "    <testcase classname=\"devnet.s\" name=\"bad\">\n"
	    "      <failure type=\"worse\" message=\"m&quot;1\">body"
	    "</failure>\n"
	    "    </testcase>\n"
	    "    <testcase classname=\"devnet.s\" name=\"why\">\n"
	    "      <skipped message=\"not judged\"/>\n"
	    "    </testcase>\n"
	    "  </testsuite>\n"
	    "  <testsuite name=\"empty\" tests=\"0\" failures=\"0\" "
	    "errors=\"0\" skipped=\"0\">\n"
	    "  </testsuite>\n"
	    "</testsuites>\n");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_grows),
		cmocka_unit_test(test_buf_room),
		cmocka_unit_test(test_xgrow),
		cmocka_unit_test(test_num_round_trip),
		cmocka_unit_test(test_num_short),
		cmocka_unit_test(test_csv_num),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_markup),
		cmocka_unit_test(test_junit),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
