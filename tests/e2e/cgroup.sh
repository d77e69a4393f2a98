#!/bin/bash
# cgroup.sh: `resources` on the local provider (issue 36), through real
# cgroups (orchestrator/sys/cgroup.c), asserted on the stored facts,
# events and samples:
#
# 1. `--set resources.cpus=0.2` on a node of four busy loops: the node's
#    cgroup is throttled (cgroup_nr_throttled, cgroup_throttled_s > 0),
#    it used at most 0.2 of a CPU (cgroup_cpu_s), and the machine row
#    records cpus=0.2, what was applied.
# 2. `resources.memory: 64MiB` on a node that grows to 256 MiB: the
#    kernel's OOM killer ends it, the crash event says "out of memory",
#    cgroup_oom_kills >= 1 and the high-water is the limit.
# 3. devnet-node nodes with a memory limit: cgroup_mem_bytes sampled (as
#    under docker); Ctrl-C leaves no cgroup.
# 4. SIGKILL of devnet: its cgroups stay (nothing can remove them then);
#    the next run sweeps them and says so.
#
# Nothing may be left under /sys/fs/cgroup: every group devnet makes is
# named devnet-<its pid>.  Root and cgroups (v1 or v2) needed: skipped
# otherwise.
. "$(dirname "$0")/lib.sh"

mkdir -p "$RUNS"

# groups_of PID: the cgroup dirs devnet PID made, anywhere
groups_of() {
	find /sys/fs/cgroup -maxdepth 6 -type d -name "devnet-$1" 2>/dev/null
}

cg_ok=0
if [ "$(id -u)" -ne 0 ]; then
	skip "cgroups: not root"
elif [ -f /sys/fs/cgroup/cgroup.controllers ] ||
    { [ -d /sys/fs/cgroup/memory ] && [ -d /sys/fs/cgroup/cpu ]; }; then
	cg_ok=1
else
	skip "cgroups: no cgroup v1 or v2 controllers mounted"
fi
[ "$cg_ok" -eq 1 ] || finish

# --- 1. a CPU quota ---------------------------------------------------
cat >"$T/hog.yaml" <<'EOS'
name: hog
duration: 6s
warmup: 1s
sample_interval: 250ms
network: {nodes: 1}
workload: {kind: none}
node:
  command: [sh, -c, 'for i in 1 2 3 4; do python3 -c "while 1: pass" & done; wait']
  stop: {signal: TERM, grace: 1s}
variants:
  A:
EOS
"$DEVNET" run "$T/hog.yaml" --db "$DB" --run-dir "$RUNS" \
    --set resources.cpus=0.2 >"$T/hog.out" 2>&1 &
pid=$!
wait $pid
expect_eq "a node limited to 0.2 CPU runs" "$?" 0
expect_eq "no cgroup of devnet $pid left" "$(groups_of $pid)" ""
fact() {
	q "select value from run_facts where run_id = $1 and node = $2 and
	    key = '$3'"
}
thr=$(fact 1 0 cgroup_nr_throttled)
check "throttled in $thr periods" [ "${thr:-0}" -gt 0 ]
ts=$(fact 1 0 cgroup_throttled_s)
check "throttled for $ts s" awk -v v="${ts:-0}" 'BEGIN { exit !(v > 0) }'
cpu=$(fact 1 0 cgroup_cpu_s)
win=$(q "select (e.value - s.value) / 1000.0 from run_facts s, run_facts e
    where s.run_id = 1 and e.run_id = 1 and s.key = 'window_start_ms' and
    e.key = 'window_end_ms'")
# the group lives from the spawn to the stop: the window plus the start
# and the 1 s grace, 2 s at most on a loaded machine
check "at most 0.2 CPU: $cpu s of CPU in a ${win} s window" \
    awk -v c="${cpu:-99}" -v w="${win:-0}" \
    'BEGIN { exit !(c > 0 && c <= 0.2 * (w + 2) * 1.05) }'
echo "measured: cgroup_cpu_s $cpu in ${win} s (+ start, grace):" \
    "$(awk -v c="$cpu" -v w="$win" 'BEGIN { printf "%.3f", c / w }') CPU;" \
    "throttled $ts s in $thr periods"
expect_eq "the machine row records what was applied" \
    "$(q "select limits from machines where run_id = 1")" \
    "cpus=0.2 memory=0"
expect_eq "the cgroup event says what was applied" \
    "$(q "select detail from events where run_id = 1 and kind = 'cgroup'")" \
    "cpus=0.2"

# --- 2. a memory limit and the OOM killer -----------------------------
cat >"$T/oom.yaml" <<'EOS'
name: oom
duration: 30s
sample_interval: 250ms
network: {nodes: 1}
workload: {kind: none}
node:
  command: [python3, -c, "import time; a=[b\"x\"*(16<<20) for i in range(16)]; time.sleep(60)"]
  stop: {signal: TERM, grace: 1s}
resources: {memory: 64MiB}
variants:
  A:
EOS
"$DEVNET" run "$T/oom.yaml" --db "$DB" --run-dir "$RUNS" >"$T/oom.out" \
    2>&1 &
pid=$!
wait $pid
expect_eq "a node past its memory limit fails the run" "$?" 1
expect_eq "no cgroup of devnet $pid left" "$(groups_of $pid)" ""
expect_match "the crash event says out of memory" \
    "$(q "select detail from events where run_id = 2 and kind = 'crash'")" \
    '^exit 137: out of memory: the kernel.s OOM killer .*resources.memory 64.0 MiB'
oom=$(fact 2 0 cgroup_oom_kills)
check "cgroup_oom_kills $oom" [ "${oom:-0}" -ge 1 ]
peak=$(fact 2 0 cgroup_mem_peak_bytes)
check "memory high-water $peak is the 64 MiB limit" \
    [ "${peak:-0}" -ge $((60 << 20)) -a "${peak:-0}" -le $((64 << 20)) ]

# --- 3. devnet-node, cgroup_mem_bytes, Ctrl-C -------------------------
{
	scn_head cgnode 30s
	cat <<'EOS'
resources: {memory: 1GiB, cpus: 1}
variants:
  A:
EOS
} >"$T/node.yaml"
"$DEVNET" run "$T/node.yaml" --db "$DB" --run-dir "$RUNS" \
    >"$T/node.out" 2>&1 &
pid=$!
wait_for 30 sh -c "sqlite3 '$DB' \"select count(*) from samples s join
    metrics m on m.id = s.metric_id where run_id = 3 and
    m.name = 'cgroup_mem_bytes' and value > 0\" 2>/dev/null | grep -qv '^0$'"
check "devnet-node's cgroup_mem_bytes sampled from its cgroup" [ $? -eq 0 ]
check "devnet $pid's cgroups are there while it runs" \
    [ -n "$(groups_of $pid)" ]
kill -INT $pid
wait $pid
expect_eq "Ctrl-C stops the run" "$?" 130
expect_eq "no cgroup of devnet $pid left after Ctrl-C" "$(groups_of $pid)" ""

# --- 4. SIGKILL, then the next run's sweep ----------------------------
"$DEVNET" run "$T/node.yaml" --db "$DB" --run-dir "$RUNS" \
    >"$T/kill.out" 2>&1 &
pid=$!
wait_for 30 sh -c "[ -n \"\$(find /sys/fs/cgroup -maxdepth 6 -type d \
    -name devnet-$pid 2>/dev/null)\" ]"
check "devnet $pid made its cgroups" [ -n "$(groups_of $pid)" ]
sleep 1
kill -KILL $pid
wait $pid 2>/dev/null
# the nodes die with devnet (PR_SET_PDEATHSIG); their groups stay
wait_for 10 sh -c "! pgrep -f -- '$T/runs' >/dev/null"
check "the groups of the SIGKILLed devnet are still there" \
    [ -n "$(groups_of $pid)" ]
"$DEVNET" run "$T/hog.yaml" --db "$DB" --run-dir "$RUNS" \
    --set duration=2s >"$T/next.out" 2>&1
expect_eq "the next run" "$?" 0
expect_match "the next run says it swept them" "$(cat "$T/next.out")" \
    'removed [0-9]+ cgroup\(s\) left by a devnet that was killed'
expect_eq "nothing left of devnet $pid" "$(groups_of $pid)" ""

finish
