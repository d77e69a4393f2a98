# break.sh: the proofs' own failure branches (issue 39 #4).  The same
# scenario (latency and bandwidth on every link, a 80% loss event on node
# 2, a partition and heal) runs once as it is, and passes; then once per
# kind of condition with DN_TEST_BREAK=KIND, which makes devnet put that
# condition in force wrongly (delay and loss at half, the partition on
# only half its links, no bandwidth class): each run must fail with that
# proof's "did not take effect" message.  Provider local, then docker
# when an engine can be had (skipped otherwise): there only delay and
# partition are broken, a condition in a container's own namespace and
# one between containers (the clean run and the rest are dn.net.docker's
# and the local half's; each docker run costs ~15 s).  Needs root.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"
. "$DN_SOURCE_DIR/tests/net/netlib.sh"
. "$DN_SOURCE_DIR/tests/e2e/docker-lib.sh"
trap 'rc=$?; stop_dockerd; (exit $rc); cleanup' EXIT

if [ "$(id -u)" -ne 0 ]; then
	skip "network namespaces need root"
	finish
fi

# scn PROVIDER: the scenario
scn() {
	cat <<YAML
name: break-test
provider: $1
duration: 12s
warmup: 1s
sample_interval: 500ms
network:
  nodes: 3
  block_interval: 200ms
  accounts: 500
  links:
    default: {latency: 10ms, bandwidth: 20Mbit}
events:
  - {at: 2s, action: link, nodes: [2], loss: 80%, for: 4s}
  - {at: 6s, action: partition, groups: [[0], [1, 2]]}
  - {at: 9s, action: heal}
workload:
  kind: transfer
  tps: 20
YAML
}

# broken PROVIDER KIND PATTERN: the run with DN_TEST_BREAK=KIND fails
# (exit 1, run failed) for the reason PATTERN
broken() {
	local out rc reason
	out=$(DN_TEST_BREAK=$2 "$DEVNET" run "$T/$1.yaml" --db "$DB" \
	    --run-dir "$RUNS" 2>&1)
	rc=$?
	run=$(q "select max(id) from runs")
	reason=$(q "select status || ': ' || coalesce(reason, '') from runs where id = $run")
	expect_eq "$1, $2 broken: exit 1" "$rc" 1
	expect_match "$1, $2 broken: the proof fails the trial" "$reason" \
	    "^failed: $3"
	expect_match "$1, $2 broken: and says so" "$out" "$3"
}

# all PROVIDER [all]: the run as it is, then each kind broken (with
# "all"; else delay and partition)
all() {
	scn "$1" >"$T/$1.yaml"
	[ "${2:-}" = all ] && run_ok "$1, nothing broken" "$T/$1.yaml"
	broken "$1" delay \
	    "(link event|network.links) [0-9load]*->[0-9load]*: one-way delay p50 [0-9.]* ms measured, 10.000 ms asked .*did not take effect"
	broken "$1" partition \
	    "partition \[\[0\],\[1,2\]\] did not take effect: [1-9][0-9]* of [0-9]* probes crossed it"
	[ "${2:-}" = all ] || return 0
	broken "$1" loss \
	    "link event [0-9load]*->[0-9load]*: loss [0-9.]*% measured, 80% asked .*did not take effect"
	broken "$1" bandwidth \
	    "network.links [0-9load]*->[0-9load]*: bandwidth 20 Mbit/s asked, but the link has no class: the condition did not take effect"
}

HOST_NET=$(host_net)
all local all
expect_net_clean "local" "$(run_pid "$run")" "$HOST_NET"

# Nothing broken, but a trial too short for any link's proof (under 20
# probes in every window): not proven is a failure, not an ok.
cat >"$T/short.yaml" <<YAML
name: break-short
duration: 2s
warmup: 1s
sample_interval: 500ms
network:
  nodes: 3
  block_interval: 200ms
  accounts: 500
  links: {default: {latency: 5ms}}
workload: {kind: transfer, tps: 10}
YAML
# validate says so before anything starts, and run in the same words
warn="devnet: warning: network conditions: the longest window of a trial in which one state of the network holds leaves 0\.7 s to measure it; at 20 probes a second on each of 12 links that is at most 14 probes a link, and a proof wants 20"
expect_match "too short to prove: validate warns" \
    "$("$DEVNET" validate "$T/short.yaml" 2>&1 >/dev/null)" "^$warn"
out=$("$DEVNET" run "$T/short.yaml" --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
expect_match "too short to prove: run warns alike" "$out" "$warn"
expect_eq "a 12 s trial with events: no warning" \
    "$("$DEVNET" validate "$T/local.yaml" 2>&1 >/dev/null)" ""
run=$(q "select max(id) from runs")
expect_eq "too short to prove: exit 1" "$rc" 1
expect_match "too short to prove: the trial fails, saying why" \
    "$(q "select status || ': ' || coalesce(reason, '') from runs where id = $run")" \
    "^failed: network: none of the links with a condition was measured in any window \(12 tried, fewer than 20 probes each\)"
expect_match "too short to prove: and says so" "$out" \
    "run $run \(A\) failed: network: none of the links"
expect_eq "too short to prove: each link's event says not measured" \
    "$(q "select count(*) from events where run_id = $run and kind = 'link_proof' and detail like 'network.links %: not measured (% probes)'")" 12
if docker_up; then
	HOST_NET=$(host_net)
	all docker
	expect_net_clean "docker" "$(run_pid "$run")" "$HOST_NET" docker
fi
finish
