#!/bin/sh
# spawn-stop.sh: start and stop against their floor (issue 26; issue 6
# target 4).  ROUNDS times, side by side in the same window:
#
#   - the floor: dn-spawn-floor (tools/bench/spawn-floor.c) forks and
#     execs NODES children that open RocksDB and say hello over nng, then
#     SIGTERMs them: its ready and stop times;
#   - devnet: `devnet run tools/bench/spawn-stop.yaml` (NODES idle nodes);
#     readiness from the run's `start` event ("N node(s) ready in X ms":
#     spawn of the first node to the last HELLO), 2 s later SIGTERM to the
#     orchestrator, timed from the signal to its exit (it stops the nodes
#     itself: SIGTERM, grace, SIGKILL, final samples, the run's end
#     stored); then no node of the run may be left.
#
# Prints one line per round with both and their ratios, then the medians
# and the load average.  Exit 1 if a node was left behind.
#
# usage: tools/bench/spawn-stop.sh [ROUNDS] [NODES]
# DEVNET (default build-bench/bin/devnet) selects the binary; the floor
# program is taken beside it (bin/dn-spawn-floor).
set -eu
. "$(dirname "$0")/bench-lib.sh"
here=$HERE root=$ROOT
devnet=${DEVNET:-$root/build-bench/bin/devnet}
floor=$(dirname "$devnet")/dn-spawn-floor
rounds=${1:-3}
nodes=${2:-10}
bench_need "$devnet" "devnet devnet-node"
bench_need "$floor" "dn-spawn-floor"
work=$(mktemp -d /tmp/ss-XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
ready_all= stop_all= left_all=0 fready_all= fstop_all= rr_all= sr_all=
r=1
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
while [ "$r" -le "$rounds" ]; do
	set -- $("$floor" "$work/floor" "$nodes" 1 | sed -n \
	    's/.*ready in \([0-9.]*\) ms; stopped in \([0-9.]*\) ms/\1 \2/p')
	fready=$1 fstop=$2
	rm -rf "$work/floor"
	db=$work/ss$r.db
	"$devnet" run "$here/spawn-stop.yaml" --set network.nodes="$nodes" \
	    --db "$db" --run-dir "$work/r$r" --quiet &
	pid=$!
	ready=
	i=0
	while [ -z "$ready" ] && [ $i -lt 1200 ]; do
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
	stop=$((t1 - t0))
	rr=$(echo "$ready $fready" | awk '{ printf "%.2f", $1 / $2 }')
	sr=$(echo "$stop $fstop" | awk '{ printf "%.2f", $1 / $2 }')
	echo "round $r: $nodes node(s) ready in $ready ms (floor $fready ms," \
	    "${rr}x); stopped $stop ms after SIGTERM (floor $fstop ms," \
	    "${sr}x); $left node(s) left"
	ready_all="$ready_all $ready" stop_all="$stop_all $stop"
	fready_all="$fready_all $fready" fstop_all="$fstop_all $fstop"
	rr_all="$rr_all $rr" sr_all="$sr_all $sr"
	left_all=$((left_all + left))
	rm -rf "$work/r$r" "$db" "$db"-*
	r=$((r + 1))
done
echo "median: ready $(bench_median $ready_all) ms (floor" \
    "$(bench_median $fready_all) ms, ratio $(bench_median $rr_all)x)," \
    "stop $(bench_median $stop_all) ms (floor $(bench_median $fstop_all)" \
    "ms, ratio $(bench_median $sr_all)x), nodes left $left_all"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$left_all" -eq 0 ]
