#!/bin/sh
# scale.sh: issue 6 target 7, the scale curve.  For each node count: run
# tools/bench/scale.yaml (A and B, 60 s each, 50 TPS, 1 s samples) once,
# then time `devnet compare 1:A 1:B` ROUNDS times.
# Prints per node count: orchestrator CPU (collector, load generator,
# main loop and nng: run fact orchestrator_cpu_s, spawn to stop) per
# second of trial, the nodes' CPU (from their own cpu_user_s +
# cpu_sys_s samples), database bytes, both extrapolated to one hour of trial, samples
# stored, lost samples, readiness time, and the median compare time.
#
# usage: tools/bench/scale.sh [ROUNDS] [NODES...]   (default 3  4 10 50)
# DEVNET (default build-bench/bin/devnet) selects the binary; RUN_TIMEOUT
# (seconds, default 900) bounds each devnet run.
set -eu
. "$(dirname "$0")/bench-lib.sh"
here=$HERE root=$ROOT
devnet=${DEVNET:-$root/build-bench/bin/devnet}
rounds=${1:-3}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- 4 10 50
bench_need "$devnet" "devnet devnet-node"
work=$(mktemp -d /tmp/sc-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
printf '%5s %9s %9s %10s %10s %9s %5s %9s %10s\n' nodes orch_cpu% \
    nodes_cpu% db_MB/h samples/h lost ready_ms cmp_ms status
for n in "$@"; do
	db=$work/s$n.db
	# A hung orchestrator (nng_close, docs/benchmarks.md) is killed.
	timeout -s KILL "${RUN_TIMEOUT:-900}" "$devnet" run "$here/scale.yaml" \
	    --set network.nodes="$n" --db "$db" --run-dir "$work/r$n" \
	    --quiet >"$work/run$n.out" 2>&1 || true
	# the orchestrator's own CPU (run fact; /usr/bin/time would add the
	# nodes it reaped)
	cpu=$(sqlite3 "$db" "SELECT coalesce(sum(value), 0) FROM run_facts
	    WHERE key = 'orchestrator_cpu_s'")
	# seconds of trial (t=0 to the last sample), over both runs
	secs=$(sqlite3 "$db" "SELECT sum(m) / 1000.0 FROM (SELECT max(t_ms)
	    AS m FROM samples GROUP BY run_id)")
	ncpu=$(sqlite3 "$db" "SELECT sum(v) FROM (SELECT run_id, node,
	    max(value) AS v FROM samples WHERE metric_id IN (SELECT id FROM
	    metrics WHERE name IN ('cpu_user_s', 'cpu_sys_s')) GROUP BY
	    run_id, node, metric_id)")
	rows=$(sqlite3 "$db" "SELECT count(*) FROM samples")
	lost=$(sqlite3 "$db" "SELECT coalesce(sum(value), 0) FROM run_facts
	    WHERE key = 'lost_samples'")
	ready=$(sqlite3 "$db" "SELECT group_concat(detail, '/') FROM events
	    WHERE kind = 'start'" | sed 's/[^/]* ready in \([0-9]*\) ms/\1/g')
	status=$(sqlite3 "$db" "SELECT group_concat(status, '/') FROM runs")
	sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	bytes=$(stat -c %s "$db")
	all=
	r=1
	while [ "$r" -le "$rounds" ]; do
		t0=$(bench_now_ms)
		"$devnet" compare --db "$db" 1:A 1:B >"$work/cmp$n" 2>&1 ||
		    true
		all="$all $(($(bench_now_ms) - t0))"
		r=$((r + 1))
	done
	awk -v n="$n" -v cpu="$cpu" -v s="$secs" -v nc="$ncpu" \
	    -v b="$bytes" -v rows="$rows" -v lost="$lost" -v rd="$ready" \
	    -v cm="$(bench_median $all)" -v st="$status" 'BEGIN {
		printf "%5d %9.2f %9.2f %10.1f %10.0f %9d %5s %9d %10s\n",
		    n, 100 * cpu / s, 100 * nc / s, b / s * 3600 / 1e6,
		    rows / s * 3600, lost, rd, cm, st }'
	echo "  (compare times:$all ms; nng close hangs:" \
	    "$(grep -c DN-NNG-CLOSE-HANG "$work/run$n.out" || true);" \
	    "run output: $(tail -1 "$work/run$n.out"))"
done
