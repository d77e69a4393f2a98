#!/usr/bin/env bash
# read-path.sh: the node's point-read path, cached vs per-call ReadOptions,
# beside Debian's db_bench readrandom on the same DB shape (1,000,000
# 16-byte keys, 100-byte values, 1 GiB LRU block cache, warm cache).
# Prints a markdown table for docs/benchmarks.md ("Node read path").
#
#   tools/bench/read-path.sh [BUILD_DIR] [KEYS] [READS] [ROUNDS]
#
# BUILD_DIR must be a normal (non-sanitizer) build with DN_ALLOC_COUNT on;
# its dn-read-path-bench target is built if missing.  Rounds alternate
# cached, per-call, db_bench so drift on a noisy machine hits all three;
# the table shows the median reads/s of the rounds.  db_bench runs
# readrandom twice per round on its own fillseq DB and the second
# (warm-cache) pass counts, like the driver's warm-up pass.
set -euo pipefail

build=${1:-build-node}
keys=${2:-1000000}
reads=${3:-1000000}
rounds=${4:-3}
cache=$((1 << 30))
src=$(cd "$(dirname "$0")/../.." && pwd)
drv=$build/bin/dn-read-path-bench

command -v db_bench >/dev/null || {
	echo "read-path.sh: db_bench not found; apt-get install rocksdb-tools" >&2
	exit 1
}
[ -x "$drv" ] || cmake --build "$build" --target dn-read-path-bench -j2 >&2
work=$(mktemp -d /tmp/dn-readpath-XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "filling $keys keys (node store) ..." >&2
"$drv" fill "$work/node" "$keys" "$cache" >&2
echo "filling $keys keys (db_bench fillseq) ..." >&2
db_bench --benchmarks=fillseq --num="$keys" --key_size=16 \
    --value_size=100 --db="$work/dbb" >/dev/null 2>&1

: >"$work/results"
for r in $(seq 1 "$rounds"); do
	for m in cached per-call; do
		line=$("$drv" read "$work/node" "$keys" "$reads" "$m" "$cache")
		echo "round $r: $line" >&2
		echo "$line" | awk -v m="$m" '{
		    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		    print m, v["reads_per_s"], v["allocs_per_read"] }' >>"$work/results"
	done
	line=$(db_bench --benchmarks=readrandom,readrandom --use_existing_db=1 \
	    --num="$keys" --reads="$reads" --key_size=16 --value_size=100 \
	    --cache_size="$cache" --db="$work/dbb" 2>/dev/null |
	    grep '^readrandom' | tail -1)
	echo "round $r: db_bench $line" >&2
	echo "$line" | awk '{ for (i = 1; i < NF; i++)
	    if ($(i + 1) == "ops/sec") print "db_bench", $i, "-" }' \
	    >>"$work/results"
done

median() {
	grep "^$1 " "$work/results" | awk '{ print $2 }' | sort -n |
	    awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
best() {
	grep "^$1 " "$work/results" | awk '{ print $2 }' | sort -n | tail -1
}
allocs() {
	grep "^$1 " "$work/results" | awk '{ print $3 }' | sort -u | tr '\n' ' '
}
pct() {
	echo "$1 $2" | awk '{ printf "%.0f %%", 100 * $1 / $2 }'
}
c=$(median cached); cb=$(best cached)
p=$(median per-call); pb=$(best per-call)
d=$(median db_bench); db=$(best db_bench)
echo
echo "| read path | reads/s median of $rounds | vs db_bench | reads/s best | vs db_bench | allocations per read |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| node \`store_get\`, ReadOptions cached | $c | $(pct "$c" "$d") | $cb | $(pct "$cb" "$db") | $(allocs cached)|"
echo "| node \`store_get\`, ReadOptions per-call | $p | $(pct "$p" "$d") | $pb | $(pct "$pb" "$db") | $(allocs per-call)|"
echo "| \`db_bench --benchmarks=readrandom\` (Debian 7.8.3) | $d | 100 % | $db | 100 % | - |"
