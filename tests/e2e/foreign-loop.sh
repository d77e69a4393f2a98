#!/bin/bash
# foreign-loop.sh: a foreign node that needs nothing installed, a shell
# loop printing a counter (`ticks`, a named metric, better: higher) and a
# height (the clock's second, as a chain synced to the others would have),
# read by log extractors (docs/foreign-nodes.md):
#
# 1. `stop` then `cont` on node 0: its command's process group really
#    stops (its counter and CPU time do not move in the stored samples)
#    while its probe samples on; stop, stalled (paused), cont, recovered
#    and rejoined are recorded; compare does not flag the asked-for stall.
# 2. The progress line and the end-of-trial table show what the probe
#    measures: RSS, CPU, the named metric; "n/a" for a node without a
#    height, never devnet-node's height and lag as zeros.
# 3. `devnet report` charts the named metric like a table metric: a median
#    line and a p10-p90 band per side, its direction in the title.
# 4. A named metric's direction is fixed per database: a scenario that
#    declares the other one is refused before any trial, naming both; two
#    variants that disagree are refused at load time, naming both.
# 5. A mixed `order: concurrent` slot: the variant that runs to completion
#    (node.exit: expected) ends its run when it is done, the other runs
#    for the duration.
#
# Not here: db_bench, etcd and bad foreign nodes (foreign.sh, etcd.sh).
. "$(dirname "$0")/lib.sh"

mkdir -p "$RUNS"
MARK=loop-3175
loop="i=0; while :; do i=\$((i+1)); echo \"tick \$i height \$(date +%s) $MARK\"; sleep 0.1; done"
cat >"$T/loop.yaml" <<EOS
name: loop
duration: 10s
warmup: 1s
sample_interval: 250ms
network: {nodes: 2}
workload: {kind: none}
node:
  command: [sh, -c, '$loop']
  stop: {signal: TERM, grace: 1s}
  metrics:
    log:
      height: 'height ([0-9]+)'
      ticks: {regex: 'tick ([0-9]+)', better: higher}
variants:
  A:
  B:
events:
  - {at: 3s, node: 0, action: stop}
  - {at: 6s, node: 0, action: cont}
EOS
"$DEVNET" run "$T/loop.yaml" --db "$DB" --run-dir "$RUNS" >"$T/run.out" \
    2>"$T/run.err"
expect_eq "the loop runs (A, B)" "$?" 0
expect_eq "2 runs, both ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 2

# --- 1. stop and cont --------------------------------------------------
# S METRIC RUN NODE FROM TO: "count min max" of METRIC's samples
s() {
	q "select count(*) || ' ' || min(value) || ' ' || max(value)
	    from samples s join metrics m on m.id = s.metric_id
	    where run_id = $2 and node = $3 and m.name = '$1'
	    and t_ms between $4 and $5"
}
for run in 1 2; do
	ev() { q "select count(*) from events where run_id = $run and
	    node = 0 and kind = '$1' and detail like '%$2%'"; }
	expect_eq "run $run: stop sent to the command's group" \
	    "$(ev stop 'SIGSTOP to process group')" 1
	expect_eq "run $run: paused node stalled (height, planned)" \
	    "$(ev stalled 'paused by an event')" 1
	expect_eq "run $run: cont" "$(ev cont 'SIGCONT to process group')" 1
	expect_eq "run $run: recovered (height advancing)" \
	    "$(ev recovered 'height advancing')" 1
	expect_eq "run $run: rejoined" "$(ev rejoined '')" 1
	# Stopped at 3 s, continued at 6 s: inside 3.6-5.9 s node 0's
	# counter and CPU time stand still while its probe samples on.
	read -r n lo hi <<<"$(s ticks $run 0 3600 5900)"
	[ "$n" -ge 6 ] && ok "run $run: probe sampled the paused node ($n)" ||
		fail "run $run: $n samples of node 0 while paused"
	expect_eq "run $run: its counter stood still ($lo..$hi)" "$lo" "$hi"
	read -r n lo hi <<<"$(s cpu_user_s $run 0 3600 5900)"
	expect_eq "run $run: its CPU time stood still ($lo..$hi)" "$lo" "$hi"
	read -r n lo hi <<<"$(s ticks $run 1 3600 5900)"
	awk -v a="$lo" -v b="$hi" 'BEGIN { exit !(b - a >= 10) }' &&
		ok "run $run: node 1 counted on ($lo..$hi)" ||
		fail "run $run: node 1 counted $lo..$hi while node 0 was paused"
	read -r n lo hi <<<"$(s ticks $run 0 6500 9500)"
	awk -v a="$lo" -v b="$hi" 'BEGIN { exit !(b - a >= 10) }' &&
		ok "run $run: node 0 counts again after cont ($lo..$hi)" ||
		fail "run $run: node 0 counted $lo..$hi after cont"
	read -r n lo hi <<<"$(s lag_blocks $run 0 3600 5900)"
	awk -v b="$hi" 'BEGIN { exit !(b >= 1) }' &&
		ok "run $run: its lag shows the stall (up to $hi)" ||
		fail "run $run: lag of the paused node $lo..$hi"
done
"$DEVNET" compare 1 2 --db "$DB" >"$T/cmp.out" 2>&1
check "compare: the asked-for stall is no unplanned fault" \
    eval "! grep -q unplanned '$T/cmp.out'"
check "compare: ticks compared" grep -q "^ticks " "$T/cmp.out"
check "nothing of the loop left running" eval "! pgrep -f $MARK >/dev/null"

# --- 2. progress line and end-of-trial table ----------------------------
check "progress shows rss and the named metric" \
    grep -Eq "height [0-9]+\.\.[0-9]+  lag [0-9]+  rss [0-9.]+ M  ticks [0-9]" \
    "$T/run.err"
check "table: a cpu column for foreign nodes" \
    grep -Eq "^  node .* lost +cpu$" "$T/run.out"
check "table: last value of ticks per node" \
    grep -Eq "^  ticks +[0-9]+ +[0-9]+$" "$T/run.out"
# A node with no height at all: n/a, never "height 0".
cat >"$T/noh.yaml" <<EOS
name: noh
duration: 3s
sample_interval: 250ms
network: {nodes: 1}
workload: {kind: none}
node:
  command: [sh, -c, 'i=0; while :; do i=\$((i+1)); echo "tick \$i"; sleep 0.1; done']
  metrics: {log: {ticks: 'tick ([0-9]+)'}}
EOS
"$DEVNET" run "$T/noh.yaml" --db "$T/noh.db" --run-dir "$RUNS" \
    >"$T/noh.out" 2>"$T/noh.err"
expect_eq "a node without height runs" "$?" 0
cat "$T/noh.err" "$T/noh.out"
check "progress: height and lag n/a" grep -q "height n/a  lag n/a" "$T/noh.err"
check "progress: never height 0 or lag 0" \
    eval "! grep -Eq 'height 0|lag 0' '$T/noh.err'"
check "table: max lag and height n/a, cpu measured" \
    grep -Eq "^  0 +[0-9.]+ M +[0-9.]+ M +n/a +n/a +n/a +0 +[0-9.]+$" \
    "$T/noh.out"

# --- 3. the report charts the named metric ------------------------------
"$DEVNET" report 1 2 --db "$DB" -o "$T/r.html" >/dev/null 2>&1
expect_eq "devnet report exits 0" "$?" 0
python3 - "$T/r.html" <<'PY'
import re, sys

html = open(sys.argv[1]).read()
bad = []
charts = dict(re.findall(r'<div class="chart" id="m-([^"]+)">(.*?)</div>',
    html, re.S))
if 'ticks' not in charts:
    bad.append('no chart for ticks (charts: %s)' % sorted(charts))
else:
    body = charts['ticks']
    if '<h3>ticks <span class="dir">(higher is better)</span></h3>' \
            not in body:
        bad.append('ticks: no direction in the title')
    for side in 'ab':
        med = re.findall(r'<path class="median %s" d="([^"]*)"' % side,
            body)
        band = re.findall(r'<path class="band %s" d="([^"]*)"' % side,
            body)
        pts = re.findall(r'[ML]\s*-?[\d.]+ -?[\d.]+', med[0]) if med \
            else []
        if len(med) != 1 or med[0].count('M') != 1 or len(pts) < 20:
            bad.append('ticks %s: median %d paths, %d points' % (side,
                len(med), len(pts)))
        if len(band) != 1 or not band[0].rstrip().endswith('Z') or \
                len(re.findall(r'[ML]', band[0])) != 2 * len(pts):
            bad.append('ticks %s: band is not one polygon along the '
                'line' % side)
if '<a href="#m-ticks">ticks</a>' not in html:
    bad.append('verdict table: ticks does not link to its chart')
if 'rss_bytes <span class="dir">(lower is better)</span>' not in html:
    bad.append('rss_bytes: no direction in the title')
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
expect_eq "the ticks chart: a median line and band per side, direction" \
    "$?" 0

# --- 4. a named metric's direction is fixed per database ---------------
runs=$(q "select count(*) from runs")
sed 's/better: higher/better: lower/' "$T/loop.yaml" >"$T/lower.yaml"
"$DEVNET" run "$T/lower.yaml" --db "$DB" --run-dir "$RUNS" >/dev/null \
    2>"$T/lower.err"
check "the other direction is refused" test $? -ne 0
check "...naming both" grep -q "metric 'ticks': this scenario declares better: lower, but database '.*' already has it as better: higher" "$T/lower.err"
expect_eq "...before any trial" "$(q "select count(*) from runs")" "$runs"
expect_eq "...and the stored direction stands" \
    "$(q "select better from metrics where name = 'ticks'")" higher
sed 's/^  B:$/  B: {node: {metrics: {log: {ticks: {regex: "tick ([0-9]+)", better: lower}}}}}/' \
    "$T/loop.yaml" >"$T/split.yaml"
"$DEVNET" run "$T/split.yaml" --db "$T/split.db" --run-dir "$RUNS" \
    >/dev/null 2>"$T/split.err"
check "two variants that disagree are refused" test $? -ne 0
check "...at the position, naming both" grep -q "split.yaml:[0-9]*:[0-9]*: node.metrics.log.ticks.better: lower in variant B, higher in variant A" "$T/split.err"

# --- 5. a mixed concurrent slot -----------------------------------------
cat >"$T/mixed.yaml" <<EOS
name: mixed
duration: 6s
sample_interval: 250ms
order: concurrent
network: {nodes: 1}
workload: {kind: none}
node:
  command: [sh, -c, 'i=0; while :; do i=\$((i+1)); echo "tick \$i $MARK"; sleep 0.1; done']
  metrics: {log: {ticks: 'tick ([0-9]+)'}}
variants:
  once: {node: {command: [sh, -c, 'sleep 1; echo "tick 7"'], exit: expected}}
  long:
EOS
"$DEVNET" run "$T/mixed.yaml" --db "$T/mixed.db" --run-dir "$RUNS" \
    >"$T/mixed.out" 2>"$T/mixed.err"
expect_eq "a mixed slot runs" "$?" 0
cat "$T/mixed.err" "$T/mixed.out"
mq() { sqlite3 -batch -noheader "$T/mixed.db" "$1"; }
expect_eq "both runs ok" "$(mq "select group_concat(variant || ':' || status)
    from runs")" "once:ok,long:ok"
took=$(mq "select end_ms - start_ms from runs where variant = 'once'")
[ "$took" -lt 4000 ] && ok "the run-to-completion trial ended when done ($took ms)" ||
	fail "the run-to-completion trial took $took ms of a 6 s slot"
took=$(mq "select end_ms - start_ms from runs where variant = 'long'")
[ "$took" -ge 6000 ] && ok "the other ran the duration ($took ms)" ||
	fail "the long-running trial took $took ms of a 6 s slot"
expect_eq "...and sampled to its end" "$(mq "select count(*) > 0 from samples
    s join runs r on r.id = s.run_id where r.variant = 'long' and
    t_ms >= 5500")" 1
check "its summary came first" awk '/^run 1: once/ { a = NR }
    /^run 2: long/ { b = NR } END { exit !(a && b && a < b) }' "$T/mixed.out"
check "progress: the finished trial is done" grep -q "once .* done" "$T/mixed.err"
check "nothing of the loop left running" eval "! pgrep -f $MARK >/dev/null"
finish
