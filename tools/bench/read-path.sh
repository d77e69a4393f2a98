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
TIMEFORMAT='%U %S'
# CPU seconds (user + sys) of one db_bench run with BENCHMARKS.
dbb_cpu() {
	{ time db_bench --benchmarks="$1" --use_existing_db=1 --num="$keys" \
	    --reads="$reads" --key_size=16 --value_size=100 \
	    --cache_size="$cache" --db="$work/dbb" >"$work/dbb.out" 2>&1 ; } \
	    2>&1 | awk '{ print $1 + $2 }'
}
for r in $(seq 1 "$rounds"); do
	for m in cached per-call; do
		line=$("$drv" read "$work/node" "$keys" "$reads" "$m" "$cache")
		echo "round $r: $line" >&2
		echo "$line" | awk -v m="$m" '{
		    for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		    print m, v["reads_per_s"], v["reads_per_cpu_s"],
		    v["allocs_per_read"] }' >>"$work/results"
	done
	# The warm pass: wall time from db_bench's own second line, CPU
	# time as (two passes) - (one pass) of whole-process CPU.
	cpu1=$(dbb_cpu readrandom)
	cpu2=$(dbb_cpu readrandom,readrandom)
	line=$(grep '^readrandom' "$work/dbb.out" | tail -1)
	echo "round $r: db_bench $line (cpu $cpu1 s one pass, $cpu2 s two)" >&2
	echo "$line" | awk -v c1="$cpu1" -v c2="$cpu2" -v n="$reads" '{
	    for (i = 1; i < NF; i++) if ($(i + 1) == "ops/sec") w = $i
	    printf "db_bench %s %.0f -\n", w, n / (c2 - c1) }' >>"$work/results"
done

col() {		# column $2 of the rows of $1, sorted
	grep "^$1 " "$work/results" | awk -v c="$2" '{ print $c }' | sort -n
}
median() {
	col "$1" "$2" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
allocs() {
	col "$1" 4 | sort -u | tr '\n' ' '
}
pct() {
	echo "$1 $2" | awk '{ printf "%.0f %%", 100 * $1 / $2 }'
}
cw=$(median cached 2); cc=$(median cached 3)
pw=$(median per-call 2); pc=$(median per-call 3)
dw=$(median db_bench 2); dc=$(median db_bench 3)
echo
echo "| read path | reads/s (wall) | vs db_bench | reads per CPU-second | vs db_bench | allocations per read |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| node \`store_get\`, ReadOptions cached | $cw | $(pct "$cw" "$dw") | $cc | $(pct "$cc" "$dc") | $(allocs cached)|"
echo "| node \`store_get\`, ReadOptions per-call | $pw | $(pct "$pw" "$dw") | $pc | $(pct "$pc" "$dc") | $(allocs per-call)|"
echo "| \`db_bench --benchmarks=readrandom\` (Debian 7.8.3) | $dw | 100 % | $dc | 100 % | - |"
echo
echo "Medians of $rounds rounds; $keys keys, $reads reads per pass, warm block cache of $cache bytes."
