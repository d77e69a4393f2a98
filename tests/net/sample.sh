# sample.sh: the probe on a sample of the links (issue 40,
# plan/probe-links.c).  30 devnet-nodes gossiping over 4 peers in three
# zones of 10, a latency per zone pair, `probe_links: sampled` (auto
# samples only past 3,000 directed links; the suite cannot afford that
# many nodes): the run ok with fewer links probed than the 930 there
# are, every probed link proven and no other, every ordered zone pair
# and the load's links proven on at least one link (event
# link_proof_classes), the sample stored as facts (probe_to,
# load_probe_to) and the same as the proofs'; then the delay put in
# force at half (DN_TEST_BREAK=delay) fails the trial on a sampled link;
# nothing left.  NODES (default 30) makes it smaller to debug.  Needs
# root.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"
. "$DN_SOURCE_DIR/tests/net/netlib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: network namespaces need root"
	exit 77
fi
need_realtime "30 nodes"

NODES=${NODES:-30}
LINKS=$(((NODES + 1) * NODES))
# zone z of the three: every third node from z
zone() {
	local k out=""
	for k in $(seq "$1" 3 $((NODES - 1))); do out="$out${out:+, }$k"; done
	printf '%s' "$out"
}
cat >"$T/sample.yaml" <<YAML
name: sample-test
duration: 10s
warmup: 1s
sample_interval: 1s
seed: 5
network:
  nodes: $NODES
  peers: 4
  probe_links: sampled
  block_interval: 500ms
  accounts: 500
  zones: {eu: [$(zone 0)], us: [$(zone 1)], ap: [$(zone 2)]}
  links:
    default: {latency: 2ms}
    eu-us: {latency: 20ms}
    us-ap: {latency: 30ms}
workload:
  kind: transfer
  tps: 10
YAML
HOST_NET=$(host_net)
run_ok "$NODES nodes, a sample probed" "$T/sample.yaml"
probed=$(q "select value from run_facts where run_id = $run and
    key = 'probe_links'")
[ "$probed" -gt 0 ] && [ "$probed" -lt "$LINKS" ] &&
	ok "a sample: $probed of $LINKS links probed" ||
	fail "probe_links $probed, not a sample of $LINKS"
expect_eq "probe_links_all" "$(q "select value from run_facts where
    run_id = $run and key = 'probe_links_all'")" "$LINKS"
expect_match "the network event says so" "$(proofs network)" \
    "probe [0-9]*/s on each of $probed links \(a sample"
# every probed link proven, within its bound, and no other
expect_link_latency "$probed"
# the sample as facts: SRC DST per line, and the proofs' links
stored=$(q "select node, value from run_facts where run_id = $run and
    key = 'probe_to' union all select $NODES, value from run_facts where
    run_id = $run and key = 'load_probe_to'" |
    awk -F'|' '{ n = split($2, d, ","); for (i = 1; i <= n; i++)
	print $1 " " d[i] }' | sort)
proven=$(printf '%s\n' "$base" | sed -n \
    's/^network.links \([0-9load]*\)->\([0-9load]*\):.*/\1 \2/p' |
    sed "s/load/$NODES/g" | sort)
expect_eq "the facts hold $probed links" "$(printf '%s\n' "$stored" |
    grep -c .)" "$probed"
expect_eq "the proven links are the stored sample" "$proven" "$stored"
# every class proven on a link or more
classes=$(proofs link_proof_classes)
printf '%s\n' "$classes"
for a in eu us ap; do
	for b in eu us ap; do
		expect_match "zone pair $a->$b proven on the sample" \
		    "$classes" "[ :]$a->$b [1-9]"
	done
done
expect_match "the load's links proven on the sample" "$classes" \
    "load [1-9]"
expect_match "no class unmeasured" "$classes" "^[^;]*;[^;]*$"

# the delay at half everywhere: the sampled links' proofs fail the trial
out=$(DN_TEST_BREAK=delay "$DEVNET" run "$T/sample.yaml" --db "$DB" \
    --run-dir "$RUNS" 2>&1)
rc=$?
run=$(q "select max(id) from runs")
expect_eq "delay broken: exit 1" "$rc" 1
expect_match "delay broken: a sampled link's proof fails the trial" \
    "$(q "select status || ': ' || coalesce(reason, '') from runs
    where id = $run")" \
    "^failed: network.links [0-9load]*->[0-9load]*: one-way delay p50 [0-9.]* ms measured, [0-9.]* ms asked .*did not take effect"
expect_net_clean "after the runs" "$(run_pid "$run")" "$HOST_NET"
finish
