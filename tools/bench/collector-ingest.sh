#!/bin/sh
# collector-ingest.sh: collector ingest end to end (issue 6 target 1),
# beside its plain-sqlite floor (issue 26: "at least 0.8x the floor with
# the same durability, at 10 and at 100 senders").
# Each round runs dn-collector-ingest-bench (tools/bench/collector-ingest.c:
# the real collector thread and sqlite store, SENDERS processes pushing
# real SAMPLE messages over ipc the way devnet-node's metrics agent writes
# them, metrics/wire/sp-push.c) and dn-ingest-floor (tools/bench/
# ingest-floor.c: the same rows into devnet's samples table with devnet's
# journal_mode and synchronous, plain sqlite), one after the other in the
# same window, the order swapped every round; it prints each result with
# the load average before it, the round's ratio, and the medians.
#
# usage: tools/bench/collector-ingest.sh [ROUNDS] [SENDERS] [MSGS_PER_SENDER]
# SERVE_POLL_MS=N: each round with the live server and a client polling
# every N ms (dn-collector-ingest-bench -S N; docs/benchmarks.md, "--serve").
# FLOOR_ARGS: more options for dn-ingest-floor (e.g. -a, -D: its --help).
# SENDER_NNG=1: the senders push through nng PUSH sockets instead, as the
# agent did until issue 26's fourth round (-N).
# BUILD (default build-bench) holds bin/dn-collector-ingest-bench and
# bin/dn-ingest-floor; without the floor program the rounds run alone.
set -eu
. "$(dirname "$0")/bench-lib.sh"
here=$HERE root=$ROOT
build=${BUILD:-$root/build-bench}
rounds=${1:-3}
senders=${2:-10}
msgs=${3:-3000}
drv=$build/bin/dn-collector-ingest-bench
floor=$build/bin/dn-ingest-floor
bench_need "$drv" dn-collector-ingest-bench
[ -x "$floor" ] || floor=
rate_all= cpu_all= floor_all= ratio_all=

collector() {
	echo "  load $(cut -d' ' -f1-3 /proc/loadavg): collector"
	line=$("$drv" ${SENDER_NNG:+-N} -s "$senders" -m "$msgs" \
	    ${SERVE_POLL_MS:+-S "$SERVE_POLL_MS"})
	echo "    $line"
	rate=$(echo "$line" | sed 's/.*samples_per_s=\([^ ]*\).*/\1/')
	rate_all="$rate_all $rate"
	cpu_all="$cpu_all $(echo "$line" | sed 's/.*cpu_ms_per_1000=\([^ ]*\).*/\1/')"
}

floor() {
	echo "  load $(cut -d' ' -f1-3 /proc/loadavg): floor"
	# shellcheck disable=SC2086
	fline=$("$floor" -s "$senders" -m "$msgs" ${FLOOR_ARGS:-})
	echo "    $fline"
	frate=$(echo "$fline" | sed 's/.*rows_per_s=\([^ ]*\).*/\1/')
	floor_all="$floor_all $frate"
}

r=1
while [ "$r" -le "$rounds" ]; do
	echo "round $r:"
	if [ -z "$floor" ]; then
		collector
	elif [ $((r % 2)) -eq 1 ]; then
		collector
		floor
	else
		floor
		collector
	fi
	if [ -n "$floor" ]; then
		rt=$(awk -v a="$rate" -v b="$frate" 'BEGIN { printf "%.2f", a / b }')
		ratio_all="$ratio_all $rt"
		echo "  ratio $rt"
	fi
	r=$((r + 1))
done
if [ -n "$floor" ]; then
	echo "median: $(bench_median $rate_all) samples/s," \
	    "$(bench_median $cpu_all) collector CPU ms per 1,000 samples;" \
	    "floor $(bench_median $floor_all) rows/s; ratio" \
	    "$(bench_median $ratio_all)x (rounds:$ratio_all)"
else
	echo "median: $(bench_median $rate_all) samples/s," \
	    "$(bench_median $cpu_all) collector CPU ms per 1,000 samples" \
	    "(no dn-ingest-floor in $build: no floor)"
fi
