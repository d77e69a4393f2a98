/*
 * test-prom.c: the Prometheus text-format reader (metrics/http/prom.c) on
 * a real etcd 3.4.23 /metrics page (fixtures/, 146 kB, taken from Debian's
 * etcd-server on loopback after 5 puts) and on the edge cases of the
 * format: comments, escapes in label values, NaN and infinities,
 * timestamps, blanks, CRLF, and the malformed lines it must refuse.
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

#include "prom.h"

static char	*page;
static size_t	 page_len;

static int
load_page(void **state)
{
	const char	*src = getenv("DN_SOURCE_DIR");
	char		 path[4096];
	FILE		*f;
	long		 n;

	(void)state;
	snprintf(path, sizeof(path), "%s/tests/http/fixtures/"
	    "etcd-3.4.23-metrics.txt", src != NULL ? src : ".");
	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "cannot open %s\n", path);
		return (-1);
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	page = malloc((size_t)n + 1);
	page_len = fread(page, 1, (size_t)n, f);
	page[page_len] = '\0';
	fclose(f);
	return (page_len == (size_t)n ? 0 : -1);
}

static int
free_page(void **state)
{
	(void)state;
	free(page);
	return (0);
}

/* Every line of the real page parses; the counts match grep's. */
static void
test_etcd_every_line(void **state)
{
	const char		*p = page, *end = page + page_len, *nl;
	struct dn_prom_sample	 s;
	const char		*err = NULL;
	size_t			 samples = 0, comments = 0, labelled = 0;

	(void)state;
	for (; p < end; p = nl + 1) {
		int	rv;

		nl = memchr(p, '\n', (size_t)(end - p));
		assert_non_null(nl);
		rv = dn_prom_parse_line(p, (size_t)(nl - p), &s, &err);
		if (rv < 0)
			fail_msg("line '%.*s': %s", (int)(nl - p), p, err);
		if (rv == 0)
			comments++;
		else {
			samples++;
			labelled += s.labels != NULL;
		}
	}
	assert_int_equal(samples, 1245);	/* grep -c '^[a-zA-Z_]' */
	assert_int_equal(comments, 246);	/* grep -c '^#' */
	assert_true(labelled > 800);
}

static void
test_etcd_sum(void **state)
{
	struct dn_prom_want	w[] = {
		{ .name = "etcd_server_proposals_applied_total" },
		{ .name = "grpc_server_handled_total" },
		{ .name = "etcd_disk_wal_fsync_duration_seconds_bucket" },
		{ .name = "process_resident_memory_bytes" },
		{ .name = "etcd_mvcc_db_total_size_in_bytes" },
		{ .name = "no_such_metric" },
		{ .name = "etcd_server_proposals_applied" },	/* prefix */
	};
	struct dn_prom_stats	st;

	(void)state;
	assert_int_equal(dn_prom_sum(page, page_len, w, 7, &st), 5);
	assert_int_equal(st.lines, 1491);
	assert_int_equal(st.samples, 1245);
	assert_int_equal(st.bad, 0);
	assert_true(w[0].sum == 9 && w[0].series == 1);
	assert_int_equal(w[0].type, DN_PROM_GAUGE);	/* etcd says gauge */
	/* 697 label sets (service x method x code) sum to 5 */
	assert_true(w[1].sum == 5 && w[1].series == 697);
	assert_int_equal(w[1].type, DN_PROM_COUNTER);
	assert_true(w[2].sum == 158 && w[2].series == 15);
	assert_int_equal(w[2].type, DN_PROM_HISTOGRAM);	/* family's */
	assert_true(w[3].sum == 2.541568e+07);
	assert_true(w[4].sum == 20480);
	assert_int_equal(w[5].series, 0);
	assert_int_equal(w[6].series, 0);
}

static int
parse(const char *line, struct dn_prom_sample *s, const char **err)
{
	return (dn_prom_parse_line(line, strlen(line), s, err));
}

static void
test_values(void **state)
{
	struct dn_prom_sample	 s;
	const char		*err;

	(void)state;
	assert_int_equal(parse("a 1", &s, &err), 1);
	assert_true(s.value == 1 && !s.has_ts && s.labels == NULL);
	assert_int_equal(parse("a NaN", &s, &err), 1);
	assert_true(isnan(s.value));
	assert_int_equal(parse("a +Inf", &s, &err), 1);
	assert_true(isinf(s.value) && s.value > 0);
	assert_int_equal(parse("a -Inf", &s, &err), 1);
	assert_true(isinf(s.value) && s.value < 0);
	assert_int_equal(parse("a 1.5e+06", &s, &err), 1);
	assert_true(s.value == 1.5e6);
	assert_int_equal(parse("a -0.25", &s, &err), 1);
	assert_true(s.value == -0.25);
	assert_int_equal(parse("a 3 1700000000123", &s, &err), 1);
	assert_true(s.value == 3 && s.has_ts && s.ts_ms == 1700000000123);
	assert_int_equal(parse("a 3 -5", &s, &err), 1);
	assert_true(s.ts_ms == -5);
	assert_int_equal(parse("ns:sub_total\t\t7  \r", &s, &err), 1);
	assert_int_equal(s.name_len, 12);
	assert_true(s.value == 7);
	assert_int_equal(parse("  a 2", &s, &err), 1);	/* leading blanks */
	/* not the format: strtod would take them */
	assert_int_equal(parse("a inf", &s, &err), -1);
	assert_int_equal(parse("a nan", &s, &err), -1);
	assert_int_equal(parse("a 0x10", &s, &err), -1);
	assert_int_equal(parse("a 1abc", &s, &err), -1);
	assert_string_equal(err, "bad value");
	assert_int_equal(parse("a", &s, &err), -1);
	assert_string_equal(err, "missing value");
	assert_int_equal(parse("a 1 2 3", &s, &err), -1);
	assert_int_equal(parse("a 1 12.5", &s, &err), -1);
	assert_string_equal(err, "bad timestamp");
	assert_int_equal(parse("9a 1", &s, &err), -1);
	assert_int_equal(parse("a-b 1", &s, &err), -1);
}

static void
test_comments(void **state)
{
	struct dn_prom_sample	 s;
	const char		*err;

	(void)state;
	assert_int_equal(parse("", &s, &err), 0);
	assert_int_equal(parse("   ", &s, &err), 0);
	assert_int_equal(parse("\r", &s, &err), 0);
	assert_int_equal(parse("# HELP a Some \"text\" {with} \\ odd", &s,
	    &err), 0);
	assert_int_equal(parse("# TYPE a counter", &s, &err), 0);
	assert_int_equal(parse("#anything at all", &s, &err), 0);
}

static void
test_labels(void **state)
{
	struct dn_prom_sample	 s;
	const char		*err, *p;
	char			 name[32], value[64];

	(void)state;
	assert_int_equal(parse("req{path=\"C:\\\\dir\\\"x\\\"\\nend\","
	    "code = \"200\" ,} 4 17", &s, &err), 1);
	assert_int_equal(s.nlabels, 2);
	assert_true(s.value == 4 && s.ts_ms == 17);
	p = s.labels;
	assert_int_equal(dn_prom_label_next(&p, s.labels + s.labels_len,
	    name, sizeof(name), value, sizeof(value)), 1);
	assert_string_equal(name, "path");
	assert_string_equal(value, "C:\\dir\"x\"\nend");
	assert_int_equal(dn_prom_label_next(&p, s.labels + s.labels_len,
	    name, sizeof(name), value, sizeof(value)), 1);
	assert_string_equal(name, "code");
	assert_string_equal(value, "200");
	assert_int_equal(dn_prom_label_next(&p, s.labels + s.labels_len,
	    name, sizeof(name), value, sizeof(value)), 0);
	/* a '}', '#', ',' or blank inside a quoted value is text */
	assert_int_equal(parse("a{x=\"} # ,\"} 1", &s, &err), 1);
	assert_int_equal(s.nlabels, 1);
	assert_int_equal(parse("a{} 1", &s, &err), 1);
	assert_int_equal(s.nlabels, 0);
	assert_int_equal(parse("a {x=\"1\"} 2", &s, &err), 1);
	/* long values are truncated into the buffer, not overrun */
	assert_int_equal(parse("a{x=\"0123456789abcdef\"} 1", &s, &err), 1);
	p = s.labels;
	assert_int_equal(dn_prom_label_next(&p, s.labels + s.labels_len,
	    name, sizeof(name), value, 5), 1);
	assert_string_equal(value, "0123");

	assert_int_equal(parse("a{x=\"1} 1", &s, &err), -1);
	assert_string_equal(err, "unterminated label value");
	assert_int_equal(parse("a{x=1} 1", &s, &err), -1);
	assert_int_equal(parse("a{x=\"\\t\"} 1", &s, &err), -1);
	assert_int_equal(parse("a{x} 1", &s, &err), -1);
	assert_int_equal(parse("a{1x=\"1\"} 1", &s, &err), -1);
	assert_int_equal(parse("a{x=\"1\" y=\"2\"} 1", &s, &err), -1);
	assert_int_equal(parse("a{x:y=\"1\"} 1", &s, &err), -1);
	assert_int_equal(parse("a{x=\"1\"", &s, &err), -1);
}

static void
test_sum_rules(void **state)
{
	static const char text[] =
	    "# TYPE req_total counter\n"
	    "req_total{code=\"200\"} 10\n"
	    "req_total{code=\"500\"} 2 1700000000000\r\n"
	    "\n"
	    "req_total_other 100\n"
	    "temp{x=\"a\"} NaN\n"
	    "temp{x=\"b\"} 1\n"
	    "broken{x=\"1} 5\n"
	    "up 1";				/* no final newline */
	struct dn_prom_want	w[] = {
		{ .name = "req_total" }, { .name = "temp" },
		{ .name = "broken" }, { .name = "up" },
	};
	struct dn_prom_stats	st;

	(void)state;
	assert_int_equal(dn_prom_sum(text, strlen(text), w, 4, &st), 3);
	assert_true(w[0].sum == 12 && w[0].series == 2);
	assert_int_equal(w[0].type, DN_PROM_COUNTER);
	assert_true(isnan(w[1].sum) && w[1].series == 2);
	assert_int_equal(w[1].type, DN_PROM_UNTYPED);
	assert_true(w[2].bad && w[2].series == 0);
	assert_true(w[3].sum == 1);
	assert_int_equal(st.lines, 9);
	assert_int_equal(st.samples, 7);
	assert_int_equal(st.bad, 1);
	/* a second scan starts from zero */
	assert_int_equal(dn_prom_sum("up 0\n", 5, w, 4, NULL), 1);
	assert_true(w[0].series == 0 && w[3].sum == 0 && !w[2].bad);
	assert_int_equal(dn_prom_sum("", 0, w, 4, NULL), 0);
	assert_string_equal(dn_prom_type_name(DN_PROM_SUMMARY), "summary");
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_etcd_every_line),
		cmocka_unit_test(test_etcd_sum),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_sum_rules),
	};

	return (cmocka_run_group_tests(tests, load_page, free_page));
}
