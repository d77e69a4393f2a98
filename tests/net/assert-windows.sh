#!/bin/bash
# assert-windows.sh: assertions (issue 21) whose windows are anchored on
# the emulated network's events (issue 20): 4 devnet-node nodes in
# namespaces of their own, a partition of halves and its heal.  An
# `always ... during: split` and an `eventually ... after: mend` pass; an
# `always` that the partition breaks fails with the message, the row
# (node, t inside the partition's window) and the JUnit case, exit 4; the
# stored windows start at the events' rows.  Needs root.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: network namespaces need root"
	exit 77
fi

cat >"$T/part.yaml" <<YAML
name: assert-partition
duration: 12s
sample_interval: 250ms
network:
  nodes: 4
  block_interval: 200ms
  accounts: 500
events:
  - {at: 3s, action: partition, groups: [[0, 1], [2, 3]], name: split}
  - {at: 7s, action: heal, name: mend}
workload:
  kind: transfer
  tps: 40
assert:
  - {name: halves in step, always: {max_spread: height <= 3, during: split}}
  - {name: heals, eventually: {max_spread: height <= 1, within: 4s, after: mend}}
  - {name: no stall, always: {each_node: lag_ms < 1000, during: split}}
YAML
"$DEVNET" run "$T/part.yaml" --db "$DB" --run-dir "$RUNS" --format junit \
    >"$T/part.xml" 2>"$T/part.err"
rc=$?
cat "$T/part.err"
expect_eq "the stall fails an assertion: exit 4" "$rc" 4
run=$(q "select max(id) from runs")
expect_eq "the run itself is ok" "$(q "select status from runs where id = $run")" ok
split=$(q "select t_ms from events where run_id = $run and kind = 'partition'")
mend=$(q "select t_ms from events where run_id = $run and kind = 'heal'")
proof=$(q "select detail from events where run_id = $run and kind = 'partition_proof'")
expect_match "the partition took effect" "$proof" \
    '^partition \[\[0,1\],\[2,3\]\]: 0 of [0-9]+ probes crossed; [0-9]+ node packets dropped$'
row() { q "select status || '|' || coalesce(node, 'NULL') || '|' ||
    window_from_ms || '..' || window_to_ms || '|' || message
    from assertions where run_id = $run and name = '$1'"; }
# during: split is the partition's row to the heal's + 2 block intervals
expect_match "always during the partition: passes" "$(row 'halves in step')" \
    "^pass\|NULL\|$split\.\.$((mend + 400))\|halves in step: height <= 3 blocks held at every one of [0-9]+ samples from t=3\.[0-9] s to t=7\.[0-9] s$"
expect_match "eventually after the heal: passes" "$(row heals)" \
    "^pass\|NULL\|$mend\.\.$((mend + 4000))\|heals: height <= 1 blocks held at t=(7|8|9|10)\.[0-9] s \(spread of height [01]\)$"
expect_match "always during the partition, broken by its stall: fails" \
    "$(row 'no stall')" \
    "^fail\|[0-3]\|$split\.\.$((mend + 400))\|no stall: node [0-3] had lag_ms [0-9]+ at t=[3-7]\.[0-9] s \(limit < 1000 ms\), 1 sample in a row; events active: partition \('split'\) since t=3\.[0-9] s; last lines of node-[0-3]\.log: "
viol=$(q "select t_ms from assertions where run_id = $run and name = 'no stall'")
[ -n "$viol" ] && [ "$viol" -ge "$split" ] && [ "$viol" -le "$mend" ] &&
	ok "the violation ($viol ms) lies inside the partition ($split..$mend ms)" ||
	fail "the violation at '$viol' ms is not inside the partition ($split..$mend ms)"
check "the JUnit file is XML" python3 -c \
    "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$T/part.xml"
expect_match "JUnit: two pass, one fails" "$(cat "$T/part.xml")" \
    "<testsuite name=\"assertions of run $run \(assert-partition, variant A, trial 0\)\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"0\">"
expect_match "JUnit: the failure readable alone" "$(tr '\n' ' ' <"$T/part.xml")" \
    "<testcase classname=\"devnet.assert.assert-partition\" name=\"no stall \(run $run, always\)\">[[:space:]]*<failure message=\"no stall: node [0-3] had lag_ms [0-9]+ at t=[3-7]\.[0-9] s \(limit &lt; 1000 ms\), 1 sample in a row; events active: partition \('split'\) since t=3\.[0-9] s; last lines of node-[0-3]\.log: "
pid=$(q "select detail from events where run_id = $run and kind = 'network'" |
    sed -n 's/.*through hub devnet-\([0-9]*\)-.*/\1/p')
[ -n "$pid" ] && ok "the hub is named by devnet's pid ($pid)" || fail "no network event"
expect_eq "no namespace left after the run" \
    "$(ip netns list | grep -c "^devnet-$pid-")" 0
finish
