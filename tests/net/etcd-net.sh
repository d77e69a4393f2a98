# etcd-net.sh: scenarios/etcd-3-net.yaml as it ships (issue 20's etcd
# case): a real 3-member etcd (Debian's etcd-server), each member under
# devnet-probe in a network namespace of its own at {addr}, member 2 80 ms
# one way from the others, then cut off by a partition for 12 s and
# healed, with 60 puts/s of http load from the load namespace through the
# hub.  Asserts on what was stored: the scenario's own assertions ran and
# passed (rows of `assertions`); the puts' p99 before the partition is
# above twice the 80 ms; puts failed during the partition while the
# majority kept applying them and member 2 did not; after the heal member
# 2 caught up; the proof events (partition_proof: no probe crossed;
# link_proof within max(1 ms, 10 %)) and facts; link_stats rows with the
# RTTs asked; the members listened on their namespaces' addresses; and no
# namespace is left.  Also: loopback under conditions is refused at
# FILE:LINE:COL; and a command load (two python3 http.servers at {addr},
# 50 ms on every link) runs in the load's namespace and reaches both at
# {addrs} through the hub, in two round trips.  Needs root and etcd;
# skipped (77) without them.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: network namespaces need root"
	exit 77
fi
command -v etcd >/dev/null 2>&1 || { echo "SKIP: no etcd on PATH (etcd-server)"; exit 77; }

out=$("$DEVNET" run "$SCN/etcd-3-net.yaml" --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out" | tail -25
expect_eq "etcd-3-net: exit 0 (no assertion failed)" "$rc" 0
run=$(q "select max(id) from runs")
expect_eq "the run is ok" "$(q "select status from runs where id = $run")" ok

# the scenario's own assertions, judged in the trial and stored
expect_eq "five assertions, all passed" \
    "$(q "select count(*) || '/' || sum(status = 'pass') from assertions where run_id = $run")" "5/5"
for a in "every member applies proposals" \
    "puts through the far member cross its link twice" \
    "the majority keeps applying puts while 2 is cut off" \
    "puts sent to the cut member fail" \
    "the cut member catches up after the heal"; do
	expect_eq "assertion '$a'" \
	    "$(q "select status from assertions where run_id = $run and name = '$a'")" pass
done

# where the members and the load were
net=$(q "select detail from events where run_id = $run and kind = 'network'")
expect_match "the network event names the load's namespace" "$net" \
    "foreign nodes at their own addresses .*the load over TCP from devnet-[0-9]+-([0-9]+-)+n3 \\(endpoint 'load'\\)"
expect_match "member 2 listened on its namespace's address" \
    "$(q "select cmdline from nodes where run_id = $run and node = 2")" \
    '--listen-client-urls http://10\.99\.2\.2:23810 .*--initial-cluster n0=http://10\.99\.0\.2:23791,n1=http://10\.99\.1\.2:23801,n2=http://10\.99\.2\.2:23811'

# the load's numbers: slow through the far link, failures while cut off
lm() {	# lm METRIC FROM_MS TO_MS AGG: the load's METRIC in [FROM, TO)
	q "select $4(value) from samples s join metrics m on m.id = s.metric_id
	    where run_id = $run and node = -1 and m.name = '$1'
	    and t_ms >= $2 and t_ms < $3"
}
p99=$(lm tx_latency_p99_ms 6000 20000 min)
awk -v v="${p99:-0}" 'BEGIN { exit !(v >= 160) }' &&
	ok "puts' p99 before the cut: every interval >= 160 ms (least $p99 ms)" ||
	fail "puts' p99 before the cut: least '$p99' ms, want >= 160 (two crossings of 80 ms)"
f0=$(lm tx_failed 0 20000 max)
f1=$(lm tx_failed 0 32000 max)
expect_eq "no put failed before the cut" "${f0%.*}" 0
[ "$(( ${f1%.*} - ${f0%.*} ))" -ge 60 ] &&
	ok "puts failed during the cut ($(( ${f1%.*} - ${f0%.*} )); a third of 60/s for 12 s is 240)" ||
	fail "only '$f1' puts failed during the cut"
inc=$(q "select value from run_facts where run_id = $run and key = 'tx_included'")
[ "${inc:-0}" -ge 2000 ] && ok "puts acknowledged over the run ($inc)" ||
	fail "only '$inc' puts acknowledged"

h() {	# h NODE AT_MS: NODE's height in the sample nearest after AT_MS
	q "select cast(value as int) from samples s join metrics m on m.id = s.metric_id
	    where run_id = $run and node = $1 and m.name = 'height' and t_ms >= $2
	    order by t_ms limit 1"
}
for k in 0 1; do
	a=$(h $k 23000); b=$(h $k 31000)
	[ $((b - a)) -ge 200 ] && ok "member $k applied puts while 2 was cut off ($a -> $b)" ||
		fail "member $k: $a -> $b during the cut"
done
a=$(h 2 23000); b=$(h 2 31000)
[ $((b - a)) -le 2 ] && ok "member 2 applied nothing while cut off ($a -> $b)" ||
	fail "member 2 moved on while cut off: $a -> $b"
expect_eq "member 2, and only it, rejoined after the heal" \
    "$(q "select group_concat(node) from events where run_id = $run and kind = 'rejoined'")" 2

# the proof: events, facts, link_stats
expect_match "partition_proof: no probe crossed" \
    "$(q "select detail from events where run_id = $run and kind = 'partition_proof'")" \
    '^partition \[\[0,1\],\[2\]\]: 0 of [0-9]+ probes crossed; [0-9]+ node packets dropped$'
pr=$(q "select value from run_facts where run_id = $run and key = 'partition_1_probes'")
[ "${pr:-0}" -ge 400 ] && ok "the probe measured the cut ($pr probes)" ||
	fail "only '$pr' probes across the cut"
dr=$(q "select value from run_facts where run_id = $run and key = 'partition_1_node_packets_dropped'")
[ "${dr:-0}" -gt 0 ] && ok "etcd's own packets were dropped ($dr)" ||
	fail "no node packet dropped by the cut"
expect_eq "link_proof for the four far links" \
    "$(q "select count(*) from events where run_id = $run and kind = 'link_proof'
        and detail like 'network.links %: asked 80 ms one way, 0% loss; measured p50 %'")" 4
expect_eq "link_stats: a row per directed link, the load's (endpoint 3) too" \
    "$(q "select count(*) || '/' || sum(src = 3 or dst = 3) from link_stats where run_id = $run and probes > 100")" 12/6
far=$(q "select rtt_ms_p50 from link_stats where run_id = $run and src = 0 and dst = 2")
near=$(q "select rtt_ms_p50 from link_stats where run_id = $run and src = 0 and dst = 1")
awk -v v="${far:-0}" 'BEGIN { exit !(v >= 159 && v <= 176) }' &&
	ok "link_stats 0->2: RTT p50 $far ms (160 asked)" ||
	fail "link_stats 0->2: RTT p50 '$far' ms, want 160 within max(1 ms, 10 %)"
awk -v v="${near:-99}" 'BEGIN { exit !(v < 5) }' &&
	ok "link_stats 0->1: RTT p50 $near ms (no condition)" ||
	fail "link_stats 0->1: RTT p50 '$near' ms"

pid=$(printf '%s' "$net" | sed -n 's/.*through hub devnet-\([0-9]*\)-.*/\1/p')
[ -n "$pid" ] && ok "the hub is named by devnet's pid ($pid)" || fail "no network event"
expect_eq "no namespace left" "$(ip netns list | grep -c "^devnet-$pid-")" 0
expect_eq "no etcd left running" "$(pgrep -f -- "--data-dir $RUNS" | wc -l)" 0

# loopback under conditions: refused where it is written, with what to do
sed "s#url: 'http://{addr}:{port}/v3/kv/put'#url: 'http://127.0.0.1:{port}/v3/kv/put'#" \
    "$SCN/etcd-3-net.yaml" >"$T/lo.yaml"
out=$("$DEVNET" validate "$T/lo.yaml" 2>&1)
rc=$?
[ "$rc" -ne 0 ] && ok "127.0.0.1 in the load's URL: refused (exit $rc)" ||
	fail "127.0.0.1 in the load's URL was accepted"
expect_match "...at FILE:LINE:COL, saying to write {addr}" "$out" \
    "lo\.yaml:[0-9]+:[0-9]+: workload\.url: 'http://127\.0\.0\.1:\{port\}/v3/kv/put' under network conditions: .*write \{addr\}"

# a command load: started in the load's namespace, it reaches the nodes at
# {addrs} through the hub, where the load's links carry default's 50 ms
# (15 s and a 60 s ready timeout: python3 itself may take seconds to
# start on a loaded machine)
cat >"$T/cmd.yaml" <<'YAML'
name: cmd-net
duration: 15s
sample_interval: 500ms
network:
  nodes: 2
  links:
    default: {latency: 50ms}
node:
  command: [python3, -m, http.server, --bind, '{addr}', '{port}']
  ready: {tcp: '{addr}:{port}'}
workload:
  kind: command
  command: [python3, -c, "import sys, time, urllib.request as u\nfor a, p in zip(sys.argv[1].split(','), sys.argv[2].split(',')):\n  t = time.monotonic(); s = u.urlopen('http://%s:%s/' % (a, p), timeout=5).status\n  print('GET', a, p, s, '%.3f' % (time.monotonic() - t), flush=True)\ntime.sleep(30)", '{addrs}', '{ports}']
YAML
out=$("$DEVNET" run "$T/cmd.yaml" --db "$T/cmd.db" --run-dir "$T/cmd-runs" \
    --ready-timeout 60s 2>&1)
expect_eq "command load under conditions: exit 0" "$?" 0
got=$(cat "$T"/cmd-runs/*/load-command.out 2>/dev/null)
printf '%s\n' "$got"
expect_match "it reached node 0 at its address" "$got" '^GET 10\.99\.0\.2 20000 200 '
expect_match "...and node 1" "$got" 'GET 10\.99\.1\.2 20010 200 '
slow=$(printf '%s\n' "$got" | awk '/^GET/ && $5 >= 0.2 { n++ } END { print n + 0 }')
expect_eq "each GET took two round trips of 100 ms (connect, request)" "$slow" 2
expect_match "the load's links were proven" \
    "$(sqlite3 -batch -noheader "$T/cmd.db" "select detail from events where kind = 'link_proof'")" \
    'network\.links load->0: asked 50 ms one way'
sed "s#'{addrs}'#'127.0.0.1'#" "$T/cmd.yaml" >"$T/cmd-lo.yaml"
out=$("$DEVNET" validate "$T/cmd-lo.yaml" 2>&1)
[ $? -ne 0 ] && ok "127.0.0.1 in a command load: refused" ||
	fail "127.0.0.1 in a command load was accepted"
expect_match "...at FILE:LINE:COL" "$out" \
    "cmd-lo\.yaml:13:[0-9]+: workload\.command: '127\.0\.0\.1' under network conditions"
finish
