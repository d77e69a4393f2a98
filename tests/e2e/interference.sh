#!/bin/bash
# interference.sh: what else used the machine while a trial ran (issue
# 36), measured and stated.  A CPU hog of the test's own (two python3
# busy loops, outside the devnet) runs beside a one-node devnet whose node
# sleeps:
#
# 1. the trial's facts interference_* are there, interference_cpu_s and
#    interference_cores count the hog (>= 0.25 core), the event
#    `interference` names it, and while it ran the live page (--serve,
#    /api/live) showed `interference_now`;
# 2. `compare` names the trial in its warnings, `compare --strict`
#    refuses, `report` names it too;
# 3. `devnet run --strict` fails such a trial (exit 1, status failed, the
#    reason says --strict);
# 4. the devnet's own CPU is not interference: with no hog and a node of
#    two busy loops, interference_cpu_s plus the node's CPU is at most the
#    machine's, and the threshold is honoured (--interference-max 64: no
#    event).
#
# The devnet's own trees (its nodes, what they reaped) are subtracted
# from /proc/stat; on a machine other work already fills, 1 holds more
# strongly, 4 holds as stated.
. "$(dirname "$0")/lib.sh"

mkdir -p "$RUNS"
cat >"$T/idle.yaml" <<'EOS'
name: idle
duration: 7s
warmup: 1s
sample_interval: 250ms
network: {nodes: 1}
workload: {kind: none}
node:
  command: [sleep, '100']
  stop: {signal: TERM, grace: 1s}
variants:
  A:
EOS

hogs=
for i in 1 2; do
	python3 -c 'while 1: pass' &
	hogs="$hogs $!"
done
trap 'rc=$?; [ -n "$hogs" ] && kill $hogs 2>/dev/null; (exit $rc); cleanup' \
    EXIT

# --- 1. facts, events, the live page ---------------------------------
port=$(python3 -c 'import socket; s = socket.socket();
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$DEVNET" run "$T/idle.yaml" --db "$DB" --run-dir "$RUNS" \
    --serve "$port" >"$T/run1.out" 2>&1 &
pid=$!
seen=0
for i in $(seq 1 150); do
	if curl -s "http://127.0.0.1:$port/api/live" 2>/dev/null |
	    grep -q '"kind": *"interference_now"'; then
		seen=1
		break
	fi
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
wait $pid
expect_eq "a trial beside a CPU hog runs" "$?" 0
check "the live page showed interference_now while it ran" [ $seen -eq 1 ]
fact() {
	q "select value from run_facts where run_id = $1 and node = -1 and
	    key = '$2'"
}
for k in interference_window_s interference_cpu_s interference_cores \
    interference_steal_s interference_load1_max; do
	check "fact $k ($(fact 1 $k))" [ -n "$(fact 1 $k)" ]
done
if [ -r /proc/pressure/cpu ]; then
	check "fact interference_psi_cpu_s ($(fact 1 interference_psi_cpu_s))" \
	    [ -n "$(fact 1 interference_psi_cpu_s)" ]
fi
cores=$(fact 1 interference_cores)
check "the hog is counted: $cores core(s) of other programs" \
    awk -v c="${cores:-0}" 'BEGIN { exit !(c >= 0.25) }'
expect_match "the event interference names it" \
    "$(q "select detail from events where run_id = 1 and
        kind = 'interference'")" \
    '^other programs used [0-9.]+ core\(s\) beside the devnet .*threshold 0.25 cores'

# --- 2. compare, report ----------------------------------------------
"$DEVNET" run "$T/idle.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    >/dev/null 2>&1
expect_eq "a second trial" "$?" 0
out=$("$DEVNET" compare --db "$DB" 1 2 2>&1)
expect_match "compare names run 1" "$out" \
    'warning: run 1 \(A\) ran beside other work: other programs used'
expect_match "compare names run 2" "$out" \
    'warning: run 2 \(B\) ran beside other work'
expect_match "compare's JSON lists them" \
    "$("$DEVNET" compare --db "$DB" 1 2 --format json 2>&1)" \
    '"interference_runs": \[\{"run": 1, "detail": "other programs used'
out=$("$DEVNET" compare --db "$DB" --strict 1 2 2>&1)
expect_eq "compare --strict refuses" "$?" 1
expect_match "and says why" "$out" \
    'runs not comparable \(--strict\): run 1 \(A\) ran beside other work'
"$DEVNET" report --db "$DB" 1 2 -o "$T/r.html" >/dev/null 2>&1
expect_match "report names it" "$(cat "$T/r.html")" \
    'run 1 \(A\) ran beside other work'

# --- 3. run --strict -------------------------------------------------
"$DEVNET" run "$T/idle.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --strict >"$T/strict.out" 2>&1
expect_eq "run --strict fails a trial beside the hog" "$?" 1
expect_eq "its status" "$(q "select status from runs where id = 3")" failed
expect_match "its reason" "$(q "select reason from runs where id = 3")" \
    '^other programs used [0-9.]+ core\(s\) beside the devnet \(threshold 0.25, --strict\)'

# --- 4. the devnet's own CPU, the threshold ---------------------------
kill $hogs 2>/dev/null
wait $hogs 2>/dev/null
hogs=
cat >"$T/busy.yaml" <<'EOS'
name: busy
duration: 6s
warmup: 1s
sample_interval: 250ms
network: {nodes: 1}
workload: {kind: none}
node:
  command: [sh, -c, 'python3 -c "while 1: pass" & python3 -c "while 1: pass" & wait']
  stop: {signal: TERM, grace: 1s}
variants:
  A:
EOS
"$DEVNET" run "$T/busy.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --interference-max 64 >/dev/null 2>&1
expect_eq "a busy node, threshold 64 cores" "$?" 0
expect_eq "no interference event under 64 cores" \
    "$(q "select count(*) from events where run_id = 4 and
        kind like 'interference%'")" 0
itf=$(fact 4 interference_cpu_s)
win=$(fact 4 interference_window_s)
# the node's CPU over the window, from the probe's samples of its tree
own=$(q "select max(value) - min(value) from samples s join metrics m on
    m.id = s.metric_id where run_id = 4 and node = 0 and
    m.name in ('cpu_user_s') ")
own2=$(q "select max(value) - min(value) from samples s join metrics m on
    m.id = s.metric_id where run_id = 4 and node = 0 and
    m.name in ('cpu_sys_s') ")
ncpu=$(nproc)
echo "measured: node ${own}+${own2} s of CPU, interference $itf s, window $win s, $ncpu CPUs"
check "interference + the node's own CPU fit in the machine" \
    awk -v i="${itf:-99}" -v u="${own:-0}" -v s="${own2:-0}" \
    -v w="${win:-0}" -v n="$ncpu" \
    'BEGIN { exit !(i + u + s <= n * w * 1.05) }'

finish
