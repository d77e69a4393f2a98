# faults.sh: planned faults (kill, restart, stop, cont) and an unplanned
# crash (SIGSEGV from outside): events stored with what happened, the run
# finishes, restarted and resumed nodes catch up to the same state.
. "$(dirname "$0")/lib.sh"

{ scn_head faults-test 16s; cat <<YAML; } >"$T/faults.yaml"
events:
  - {at: 3s, action: kill, node: 1}
  - {at: 5s, action: restart, node: 1}
  - {at: 8s, action: stop, node: 2}
  - {at: 11s, action: cont, node: 2}
YAML
out=$("$DEVNET" run "$T/faults.yaml" --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "planned faults: exit 0" "$rc" 0
run=$(q "select max(id) from runs")
expect_eq "planned faults: run ok" "$(q "select status from runs where id = $run")" ok
ev() { q "select count(*) from events where run_id = $run and node = $1 and kind = '$2'"; }
expect_eq "kill event" "$(ev 1 kill)" 1
expect_match "killed node's exit recorded" \
    "$(q "select detail from events where run_id = $run and node = 1 and kind = 'exit'")" "SIGKILL"
expect_eq "restart event" "$(ev 1 restart)" 1
expect_eq "restarted node rejoined" "$(ev 1 rejoined)" 1
expect_eq "stop event" "$(ev 2 stop)" 1
expect_eq "paused node reported stalled" "$(ev 2 stalled)" 1
expect_eq "cont event" "$(ev 2 cont)" 1
expect_eq "resumed node rejoined" "$(ev 2 rejoined)" 1
expect_eq "one state hash across all three nodes" \
    "$(q "select count(distinct value) || '/' || count(*) from run_facts where run_id = $run and key = 'state_hash'")" "1/3"
# Each node's samples are its own: the killed node has none while it is
# down, the paused one none while it is paused, and the others keep
# sampling through both (a collector filing samples under another node
# breaks all of these).
between() {
	q "select count(*) from samples s join metrics m on m.id = s.metric_id
	    where run_id = $run and node = $1 and m.name = 'height'
	    and t_ms between $2 and $3"
}
expect_eq "node 1: no samples while killed (3.3-4.9 s)" "$(between 1 3300 4900)" 0
expect_eq "node 2: no samples while stopped (8.3-10.9 s)" "$(between 2 8300 10900)" 0
for k in 0 2; do
	[ "$(between $k 3300 4900)" -ge 4 ] && ok "node $k sampled while node 1 was down" ||
		fail "node $k: $(between $k 3300 4900) samples while node 1 was down"
done
for k in 0 1; do
	[ "$(between $k 8300 10900)" -ge 6 ] && ok "node $k sampled while node 2 was stopped" ||
		fail "node $k: $(between $k 8300 10900) samples while node 2 was stopped"
done
fact() { q "select value from run_facts where run_id = $run and key = '$1'"; }
expect_eq "every transaction accounted for" \
    "$(( $(fact tx_included) + $(fact tx_failed) + $(fact tx_pending) + $(fact tx_send_errors) ))" \
    "$(fact tx_submitted)"
# A transaction handed to node 1 just before SIGKILL, not yet gossiped, dies
# with it: it stays pending, which is the truth.  Only a handful may.
[ "$(fact tx_pending)" -le 5 ] && ok "pending after a kill: $(fact tx_pending)" ||
	fail "pending after a kill: $(fact tx_pending)"
expect_eq "nothing included twice" "$(q "select value from run_facts where run_id = $run and key = 'tx_duplicates'")" 0
# Round-robin: while node 2 is paused the chain waits for its turn, so
# every node's lag_ms (which counts time behind the block schedule) shows
# the episode.
lagmax=$(q "select max(value) from samples s join metrics m on m.id = s.metric_id
    where run_id = $run and m.name = 'lag_ms' and t_ms between 8000 and 12000")
[ "${lagmax%.*}" -ge 1000 ] 2>/dev/null && ok "block lag shows the pause ($lagmax ms)" ||
	fail "block lag does not show the pause ('$lagmax')"

# An unplanned crash: SIGSEGV from outside, mid-run.
cat >"$T/crash.yaml" <<YAML
name: crash-test
duration: 8s
sample_interval: 250ms
network: {nodes: 3, block_interval: 200ms, accounts: 500}
workload: {kind: transfer, tps: 20}
# Under AddressSanitizer a SIGSEGV would be caught and turned into exit 1.
variants:
  A: {env: {ASAN_OPTIONS: handle_segv=0}}
YAML
"$DEVNET" run "$T/crash.yaml" --db "$DB" --run-dir "$RUNS" --quiet >"$T/crash.out" 2>&1 &
pid=$!
run2=$((run + 1))
wait_for 20 sh -c "[ \$(sqlite3 $DB 'select count(*) from samples where run_id = $run2') -gt 0 ]"
victim=$(q "select pid from nodes where run_id = $run2 and node = 0")
kill -SEGV "$victim"
wait "$pid"
rc=$?
expect_eq "unplanned crash: the run still finishes (exit 0)" "$rc" 0
expect_match "crash event names the signal" \
    "$(q "select detail from events where run_id = $run2 and node = 0 and kind = 'crash'")" "SIGSEGV"
expect_match "run is marked with the fault" \
    "$(q "select status || ': ' || coalesce(reason, '') from runs where id = $run2")" "^ok: 1 unplanned"
expect_match "the crash was reported on stderr" "$(cat "$T/crash.out")" "node 0 .*exited \(killed by SIGSEGV\)"
finish
