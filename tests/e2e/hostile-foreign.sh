# hostile-foreign.sh: what a token holder can send to the collector of a
# trial of foreign nodes (issue 19): a HELLO forged with another
# process's pid does not make devnet kill that process group at the end
# of the trial, and the run token is not on the probe's command line
# (any local user can read /proc/PID/cmdline); once the probe has its
# own connection (issue 38), a second HELLO, NAMED names the scenario does
# not declare and a sample far ahead in sequence, sent with the token
# through another connection, are all refused and counted ("node index
# held by another connection"), never dictionary rows nor lost samples.
. "$(dirname "$0")/lib.sh"
POKE="$DN_BUILD_DIR/bin/dn-wire-poke"
mkdir -p "$RUNS"

cat >"$T/f.yaml" <<EOS
name: hostile-foreign
duration: 8s
warmup: 0s
sample_interval: 200ms
network: {nodes: 1}
workload: {kind: none}
node:
  command: [sh, -c, 'echo tick 1; exec sleep 3190']
  ready: {delay: 3s}
  metrics:
    log:
      ticks:
        regex: 'tick ([0-9]+)'
EOS
setsid sleep 3191 </dev/null >/dev/null 2>&1 &
victim=$!
sleep 0.2
"$DEVNET" run "$T/f.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    >"$T/out" 2>&1 &
pid=$!
has_socket() {
	[ -S "$RUNS/1-A/collector" ]
}
wait_for 30 has_socket || fail "collector socket not at $RUNS/1-A/collector"
token=$(q "select token from runs where id = 1")
url="ipc://$RUNS/1-A/collector"
# The probe is ready (HELLO) only after 3 s: this forged HELLO is the
# first one, its pid the one the collector keeps.
sent=$("$POKE" "$url" "$token" 0 hello "$victim")
expect_eq "wire-poke sent the forged HELLO" "$sent" 1
has_samples() {
	[ "$(q "select count(*) from samples where run_id = 1" 2>/dev/null)" -gt 0 ] 2>/dev/null
}
wait_for 30 has_samples || fail "no samples"

# --- the token is not on the probe's command line -----------------------
probe=$(pgrep -f -- "devnet-probe.*sleep 3190" | head -1)
[ -n "$probe" ] || fail "no probe running"
if tr '\0' ' ' </proc/"$probe"/cmdline | grep -qi -- "$token"; then
	fail "the run token is on the probe's command line"
else
	ok "the run token is not on the probe's command line"
fi

# --- a second HELLO, then a sample far ahead in sequence ------------------
sent=$("$POKE" "$url" "$token" 0 hello "$victim")
expect_eq "wire-poke sent a second forged HELLO" "$sent" 1

# --- 2000 NAMED names nobody declared ------------------------------------
rows=$(q "select count(*) from metrics")
sent=$("$POKE" "$url" "$token" 0 named 2000)
expect_eq "wire-poke sent 2000 names in 8 messages" "$sent" 8
sent=$("$POKE" "$url" "$token" 0 gap 1000000)
expect_eq "wire-poke sent a HELLO and a sample with a gap" "$sent" 1
wait "$pid"
rc=$?
expect_eq "no dictionary row for an undeclared name" \
    "$(q "select count(*) from metrics where name like 'poke_%'")" 0
expect_eq "the dictionary did not grow" "$(q "select count(*) from metrics")" "$rows"
# (and the probe's own samples while the first forger's connection held
# node 0, before the probe's HELLO)
rej=$(q "select value from run_facts where run_id = 1 and key = 'rejected_msgs'")
[ "${rej:-0}" -ge 11 ] &&
	ok "HELLO, 8 NAMED, HELLO and sample from another connection rejected ($rej)" ||
	fail "rejected_msgs ${rej:-none}, want >= 11"
expect_eq "one rejected event, for a node another connection holds" \
    "$(q "select count(*) from events where run_id = 1 and kind = 'rejected' and detail like 'node index held by another connection%'")" 1
lost=$(q "select value from run_facts where run_id = 1 and key = 'lost_samples'")
[ "${lost:-0}" -lt 1000 ] 2>/dev/null &&
	ok "the forged sample far ahead made no lost samples (${lost:-0})" ||
	fail "a forged sample counted as lost samples (lost_samples: ${lost:-none})"
expect_eq "the declared log metric is stored" \
    "$(q "select (select count(*) from samples s join metrics m on m.id = s.metric_id where s.run_id = 1 and m.name = 'ticks') > 0")" 1
expect_eq "the run ends well (exit 0)" "$rc" 0
if kill -0 "$victim" 2>/dev/null; then
	ok "the victim named in a forged HELLO is alive after the trial"
else
	fail "devnet killed the process group a forged HELLO named"
fi
kill "$victim" 2>/dev/null
expect_eq "the forged pid is reported, never signalled" \
    "$(q "select count(*) from events where run_id = 1 and kind = 'hello' and detail like 'pid $victim %never signalled'")" 1
check "nothing of the command left running" sh -c '! pgrep -f "slee[p] 3190" >/dev/null'
finish
