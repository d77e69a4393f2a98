#!/bin/sh
# loadgen.sh: issue 6 target 3, load generator accuracy.  Runs a
# tools/bench/loadgen-*.yaml scenario (two 10-minute trials into a 4-node
# devnet) and prints, per trial, target and achieved TPS (run_facts), the
# error in percent, and the send lag (actual minus intended send time):
# the median and the maximum of the per-interval p99s (metric
# send_lag_p99_us), the p99 over every send of the run (run fact
# send_lag_p99_us), and the transactions left pending at the end.
#
# usage: tools/bench/loadgen.sh SCENARIO [OUTDIR] [-- devnet run args]
#   tools/bench/loadgen.sh tools/bench/loadgen-25.yaml
#   tools/bench/loadgen.sh tools/bench/loadgen-5000.yaml /tmp/lg5k
#   tools/bench/loadgen.sh tools/bench/loadgen-5000.yaml /tmp/lgx \
#       -- --set workload.tps=20000 --set duration=60s --repeats 1
# DEVNET (default build-bench/bin/devnet) selects the binary.
set -eu
. "$(dirname "$0")/bench-lib.sh"
here=$HERE root=$ROOT
devnet=${DEVNET:-$root/build-bench/bin/devnet}
[ $# -ge 1 ] || { echo "usage: $0 SCENARIO [OUTDIR] [-- ARGS]" >&2; exit 2; }
scn=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
out=
if [ $# -ge 1 ] && [ "$1" != "--" ]; then
	out=$1
	shift
fi
[ $# -ge 1 ] && [ "$1" = "--" ] && shift
bench_need "$devnet" "devnet devnet-node"
[ -n "$out" ] || out=$(mktemp -d /tmp/lg-XXXXXX)
mkdir -p "$out"
db=$out/lg.db
# A failed trial still has its facts and samples: print them anyway.
rc=0
"$devnet" run "$scn" --db "$db" --run-dir "$out/r" --quiet "$@" || rc=$?
sqlite3 -header -column "$db" "
WITH lag AS (
  SELECT run_id, value AS v,
         row_number() OVER (PARTITION BY run_id ORDER BY value) AS k,
         count(*) OVER (PARTITION BY run_id) AS n
  FROM samples
  WHERE metric_id = (SELECT id FROM metrics WHERE name = 'send_lag_p99_us')
    AND node = -1)
SELECT r.id AS run,
  (SELECT value FROM run_facts WHERE run_id = r.id AND node = -1
     AND key = 'target_tps') AS target_tps,
  (SELECT value FROM run_facts WHERE run_id = r.id AND node = -1
     AND key = 'achieved_tps') AS achieved_tps,
  printf('%.3f', 100.0 * ((SELECT value FROM run_facts WHERE run_id = r.id
     AND node = -1 AND key = 'achieved_tps') -
    (SELECT value FROM run_facts WHERE run_id = r.id AND node = -1
     AND key = 'target_tps')) / (SELECT value FROM run_facts WHERE
     run_id = r.id AND node = -1 AND key = 'target_tps')) AS err_pct,
  (SELECT value FROM run_facts WHERE run_id = r.id AND node = -1
     AND key = 'tx_send_errors') AS not_sent,
  (SELECT printf('%.0f', v) FROM lag WHERE run_id = r.id
     AND k = (n + 1) / 2) AS lag_p99_med_us,
  (SELECT printf('%.0f', max(v)) FROM lag WHERE run_id = r.id)
     AS lag_p99_max_us,
  (SELECT value FROM run_facts WHERE run_id = r.id AND node = -1
     AND key = 'send_lag_p99_us') AS run_lag_p99_us,
  (SELECT value FROM run_facts WHERE run_id = r.id AND node = -1
     AND key = 'tx_pending') AS pending,
  r.status
FROM runs r ORDER BY r.id;"
echo "database: $db"
exit "$rc"
