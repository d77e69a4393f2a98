#!/bin/sh
# collector-ingest.sh: issue 6 target 1, collector ingest end to end.
# Runs dn-collector-ingest-bench (tools/bench/collector-ingest.c: the real
# collector thread and sqlite store, SENDERS processes pushing real SAMPLE
# messages over ipc) ROUNDS times and prints each result and the medians of
# samples/s and collector CPU ms per 1,000 samples.
#
# usage: tools/bench/collector-ingest.sh [ROUNDS] [SENDERS] [MSGS_PER_SENDER]
# SERVE_POLL_MS=N: each round with the live server and a client polling
# every N ms (dn-collector-ingest-bench -S N; docs/benchmarks.md, "--serve").
# BUILD (default build-bench) holds bin/dn-collector-ingest-bench.
set -eu
. "$(dirname "$0")/bench-lib.sh"
here=$HERE root=$ROOT
build=${BUILD:-$root/build-bench}
rounds=${1:-3}
senders=${2:-10}
msgs=${3:-3000}
drv=$build/bin/dn-collector-ingest-bench
bench_need "$drv" dn-collector-ingest-bench
rate_all= cpu_all=
r=1
while [ "$r" -le "$rounds" ]; do
	line=$("$drv" -s "$senders" -m "$msgs" ${SERVE_POLL_MS:+-S "$SERVE_POLL_MS"})
	echo "round $r: $line"
	rate_all="$rate_all $(echo "$line" | sed 's/.*samples_per_s=\([^ ]*\).*/\1/')"
	cpu_all="$cpu_all $(echo "$line" | sed 's/.*cpu_ms_per_1000=\([^ ]*\).*/\1/')"
	r=$((r + 1))
done
echo "median: $(bench_median $rate_all) samples/s," \
    "$(bench_median $cpu_all) collector CPU ms per 1,000 samples"
