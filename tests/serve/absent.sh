#!/bin/bash
# absent.sh: the live page says "not measured" where a figure is absent,
# never an empty chart that reads as nothing happening (issue 24).
#
# smoke.yaml, 16 s trials, A B B A, variant A run by devnet-node-plain
# (no allocation counter: its heap figures are absent from every sample,
# as in a sanitizer build).  While trial 1 (A) runs no sample carries
# heap_live_bytes: its chart has no line and says "not measured: no
# sample carried heap_live_bytes (absent, not 0)" in the middle of the
# plot, with no values on its y axis, and the nodes table says "not measured" in its heap column; RSS
# is drawn as usual.  While trial 4 (A again) runs, B's trials drew the
# heap chart's band and the chart names the nodes of the trial running
# that send none: "not measured on nodes 0, 1, 2 (absent, not 0)".  (In
# a sanitizer build B has no heap figures either: there the chart says
# the first words again.)
#
# What the screenshot of trial 4 shows (1200 px wide, looked at when this
# test was written): see the report of the session that wrote it.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

command -v chromium >/dev/null || { skip "no chromium"; exit 77; }
PLAIN=$DN_BUILD_DIR/bin/devnet-node-plain
P=$(free_port)
URL="http://127.0.0.1:$P"
check "the server answers" devnet_serve "$P" "$SCN/smoke.yaml" \
    --set duration=16s --set warmup=2s --repeats 2 \
    --set "variants.A.binary=$PLAIN"

# note METRIC: the words on its chart now ('' none), whether a median
# line is drawn ("line" or "no line"), and whether its y axis shows
# values (none on an axis nothing was measured on)
note() {
	curl -sf --max-time 5 "$URL/chart.svg?metric=$1" | python3 -c "
import re, sys
s = sys.stdin.read()
n = re.search(r'<text class=\"chart-note\"[^>]*>([^<]*)<', s)
y = re.search(r'data-left=\"([^\"]+)\"', s).group(1)
ticks = re.findall(r'<text x=\"%g\" [^>]*text-anchor=\"end\">' %
    (float(y) - 6), s)
print((n.group(1) if n else '') + ' | ' +
    ('line' if re.search(r'class=\"median [ab]\" d=\"M', s) else 'no line') +
    (' | y values' if ticks else ' | no y values'))"
}

# the charts first (a curl each), then Chromium, which may take seconds
check "trial 1 (A, plain) reaches 2 s" wait_for 30 at_least 1 2000
expect_eq "trial 1: the heap chart says nothing was measured, no line" \
    "$(note heap_live_bytes)" \
    "not measured: no sample carried heap_live_bytes (absent, not 0) | no line | no y values"
expect_eq "trial 1: RSS is drawn, nothing said" "$(note rss_bytes)" \
    " | line | y values"
check "screenshot during trial 1" shot 1 3400
expect_eq "trial 1: the nodes table's heap column says 'not measured'" \
    "$(python3 - "$T/dom1.html" <<'PY'
import re, sys
d = open(sys.argv[1]).read()
t = re.search(r'<table id="nodes">(.*?)</table>', d, re.S).group(1)
head = re.findall(r'<th[^>]*>([^<]*)</th>', t)
col = head.index('heap_live_bytes')
rows = [re.findall(r'<td[^>]*>(.*?)</td>', r) for r in
    re.findall(r'<tr>(.*?)</tr>', t, re.S)[1:]]
print(re.search(r'id="trial">([^<,]*, variant [^<,]*)', d).group(1),
    len(rows), sorted(set(re.sub(r'<[^>]+>', '', r[col]) for r in rows)),
    sorted(set(r[head.index('rss_bytes')] != '' for r in rows)))
PY
)" "trial 1, variant A 3 ['not measured'] [True]"

check "trial 4 (A again) reaches 2 s" wait_for 120 at_least 4 2000
want="not measured on nodes 0, 1, 2 (absent, not 0) | line | y values"
sanitized &&
	want="not measured: no sample carried heap_live_bytes (absent, not 0) | no line | no y values"
expect_eq "trial 4: B's heap band, and the nodes running named as not measured" \
    "$(note heap_live_bytes)" "$want"
expect_eq "trial 4: RSS is drawn, nothing said" "$(note rss_bytes)" \
    " | line | y values"
check "screenshot during trial 4" shot 4 3400
check "the screenshot is a PNG, not blank" python3 -c "
import sys; p = open('$T/s4.png', 'rb').read()
sys.exit(not (p[:4] == b'\x89PNG' and len(p) > 50000))"
[ -n "${DN_KEEP_SHOT:-}" ] && cp "$T/s1.png" "$T/s4.png" "$DN_KEEP_SHOT/"
wait "$DN_PID"
expect_eq "devnet run exits 0" "$?" 0
finish
