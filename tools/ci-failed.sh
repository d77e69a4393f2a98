#!/usr/bin/env bash
# ci-failed.sh BUILD: after a ctest run that failed, what failed, last.
#
# CI keeps the head and the tail of a long log and drops the middle: twice
# (2026-12-06, 2026-12-07) dn.net.zones failed under ASan with its reason
# in the part dropped.  So `make test` ends a failed run with this: per
# failed test, the lines that say what failed (a shell test's FAIL:, a
# cmocka ERROR, LINE and FAILED, a devnet run's "failed:"), at most 25
# per test, and the test's last 5 lines.
set -u
build=${1:?usage: ci-failed.sh BUILD}
tmp=$build/Testing/Temporary
[ -s "$tmp/LastTestsFailed.log" ] || exit 0
echo
echo "==== what failed (ctest's log: $tmp/LastTest.log) ===="
cut -d: -f2- "$tmp/LastTestsFailed.log" | while read -r name; do
	echo "---- $name"
	# the test's block: from its "Testing: NAME" line to its end time
	awk -v n="$name" '
		$0 ~ "^[0-9]+/[0-9]+ Testing: " n "$" { on = 1; next }
		on && index($0, "\"" n "\" end time:") == 1 { on = 0 }
		on { print }' "$tmp/LastTest.log" >"$tmp/failed-block.txt"
	grep -E '^FAIL|\[  ERROR   \]|\[   LINE   \]|\[  FAILED  \]|failed: |[Aa]ssert|Sanitizer|runtime error' \
	    "$tmp/failed-block.txt" | head -25
	echo "  (its last lines:)"
	grep -v -E '^-+$|^Test (Failed|Passed)' "$tmp/failed-block.txt" |
	    tail -5 | sed 's/^/  /'
done
rm -f "$tmp/failed-block.txt"
