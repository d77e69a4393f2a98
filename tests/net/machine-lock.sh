#!/bin/bash
# machine-lock.sh: two devnets on one machine know of each other (issue
# 36).  Two devnets with network conditions started together: the second
# one, with --machine-wait 0, refuses and names the first one's pid and
# database; with the default wait it says so, waits, and starts its trial
# only after the first one's ended (windows from the stored facts); after
# the holder is SIGKILLed, the next one starts at once (the kernel drops
# an flock with its holder: nothing to sweep).  The locks live in a dir
# of the test's own ($DN_MACHINE_LOCK_DIR).  Needs root (namespaces).
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: network namespaces need root"
	exit 77
fi
export DN_MACHINE_LOCK_DIR="$T/locks"
mkdir -p "$DN_MACHINE_LOCK_DIR" "$RUNS"

cat >"$T/cond.yaml" <<'YAML'
name: lock
duration: 6s
warmup: 1s
sample_interval: 250ms
network:
  nodes: 2
  block_interval: 200ms
  accounts: 100
  links:
    default: {latency: 2ms}
workload: {kind: none}
variants:
  A:
YAML
DB1="$T/one.db"
DB2="$T/two.db"

holds() {
	grep -q "pid=$1 " "$DN_MACHINE_LOCK_DIR/conditions.lock" 2>/dev/null
}

"$DEVNET" run "$T/cond.yaml" --db "$DB1" --run-dir "$RUNS" --quiet \
    >"$T/one.out" 2>&1 &
one=$!
check "the first devnet ($one) takes the machine" wait_for 20 holds $one

# --- refuse ------------------------------------------------------------
out=$("$DEVNET" run "$T/cond.yaml" --db "$DB2" --run-dir "$RUNS" --quiet \
    --machine-wait 0 2>&1)
expect_eq "the second one, --machine-wait 0, refuses" "$?" 1
expect_match "and names the first one's pid and database" "$out" \
    "the machine is taken: network conditions \(conditions\) held by devnet pid $one \(db $DB1\)"
expect_eq "it stored no run" "$(sqlite3 "$DB2" 'select count(*) from runs' \
    2>/dev/null || echo 0)" 0

# --- wait --------------------------------------------------------------
"$DEVNET" run "$T/cond.yaml" --db "$DB2" --run-dir "$RUNS" \
    >"$T/two.out" 2>"$T/two.err"
expect_eq "the second one, waiting, runs" "$?" 0
wait $one
expect_eq "the first one ran" "$?" 0
expect_match "the second one said whom it waited for" "$(cat "$T/two.err")" \
    "waiting for the machine: network conditions \(conditions\) held by devnet pid $one \(db $DB1\)"
expect_match "and when it had the machine" "$(cat "$T/two.err")" \
    'the machine is ours after [0-9.]+ s'
end1=$(sqlite3 "$DB1" "select value from run_facts where run_id = 1 and
    key = 'window_end_ms'")
start2=$(sqlite3 "$DB2" "select value from run_facts where run_id = 1 and
    key = 'window_start_ms'")
check "its trial started after the first one's ended ($start2 > $end1)" \
    [ "${start2:-0}" -gt "${end1:-9999999999999}" ]
for d in "$DB1" "$DB2"; do
	expect_eq "$(basename "$d"): the latency proof passed" \
	    "$(sqlite3 "$d" "select status from runs where id = 1")" ok
done

# --- a SIGKILLed holder ------------------------------------------------
"$DEVNET" run "$T/cond.yaml" --db "$DB1" --run-dir "$RUNS" --quiet \
    >"$T/three.out" 2>&1 &
three=$!
check "a third devnet ($three) takes the machine" wait_for 20 holds $three
kill -KILL $three
wait $three 2>/dev/null
"$DEVNET" run "$T/cond.yaml" --db "$DB2" --run-dir "$RUNS" --set duration=3s \
    --machine-wait 0 >"$T/four.out" 2>"$T/four.err"
expect_eq "after its SIGKILL the next one runs at once" "$?" 0
check "without waiting" sh -c "! grep -q 'waiting for the machine' '$T/four.err'"

finish
