#!/bin/sh
# observer.sh: issue 6 target 2, the observer effect of the node's metrics
# agent.
#  1. Agent cost: dn-observer-bench runs the real agent (1 s interval),
#     ticked from a control loop like devnet-node's, against a sink for
#     SECONDS and reads its CPU (the ticks that sample and nng's threads'
#     sends) and the process RSS growth (ROUNDS times).
#  2. Reads/s with the agent on vs off, side by side: one devnet-node
#     (--nodes 1, --workload readrandom --read-rate 0 --keys KEYS) runs
#     READ_S seconds without --metrics, then with --metrics (to a sink)
#     at --sample-interval 1000, alternating, ROUNDS times each, on the
#     same DB (a first unmeasured run builds it and warms the cache).
#     Each run's db_bench-style "ops/sec" line is quoted.
#
# usage: tools/bench/observer.sh [ROUNDS] [SECONDS] [READ_S] [KEYS]
# BUILD (default build-bench) holds bin/devnet-node, bin/dn-observer-bench.
set -eu
. "$(dirname "$0")/bench-lib.sh"
here=$HERE root=$ROOT
build=${BUILD:-$root/build-bench}
rounds=${1:-3}
seconds=${2:-120}
read_s=${3:-20}
keys=${4:-200000}
node=$build/bin/devnet-node
obs=$build/bin/dn-observer-bench
bench_need "$node" devnet-node
bench_need "$obs" dn-observer-bench
work=$(mktemp -d /tmp/ob-XXXXXX)
npid= spid=
cleanup() {
	[ -n "$npid" ] && kill -KILL "$npid" 2>/dev/null
	[ -n "$spid" ] && kill -KILL "$spid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "== agent cost: ${seconds} s at 1 s interval, $rounds round(s)"
cpu_all= rss_all=
r=1
while [ "$r" -le "$rounds" ]; do
	mkdir -p "$work/a$r"
	line=$("$obs" agent "$work/a$r" "$seconds" 1000 0 0 tick)
	echo "round $r: $line"
	cpu_all="$cpu_all $(echo "$line" | sed 's/.*agent_core_pct=\([^ ]*\).*/\1/')"
	rss_all="$rss_all $(echo "$line" | sed 's/.*rss_growth_kib=\([^ ]*\).*/\1/')"
	r=$((r + 1))
done
echo "median: agent $(bench_median $cpu_all) % of one core," \
    "RSS growth $(bench_median $rss_all) KiB"

# One node run of READ_S seconds; $1 = on|off.  Prints its ops/sec.
reads() {
	out=$work/node-$1.out
	if [ "$1" = on ]; then
		"$obs" listen "ipc://$work/c" $((read_s + 30)) >/dev/null &
		spid=$!
		sleep 0.3
		set -- --metrics "ipc://$work/c" --sample-interval 1000
	else
		set --
	fi
	"$node" --index 0 --nodes 1 --dir "$work/n" --net "$work" \
	    --accounts 1000 --workload readrandom --read-rate 0 \
	    --keys "$keys" "$@" >"$out" 2>&1 &
	npid=$!
	sleep "$read_s"
	kill -TERM "$npid"
	wait "$npid" || true
	npid=
	if [ -n "$spid" ]; then
		kill -TERM "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		spid=
	fi
	sed -n 's/.* \([0-9.]*\) ops\/sec.*/\1/p' "$out" | tail -1
}
echo "== node reads/s, agent off vs on, ${read_s} s each, $rounds round(s)"
reads off >/dev/null
off_all= on_all=
r=1
while [ "$r" -le "$rounds" ]; do
	off=$(reads off)
	on=$(reads on)
	echo "round $r: off $off reads/s, on $on reads/s"
	off_all="$off_all $off"
	on_all="$on_all $on"
	r=$((r + 1))
done
moff=$(bench_median $off_all)
mon=$(bench_median $on_all)
echo "median: off $moff reads/s, on $mon reads/s," \
    "on/off $(awk -v a="$mon" -v b="$moff" 'BEGIN { printf "%.4f", a / b }')"
