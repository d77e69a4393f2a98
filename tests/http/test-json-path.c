/*
 * test-json-path.c: the JSON path reader (metrics/http/json-path.c) on a
 * page shaped like etcd's /v2/stats/self and Go's /debug/vars, and on
 * the paths and documents it must refuse, each with a message that
 * names the step that failed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "json-path.h"

static const char page[] =
    "{\"name\":\"node0\",\"id\":\"8e9e05c52164694d\",\"state\":"
    "\"StateLeader\",\"leaderInfo\":{\"leader\":\"8e9e\",\"uptime\":"
    "\"1m2s\"},\"recvAppendRequestCnt\":0,\"sendAppendRequestCnt\":17,"
    "\"sendPkgRate\": 2.5e1 , \"memstats\": {\"Mallocs\": 123456789012,"
    "\"BySize\":[{\"Size\":0,\"Mallocs\":7},{\"Size\":8,\"Mallocs\":"
    "-3.25}]}, \"ok\": true, \"bad\": false, \"none\": null,"
    "\"rpc.calls\": {\"total\": 42}, \"esc\\\"aped\": 5,"
    "\"u\\u0041\": 6, \"nested\": [[1,[2,{\"x\":\"]}\"}]],[3]]}";

static double
get(const char *path)
{
	char	err[256];
	double	v = -1;

	if (dn_json_path_get(page, strlen(page), path, &v, err,
	    sizeof(err)) != 0)
		fail_msg("%s: %s", path, err);
	return (v);
}

static void
want_err(const char *doc, const char *path, const char *msg)
{
	char	err[256];
	double	v;

	assert_int_equal(dn_json_path_get(doc, strlen(doc), path, &v, err,
	    sizeof(err)), -1);
	if (strstr(err, msg) == NULL)
		fail_msg("%s: got '%s', want '%s'", path, err, msg);
}

static void
test_values(void **state)
{
	(void)state;
	assert_true(get("sendAppendRequestCnt") == 17);
	assert_true(get("recvAppendRequestCnt") == 0);
	assert_true(get("sendPkgRate") == 25);
	assert_true(get("memstats.Mallocs") == 123456789012.0);
	assert_true(get("memstats.BySize[0].Mallocs") == 7);
	assert_true(get("memstats.BySize[1].Mallocs") == -3.25);
	assert_true(get("ok") == 1);
	assert_true(get("bad") == 0);
	assert_true(get("[\"rpc.calls\"].total") == 42);
	assert_true(get("[\"esc\\\"aped\"]") == 5);
	assert_true(get("uA") == 6);
	assert_true(get("nested[0][1][0]") == 2);
	assert_true(get("nested[1][0]") == 3);
}

static void
test_refused(void **state)
{
	(void)state;
	want_err(page, "memstats.Frees", "no member 'Frees' in the object "
	    "at 'memstats' (its members: Mallocs, BySize)");
	/* what the object has, its first 8, to see the path's slip */
	want_err(page, "Name", "no member 'Name' in the object at the top "
	    "(its members: name, id, state, leaderInfo, "
	    "recvAppendRequestCnt, sendAppendRequestCnt, sendPkgRate, "
	    "memstats, ...)");
	want_err("{\"a\": {}}", "a.b", "no member 'b' in the object at 'a' "
	    "(it is empty)");
	want_err(page, "memstats.BySize[2]", "index 2 is past the end of "
	    "the array at 'memstats.BySize' (2 elements)");
	want_err(page, "name", "'name' is a string, not a number");
	want_err(page, "none", "'none' is null, not a number");
	want_err(page, "leaderInfo", "'leaderInfo' is an object, not a "
	    "number");
	want_err(page, "memstats[0]", "'memstats' is an object, not an "
	    "array");
	want_err(page, "ok.x", "'ok' is a number or a boolean, not an "
	    "object");
	want_err("[1,2", "[5]", "malformed JSON");
	want_err("{\"a\":1", "b", "malformed JSON");
	want_err("{\"a\" 1}", "a", "malformed JSON at byte 5");
	want_err("{\"a\":1e999}", "a", "not a finite number");
	want_err("{\"a\":1}", "a..b", "bad path");
	want_err("{\"a\":1}", "", "bad path");
	want_err("{\"a\":1}", "a[x]", "bad path");
	want_err("{\"a\":1}", "a b", "bad path");
	want_err("", "a", "malformed JSON");
}

static void
test_check(void **state)
{
	const char	*err;

	(void)state;
	assert_int_equal(dn_json_path_check("a.b[0]", &err), 0);
	assert_int_equal(dn_json_path_check("[0].a", &err), 0);
	assert_int_equal(dn_json_path_check("[\"a.b\"][3][\"c\"]", &err), 0);
	assert_int_equal(dn_json_path_check("a.[0]", &err), -1);
	assert_int_equal(dn_json_path_check(".a", &err), -1);
	assert_int_equal(dn_json_path_check("a[\"b", &err), -1);
	assert_int_equal(dn_json_path_check("a[1", &err), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_check),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
