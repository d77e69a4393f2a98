#!/usr/bin/env bash
# swarm-engines.sh: events on nodes of another host of a swarm (issue 13),
# on twohost-lib.sh's two-host swarm (docs/testing.md, "Two hosts on one
# machine").  Node K goes to the K mod 2-th host by hostname: nodes 1 and
# 3 run on dn-h2, whose engine devnet in h1 does not see unless it is
# named in swarm.engines.  Checks: a scenario with events on those nodes
# is refused before any trial without it (exit 1, no run stored); a bad
# engine URL is refused likewise; with h2's engine named, stop, cont,
# restart and kill on h2's nodes are recorded as locally (stalled,
# rejoined, killed by SIGKILL), the run is ok, the nodes listen on their
# host's address, and nothing is left on either engine.  77 where the two
# hosts cannot be made.  The default dockerd is not used.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/docker-lib.sh"
. "$(dirname "$0")/twohost-lib.sh"

BASE=27000
cat >"$T/ev.yaml" <<EOF
name: engines
duration: 14s
warmup: 2s
sample_interval: 500ms
provider: swarm
network:
  nodes: 4
  block_interval: 250ms
  accounts: 1000
  listen: tcp
  tcp_base_port: $BASE
workload:
  kind: transfer
  tps: 50
events:
  - {at: 3s, action: stop, node: 1}
  - {at: 6s, action: cont, node: 1}
  - {at: 8s, action: restart, node: 3}
  - {at: 11s, action: kill, node: 1}
EOF

trap 'rc=$?; dn_twohost_down; stop_dockerd; (exit $rc); cleanup' EXIT
dn_twohost_up || finish


# --- no engine for h2: refused before any trial --------------------------
out=$(devnet_h1 run "$T/ev.yaml" --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "events on h2 without its engine: exit 1" "$rc" 1
expect_match "the refusal names the node, its host and the key" "$out" \
    "event stop at 3s on node 1: node 1 runs on host $TH_HOST2, .*swarm.engines.$TH_HOST2=URL"
expect_eq "refused before any trial: no run stored" \
    "$(q "select count(*) from runs" 2>/dev/null || echo 0)" 0

out=$(devnet_h1 run "$T/ev.yaml" --db "$DB" --run-dir "$RUNS" \
    --set "swarm.engines.$TH_HOST2=unix://$T/no.sock" 2>&1)
rc=$?
expect_eq "an engine that does not answer: exit 1" "$rc" 1
expect_match "... and says which" "$out" \
    "the Docker engine of host $TH_HOST2 \\(swarm.engines.$TH_HOST2: unix://$T/no.sock\\) does not answer"
out=$(devnet_h1 run "$T/ev.yaml" --db "$DB" --run-dir "$RUNS" \
    --set "swarm.engines.$TH_HOST2=http://x" 2>&1)
expect_match "an engine URL that is none: refused" "$out" \
    "swarm.engines.$TH_HOST2 must be a Docker engine URL"

# --- h2's engine named: the events reach it ------------------------------
out=$(devnet_h1 run "$T/ev.yaml" --db "$DB" --run-dir "$RUNS" \
    --set "swarm.engines.$TH_HOST2=$TH_SOCK2" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "events on h2 with its engine: exit 0" "$rc" 0
run=$(q "select max(id) from runs")
expect_eq "the run is ok" "$(q "select status from runs where id = $run")" ok
ev() {
	q "select count(*) from events where run_id = $run and node = $1 and
	    kind = '$2'${3:+ and detail like '$3'}"
}
expect_eq "node 1 on $TH_HOST2" \
    "$(q "select host from nodes where run_id = $run and node = 1")" \
    "$TH_HOST2"
expect_eq "node 3 on $TH_HOST2" \
    "$(q "select host from nodes where run_id = $run and node = 3")" \
    "$TH_HOST2"
expect_eq "stop recorded" "$(ev 1 stop)" 1
expect_eq "the paused node reported stalled" "$(ev 1 stalled)" 1
expect_eq "cont recorded" "$(ev 1 cont)" 1
expect_eq "restart recorded" "$(ev 3 restart)" 1
expect_eq "the restarted node rejoined" "$(ev 3 rejoined)" 1
expect_eq "the killed node's exit: SIGKILL, planned" \
    "$(ev 1 exit '%SIGKILL (planned)%')" 1
expect_eq "no crash" "$(q "select count(*) from events
    where run_id = $run and kind = 'crash'")" 0
expect_match "node 1 listened on h2's address" \
    "$(grep DN-NODE-READY "$RUNS/$run-A/node-1.log" | head -1)" \
    "in=tcp://$TH_ADDR2:$((BASE + 2)) "
expect_match "node 0 dialled its peers at their hosts" \
    "$(q "select cmdline from nodes where run_id = $run and node = 0")" \
    "--peer-hosts $TH_ADDR1,$TH_ADDR2,$TH_ADDR1,$TH_ADDR2"
wait_for 15 nothing_left
expect_eq "nothing left on either engine" "$(left)" 0
finish
