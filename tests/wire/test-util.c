/* test-util.c: units, SHA-256, the PRNG and the /proc field helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "procfs.h"
#include "rng.h"
#include "sha256.h"
#include "units.h"

static void
durations(void **state)
{
	const char	*why;
	int64_t		 ms;

	(void)state;
	assert_int_equal(dn_parse_duration_ms("500ms", &ms, &why), 0);
	assert_int_equal(ms, 500);
	assert_int_equal(dn_parse_duration_ms("90s", &ms, &why), 0);
	assert_int_equal(ms, 90000);
	assert_int_equal(dn_parse_duration_ms("15m", &ms, &why), 0);
	assert_int_equal(ms, 900000);
	assert_int_equal(dn_parse_duration_ms("2h30m", &ms, &why), 0);
	assert_int_equal(ms, 9000000);
	assert_int_equal(dn_parse_duration_ms("1m30s", &ms, &why), 0);
	assert_int_equal(ms, 90000);
	assert_int_equal(dn_parse_duration_ms("10", &ms, &why), 0);
	assert_int_equal(ms, 10000);
	assert_int_equal(dn_parse_duration_ms("", &ms, &why), -1);
	assert_int_equal(dn_parse_duration_ms("5x", &ms, &why), -1);
	assert_int_equal(dn_parse_duration_ms("-5s", &ms, &why), -1);
	assert_int_equal(dn_parse_duration_ms("s", &ms, &why), -1);
	assert_int_equal(dn_parse_duration_ms("99999999999999999999h", &ms,
	    &why), -1);
	assert_int_equal(dn_parse_duration_ms("9223372036854775h", &ms, &why),
	    -1);
	assert_string_equal(why, "duration too large");
}

static void
sizes(void **state)
{
	const char	*why;
	uint64_t	 b;

	(void)state;
	assert_int_equal(dn_parse_size("64MiB", &b, &why), 0);
	assert_int_equal(b, 64ull << 20);
	assert_int_equal(dn_parse_size("1GiB", &b, &why), 0);
	assert_int_equal(b, 1ull << 30);
	assert_int_equal(dn_parse_size("100", &b, &why), 0);
	assert_int_equal(b, 100);
	assert_int_equal(dn_parse_size("8KB", &b, &why), 0);
	assert_int_equal(b, 8000);
	assert_int_equal(dn_parse_size("1XiB", &b, &why), -1);
	assert_int_equal(dn_parse_size("-1", &b, &why), -1);
	assert_int_equal(dn_parse_size("99999999999TiB", &b, &why), -1);
}

static void
sha256(void **state)
{
	struct dn_sha256	c;
	uint8_t			md[32];
	char			hex[65];

	(void)state;
	dn_sha256_init(&c);
	dn_sha256_update(&c, "abc", 3);
	dn_sha256_final(&c, md);
	dn_hex(md, 32, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	dn_sha256_init(&c);
	dn_sha256_update(&c, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmn"
	    "lmnomnopnopq", 56);
	dn_sha256_final(&c, md);
	dn_hex(md, 32, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039"
	    "a33ce45964ff2167f6ecedd419db06c1");
}

static void
rand01(void **state)
{
	uint64_t	s1 = 42, s2 = 42;
	int		i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		double	v = dn_rand01(&s1);
		assert_true(v >= 0 && v < 1);
	}
	for (i = 0; i < 1000; i++)
		dn_rand01(&s2);
	assert_true(s1 == s2); /* deterministic */
}

/* dn_procfs_field: the first line that starts with the name, not a
 * line that only contains it. */
static void
procfs_field(void **state)
{
	const char	*st = "Name:\tx\nnonvoluntary_ctxt_switches:\t7\n"
			    "voluntary_ctxt_switches:\t5\nVmHWM:\t  12 kB\n";
	const char	*rev = "voluntary_ctxt_switches:\t3\n"
			    "nonvoluntary_ctxt_switches:\t9\n";

	(void)state;
	assert_int_equal(dn_procfs_field(st, "voluntary_ctxt_switches:"), 5);
	assert_int_equal(dn_procfs_field(st, "nonvoluntary_ctxt_switches:"),
	    7);
	assert_int_equal(dn_procfs_field(st, "VmHWM:"), 12);
	assert_int_equal(dn_procfs_field(st, "HWM:"), 0);
	assert_int_equal(dn_procfs_field(st, "VmRSS:"), 0);
	assert_int_equal(dn_procfs_field(rev, "voluntary_ctxt_switches:"), 3);
	assert_int_equal(dn_procfs_field(rev, "nonvoluntary_ctxt_switches:"),
	    9);
	assert_int_equal(dn_procfs_field("", "VmHWM:"), 0);
}

/* dn_procfs_count_fds: the open files of this process, as the
 * directory's entries say, before and after opening 20 more. */
static void
procfs_count_fds(void **state)
{
	int	 dir, fds[20], before, i;

	(void)state;
	dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dir >= 0);
	before = dn_procfs_count_fds(dir);
	assert_int_equal(before, dn_procfs_dirents(dir, NULL, NULL));
	for (i = 0; i < 20; i++)
		assert_true((fds[i] = open("/dev/null", O_RDONLY)) >= 0);
	assert_int_equal(dn_procfs_count_fds(dir), before + 20);
	assert_int_equal(dn_procfs_count_fds(dir),
	    dn_procfs_dirents(dir, NULL, NULL));
	for (i = 0; i < 20; i++)
		close(fds[i]);
	assert_int_equal(dn_procfs_count_fds(dir), before);
	close(dir);
	assert_int_equal(dn_procfs_count_fds(-1), 0);

}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(durations),
		cmocka_unit_test(sizes),
		cmocka_unit_test(sha256),
		cmocka_unit_test(rand01),
		cmocka_unit_test(procfs_field),
		cmocka_unit_test(procfs_count_fds),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
