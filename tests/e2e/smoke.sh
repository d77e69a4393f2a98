# smoke.sh: `devnet run scenarios/smoke.yaml` end to end: exit 0, no node of
# the first trial still runs during the second, every node has samples of
# every node metric, as many as its schedule sent, heights advance, the
# load generator held its rate within 2%, every transaction is accounted
# for exactly once, all nodes agree on the state, nothing is left running.
. "$(dirname "$0")/lib.sh"

"$DEVNET" run "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" >"$T/out" 2>&1 &
pid=$!
# While the second trial runs, nothing of the first may: devnet's own exit
# would kill a leftover (PR_SET_PDEATHSIG) and hide it from the check at
# the end.
running2() {
	[ "$(q "select exists(select 1 from samples where run_id = 2) and
	    (select status from runs where id = 2) = 'running'" 2>/dev/null)" = 1 ]
}
if wait_for 120 running2; then
	# trial 1's own dir, where its nodes keep theirs (--dir DIR/node-K)
	dir1=$(q "select cmdline from nodes where run_id = 1 and node = 0" |
	    sed -n 's/.* --net \([^ ]*\) .*/\1/p')
	left=$(pgrep -f -- "--dir $dir1/" | tr '\n' ' ')
	[ -n "$dir1" ] && [ -z "$left" ] && ! alive $(node_pids 1) &&
		ok "trial 2 running, no process of trial 1 left" ||
		fail "trial 2 running, processes of trial 1 ($dir1) alive: $left"
else
	fail "never saw trial 2 running"
fi
wait "$pid"
rc=$?
out=$(cat "$T/out")
printf '%s\n' "$out"
expect_eq "devnet run exits 0" "$rc" 0
expect_match "prints the stored run ids" "$out" "stored runs [0-9]+ [0-9]+ in"

runs=$(q "select count(*) from runs where status = 'ok'")
expect_eq "two runs stored, both ok" "$runs" 2
nmetrics=$(q "select count(*) from metrics where source = 'node'")
[ "$nmetrics" -ge 27 ] && ok "node metrics in the dictionary ($nmetrics)" ||
	fail "node metrics in the dictionary: $nmetrics"
# A sanitizer build has no allocation counter: its four heap figures are
# not measured, so they go out absent and nothing is stored, never a 0.
heap="'allocs', 'frees', 'alloc_bytes', 'heap_live_bytes'"
# Nor has a local run a container: cgroup_mem_bytes is absent too.
expect_eq "no cgroup_mem_bytes stored without a container" "$(q "select
    count(*) from samples s join metrics m on m.id = s.metric_id
    where m.name = 'cgroup_mem_bytes'")" 0
want=$((nmetrics - 1))
if sanitized; then
	want=$((nmetrics - 5))
	expect_eq "no heap figure stored without the counter" "$(q "select
	    count(*) from samples s join metrics m on m.id = s.metric_id
	    where m.name in ($heap)")" 0
else
	expect_eq "heap figures stored by every node" "$(q "select
	    count(distinct s.node || ':' || m.name) from samples s join
	    metrics m on m.id = s.metric_id where m.name in ($heap)
	    and s.node >= 0")" 12
fi
for run in $(q "select id from runs order by id"); do
	for node in 0 1 2; do
		got=$(q "select count(distinct metric_id) from samples
		    where run_id = $run and node = $node")
		expect_eq "run $run node $node has every node metric" "$got" "$want"
		adv=$(q "select max(value) - min(value) from samples s
		    join metrics m on m.id = s.metric_id
		    where run_id = $run and node = $node and m.name = 'height'")
		# Every sample the collector accepted from this node is
		# stored, under this node (tests/orch counts exactly against
		# the sender).
		expect_samples_stored \
		    "run $run node $node: every sample received is stored" \
		    "$DB" "$run" "$node"
		[ "$got" -ge 10 ] 2>/dev/null ||
			fail "run $run node $node: only '$got' samples received"
		[ "${adv%.*}" -ge 10 ] 2>/dev/null &&
			ok "run $run node $node height advanced by $adv" ||
			fail "run $run node $node height advanced by '$adv'"
	done
	tps=$(q "select tps from runs where id = $run")
	ach=$(q "select value from run_facts where run_id = $run and key = 'achieved_tps'")
	awk -v a="$ach" -v t="$tps" 'BEGIN { exit !(a >= 0.98 * t && a <= 1.02 * t) }' &&
		ok "run $run achieved $ach tx/s of $tps" ||
		fail "run $run achieved '$ach' tx/s of $tps"
	sub=$(q "select value from run_facts where run_id = $run and key = 'tx_submitted'")
	inc=$(q "select value from run_facts where run_id = $run and key = 'tx_included'")
	fl=$(q "select value from run_facts where run_id = $run and key = 'tx_failed'")
	pend=$(q "select value from run_facts where run_id = $run and key = 'tx_pending'")
	dup=$(q "select value from run_facts where run_id = $run and key = 'tx_duplicates'")
	[ "$sub" -gt 0 ] 2>/dev/null && ok "run $run submitted $sub" || fail "run $run submitted '$sub'"
	expect_eq "run $run: included + failed + pending = submitted" \
	    "$((inc + fl + pend))" "$sub"
	expect_eq "run $run: nothing pending at the end" "$pend" 0
	expect_eq "run $run: nothing included twice" "$dup" 0
	hashes=$(q "select count(distinct value) from run_facts
	    where run_id = $run and key = 'state_hash'")
	nh=$(q "select count(*) from run_facts where run_id = $run and key = 'state_hash'")
	expect_eq "run $run: every node reported a state hash" "$nh" 3
	expect_eq "run $run: one state hash across nodes" "$hashes" 1
	ocpu=$(q "select value from run_facts where run_id = $run and key = 'orchestrator_cpu_s'")
	awk -v c="$ocpu" 'BEGIN { exit !(c > 0 && c < 60) }' &&
		ok "run $run: orchestrator CPU ${ocpu}s" ||
		fail "run $run: orchestrator_cpu_s '$ocpu'"
	# where the end of the trial went: every phase timed, the state
	# check in one status round or more (issue 40)
	expect_match "run $run: end_phases_ms" \
	    "$(q "select value from run_facts where run_id = $run and key = 'end_phases_ms'")" \
	    "^drain [0-9]+, load close [0-9]+, state check [0-9]+ \([1-9][0-9]* status rounds\), stop [0-9]+, collector [0-9]+$"
	lost=$(q "select value from run_facts where run_id = $run and key = 'lost_samples'")
	expect_eq "run $run: no lost samples" "$lost" 0
	lat=$(q "select count(*) from samples s join metrics m on m.id = s.metric_id
	    where run_id = $run and node = -1 and m.name = 'tx_latency_p99_ms'")
	[ "$lat" -gt 5 ] && ok "run $run: latency samples ($lat)" || fail "run $run: latency samples '$lat'"
	# Whole-run send lag: 0 < p50 <= p99 <= p99.9 <= max, and the max is
	# no smaller than any interval's p99.
	lags=$(q "select group_concat(value, ' ') from (select value from
	    run_facts where run_id = $run and node = -1 and key in
	    ('send_lag_p50_us', 'send_lag_p99_us', 'send_lag_p999_us',
	    'send_lag_max_us') order by case key when 'send_lag_p50_us' then 1
	    when 'send_lag_p99_us' then 2 when 'send_lag_p999_us' then 3
	    else 4 end)")
	imax=$(q "select max(value) from samples s join metrics m on
	    m.id = s.metric_id where run_id = $run and node = -1 and
	    m.name = 'send_lag_p99_us'")
	echo "$lags $imax" | awk '{ exit !(NF == 5 && $1 > 0 && $1 <= $2 &&
	    $2 <= $3 && $3 <= $4 && $5 <= $4 + 0.1) }' &&
		ok "run $run: send lag p50 p99 p99.9 max (us): $lags" ||
		fail "run $run: send lag facts '$lags', interval max '$imax'"
done
# Each trial's window in wall time (issue 26: the overhead between two
# trials is measured from these): as long as the scenario's 10 s, inside
# the run's own start and end, and the second trial's after the first's.
win=$(q "select group_concat(r.id || ':' || (ws - r.start_ms >= 0) ||
    (r.end_ms - we >= 0) || (we - ws >= 10000 and we - ws < 11000), ' ')
    from runs r join (select run_id, max(case key when 'window_start_ms'
    then cast(value as integer) end) ws, max(case key when 'window_end_ms'
    then cast(value as integer) end) we from run_facts where node = -1
    group by run_id) f on f.run_id = r.id")
expect_eq "each run's window_start_ms and window_end_ms: 10 s, inside the run" \
    "$win" "1:111 2:111"
gap=$(q "select (select cast(value as integer) from run_facts where
    run_id = 2 and key = 'window_start_ms') - (select cast(value as integer)
    from run_facts where run_id = 1 and key = 'window_end_ms')")
[ "$gap" -gt 0 ] 2>/dev/null && ok "overhead between the trials' windows: $gap ms" ||
	fail "second window starts '$gap' ms after the first ends"
# Each node's allocation source (issue 25): a fact per node, one summary
# line, and compare and report show it per side.
if sanitized; then
	src="not measured: devnet-node built without its allocation counter (sanitizer build)"
else
	src="malloc (glibc)"
fi
expect_eq "every node's alloc_source fact: $src" \
    "$(q "select count(*) || ' ' || count(distinct value) || ' ' || min(value) from run_facts where key = 'alloc_source'")" "6 1 $src"
expect_match "the summary says where allocations come from" "$out" \
    "allocations, every node: ${src//(/\\(}"
cmp=$("$DEVNET" compare --db "$DB" 1 2)
expect_match "compare shows each side's allocation source" "$cmp" \
    "allocations counted by: A: ${src//(/\\(}; B: "
"$DEVNET" compare --db "$DB" --format json 1 2 | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["sides"]["a"]["alloc_source"] == sys.argv[1], d["sides"]["a"]
assert d["sides"]["b"]["alloc_source"] == sys.argv[1], d["sides"]["b"]' "$src" &&
	ok "compare --format json: sides.a/b.alloc_source" ||
	fail "compare --format json: no alloc_source per side"
"$DEVNET" report --db "$DB" 1 2 -o "$T/r.html" >/dev/null &&
    grep -qF "Allocations counted by: <b>A</b> $src" "$T/r.html" &&
	ok "report shows each side's allocation source" ||
	fail "report: no allocation source"
[ -z "$(leftovers)" ] && ok "no node process left" || fail "node processes left"
finish
