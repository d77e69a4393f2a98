#!/bin/bash
# foreign-kill.sh: SIGKILL of devnet during a trial of foreign nodes
# (issue 19 #5) leaves nothing of a node's process tree: each devnet-probe
# is told by its parent-death signal that devnet is gone and stops its
# whole tree as at the end of a trial (the stop signal, stop_grace, then
# SIGKILL), the command's background children and a grandchild that left
# the group and ignores SIGTERM included.
. "$(dirname "$0")/lib.sh"
mkdir -p "$RUNS"

cat >"$T/k.yaml" <<'EOF'
name: foreign-kill
duration: 60s
warmup: 0s
sample_interval: 200ms
network: {nodes: 2}
workload: {kind: none}
node:
  command: [sh, -c, 'sleep 3371 & setsid sh -c "trap \"\" TERM; exec sleep 3373" & sleep 3372']
  stop: {signal: TERM, grace: 1s}
EOF
"$DEVNET" run "$T/k.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    >"$T/out" 2>&1 &
pid=$!
has_samples() {
	[ "$(q "select count(*) from samples where run_id = 1" 2>/dev/null)" -gt 0 ] 2>/dev/null
}
wait_for 30 has_samples || fail "no samples"
n_of() { pgrep -f -- "^sleep $1\$" | wc -l; }
expect_eq "two nodes' background children run" "$(n_of 3371)" 2
expect_eq "two nodes' grandchildren out of the group, ignoring SIGTERM" \
    "$(n_of 3373)" 2
probes=$(pgrep -f -- "devnet-prob[e].*sleep 3372" | tr '\n' ' ')
[ -n "$probes" ] || fail "no probe running"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
none_left() {
	! pgrep -f -- "^sleep 337[123]\$" >/dev/null &&
	    ! kill -0 $probes 2>/dev/null
}
if wait_for 4 none_left; then
	ok "SIGKILL of devnet: nothing of the nodes' trees left within stop_grace + 3 s"
else
	fail "SIGKILL of devnet left: $(pgrep -af -- 'slee[p] 337[123]|devnet-prob[e]' | tr '\n' ';')"
	pkill -KILL -f -- "slee[p] 337[123]" 2>/dev/null
fi
expect_eq "the killed run still says running (the next run reaps it)" \
    "$(q "select status from runs where id = 1")" running
finish
