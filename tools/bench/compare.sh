#!/bin/bash
# compare.sh: time `devnet compare G:A G:B` on two sides of ~2,000,000
# samples each (10 nodes x 2.5 h x 1 Hz x 22 node metrics + the load
# generator's, synthetic, written through the store API), and a
# `devnet query` per-node aggregate over one finished and one running run.
# Usage: tools/bench/compare.sh [BUILD_DIR] [REPEATS]
set -eu
BUILD=${1:-build}
REPEATS=${2:-3}
# A build tree is brought up to date; a plain directory of binaries
# (copied aside for a long run) is used as it is.
if [ -f "$BUILD/CMakeCache.txt" ]; then
	cmake --build "$BUILD" --target devnet dn-store-synth >/dev/null
fi
T=$(mktemp -d /tmp/dn-cmpb-XXXXXX)
trap 'rm -rf "$T"' EXIT
DB=$T/cmp.db
echo "# $(date -u '+%F %H:%M UTC') $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$BUILD/bin/dn-store-synth" --db "$DB" --trials 1 --nodes 10 \
    --seconds 9000 --warmup 600 --metrics 22 --batch 65536 >/dev/null
"$BUILD/bin/devnet" query --db "$DB" "SELECT variant, count(*) AS samples FROM samples JOIN runs ON runs.id = run_id GROUP BY variant"
echo "database: $(du -h "$DB" | cut -f1)"
for i in $(seq "$REPEATS"); do
	/usr/bin/time -f "%e %U %S" "$BUILD/bin/devnet" compare --db "$DB" \
	    1:A 1:B 2>&1 >/dev/null | tail -1
done | awk '{ print "compare 1:A 1:B: " $1 " s wall (" $2 " user, " $3 " sys)" }'
# Run 3: the same shape, left running, so node_summary aggregates its
# samples when queried instead of reading the stored series.
"$BUILD/bin/dn-store-synth" --db "$DB" --trials 1 --nodes 10 \
    --seconds 9000 --warmup 600 --metrics 22 --batch 65536 --variants C \
    --running >/dev/null
# time_summary RUN LABEL: the whole-run node_summary query, REPEATS times.
time_summary() {
	for i in $(seq "$REPEATS"); do
		/usr/bin/time -f "%e %U %S" "$BUILD/bin/devnet" query \
		    --db "$DB" "SELECT node, metric, avg, max, rate_per_s FROM
		    node_summary WHERE run_id = $1" 2>&1 >/dev/null | tail -1
	done | awk -v what="$2" '{ print "query node_summary " what ": " \
	    $1 " s wall (" $2 " user, " $3 " sys)" }'
}
time_summary 1 "run 1"
time_summary 3 "run 3 (running)"
