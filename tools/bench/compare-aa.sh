#!/bin/bash
# compare-aa.sh: how honest is each unit?  N synthetic A/A groups (same
# distribution for A and B: 2% trial-level and 3% node-level noise, 2%
# AR(1) per-sample noise) compared with every unit; counts the groups in
# which any metric comes out significant (the family-wise false positive
# rate, to be near or below 5%).  And the same with a 20% allocation
# effect on B: how often it is found (power).
# Usage: tools/bench/compare-aa.sh [BUILD_DIR] [GROUPS] [TRIALS]
set -eu
BUILD=${1:-build}
N=${2:-40}
TRIALS=${3:-4}
# A build tree is brought up to date; a plain directory of binaries
# (copied aside for a long run) is used as it is.
if [ -f "$BUILD/CMakeCache.txt" ]; then
	cmake --build "$BUILD" --target devnet dn-store-synth >/dev/null
fi
T=$(mktemp -d /tmp/dn-aa-XXXXXX)
trap 'rm -rf "$T"' EXIT
count() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(m["significant"] for m in d["metrics"] if m["name"] != sys.argv[1]), int(any(m["significant"] and m["verdict"] == "better" for m in d["metrics"] if m["name"] == sys.argv[1])))' "$1"; }
for unit in trial node; do
	fp=0 hit=0 fpe=0
	for seed in $(seq "$N"); do
		rm -f "$T"/*.db*
		"$BUILD/bin/dn-store-synth" --db "$T/aa.db" --trials "$TRIALS" \
		    --nodes 4 --seconds 120 --warmup 10 --seed "$seed" >/dev/null
		"$BUILD/bin/dn-store-synth" --db "$T/ab.db" --trials "$TRIALS" \
		    --nodes 4 --seconds 120 --warmup 10 --seed "$seed" \
		    --effect allocs=-20 >/dev/null
		read -r a _ < <("$BUILD/bin/devnet" compare --db "$T/aa.db" \
		    --unit $unit --format json 1:A 1:B | count none)
		read -r o h < <("$BUILD/bin/devnet" compare --db "$T/ab.db" \
		    --unit $unit --format json 1:A 1:B | count allocs_per_s)
		[ "$a" -gt 0 ] && fp=$((fp + 1))
		[ "$o" -gt 0 ] && fpe=$((fpe + 1))
		hit=$((hit + h))
	done
	echo "unit $unit, $TRIALS trials per side, $N groups: A/A with any significant metric $fp/$N; allocs -20% found $hit/$N (other metrics significant in $fpe/$N)"
done
