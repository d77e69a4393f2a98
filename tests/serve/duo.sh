# duo.sh: the live page of a concurrent slot shows A and B side by side
# (issue 36 item 2): two variants of 2 nodes each run at once (order:
# concurrent, pin: none) under --serve; headless Chromium runs the page's
# script while both run.  The heading names the slot and both trials, the
# nodes table has a variant column and all four nodes (A's and B's), the
# load line and the events name each variant.  What a reader sees in the
# screenshot (1200 px wide, looked at when this test was written): the
# clock, "slot 1, side by side: trial 1, variant A, run 1 (running);
# trial 2, variant B, run 2 (running)", a nodes table of A 0, A 1, B 0,
# B 1 (state up, samples, height ~80), "A: load generator: 30 tx/s sent
# ...; B: load generator: ...", the plan with both running, events
# "0.0 s A start 2 node(s) ready", "0.0 s B start ...".
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

command -v chromium >/dev/null || { skip "no chromium"; exit 77; }
cat >"$T/duo.yaml" <<'YAML'
name: live-duo
duration: 20s
warmup: 2s
sample_interval: 500ms
network: {nodes: 2, block_interval: 200ms, accounts: 1000}
workload: {kind: transfer, tps: 30}
variants:
  A: {read_options: per-call}
  B: {read_options: cached}
repeats: 1
order: concurrent
pin: none
YAML
P=$(free_port)
URL="http://127.0.0.1:$P"
check "the server answers" devnet_serve "$P" "$T/duo.yaml" \
    --ready-timeout 60s
check "the slot reaches 3 s" wait_for 40 at_least 1 3000
check "screenshot of the slot" shot 1 1400
wait $DN_PID
expect_eq "the concurrent run ends well" "$?" 0

python3 - "$T/dom1.html" >"$T/dom.out" <<'PY'
import re, sys
d = open(sys.argv[1]).read()
text = lambda s: re.sub(r'\s+', ' ', re.sub(r'<[^>]+>', ' ', s)).strip()
print("heading:", text(re.search(r'id="trial">(.*?)</p>', d, re.S).group(1)))
rows = re.findall(r'<tr>(.*?)</tr>', re.search(
    r'<table id="nodes">(.*?)</table>', d, re.S).group(1), re.S)
print("nodes:", " | ".join(text(r)[:12] for r in rows))
print("load:", text(re.search(r'id="load">(.*?)</p>', d, re.S).group(1)))
PY
out=$(cat "$T/dom.out")
echo "$out"
expect_match "the heading names the slot and both trials" "$out" \
    'heading: slot 1, side by side: trial 1, variant A, run 1 \(running\); trial 2, variant B, run 2 \(running\)'
expect_match "the nodes table: a variant column, A's and B's nodes" "$out" \
    'nodes: variant node[^|]* \| A 0 [^|]* \| A 1 [^|]* \| B 0 [^|]* \| B 1 '
expect_match "each variant's load generator" "$out" \
    'load: A: load generator: .*; B: load generator: '
check "the screenshot is a PNG, not blank" python3 -c "
import sys; p = open('$T/s1.png', 'rb').read()
sys.exit(not (p[:4] == b'\x89PNG' and len(p) > 50000))"
finish
