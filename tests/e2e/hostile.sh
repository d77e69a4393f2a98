# hostile.sh: messages that are not from a node of this trial (garbage,
# wrong magic, version, token, node index, truncated, oversized, NaN,
# INCLUDED of transaction ids never submitted) are rejected and counted,
# never stored, and the run goes on unharmed.
. "$(dirname "$0")/lib.sh"
POKE="$DN_BUILD_DIR/bin/dn-wire-poke"

"$DEVNET" run "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --set duration=6s --set warmup=0s --set repeats=1 >"$T/out" 2>&1 &
pid=$!
has_samples() {
	[ "$(q "select count(*) from samples where run_id = 1" 2>/dev/null)" -gt 0 ] 2>/dev/null
}
wait_for 30 has_samples || fail "no samples"
token=$(q "select token from runs where id = 1")
url="ipc://$RUNS/1-A/collector"
[ -S "$RUNS/1-A/collector" ] || fail "collector socket not at $RUNS/1-A/collector"
sent=$("$POKE" "$url" "$token" 3)
expect_eq "wire-poke sent every hostile message" "$sent" 12
wait "$pid"
rc=$?
expect_eq "the run still ends well (exit 0)" "$rc" 0
expect_eq "run 1 ok" "$(q "select status from runs where id = 1")" ok
rej=$(q "select value from run_facts where run_id = 1 and key = 'rejected_msgs'")
expect_eq "all 12 counted as rejected" "$rej" 12
kinds=$(q "select count(*) from events where run_id = 1 and kind = 'rejected'")
[ "$kinds" -ge 6 ] && ok "one rejected event per reason ($kinds)" ||
	fail "rejected events: $kinds"
expect_eq "one event for the ids never submitted" \
    "$(q "select count(*) from events where run_id = 1 and kind = 'rejected' and detail like 'transaction id never submitted%'")" 1
expect_eq "no transaction counted twice" \
    "$(q "select value from run_facts where run_id = 1 and key = 'tx_duplicates'")" 0
expect_eq "every submitted transaction included, none more" \
    "$(q "select (select value from run_facts where run_id = 1 and key = 'tx_included') = (select value from run_facts where run_id = 1 and key = 'tx_submitted')")" 1
expect_eq "nothing stored for a node that does not exist" \
    "$(q "select count(*) from samples where run_id = 1 and node not between -1 and 2")" 0
expect_eq "no lost samples from the real nodes" \
    "$(q "select value from run_facts where run_id = 1 and key = 'lost_samples'")" 0
expect_eq "one state hash across nodes" \
    "$(q "select count(distinct value) from run_facts where run_id = 1 and key = 'state_hash'")" 1
finish
