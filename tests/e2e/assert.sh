#!/bin/bash
# assert.sh: the scenario's assertions (assert:, issue 21) on real nodes.
# Every form (eventually, always, value) in every scope (each_node,
# all_nodes, any_node, max_spread, load) failed on purpose: the message,
# the row in `assertions`, the JUnit case and exit status 4; passing ones
# beside them; exit 5 for an inconclusive one; an `always` with
# abort_on_fail that ends a 30 s trial within one sample interval; and
# windows anchored on a stop/cont event (except: events, during:, after:).
. "$(dirname "$0")/lib.sh"

if sanitized; then
	echo "SKIP: the allocation counter is off in this build (sanitizers): its value and relative cases judge allocs_per_s"
	exit 77
fi

# --- every form and scope, failed on purpose ---------------------------
{ scn_head forms 4s; cat <<'YAML'
warmup: 1s
assert:
  - {name: ev-each, eventually: {each_node: height >= 100000, within: 2s}}
  - {name: ev-all, eventually: {all_nodes: height >= 100000, within: 2s}}
  - {name: ev-any, eventually: {any_node: height >= 100000, within: 2s}}
  - {name: ev-spread, eventually: {max_spread: height < 0, within: 2s}}
  - {name: ev-load, eventually: {load: tx_included >= 1000000, within: 2s}}
  - {name: al-each, always: {each_node: height < 3}}
  - {name: al-all, always: {all_nodes: height < 4}}
  - {name: al-any, always: {any_node: height < 5}}
  - {name: al-spread, always: {max_spread: height > 5}}
  - {name: al-load, always: {load: tx_included < 20}}
  - {name: al-sustained, always: {each_node: height < 3, sustained: 1s}}
  - {name: va-each, value: {each_node: rss_max < 1MiB}}
  - {name: va-all, value: {all_nodes: allocs_per_s < 1}}
  - {name: va-any, value: {any_node: height_max > 100000}}
  - {name: va-spread, value: {max_spread: rss_mean < 0}}
  - {name: va-load, value: {load: achieved_tps > 1000}}
  - {name: ok-ev, eventually: {all_nodes: height >= 5, within: 3s}}
  - {name: ok-al, always: {each_node: lag_blocks <= 100}}
  - {name: ok-va, value: {load: achieved_tps > 10}}
  - {name: ok-growth, value: {each_node: rss_growth < 1GiB/min}}
YAML
} >"$T/forms.yaml"
"$DEVNET" run "$T/forms.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --format junit >"$T/forms.xml" 2>"$T/forms.err"
expect_eq "an assertion failed: exit 4" "$?" 4
run=$(q "select max(id) from runs")
expect_eq "the run itself is ok" "$(q "select status from runs where id = $run")" ok
row() { q "select status || '|' || coalesce(node, 'NULL') || '|' || message
    from assertions where run_id = $run and name = '$1'"; }
N='[0-2]'
expect_match "eventually each_node" "$(row ev-each)" \
    "^fail\|$N\|ev-each: did not hold from t=0.0 s to t=2.0 s; the last sample: node $N had height [0-9]+ at t=[0-9.]+ s \(limit >= 100000 blocks\); events active: none; last lines of node-$N.log: .*DN-NODE-BLOCK"
expect_match "eventually all_nodes" "$(row ev-all)" \
    "^fail\|$N\|ev-all: did not hold from t=0.0 s to t=2.0 s; the last sample: node $N had height"
expect_match "eventually any_node" "$(row ev-any)" \
    "^fail\|$N\|ev-any: did not hold .*: no node held it: node $N had height"
expect_match "eventually max_spread" "$(row ev-spread)" \
    "^fail\|NULL\|ev-spread: did not hold .*the spread of height over the nodes was [01] at t="
expect_match "eventually load" "$(row ev-load)" \
    "^fail\|-1\|ev-load: did not hold .*the load generator had tx_included [0-9]+ at t=[0-9.]+ s \(limit >= 1000000 txs\)"
expect_match "always each_node" "$(row al-each)" \
    "^fail\|$N\|al-each: node $N had height [3-9] at t=[0-9.]+ s \(limit < 3 blocks\), 1 sample in a row; events active: none; last lines of node-$N.log: "
expect_match "always all_nodes" "$(row al-all)" \
    "^fail\|$N\|al-all: node $N had height [4-9] at t="
expect_match "always any_node" "$(row al-any)" \
    "^fail\|$N\|al-any: no node held it: node $N had height [5-9] at t="
expect_match "always max_spread" "$(row al-spread)" \
    "^fail\|NULL\|al-spread: the spread of height over the nodes was [01] at t=[0-9.]+ s \(limit > 5 blocks\)"
expect_match "always load" "$(row al-load)" \
    "^fail\|-1\|al-load: the load generator had tx_included [0-9]+ at t=[0-9.]+ s \(limit < 20 txs\), 1 sample in a row"
expect_match "always sustained: broken for longer than 1 s" "$(row al-sustained)" \
    "^fail\|$N\|al-sustained: node $N had height [3-9] at t=[0-9.]+ s \(limit < 3 blocks\), [3-6] samples in a row \(1\.[0-9] s, sustained limit 1.0 s\)"
expect_match "value each_node" "$(row va-each)" \
    "^fail\|$N\|va-each: node $N had rss_max [0-9]+ bytes from t=1.0 s to t=4.0 s \(limit < 1048576 bytes, [0-9]+ samples of 3 series\); last lines of node-$N.log"
expect_match "value all_nodes" "$(row va-all)" \
    "^fail\|$N\|va-all: node $N had allocs_per_s [0-9.]+ allocs/s from t=1.0 s"
expect_match "value any_node" "$(row va-any)" \
    "^fail\|$N\|va-any: node $N had height_max [0-9]+ blocks"
expect_match "value max_spread" "$(row va-spread)" \
    "^fail\|NULL\|va-spread: the spread over the nodes of rss_mean was [0-9.]+ bytes"
expect_match "value load" "$(row va-load)" \
    "^fail\|-1\|va-load: the load generator's achieved_tps was [0-9.]+ tx/s from t=1.0 s to t=4.0 s \(limit > 1000 tx/s"
for a in ok-ev ok-al ok-va ok-growth; do
	expect_match "$a passes" "$(row $a)" "^pass\|"
done
expect_match "the first violation's sample is stored" \
    "$(q "select observed, threshold, t_ms > 0, form, metric, op, unit
    from assertions where run_id = $run and name = 'al-each'")" \
    "^[3-9].0\|3.0\|1\|always\|height\|<\|blocks$"
expect_eq "1GiB/min is stored in bytes/min" \
    "$(q "select threshold from assertions where run_id = $run and name = 'ok-growth'")" \
    "1073741824.0"
expect_eq "one row per assertion" \
    "$(q "select count(*), sum(status = 'fail') from assertions where run_id = $run")" "20|16"
expect_match "stderr says where the run went" "$(cat "$T/forms.err")" "stored run $run in"
# JUnit: one testcase per assertion, failures readable alone
check "the JUnit file is XML" python3 -c \
    "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$T/forms.xml"
expect_match "JUnit counts" "$(cat "$T/forms.xml")" \
    "<testsuite name=\"assertions of run $run \(forms, variant A, trial 0\)\" tests=\"20\" failures=\"16\" errors=\"0\" skipped=\"0\">"
expect_match "JUnit failure case" "$(cat "$T/forms.xml")" \
    "<testcase classname=\"devnet.assert.forms\" name=\"al-load \(run $run, always\)\">"
expect_match "JUnit failure message" "$(cat "$T/forms.xml")" \
    "<failure message=\"al-load: the load generator had tx_included [0-9]+ at t=[0-9.]+ s \(limit &lt; 20 txs\)"
expect_match "JUnit passing case" "$(cat "$T/forms.xml")" \
    "<testcase classname=\"devnet.assert.forms\" name=\"ok-va \(run $run, value\)\"/>"
expect_match "devnet show lists them" "$("$DEVNET" show --db "$DB" "$run")" \
    "FAIL +al-each \(always\): al-each: node $N had height [3-9]"
expect_match "devnet runs counts them" "$("$DEVNET" runs --db "$DB")" \
    " 4/20 fail"

# --- exit 5: none failed, one inconclusive ------------------------------
{ scn_head inconclusive 2s; cat <<'YAML'
variants: {A: {}, B: {}}
events:
  - {at: 1s, action: stop, node: 1, variant: B, name: pause}
  - {at: 1500ms, action: cont, node: 1, variant: B}
assert:
  - {name: moves, eventually: {all_nodes: height >= 2, within: 2s}}
  - {name: after pause, always: {each_node: lag_blocks < 1000, after: pause}}
  - {name: blink, eventually: {all_nodes: height >= 0, during: [t=0, t=0+1ms]}}
YAML
} >"$T/inc.yaml"
"$DEVNET" run "$T/inc.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    >"$T/inc.out" 2>&1
rc=$?
cat "$T/inc.out"
# A: the event never fires, so 'after pause' cannot be judged
expect_eq "inconclusive only: exit 5" "$rc" 5
expect_match "A's window never opened, B's did" \
    "$(q "select r.variant || ':' || a.status || ':' || a.message from assertions a
    join runs r on r.id = a.run_id where a.name = 'after pause' order by r.variant" | tr '\n' '~')" \
    "^A:inconclusive:after pause: its window's event did not fire in this trial~B:pass:after pause: lag_blocks < 1000 blocks held at every one of [0-9]+ samples from t=1.0 s to t=2.0 s~$"
# an eventually whose window holds no sample (1 ms of 250 ms intervals)
# is inconclusive, never a pass: height >= 0 would hold on any sample
expect_eq "a window without a sample is inconclusive in both trials" \
    "$(q "select group_concat(status) from assertions where name = 'blink'")" \
    "inconclusive,inconclusive"
expect_match "and says there was no sample" \
    "$(q "select message from assertions where name = 'blink' limit 1")" \
    "^blink: no sample in (its|the) window"

# --- abort_on_fail ends the trial within one sample interval -----------
{ scn_head abort 30s; cat <<'YAML'
assert:
  - {name: stop early, always: {each_node: height < 5, abort_on_fail: true}}
  - {name: later, eventually: {all_nodes: height >= 1000, within: 20s}}
YAML
} >"$T/abort.yaml"
t0=$(date +%s%N)
"$DEVNET" run "$T/abort.yaml" --db "$DB" --run-dir "$RUNS" --quiet >"$T/abort.out" 2>&1
expect_eq "abort: exit 4" "$?" 4
took=$((($(date +%s%N) - t0) / 1000000))
[ "$took" -lt 10000 ] && ok "a 30 s trial ended after $took ms" ||
	fail "abort_on_fail: the 30 s trial took $took ms"
run=$(q "select max(id) from runs")
viol=$(q "select t_ms from assertions where run_id = $run and name = 'stop early'")
abort=$(q "select t_ms from events where run_id = $run and kind = 'assert_abort'")
[ -n "$viol" ] && [ -n "$abort" ] && [ $((abort - viol)) -le 250 ] &&
	ok "the end began $((abort - viol)) ms after the violating sample" ||
	fail "abort_on_fail: violation at '$viol' ms, the end at '$abort' ms"
expect_match "the run says why it ended" \
    "$(q "select status || ': ' || reason from runs where id = $run")" \
    "^ok: ended early: assertion 'stop early' failed \(abort_on_fail\)$"
expect_match "the cut-short window is inconclusive" \
    "$(q "select status || ': ' || message from assertions where run_id = $run and name = 'later'")" \
    "^inconclusive: later: the trial ended at t=[0-9.]+ s, before the window's end \(t=20.0 s\)$"

# --- a window starts when its event fired (the events row), not when it
# was planned: devnet is held (SIGSTOP) across the planned time, so the
# stop fires late; the window stored is the row's t_ms to the cont's row
# + 2 block intervals, and the message says so.
{ scn_head late 8s; cat <<'YAML'
events:
  - {at: 3s, action: stop, node: 2, name: pause}
  - {at: 5500ms, action: cont, node: 2}
assert:
  - {name: moves while paused, always: {any_node: lag_blocks < 1000, during: pause}}
  - {name: after pause, eventually: {all_nodes: height >= 1, within: 2s, after: pause}}
YAML
} >"$T/late.yaml"
"$DEVNET" run "$T/late.yaml" --db "$DB" --run-dir "$RUNS" --quiet >"$T/late.out" 2>&1 &
dpid=$!
late_run=""
for _ in $(seq 200); do
	late_run=$(q "select id from runs where scenario = 'late'")
	[ -n "$late_run" ] && [ "$(q "select coalesce(max(t_ms), 0) >= 1500
	    from samples where run_id = $late_run")" = 1 ] && break
	sleep 0.05
done
kill -STOP $dpid
sleep 2.5
kill -CONT $dpid
wait $dpid
rc=$?
cat "$T/late.out"
[ "$rc" -eq 0 ] || [ "$rc" -eq 4 ] && ok "held devnet ran on (exit $rc)" ||
	fail "held devnet: exit $rc"
run=$late_run
stop_ms=$(q "select t_ms from events where run_id = $run and kind = 'stop'")
cont_ms=$(q "select t_ms from events where run_id = $run and kind = 'cont'")
[ -n "$stop_ms" ] && [ "$stop_ms" -ge 3300 ] &&
	ok "the stop planned at 3 s fired at t=$stop_ms ms" ||
	fail "the stop fired at '$stop_ms' ms: devnet was not held across it"
expect_eq "during: from the stop's row to the cont's row + 2 block intervals" \
    "$(q "select window_from_ms || '..' || window_to_ms || ' ' || scope from
    assertions where run_id = $run and name = 'moves while paused'")" \
    "$stop_ms..$((cont_ms + 400)) any_node"
expect_eq "after: from the stop's row, 2 s" \
    "$(q "select window_from_ms || '..' || window_to_ms from assertions
    where run_id = $run and name = 'after pause'")" "$stop_ms..$((stop_ms + 2000))"
expect_match "the message's window is the row's" "$(row 'moves while paused')" \
    "^pass\|NULL\|moves while paused: lag_blocks < 1000 blocks held at every one of [0-9]+ samples from t=$(awk -v m="$stop_ms" 'BEGIN { printf "%.1f", m / 1000 }') s"

# --- windows around a stop/cont event ------------------------------------
{ scn_head windows 7s; cat <<'YAML'
events:
  - {at: 2s, action: stop, node: 2, name: pause}
  - {at: 4s, action: cont, node: 2, name: heal}
assert:
  - {name: lag outside faults, always: {each_node: lag_ms < 1000, except: events}}
  - {name: lag everywhere, always: {each_node: lag_ms < 1000}}
  - {name: stalls while paused, eventually: {any_node: lag_ms >= 1000, during: pause}}
  - {name: heals, eventually: {max_spread: height <= 1, within: 2s, after: heal}}
  - {name: moves after heal, eventually: {all_nodes: lag_ms < 300, within: 2s, after: heal+500ms}}
YAML
} >"$T/windows.yaml"
"$DEVNET" run "$T/windows.yaml" --db "$DB" --run-dir "$RUNS" --quiet >"$T/win.out" 2>&1
expect_eq "windows: exit 4 (one fails on purpose)" "$?" 4
run=$(q "select max(id) from runs")
expect_match "except: events leaves the pause out" "$(row 'lag outside faults')" \
    "^pass\|NULL\|lag outside faults: lag_ms < 1000 ms held at every one of"
expect_match "without it, the pause breaks it, and the message says so" \
    "$(row 'lag everywhere')" \
    "^fail\|$N\|lag everywhere: node $N had lag_ms [0-9]+ at t=[2-4]\.[0-9] s \(limit < 1000 ms\), 1 sample in a row; events active: stop node 2 \('pause'\) since t=2.0 s; last lines of node-$N.log"
expect_match "during: the event's span" "$(row 'stalls while paused')" \
    "^pass\|[01]\|stalls while paused: lag_ms >= 1000 ms held at t=[2-4]\.[0-9] s"
expect_match "after: heal" "$(row heals)" "^pass\|NULL\|heals: height <= 1 blocks held at t=4\.[0-9] s"
expect_match "after: heal+500ms" "$(row 'moves after heal')" "^pass\|"
finish
