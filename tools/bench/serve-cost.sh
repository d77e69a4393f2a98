#!/bin/sh
# serve-cost.sh: what `--serve` and a client polling it cost a real trial
# (issue 24; docs/benchmarks.md, "--serve").  ROUNDS times, alternating,
# the same one-variant trial (3 nodes, 20 s, 200 tx/s, 250 ms samples)
# without --serve and with it plus a client that asks every second what
# the live page asks (/api/live, /metrics, three charts).  Per run: the
# orchestrator's CPU (fact orchestrator_cpu_s: collector, load generator,
# server), samples_received per node, lost samples, and the median and
# max of the load generator's send lag p99 (its loop's lateness).
#
# usage: tools/bench/serve-cost.sh [ROUNDS]
# DEVNET (default BUILD/bin/devnet, BUILD default build-bench).
set -eu
. "$(dirname "$0")/bench-lib.sh"
root=$ROOT
build=${BUILD:-$root/build-bench}
devnet=${DEVNET:-$build/bin/devnet}
bench_need "$devnet" devnet
rounds=${1:-3}
t=$(mktemp -d /tmp/dn-sc.XXXXXX)
trap 'rm -rf "$t"' EXIT
cat >"$t/one.yaml" <<'YML'
name: serve-cost
duration: 20s
warmup: 2s
sample_interval: 250ms
network:
  nodes: 3
  block_interval: 200ms
  accounts: 1000
workload:
  kind: transfer
  tps: 200
variants:
  A: {}
repeats: 1
YML
port=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
poll() {	# until devnet is gone: every second what the page asks
	while kill -0 "$1" 2>/dev/null; do
		for p in api/live metrics "chart.svg?metric=rss_bytes" \
		    "chart.svg?metric=allocs" "chart.svg?metric=height"; do
			curl -s -o /dev/null --max-time 2 \
			    "http://127.0.0.1:$port/$p" || true
		done
		sleep 1
	done
}
report() {	# DB RUN LABEL
	python3 - "$@" <<'PY'
import sqlite3, statistics, sys
db, run, label = sqlite3.connect(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
f = lambda k: [v for v, in db.execute("select value from run_facts where"
    " run_id = ? and key = ? order by node", (run, k))]
lag = [v for v, in db.execute("select value from samples s join metrics m"
    " on m.id = s.metric_id where run_id = ? and m.name = "
    "'send_lag_p99_us' and t_ms >= 2000", (run,))]
print("%-9s run %d cpu_s %.3f received %s lost %d lag_p99_median_us %.0f"
    " lag_p99_max_us %.0f" % (label, run, float(f("orchestrator_cpu_s")[0]),
    "/".join(str(int(float(v))) for v in f("samples_received")),
    sum(int(float(v)) for v in f("lost_samples")),
    statistics.median(lag), max(lag)))
PY
}
run=0
r=1
while [ "$r" -le "$rounds" ]; do
	for mode in without with; do
		run=$((run + 1))
		if [ "$mode" = with ]; then
			"$devnet" run "$t/one.yaml" --db "$t/t.db" --run-dir \
			    "$t/runs" --quiet --serve "127.0.0.1:$port" \
			    >"$t/out" 2>&1 &
			pid=$!
			sleep 1
			poll "$pid" &
			wait "$pid"
			wait
		else
			"$devnet" run "$t/one.yaml" --db "$t/t.db" --run-dir \
			    "$t/runs" --quiet >"$t/out" 2>&1
		fi
		report "$t/t.db" "$run" "$mode"
	done
	r=$((r + 1))
done
