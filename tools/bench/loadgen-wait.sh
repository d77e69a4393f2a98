#!/bin/sh
# loadgen-wait.sh: how the load generator's wait perturbs the nodes it
# measures.  One `devnet run` of tools/bench/loadgen-25.yaml (4 nodes,
# 25 TPS) with DN_LOADGEN_WAIT=alternate: even trials sleep to 300 us
# before each send and yield the rest ("spin"), odd trials sleep with an
# absolute clock_nanosleep to the send time ("sleep"), so both waits run
# side by side on the same machine in the same minutes.  Prints, per
# wait: node CPU (user + system, % of one core, mean per node after
# warmup), node lag (mean and max lag_blocks), node RSS (mean of the
# nodes' average and max), devnet's own CPU, and the send lag over every
# send (run facts send_lag_p50_us / p99 / max), each as the median over
# that wait's trials.  docs/benchmarks.md, "Load generator wait".
#
# usage: tools/bench/loadgen-wait.sh [OUTDIR] [-- devnet run args]
#   tools/bench/loadgen-wait.sh /tmp/lgw -- --repeats 8 --set duration=60s
#   ... -- --set workload.realtime=true    (both waits at SCHED_FIFO)
# DEVNET (default build-bench/bin/devnet) selects the binary.
set -eu
. "$(dirname "$0")/bench-lib.sh"
here=$HERE root=$ROOT
devnet=${DEVNET:-$root/build-bench/bin/devnet}
out=
if [ $# -ge 1 ] && [ "$1" != "--" ]; then
	out=$1
	shift
fi
[ $# -ge 1 ] && [ "$1" = "--" ] && shift
bench_need "$devnet" "devnet devnet-node"
[ -n "$out" ] || out=$(mktemp -d /tmp/lgw-XXXXXX)
mkdir -p "$out"
db=$out/lgw.db
rc=0
DN_LOADGEN_WAIT=alternate "$devnet" run "$here/loadgen-25.yaml" --db "$db" \
    --run-dir "$out/r" --quiet "$@" || rc=$?
sqlite3 -header -column "$db" "
WITH
f AS (SELECT run_id, key, value FROM run_facts WHERE node = -1),
wait AS (SELECT run_id, value AS w FROM f WHERE key = 'loadgen_wait'),
cpu AS (
  SELECT s.run_id, s.node,
         (max(s.value) - min(s.value)) / ((max(s.t_ms) - min(s.t_ms)) / 1000.0)
           AS frac
  FROM samples s JOIN metrics m ON m.id = s.metric_id JOIN runs r ON r.id = s.run_id
  WHERE m.name IN ('cpu_user_s', 'cpu_sys_s') AND s.node >= 0
    AND s.t_ms >= r.warmup_ms
  GROUP BY s.run_id, s.node, m.name),
per_run AS (
  SELECT w.run_id, w.w,
    (SELECT sum(frac) FROM cpu WHERE cpu.run_id = w.run_id) * 100.0 /
      (SELECT nodes FROM runs WHERE id = w.run_id) AS node_cpu_pct,
    (SELECT avg(s.value) FROM samples s JOIN metrics m ON m.id = s.metric_id
      JOIN runs r ON r.id = s.run_id
      WHERE s.run_id = w.run_id AND m.name = 'lag_blocks' AND s.node >= 0
        AND s.t_ms >= r.warmup_ms) AS lag_mean,
    (SELECT max(s.value) FROM samples s JOIN metrics m ON m.id = s.metric_id
      JOIN runs r ON r.id = s.run_id
      WHERE s.run_id = w.run_id AND m.name = 'lag_blocks' AND s.node >= 0
        AND s.t_ms >= r.warmup_ms) AS lag_max,
    (SELECT avg(s.value) / 1048576.0 FROM samples s JOIN metrics m
      ON m.id = s.metric_id JOIN runs r ON r.id = s.run_id
      WHERE s.run_id = w.run_id AND m.name = 'rss_bytes' AND s.node >= 0
        AND s.t_ms >= r.warmup_ms) AS rss_mib,
    (SELECT max(s.value) / 1048576.0 FROM samples s JOIN metrics m
      ON m.id = s.metric_id
      WHERE s.run_id = w.run_id AND m.name = 'rss_bytes' AND s.node >= 0)
      AS rss_max_mib,
    (SELECT value FROM f WHERE f.run_id = w.run_id
      AND key = 'orchestrator_cpu_s') AS devnet_cpu_s,
    (SELECT value FROM f WHERE f.run_id = w.run_id
      AND key = 'send_lag_p50_us') AS lag_p50_us,
    (SELECT value FROM f WHERE f.run_id = w.run_id
      AND key = 'send_lag_p99_us') AS lag_p99_us,
    (SELECT value FROM f WHERE f.run_id = w.run_id
      AND key = 'send_lag_max_us') AS lag_max_us,
    (SELECT value FROM f WHERE f.run_id = w.run_id
      AND key = 'achieved_tps') AS achieved
  FROM wait w)
SELECT run_id AS run, w AS wait, printf('%.2f', node_cpu_pct) AS node_cpu_pct,
  printf('%.3f', lag_mean) AS lag_mean, lag_max,
  printf('%.1f', rss_mib) AS rss_mib, printf('%.1f', rss_max_mib) AS rss_max,
  devnet_cpu_s, lag_p50_us, lag_p99_us, lag_max_us, achieved
FROM per_run ORDER BY w, run_id;"
exit "$rc"
