#!/bin/bash
# ingest.sh: samples/s into the sqlite store (metrics/store/ (schema.c, store-write.c, store-read.c)) through its
# API: dn_store_sample + dn_store_commit, the calls the collector makes.
# Synthetic samples for 10 nodes x all metrics at 1 Hz (dn-store-synth),
# one run of SECONDS; only the time inside the store calls is counted.
# Reports the figure for 10,000-row and DN_STORE_BATCH_ROWS (65,536-row)
# commits.  Usage: tools/bench/ingest.sh [BUILD_DIR] [SECONDS] [REPEATS]
set -eu
BUILD=${1:-build}
SECONDS_RUN=${2:-3000}
REPEATS=${3:-3}
# A build tree is brought up to date; a plain directory of binaries
# (copied aside for a long run) is used as it is.
if [ -f "$BUILD/CMakeCache.txt" ]; then
	cmake --build "$BUILD" --target dn-store-synth >/dev/null
fi
T=$(mktemp -d /tmp/dn-ingest-XXXXXX)
trap 'rm -rf "$T"' EXIT
echo "# $(date -u '+%F %H:%M UTC') $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for batch in 10000 65536; do
	for i in $(seq "$REPEATS"); do
		rm -f "$T"/i.db*
		"$BUILD/bin/dn-store-synth" --db "$T/i.db" --trials 1 \
		    --variants A --nodes 10 --seconds "$SECONDS_RUN" --time \
		    --batch $batch | head -1 |
		    awk -v b=$batch '{ printf "batch %6d rows: %d samples in %.3f s of store time: %.0f samples/s\n", b, $2, $8, $10 }'
	done
done
