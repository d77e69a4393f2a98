#!/bin/bash
# unmeasured.sh: a metric a scenario declares that no node ever measured
# is said, with why, not left out without a word (issue 37):
#   - two foreign nodes (dn-json-srv) whose JSON page answers 404 (the
#     scenario's URL is a page the server does not have, as etcd without
#     --enable-v2), a log pattern no line matches, one that matches but
#     captures no number, a Prometheus name the page does not have;
#   - each trial stays ok, its summary names them with the reason, the
#     run has the fact `unmeasured` and an event per metric; an assertion
#     on one is inconclusive and says why;
#   - compare's text and JSON, ab's table and report's page name each one
#     (the reason: the page answered 404, N scrapes; see node-0.out);
#   - the report's verdict tables fit a 1280-pixel window (chromium).
. "$(dirname "$0")/lib.sh"

mkdir -p "$RUNS"
BASE=$(port_block 40) || exit 1
SRV="$DN_BUILD_DIR/bin/dn-json-srv"

# long names: the report's tables must fit with them too
cat >"$T/s.yaml" <<EOS
name: unmeasured
duration: 4s
warmup: 1s
sample_interval: 250ms
network: {nodes: 2}
workload: {kind: none}
node:
  command: [$SRV, '{port}', '200']
  port_base: $BASE
  ready: {http: 'http://127.0.0.1:{port}/stats'}
  metrics:
    log:
      ticks_seen_by_the_server_total_count: {regex: 'tick ([0-9]+)', type: counter}
      etcd_mvcc_db_total_size_in_use_in_bytes: 'tick ([0-9]+)'
      never: 'zzz ([0-9]+)'
      word: '(tick) '
    json:
      url: 'http://127.0.0.1:{port}/v2/stats/store'
      fields:
        sets: {path: setsSuccess, type: counter, better: higher}
        watchers: watchers
    prometheus:
      url: 'http://127.0.0.1:{port}/stats'
      keep: [etcd_server_has_leader]
assert:
  - name: sets grow
    value: {each_node: sets > 1}
  - name: ticks come
    eventually: {all_nodes: ticks_seen_by_the_server_total_count > 1, within: 3s}
variants:
  A: {}
  B: {}
EOS
"$DEVNET" ab "$T/s.yaml" --db "$DB" --run-dir "$RUNS" --repeats 1 \
    >"$T/ab.out" 2>"$T/ab.err"
rc=$?
# 5: an assertion was inconclusive, none failed (docs/cli.md)
expect_eq "ab runs, one assertion inconclusive (exit 5)" "$rc" 5
expect_eq "both trials ok" "$(q "select group_concat(status) from runs")" \
    "ok,ok"
ab=$(cat "$T/ab.out")
JSON404="the JSON page http://127.0.0.1:[0-9]+/v2/stats/store answered status 404 \([0-9]+ scrapes, all failed\)"
expect_match "the trial's summary names the 404" "$ab" \
    "warning: metric 'sets' was declared but never measured: $JSON404 \(node 0's numbers; alike on every node\); see node-0.out \(devnet logs --node 0 1\)"

# the facts and events of each run
for r in 1 2; do
	expect_eq "run $r: fact unmeasured (in declaration order)" \
	    "$(q "select value from run_facts where run_id = $r and node = -1
	    and key = 'unmeasured'")" "never,word,sets,watchers,etcd_server_has_leader"
	expect_eq "run $r: an event per metric" "$(q "select count(*) from
	    events where run_id = $r and kind = 'unmeasured'")" 5
done
expect_match "the event of a pattern no line matched" \
    "$(q "select detail from events where run_id = 1 and kind =
    'unmeasured' and detail like 'never:%'")" \
    "^never: no line of the output matched 'zzz \(\[0-9\]\+\)' \([0-9]+ lines read\)"
expect_match "the event of a pattern that captures no number" \
    "$(q "select detail from events where run_id = 1 and kind =
    'unmeasured' and detail like 'word:%'")" \
    "^word: [0-9]+ lines matched '\(tick\) ', but none captured a number \(the last capture: 'tick'\)"
expect_match "the event of a Prometheus name the page lacks" \
    "$(q "select detail from events where run_id = 1 and kind =
    'unmeasured' and detail like 'etcd_server_has_leader:%'")" \
    "the Prometheus page http://127.0.0.1:[0-9]+/stats has no sample named 'etcd_server_has_leader' \([0-9]+ scrapes, none failed\)"
expect_eq "a measured metric is not among them" "$(q "select count(*) from
    events where kind = 'unmeasured' and detail like 'ticks_seen%'")" 0
expect_eq "nothing of them stored as 0" "$(q "select count(*) from samples s
    join metrics m on m.id = s.metric_id where m.name in ('sets',
    'watchers', 'never', 'word', 'etcd_server_has_leader')")" 0
expect_match "the probe says it in node-0.out" \
    "$(grep '^DN-PROBE-UNMEASURED sets: ' "$RUNS"/1-A/node-0.out)" \
    "$JSON404"
expect_match "the command the reason names shows that line" \
    "$("$DEVNET" logs --db "$DB" --node 0 1 2>&1)" \
    "^DN-PROBE-UNMEASURED sets: $JSON404"

# the assertion on it: inconclusive, and why; the other one passes
expect_eq "assertions" "$(q "select group_concat(status, ',') from
    (select status from assertions order by run_id, name)")" \
    "inconclusive,pass,inconclusive,pass"
expect_match "the inconclusive one says why" \
    "$(q "select message from assertions where run_id = 1 and
    name = 'sets grow'")" \
    "not measured \(no samples of sets .*\); metric 'sets' was declared but never measured: $JSON404"

# ab's own table, compare's text and JSON, the report
WARN="warning: metric sets was declared but never measured in runs 1, 2, alike in each; run 1: $JSON404 .*; see node-0.out \(devnet logs --node 0 1\)"
expect_match "ab's table warns" "$ab" "$WARN"
"$DEVNET" compare 1 2 --db "$DB" >"$T/cmp.out" 2>&1
expect_eq "compare exits 0" "$?" 0
cmp=$(cat "$T/cmp.out")
expect_match "compare warns: the JSON field" "$cmp" "$WARN"
# a long name widens the first column of both tables: every row's
# verdict stands under the header's (it was pushed out of line)
got=$(awk '/^metric / { v = index($0, " verdict") }
    v && / undecided / && index($0, " undecided") != v { bad++ }
    END { print ((v > 0 && bad == 0) ? "aligned" : "off by " bad " rows") }' \
    "$T/cmp.out")
expect_eq "compare's table stays in line with 39-character names" "$got" \
    aligned
expect_match "compare warns: the log pattern" "$cmp" \
    "warning: metric never was declared but never measured in runs 1, 2, alike in each; run 1: no line of the output matched"
expect_match "compare warns: the Prometheus name" "$cmp" \
    "warning: metric etcd_server_has_leader was declared but never measured in runs 1, 2"
"$DEVNET" compare 1 2 --db "$DB" --format json >"$T/cmp.json" 2>&1
expect_eq "compare --format json exits 0" "$?" 0
got=$(python3 - "$T/cmp.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
out = []
for side, run in (('a', 1), ('b', 2)):
    u = d['sides'][side]['unmeasured']
    names = [x['metric'] for x in u if x['run'] == run]
    s = [x for x in u if x['metric'] == 'sets'][0]
    ok = re.search(r'answered status 404 \(\d+ scrapes, all failed\)',
        s['reason']) is not None
    out.append('%s:%s:%s' % (side, ','.join(names), ok))
w = [x for x in d['warnings'] if x.startswith('metric sets was declared')]
out.append(str(len(w)))
print(' '.join(out))
PY
)
expect_eq "compare's JSON: sides.X.unmeasured, and the warning" "$got" \
    "a:never,word,sets,watchers,etcd_server_has_leader:True b:never,word,sets,watchers,etcd_server_has_leader:True 1"
"$DEVNET" compare 1 2 --db "$DB" --metric sets >"$T/only.out" 2>&1
expect_eq "compare --metric sets: nothing to compare (exit 1)" "$?" 1
expect_match "... and says why" "$(cat "$T/only.out")" \
    "no samples to compare after warmup in 1 vs 2 .*: metric sets was declared but never measured in runs 1, 2"

"$DEVNET" report 1 2 --db "$DB" -o "$T/r.html" >/dev/null 2>&1
expect_eq "report exits 0" "$?" 0
expect_match "the report's warnings name it" "$(cat "$T/r.html")" \
    "metric sets was declared but never measured in runs 1, 2, alike in each; run 1: the JSON page"

# The verdict tables fit the page of a 1280-pixel window: a real browser
# lays the page out and measures it (with the long metric names above,
# the secondary table reached past the page's content before: 1209 px
# against 1203).
if command -v chromium >/dev/null; then
	sed 's|</body>|<script>document.body.insertAdjacentHTML("beforeend", "<pre id=fit>FIT " + (function () { var m = document.querySelector("main"), r = m.getBoundingClientRect().right - parseFloat(getComputedStyle(m).paddingRight), w = 0; document.querySelectorAll("table").forEach(function (t) { w = Math.max(w, t.getBoundingClientRect().right); }); return Math.round(w) + " " + Math.round(r) + " " + document.documentElement.scrollWidth + " " + document.documentElement.clientWidth; })() + "</pre>");</script></body>|' \
	    "$T/r.html" >"$T/m.html"
	fit=$(timeout 120 chromium --headless --no-sandbox --disable-gpu \
	    --window-size=1280,2000 --dump-dom "file://$T/m.html" \
	    2>/dev/null | grep -o 'FIT [0-9][0-9 ]*' | tail -1)
	read -r _ tr mr sw cw <<<"$fit"
	if [ -n "$tr" ] && [ "$tr" -le "$mr" ] && [ "$sw" -le "$cw" ]; then
		ok "the tables fit a 1280 px window (right edge $tr <= $mr; page $sw of $cw px)"
	else
		fail "the tables do not fit a 1280 px window: '$fit' (table right, page content right, scroll width, width)"
	fi
else
	skip "no chromium: the report's width is not measured"
fi

finish
