#!/bin/sh
# spawn-stop.sh: issue 6 target 4, spawn and stop.  ROUNDS times: start
# `devnet run tools/bench/spawn-stop.yaml` (10 idle nodes), take the
# readiness time from the run's `start` event ("N node(s) ready in X ms":
# spawn of the first node to the last HELLO), wait 2 s, SIGTERM the
# orchestrator and time the signal to its exit; then check that no node
# of the run is left.  Prints one line per round and the medians.
#
# usage: tools/bench/spawn-stop.sh [ROUNDS] [NODES]
# DEVNET (default build-bench/bin/devnet) selects the binary.
set -eu
. "$(dirname "$0")/bench-lib.sh"
here=$HERE root=$ROOT
devnet=${DEVNET:-$root/build-bench/bin/devnet}
rounds=${1:-3}
nodes=${2:-10}
bench_need "$devnet" "devnet devnet-node"
work=$(mktemp -d /tmp/ss-XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
ready_all= stop_all= left_all=0
r=1
while [ "$r" -le "$rounds" ]; do
	db=$work/ss$r.db
	"$devnet" run "$here/spawn-stop.yaml" --set network.nodes="$nodes" \
	    --db "$db" --run-dir "$work/r$r" --quiet &
	pid=$!
	ready=
	i=0
	while [ -z "$ready" ] && [ $i -lt 600 ]; do
		sleep 0.05
		ready=$(sqlite3 "$db" "SELECT detail FROM events WHERE \
		    kind = 'start'" 2>/dev/null | sed -n \
		    's/.*ready in \([0-9]*\) ms.*/\1/p') || true
		i=$((i + 1))
	done
	[ -n "$ready" ] || { echo "$0: round $r: devnet never ready" >&2; \
	    exit 1; }
	sleep 2
	t0=$(bench_now_ms)
	kill -TERM "$pid"
	wait "$pid" || true
	t1=$(bench_now_ms)
	pid=
	left=$(pgrep -f -- "--dir $work/r$r/" | wc -l)
	echo "round $r: $nodes node(s) ready in $ready ms;" \
	    "stopped $((t1 - t0)) ms after SIGTERM; $left node(s) left"
	ready_all="$ready_all $ready"
	stop_all="$stop_all $((t1 - t0))"
	left_all=$((left_all + left))
	r=$((r + 1))
done
echo "median: ready $(bench_median $ready_all) ms," \
    "stop $(bench_median $stop_all) ms," \
    "nodes left $left_all"
[ "$left_all" -eq 0 ]
