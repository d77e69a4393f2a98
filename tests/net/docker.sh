# docker.sh: provider docker under network conditions (issue 20): 4
# devnet-node nodes in containers, each container in the namespace of a
# holder container that devnet wired to its hub; 2 ms inside a zone, 20
# ms between the two, a partition of halves from 4 s to 8 s, node 1
# restarted at 15 s (a new container in the same namespace).  Checked
# from the stored proofs: a link_proof per directed link within max(1 ms,
# 10 %), the partition's "0 of N probes crossed" and its facts, link_stats,
# heights that stop and resume, node 1 back on its address and rejoined
# after its restart; then nothing left (namespaces,
# containers, the host's links, nft tables and queues) after the run,
# after Ctrl-C, and after a SIGKILL of devnet once the next run has swept.
# Needs root and Docker (dockerd started here if none answers); exit 77
# (skipped, shown) otherwise.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"
. "$DN_SOURCE_DIR/tests/e2e/docker-lib.sh"
. "$DN_SOURCE_DIR/tests/net/netlib.sh"

trap 'rc=$?; stop_dockerd; (exit $rc); cleanup' EXIT
if [ "$(id -u)" -ne 0 ]; then
	skip "network namespaces need root"
	finish
fi
docker_up || finish
HOST_NET=$(host_net)

cat >"$T/dk.yaml" <<YAML
name: docker-net-test
provider: docker
duration: 20s
warmup: 1s
# (a restarted container takes ~2 s to start on a loaded machine: at
# 250 ms that is a stall, 3 intervals + 1 s)
sample_interval: 500ms
network:
  nodes: 4
  block_interval: 200ms
  accounts: 500
  zones: {eu: [0, 1], us: [2, 3]}
  links:
    default: {latency: 2ms}
    eu-us: {latency: 20ms}
events:
  - {at: 4s, action: partition, groups: [[0, 1], [2, 3]]}
  - {at: 8s, action: heal}
  - {at: 15s, action: restart, node: 1}
workload:
  kind: transfer
  tps: 40
YAML
run_ok "docker under conditions" "$T/dk.yaml"
# PID 1: in a container; its address: the emulated network's
expect_match "node 2 listens on 10.99.2.2, in its container" \
    "$(grep -h DN-NODE-READY "$RUNS"/*/node-2.log)" \
    "pid=1 in=tcp://10\.99\.2\.2:[0-9]+ ctl=ipc://"
# 4 nodes and the load (its own endpoint, 'load'): 20 directed links
expect_link_latency 20
expect_match "eu-us is 20 ms one way" "$base" "network.links 0->2: asked 20 ms one way"
expect_match "inside a zone 2 ms" "$base" "network.links 3->2: asked 2 ms one way"
# the load reached the containers through the hub: its TCP connections'
# RTT (the kernel's) holds the default 2 ms each way
expect_eq "the load's TCP to each container: RTT >= 2 x 2 ms" \
    "$(q "select count(*) from run_facts where run_id = $run and key = 'load_tcp_rtt_ms' and cast(value as real) >= 3.6")" 4
expect_match "the partition's proof: no probe crossed" "$(proofs partition_proof)" \
    '^partition \[\[0,1\],\[2,3\]\]: 0 of [0-9]+ probes crossed; [0-9]+ node packets dropped$'
fact() { q "select value from run_facts where run_id = $run and key = '$1'"; }
probes=$(fact partition_1_probes)
[ "${probes:-0}" -ge 100 ] && ok "the probe measured the partition ($probes probes)" ||
	fail "only '${probes:-}' probes across the partition"
expect_eq "no probe crossed it (fact)" "$(fact partition_1_probes_crossed)" 0
dropped=$(fact partition_1_node_packets_dropped)
[ "${dropped:-0}" -gt 0 ] && ok "node packets were dropped ($dropped)" ||
	fail "no node packet dropped by the partition"
expect_eq "the conditions, stored as one line" "$(fact net_conditions)" \
    "default: latency 2 ms; eu-us: latency 20 ms; events: partition at 4 s, heal at 8 s"
expect_eq "link_stats: a row per directed link" \
    "$(q "select count(*) from link_stats where run_id = $run and probes >= 50")" 20
rtt=$(q "select rtt_ms_p50 from link_stats where run_id = $run and src = 1 and dst = 3")
awk -v r="$rtt" 'BEGIN { exit !(r >= 38 && r <= 46) }' &&
	ok "link_stats 1->3: RTT p50 $rtt ms (20 ms each way)" ||
	fail "link_stats 1->3: RTT p50 '$rtt' ms, 40 asked"
expect_partition_stall "$run" 4500 5000 7400 7900 14000 14900
# the restart: a new container, in the holder's namespace still
expect_eq "node 1 restarted" \
    "$(q "select count(*) from events where run_id = $run and node = 1 and kind = 'restart'")" 1
expect_eq "node 1 listened on 10.99.1.2 both times" \
    "$(grep -h DN-NODE-READY "$RUNS"/*/node-1.log | grep -c 'in=tcp://10\.99\.1\.2:')" 2
rj=$(q "select count(*) from events where run_id = $run and node = 1 and kind = 'rejoined' and t_ms > 15000")
[ "$rj" -ge 1 ] && ok "node 1 rejoined after its restart" ||
	fail "no rejoined of node 1 after its restart"
after=$(max_height "$run" 14000 14900)
last=$(max_height "$run" 19000 20000)
[ $((last - after)) -ge 5 ] && ok "blocks on after the restart ($after -> $last)" ||
	fail "no progress after the restart: $after -> $last"
expect_eq "one state hash across the four nodes" \
    "$(q "select count(distinct value) || '/' || count(*) from run_facts where run_id = $run and key = 'state_hash'")" "1/4"
pid=$(run_pid "$run")
[ -n "$pid" ] && ok "the hub is named by devnet's pid ($pid)" || fail "no network event"
expect_net_clean "after the run" "$pid" "$HOST_NET" docker

# running: wait until devnet $1 has its hub and 4 nodes + 4 holders up
running() {
	[ "$(left_ns "$1")" -ge 1 ] &&
	    [ "$(docker ps -q --filter "name=^devnet-$1-" | wc -l)" -ge 8 ]
}
sed 's/duration: 20s/duration: 60s/' "$T/dk.yaml" >"$T/long.yaml"

# Ctrl-C in the middle: the trial ends interrupted, nothing left.
"$DEVNET" run "$T/long.yaml" --db "$DB" --run-dir "$RUNS" >"$T/int.out" 2>&1 &
dpid=$!
wait_for 60 running $dpid && ok "devnet $dpid runs 4 nodes and 4 holders" ||
	fail "devnet $dpid did not get its containers up"
hub=$(ip netns list | grep -oE "^devnet-$dpid-([0-9]+-)+hub")
# what the end must take away is there meanwhile: the hub's veth ends,
# its nft table and queue, each holder's address
expect_eq "the hub has a veth end per node and the load" \
    "$(ip netns exec "$hub" ip -o link | grep -c ' h[0-4]@')" 5
expect_match "the hub has devnet's nft table" \
    "$(ip netns exec "$hub" nft list tables)" "devnet"
expect_match "the hub has the emulator's queue 0" \
    "$(ip netns exec "$hub" cat /proc/net/netfilter/nfnetlink_queue)" "^ *0 "
hp=$(docker inspect --format '{{.State.Pid}}' "$(docker ps -q --filter "name=^devnet-$dpid-.*-1-net$")")
expect_match "holder 1's namespace has node 1's address" \
    "$(nsenter -t "$hp" -n ip -o -4 addr show dev eth0)" "10\.99\.1\.2/24"
sleep 1
kill -INT $dpid
wait $dpid
rc=$?
expect_eq "Ctrl-C: exit 130" "$rc" 130
expect_eq "Ctrl-C: run interrupted" \
    "$(q "select status from runs where id = (select max(id) from runs)")" interrupted
expect_net_clean "Ctrl-C" "$dpid" "$HOST_NET" docker

# SIGKILL of devnet: its nodes stop themselves (no collector for 3 s),
# its holders and hub wait for the next run's sweep.
"$DEVNET" run "$T/long.yaml" --db "$DB" --run-dir "$RUNS" >"$T/kill.out" 2>&1 &
dpid=$!
wait_for 60 running $dpid || fail "devnet $dpid did not get its containers up"
sleep 1
kill -KILL $dpid
wait $dpid 2>/dev/null
nodes_gone() { [ "$(docker ps -q --filter "name=^devnet-$dpid-[0-9]*-[0-9]*$" | wc -l)" = 0 ]; }
wait_for 10 nodes_gone && ok "SIGKILL: the nodes stopped themselves" ||
	fail "SIGKILL: node containers still run 10 s later"
expect_eq "SIGKILL: its 4 holders wait for the sweep" \
    "$(docker ps -q --filter "name=^devnet-$dpid-.*-net$" | wc -l)" 4
sed 's/duration: 20s/duration: 2s/; /action: partition/d; /action: restart/d; s/at: 8s/at: 1s/' \
    "$T/dk.yaml" >"$T/short.yaml"
out=$("$DEVNET" run "$T/short.yaml" --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "the next run: exit 0" "$rc" 0
expect_match "the next run swept the holders" "$out" \
    "removed [0-9]+ Docker object\(s\) left by a devnet that was killed"
# (the hub may have been swept by any devnet run with conditions on this
# machine meanwhile: what counts is that none is left)
expect_net_clean "SIGKILL + next run" "$dpid" "$HOST_NET" docker
expect_eq "nothing labelled left by gone devnets" "$(labelled)" 0
finish
