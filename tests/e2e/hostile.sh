# hostile.sh: messages that are not from a node of this trial (garbage,
# wrong magic, version, token, node index, truncated, oversized, NaN,
# INCLUDED of transaction ids never submitted), each the first of its own
# connection, are rejected and counted, never stored, and the run goes on
# unharmed; those with the token for node 0 come from a connection other
# than node 0's and are refused as such (issue 38); a sender that never
# stops does not hold the trial open: the drain after the nodes stopped
# ends on time and says what it did not read (issue 19 #2).
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
# 12, one per connection: a bad message read before its connection's
# end was counted but handled after it is not counted again (its pipe
# says so: dn_sock_pipe_state -2), and a node's connection whose HELLO
# came before nng told the guard of it is trusted all the same (the
# early_trust ring); each made it 13 now and then under ASan
expect_eq "all 12 counted as rejected" "${rej:-0}" 12
kinds=$(q "select count(*) from events where run_id = 1 and kind = 'rejected'")
[ "$kinds" -ge 6 ] && ok "one rejected event per reason ($kinds)" ||
	fail "rejected events: $kinds"
expect_eq "one event for the messages for node 0 from another connection" \
    "$(q "select count(*) from events where run_id = 1 and kind = 'rejected' and detail like 'node index held by another connection%'")" 1
expect_eq "one event for the oversized frame (its connection closed unread)" \
    "$(q "select count(*) from events where run_id = 1 and kind = 'rejected' and detail like 'connection that did not show the run token first%'")" 1
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

# --- a flood that outlasts the trial: the drain is bounded --------------
mkdir -p "$T/runs2"
"$DEVNET" run "$SCN/smoke.yaml" --db "$T/flood.db" --run-dir "$T/runs2" \
    --quiet --set duration=2s --set warmup=0s --set repeats=1 \
    >"$T/out.flood" 2>&1 &
pid=$!
fq() { sqlite3 -batch -noheader "$T/flood.db" "$1"; }
run2_up() {
	[ "$(fq "select count(*) from runs where status = 'running'" 2>/dev/null)" = 1 ] &&
	    [ -S "$T/runs2/1-A/collector" ]
}
wait_for 30 run2_up || fail "flood: no run"
ftoken=$(fq "select token from runs where id = 1")
"$POKE" "ipc://$T/runs2/1-A/collector" "$ftoken" 0 flood 60 >"$T/flood.n" &
poke=$!
start=$(date +%s)
wait "$pid"
rc=$?
took=$(( $(date +%s) - start ))
kill "$poke" 2>/dev/null
wait "$poke" 2>/dev/null
[ "$took" -le 25 ] && ok "flood: the run ended ${took} s after the flood began (it lasts 60 s)" ||
	fail "flood: the run took ${took} s: the drain waited for the flood"
expect_eq "flood: run 1 ends well" "$rc:$(fq "select status from runs where id = 1")" 0:ok
unread=$(fq "select value from run_facts where run_id = 1 and key = 'drain_unread'")
cuts=$(fq "select count(*) from events where run_id = 1 and kind = 'drain_cut' and detail like '%not read nor stored%'")
# The drain is cut only when the flood outpaces the collector: since
# issue 38 each flooded message is refused at once (another connection's
# node 0), and in a sanitizer build (its allocation counter off) the
# sender no longer outpaces it.  There, no cut is the right answer too,
# and a cut must still be counted; elsewhere the cut must happen.
if sanitized &&
    [ -z "$unread" ] && [ "$cuts" = 0 ]; then
	ok "flood: sanitizer build: the collector kept up with the flood (no cut to count)"
else
	[ "${unread:-0}" -gt 0 ] 2>/dev/null && ok "flood: what the drain did not read is counted ($unread)" ||
		fail "flood: no drain_unread fact (${unread:-none})"
	expect_eq "flood: one drain_cut event says so" "$cuts" 1
fi
finish
