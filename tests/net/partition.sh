# partition.sh: devnet run on an emulated network (issue 20): 4 devnet-node
# nodes, each in a network namespace of its own, gossip over TCP through
# the hub; a partition of halves stops the heights, heal brings the nodes
# back; the partition's proof (no probe crossed, node packets dropped) is
# stored; nothing is left after the run, after Ctrl-C, and after a
# SIGKILL of devnet once the next run has swept.  Needs root.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: network namespaces need root"
	exit 77
fi

# namespaces of the devnet whose hub event names it
left_ns() { ip netns list | grep -c "^devnet-$1-" ; }
run_pid() {
	q "select detail from events where run_id = $1 and kind = 'network'" |
	    sed -n 's/.*through hub devnet-\([0-9]*\)-.*/\1/p'
}

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
out=$("$DEVNET" run "$T/part.yaml" --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "partition run: exit 0" "$rc" 0
run=$(q "select max(id) from runs")
expect_eq "partition run: ok" "$(q "select status from runs where id = $run")" ok
expect_match "nodes gossip over TCP between their namespaces" \
    "$(grep -h DN-NODE-READY "$RUNS"/*/node-2.log)" "in=tcp://10\.99\.2\.2:[0-9]+ ctl=ipc://"
proof=$(q "select detail from events where run_id = $run and kind = 'partition_proof'")
expect_match "the partition's proof: no probe crossed" "$proof" \
    '^partition \[\[0,1\],\[2,3\]\]: 0 of [0-9]+ probes crossed; [0-9]+ node packets dropped$'
probes=$(q "select value from run_facts where run_id = $run and key = 'partition_1_probes'")
[ "${probes:-0}" -ge 100 ] && ok "the probe measured the partition ($probes probes)" ||
	fail "only '${probes:-}' probes across the partition"
dropped=$(q "select value from run_facts where run_id = $run and key = 'partition_1_node_packets_dropped'")
[ "${dropped:-0}" -gt 0 ] && ok "node packets were dropped ($dropped)" ||
	fail "no node packet dropped by the partition"
h() {	# the highest height any node reported in [$1, $2] ms
	q "select cast(max(value) as int) from samples s join metrics m on m.id = s.metric_id
	    where run_id = $run and m.name = 'height' and t_ms between $1 and $2"
}
before=$(h 4000 4500)
during=$(h 7400 7900)
after=$(h 13000 14000)
[ $((during - before)) -le 1 ] && ok "no block while the halves are apart ($before -> $during)" ||
	fail "heights moved on during the partition: $before -> $during"
[ $((after - during)) -ge 5 ] && ok "blocks again after heal ($during -> $after)" ||
	fail "no progress after heal: $during -> $after"
rj=$(q "select count(*) from events where run_id = $run and kind = 'rejoined'")
[ "$rj" -ge 1 ] && ok "heal brought rejoined ($rj)" || fail "no rejoined after heal"
expect_eq "one state hash across the four nodes" \
    "$(q "select count(distinct value) || '/' || count(*) from run_facts where run_id = $run and key = 'state_hash'")" "1/4"
pid=$(run_pid "$run")
[ -n "$pid" ] && ok "the hub is named by devnet's pid ($pid)" || fail "no network event"
expect_eq "no namespace left after the run" "$(left_ns "$pid")" 0

# Ctrl-C in the middle: the trial ends interrupted, nothing left.
sed 's/duration: 14s/duration: 60s/' "$T/part.yaml" >"$T/long.yaml"
"$DEVNET" run "$T/long.yaml" --db "$DB" --run-dir "$RUNS" >"$T/int.out" 2>&1 &
dpid=$!
for _ in $(seq 100); do [ "$(left_ns $dpid)" -eq 6 ] && break; sleep 0.1; done
expect_eq "the running devnet has its 6 namespaces (hub, 4 nodes, load)" "$(left_ns $dpid)" 6
sleep 1
kill -INT $dpid
wait $dpid
expect_eq "Ctrl-C: run interrupted" \
    "$(q "select status from runs where id = (select max(id) from runs)")" interrupted
expect_eq "Ctrl-C: no namespace left" "$(left_ns $dpid)" 0

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
expect_eq "SIGKILL + next run: no namespace left" "$(left_ns $dpid)" 0
finish
