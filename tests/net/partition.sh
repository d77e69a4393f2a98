# partition.sh: devnet run on an emulated network (issue 20): 4 devnet-node
# nodes, each in a network namespace of its own, gossip over TCP through
# the hub; a partition of halves stops the heights, heal brings the nodes
# back; the partition's proof (no probe crossed, node packets dropped) is
# stored; nothing is left after the run, after Ctrl-C, and after a
# SIGKILL of devnet once the next run has swept: no namespace, and the
# host's links, nft tables and queues as before (tests/net/netlib.sh).
# Needs root.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"
. "$DN_SOURCE_DIR/tests/net/netlib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: network namespaces need root"
	exit 77
fi
HOST_NET=$(host_net)

cat >"$T/part.yaml" <<YAML
name: partition-test
duration: 14s
sample_interval: 250ms
network:
  nodes: 4
  block_interval: 200ms
  accounts: 500
events:
  - {at: 3s, action: partition, groups: [[0, 1], [2, 3]]}
  - {at: 8s, action: heal}
workload:
  kind: transfer
  tps: 40
YAML
run_ok "partition run" "$T/part.yaml"
expect_match "nodes gossip over TCP between their namespaces" \
    "$(grep -h DN-NODE-READY "$RUNS"/*/node-2.log)" "in=tcp://10\.99\.2\.2:[0-9]+ ctl=ipc://"
proof=$(proofs partition_proof)
expect_match "the partition's proof: no probe crossed" "$proof" \
    '^partition \[\[0,1\],\[2,3\]\]: 0 of [0-9]+ probes crossed; [0-9]+ node packets dropped$'
probes=$(q "select value from run_facts where run_id = $run and key = 'partition_1_probes'")
[ "${probes:-0}" -ge 100 ] && ok "the probe measured the partition ($probes probes)" ||
	fail "only '${probes:-}' probes across the partition"
dropped=$(q "select value from run_facts where run_id = $run and key = 'partition_1_node_packets_dropped'")
[ "${dropped:-0}" -gt 0 ] && ok "node packets were dropped ($dropped)" ||
	fail "no node packet dropped by the partition"
expect_partition_stall "$run" 4000 4500 7400 7900 13000 14000
rj=$(q "select count(*) from events where run_id = $run and kind = 'rejoined'")
[ "$rj" -ge 1 ] && ok "heal brought rejoined ($rj)" || fail "no rejoined after heal"
expect_eq "one state hash across the four nodes" \
    "$(q "select count(distinct value) || '/' || count(*) from run_facts where run_id = $run and key = 'state_hash'")" "1/4"
pid=$(run_pid "$run")
[ -n "$pid" ] && ok "the hub is named by devnet's pid ($pid)" || fail "no network event"
expect_net_clean "after the run" "$pid" "$HOST_NET"

# Ctrl-C in the middle: the trial ends interrupted, nothing left.
sed 's/duration: 14s/duration: 60s/' "$T/part.yaml" >"$T/long.yaml"
"$DEVNET" run "$T/long.yaml" --db "$DB" --run-dir "$RUNS" >"$T/int.out" 2>&1 &
dpid=$!
for _ in $(seq 100); do [ "$(left_ns $dpid)" -eq 6 ] && break; sleep 0.1; done
expect_eq "the running devnet has its 6 namespaces (hub, 4 nodes, load)" "$(left_ns $dpid)" 6
# what the end must take away is there meanwhile: the veth pairs, the
# hub's nft table and the nodes' addresses (h4 leads to the load's)
hub=$(ip netns list | grep -oE "^devnet-$dpid-([0-9]+-)+hub")
wait_for 10 eval '[ "$(ip netns exec "$hub" ip -o link | grep -c " h[0-4]@")" = 5 ]'
expect_eq "the hub has a veth end per node and the load" \
    "$(ip netns exec "$hub" ip -o link | grep -c ' h[0-4]@')" 5
expect_match "the hub has devnet's nft table" \
    "$(ip netns exec "$hub" nft list tables)" "devnet"
expect_match "node 3's namespace has its address" \
    "$(ip netns exec "${hub%-hub}-n3" ip -o -4 addr show dev eth0)" "10\.99\.3\.2/24"
sleep 1
kill -INT $dpid
wait $dpid
expect_eq "Ctrl-C: run interrupted" \
    "$(q "select status from runs where id = (select max(id) from runs)")" interrupted
expect_net_clean "Ctrl-C" "$dpid" "$HOST_NET"

# SIGKILL of devnet: its namespaces stay (nodes die with it), the next
# run sweeps them.
"$DEVNET" run "$T/long.yaml" --db "$DB" --run-dir "$RUNS" >"$T/kill.out" 2>&1 &
dpid=$!
for _ in $(seq 100); do [ "$(left_ns $dpid)" -eq 6 ] && break; sleep 0.1; done
sleep 1
kill -KILL $dpid
wait $dpid 2>/dev/null
for _ in $(seq 50); do [ -z "$(leftovers)" ] && break; sleep 0.1; done
expect_eq "SIGKILL: its 6 namespaces are still there" "$(left_ns $dpid)" 6
sed 's/duration: 14s/duration: 2s/; /action: partition/d; s/at: 8s/at: 1s/' \
    "$T/part.yaml" >"$T/short.yaml"
out=$("$DEVNET" run "$T/short.yaml" --db "$DB" --run-dir "$RUNS" 2>&1)
expect_match "the next run swept them" "$out" "removed [0-9]+ network namespace\(s\) a killed devnet left"
expect_net_clean "SIGKILL + next run" "$dpid" "$HOST_NET"
finish
