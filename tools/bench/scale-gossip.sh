#!/bin/sh
# scale-gossip.sh: issue 40's scale curve.  For each node count, one
# `devnet run` of tools/bench/scale-gossip.yaml (8 peers each, 25 TPS,
# 30 s), one at a time, and from its database: the ready time (the
# slowest node's, event `start`), the orchestrator's CPU (run fact
# orchestrator_cpu_s, spawn to stop, nodes excluded) as % of a core, each
# node's CPU (% of a core, its own cpu_user_s + cpu_sys_s) and peak RSS
# (the mean over the nodes), samples stored per second, database bytes
# per node-hour (after a WAL checkpoint), the run's status.
#
# usage: tools/bench/scale-gossip.sh [NODES...]   (default 10 50 100)
# DEVNET (default build/bin/devnet) selects the binary; RUN_TIMEOUT
# (seconds, default 600) bounds each run; READY (default 120s) is its
# --ready-timeout; KEEP, a directory: each run's database is kept there
# (KEEP/scale-gossip-N.db).  After each row, the run's end_phases_ms
# (where the end of the trial went) and the mean node's peak RSS inside
# the window (t <= duration) beside the whole run's.
set -eu
. "$(dirname "$0")/bench-lib.sh"
here=$HERE root=$ROOT
devnet=${DEVNET:-$root/build/bin/devnet}
[ $# -gt 0 ] || set -- 10 50 100
bench_need "$devnet" "devnet devnet-node"
work=$(mktemp -d /tmp/sg-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
printf '%5s %8s %9s %9s %9s %10s %11s %s\n' nodes ready_ms orch_cpu% \
    node_cpu% node_rssMB samples/s db_MB/nodeh status
for n in "$@"; do
	db=$work/s$n.db
	timeout -s TERM "${RUN_TIMEOUT:-600}" "$devnet" run \
	    "$here/scale-gossip.yaml" --set network.nodes="$n" --db "$db" \
	    --run-dir "$work/r$n" --ready-timeout "${READY:-120s}" \
	    --quiet >"$work/run$n.out" 2>&1 || true
	q() { sqlite3 "$db" "$1"; }
	secs=$(q "SELECT max(t_ms) / 1000.0 FROM samples")
	cpu=$(q "SELECT coalesce(sum(value), 0) FROM run_facts
	    WHERE key = 'orchestrator_cpu_s'")
	ncpu=$(bench_nodes_cpu_s "$db")
	rss=$(bench_node_rss_mb "$db")
	rows=$(q "SELECT count(*) FROM samples")
	ready=$(q "SELECT group_concat(detail, '/') FROM events
	    WHERE kind = 'start'" | sed 's/.* ready in \([0-9]*\) ms.*/\1/')
	status=$(q "SELECT group_concat(status || coalesce(': ' || reason,
	    ''), '/') FROM runs")
	q "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	bytes=$(stat -c %s "$db")
	awk -v n="$n" -v s="${secs:-0}" -v c="$cpu" -v nc="${ncpu:-0}" \
	    -v rss="${rss:-0}" -v rows="$rows" -v b="$bytes" -v rd="$ready" \
	    -v st="$status" 'BEGIN { if (s <= 0) s = 1
		printf "%5d %8s %9.1f %9.2f %9.1f %10.0f %11.2f %s\n", n, rd,
		    100 * c / s, 100 * nc / s / n, rss, rows / s,
		    b / 1e6 / (n * s / 3600), st }'
	wrss=$(bench_node_rss_mb "$db" \
	    "$(q "SELECT duration_ms FROM runs LIMIT 1")")
	wrss=${wrss:+$(printf '%.1f' "$wrss")}
	echo "      end: $(q "SELECT value FROM run_facts WHERE key =
	    'end_phases_ms' LIMIT 1"); peak RSS in the window ${wrss} MB," \
	    "samples to t = ${secs} s"
	[ -z "${KEEP:-}" ] || bench_keep "$db" "$KEEP/scale-gossip-$n.db"
done
