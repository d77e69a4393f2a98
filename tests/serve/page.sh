# page.sh: the live page in headless Chromium during a real run, its JSON
# against the store after it, and `devnet serve --db` on the same runs.
#
# smoke.yaml (A then B, 12 s each) under --serve.  Chromium loads the
# page twice while trial 1 runs (it runs the page's script: a DOM dump
# and a screenshot each time); every chart of the first is drawn (a
# median line of several points), and the two differ (the clock, the
# charts).  What a reader sees in the screenshot (1200 px wide, looked at
# when this test was written): "devnet, live", "smoke, group 1: 0 of 2
# trial(s) ended", a large clock "0:00:09 / 0:00:12", "trial 1, variant
# A, run 1 (running)"; the nodes table (3 nodes on this host, state up in
# green, samples, height ~45, lag, RSS ~15.5M, heap, threads, fds,
# mempool, peers); "load generator: 50 tx/s sent, ... submitted, ...
# included"; the plan (trial 1 A running, trial 2 B planned); the events
# ("start 3 node(s) ready"); "waiting for a trial of each variant to
# end"; then the charts as in devnet report: RSS a blue median over its
# p10-p90 band with a thin line per node, rising from 14.65 to 14.8 MiB
# over the first 8 s, the warmup shaded grey, the time axis in seconds to
# 12 s, the rest of the run empty.
#
# Once trial 1 has ended, /api/series of run 1 must be the store's rows
# exactly (every t_ms and value: 24 samples per node fit the snapshot
# whole), and /api/live's samples per node the samples_received fact.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

command -v chromium >/dev/null || { skip "no chromium"; exit 77; }
P=$(free_port)
URL="http://127.0.0.1:$P"
check "the server answers" devnet_serve "$P" "$SCN/smoke.yaml" \
    --set duration=12s --set warmup=2s

check "trial 1 reaches 3 s" wait_for 30 at_least 1 3000
check "first screenshot" shot 1
check "trial 1 reaches 8 s (or later)" wait_for 30 at_least 1 8000
check "second screenshot" shot 2

python3 - "$T/dom1.html" "$T/dom2.html" "$T/s1.png" "$T/s2.png" \
    >"$T/dom.out" <<'PY'
import re, sys
doms = [open(f).read() for f in sys.argv[1:3]]
pngs = [open(f, 'rb').read() for f in sys.argv[3:5]]
def charts(d):
    c = re.findall(r'<div class="chart" data-m="([^"]+)">(.*?)</div></div>',
        d, re.S)
    return {m: re.findall(r'class="median a" d="([^"]*)"', body)
        for m, body in c}
c1, c2 = charts(doms[0]), charts(doms[1])
bad = [m for m, p in c1.items() if not p or p[0].count('L') < 2]
print("charts", len(c1), "empty", bad)
print("notes", [m for m, n in re.findall(r'<div class="chart" '
    r'data-m="([^"]+)">(.*?)</div></div>', doms[0], re.S)
    if 'class="chart-note"' in n and 'not measured: no sample carried ' + m in n])
print("changed", sorted(m for m in c1 if c1[m] != c2.get(m)) != [])
clock = [re.search(r'id="clock">([^<]*)<', d).group(1) for d in doms]
print("clocks differ", clock[0] != clock[1], clock[0] != '')
print("pngs", all(p[:4] == b'\x89PNG' and len(p) > 50000 for p in pngs),
    pngs[0] != pngs[1])
PY
out=$(cat "$T/dom.out")
# A sanitizer build has no allocation counter: its heap charts have no
# line (nothing measured, nothing drawn) and say "not measured" on the
# plot, and only those.
empty='\[\]'
sanitized &&
	empty="\['heap_live_bytes', 'allocs'\]"
expect_match "the page draws all 11 charts, none empty but the unmeasured" \
    "$out" "charts 11 empty $empty"
expect_match "an unmeasured chart says so, and only those" "$out" \
    "notes $empty"
expect_match "the charts change between the two loads" "$out" 'changed True'
expect_match "the clock moves" "$out" 'clocks differ True True'
expect_match "two screenshots, not blank, not the same" "$out" \
    'pngs True True'

# Trial 1 over (trial 2 runs): its series and counts as the page saw them.
check "trial 1 ends" wait_for 40 sh -c "curl -sf '$URL/api/live' |
    grep -q '\"trials_ended\":[12]'"
# a counter's series: allocs, or minflt where a sanitizer build has no
# allocation counter (its heap figures are absent, never 0)
counter=allocs
sanitized && counter=minflt
for m in rss_bytes height $counter achieved_tps; do
	curl -sf "$URL/api/series?run=1&metric=$m" >"$T/series-$m.json"
done
curl -sf "$URL/api/live" >"$T/live.json"
wait "$DN_PID"
expect_eq "devnet run exits 0" "$?" 0

python3 - "$DB" "$T" "$counter" >"$T/cmp.out" <<'PY'
import json, sqlite3, sys
db, t = sqlite3.connect(sys.argv[1]), sys.argv[2]
for m in ("rss_bytes", "height", sys.argv[3], "achieved_tps"):
    j = json.load(open(f"{t}/series-{m}.json"))
    api = {(n["node"], tm): v for n in j["nodes"]
        for tm, v in zip(n["t_ms"], n["v"])}
    st = {(n, tm): v for n, tm, v in db.execute("select node, t_ms, value"
        " from samples s join metrics m on m.id = s.metric_id where"
        " run_id = 1 and m.name = ?", (m,))}
    print(m, j["source"], len(api), api == st and len(st) > 0)
live = json.load(open(f"{t}/live.json"))
t1 = [x for x in live["trials"] if x["run"] == 1][0]
facts = {n: int(v) for n, v in db.execute("select node, value from"
    " run_facts where run_id = 1 and key = 'samples_received'")}
print("samples", t1["state"], all(n["samples"] == facts[n["node"]]
    for n in t1["nodes"]))
last = {n: v for n, v in db.execute("select node, value from samples s"
    " join metrics m on m.id = s.metric_id where run_id = 1 and"
    " m.name = 'height' and t_ms = (select max(t_ms) from samples s2"
    " where s2.run_id = 1 and s2.node = s.node and s2.metric_id ="
    " s.metric_id)")}
print("last height", all(n["last"]["height"] == last[n["node"]]
    for n in t1["nodes"]))
PY
out=$(cat "$T/cmp.out")
for m in rss_bytes height $counter achieved_tps; do
	expect_match "/api/series $m of run 1 is the store's rows" "$out" \
	    "$m live [0-9]+ True"
done
expect_match "/api/live samples per node = samples_received" "$out" \
    'samples ended True'
expect_match "/api/live last height per node = the store's last" "$out" \
    'last height True'

# The same runs from the database: devnet serve --db.
P2=$(free_port)
U2="http://127.0.0.1:$P2"
"$DEVNET" serve --db "$DB" --serve "127.0.0.1:$P2" 2>"$T/serve.err" &
SV=$!
check "devnet serve answers" wait_for 20 up "$U2/"
expect_match "/ lists the group's comparison" "$(curl -sf "$U2/")" \
    'href="/report\?a=1:A&amp;b=1:B">A vs B</a>'
expect_eq "/report is devnet report's page, with its charts" \
    "$(curl -sf "$U2/report?a=1:A&b=1:B" | grep -c '<div class="chart"')" \
    "$("$DEVNET" report 1:A 1:B --db "$DB" -o "$T/r.html" >/dev/null &&
    grep -c '<div class="chart"' "$T/r.html")"
expect_eq "/api/verdict is devnet compare's JSON" \
    "$(curl -sf "$U2/api/verdict?a=1:A&b=1:B" | python3 -c "import json,sys
print(len(json.load(sys.stdin)['metrics']))")" \
    "$("$DEVNET" compare 1:A 1:B --db "$DB" --format json | python3 -c \
    "import json,sys; print(len(json.load(sys.stdin)['metrics']))")"
stored=$(curl -sf "$U2/api/series?run=1&metric=rss_bytes" | python3 -c \
    "import json, sys; j = json.load(sys.stdin); print(j['source'],
    [(n['node'], n['t_ms'], n['v']) for n in j['nodes']] ==
    [(n['node'], n['t_ms'], n['v']) for n in
    json.load(open('$T/series-rss_bytes.json'))['nodes']])")
expect_eq "/api/series from the store = what the live run served" \
    "$stored" "store True"
expect_eq "/api/runs has both runs" "$(curl -sf "$U2/api/runs" |
    python3 -c "import json,sys; print(len(json.load(sys.stdin)['runs']))")" 2
expect_eq "a path outside the table: 404" "$(curl -s -o /dev/null -w \
    '%{http_code}' --path-as-is "$U2/../../etc/passwd")" 404
expect_eq "POST: 405" "$(curl -s -o /dev/null -w '%{http_code}' -X POST \
    "$U2/api/runs")" 405
kill -INT "$SV"
wait "$SV"
expect_eq "devnet serve stops on SIGINT, exit 0" "$?" 0
finish
