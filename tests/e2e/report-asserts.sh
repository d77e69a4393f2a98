#!/bin/bash
# report-asserts.sh: `devnet report` puts each assertion (issue 21) on the
# chart of its metric: its limit as a line at the limit's y, its window
# (from the events' rows, as stored) shaded, each run's first violation a
# marker at its sample, no two markers' labels overlapping; a metric no
# verdict row plots (height) gets a chart of its own; a spread's limit
# draws no line and says why; every result is listed.  Checked on the SVG against the rows in sqlite; and a
# database from before the windows were stored (schema 5) still reports.
. "$(dirname "$0")/lib.sh"

{ scn_head marks 7s; cat <<'YAML'; } >"$T/marks.yaml"
variants: {A: {}, B: {}}
events:
  - {at: 2s, action: stop, node: 2, name: pause}
  - {at: 4s, action: cont, node: 2}
assert:
  - {name: lag bounded, always: {each_node: lag_ms < 1000, during: pause}}
  - {name: chain advances, eventually: {all_nodes: height >= 5, within: 3s}}
  - {name: in step, eventually: {max_spread: height <= 1, within: 2s, after: pause+2500ms}}
YAML
"$DEVNET" ab "$T/marks.yaml" --db "$DB" --run-dir "$RUNS" --repeats 1 \
    --quiet >"$T/ab.out" 2>&1
expect_eq "the pause breaks 'lag bounded': exit 4" "$?" 4
expect_eq "both runs failed it" "$(q "select count(*) from assertions
    where name = 'lag bounded' and status = 'fail' and t_ms > 0")" 2
"$DEVNET" report 1 2 --db "$DB" -o "$T/r.html" >"$T/rep.out" 2>&1
expect_eq "devnet report exits 0" "$?" 0

# One line per check: the rows the page must agree with, then the page.
rows=$(q "select run_id, name, threshold, coalesce(observed, ''),
    coalesce(t_ms, -1), coalesce(node, -9), window_from_ms, window_to_ms,
    status from assertions order by run_id, rowid" | tr '\n' ';')
stops=$(q "select run_id, t_ms from events where kind = 'stop' order by run_id" | tr '\n' ';')
# Both runs' violations moved to one point (node 0 and node 1, run 1's
# time and value), where two labels beside their dots would overlap.
cp "$DB" "$T/close.db"
sqlite3 "$T/close.db" "update assertions set node = run_id - 1, t_ms = (select
    t_ms from assertions where run_id = 1 and name = 'lag bounded'), observed =
    (select observed from assertions where run_id = 1 and name = 'lag bounded')
    where name = 'lag bounded'"
"$DEVNET" report 1 2 --db "$T/close.db" -o "$T/close.html" >"$T/close.out" 2>&1
expect_eq "devnet report of close.db exits 0" "$?" 0
python3 - "$T/r.html" "$rows" "$stops" "$T/close.html" >"$T/py.out" 2>&1 <<'PY'
import re, sys
html, rows, stops = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
R = {}
for line in filter(None, rows.split(';')):
    run, name, thr, obs, t, node, f, to, st = line.split('|')
    R[(int(run), name)] = dict(thr=float(thr), obs=float(obs) if obs else None,
        t=int(t), node=int(node), f=int(f), to=int(to), st=st)
S = {int(a): int(b) for a, b in (x.split('|') for x in filter(None, stops.split(';')))}

def say(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)

def chart(mid):
    i = html.find('<div class="chart" id="m-%s"' % mid)
    if i < 0:
        return None
    return html[i:html.index('</svg>', i)]

def axes(c):
    g = lambda k: float(re.search(r'data-%s="([^"]+)"' % k, c).group(1))
    lo, hi, top, h, left, w, span = (g(k) for k in
        ('y-lo', 'y-hi', 'top', 'h', 'left', 'w', 'span-ms'))
    return (lambda v: top + h - (v - lo) / (hi - lo) * h,
            lambda ms: left + w * min(ms, span) / span)

def attr(el, k):
    m = re.search(r'\b%s="([^"]+)"' % k, el)
    return float(m.group(1)) if m else None

near = lambda a, b: a is not None and abs(a - b) < 0.15

lag = chart('lag_ms')
say(lag is not None, "the lag_ms chart is there")
Y, X = axes(lag)
lines = re.findall(r'<line class="assert-threshold"[^>]*>', lag)
say(len(lines) == 1, "one limit line on lag_ms (%d)" % len(lines))
a, b = R[(1, 'lag bounded')], R[(2, 'lag bounded')]
ln = lines[0] if lines else ''
say(near(attr(ln, 'y1'), Y(1000)) and near(attr(ln, 'y2'), Y(1000)),
    "the line is at the y of 1000 ms (%s, want %.2f)" % (attr(ln, 'y1'), Y(1000)))
say(near(attr(ln, 'x1'), X(min(a['f'], b['f']))) and
    near(attr(ln, 'x2'), X(max(a['to'], b['to']))),
    "the line spans the window (x %s..%s)" % (attr(ln, 'x1'), attr(ln, 'x2')))
for side, run in (('A', 1), ('B', 2)):
    r = R[(run, 'lag bounded')]
    say(r['f'] == S[run], "run %d: the stored window starts at the stop's row (%d ms)" % (run, S[run]))
    rect = re.search(r'<rect class="assert-window" data-side="%s"[^>]*>' % side, lag)
    rect = rect.group(0) if rect else ''
    say(attr(rect, 'data-from-ms') == r['f'] and attr(rect, 'data-to-ms') == r['to']
        and near(attr(rect, 'x'), X(r['f'])) and
        near(attr(rect, 'x') + attr(rect, 'width'), X(r['to'])),
        "side %s: the window %d..%d ms is shaded over it" % (side, r['f'], r['to']))
    g = re.search(r'<g class="assert-violation" data-run="%d"[^>]*>.*?</g>' % run, lag, re.S)
    g = g.group(0) if g else ''
    c = re.search(r'<circle[^>]*>', g)
    c = c.group(0) if c else ''
    say(attr(g, 'data-t-ms') == r['t'] and attr(g, 'data-node') == r['node']
        and attr(g, 'data-at-value') == 1 and near(attr(c, 'cx'), X(r['t']))
        and near(attr(c, 'cy'), Y(r['obs'])),
        "run %d: the first violation (node %d, t=%d ms, %g ms) is marked at its sample"
        % (run, r['node'], r['t'], r['obs']))
    say(('node %d, %.1f s</text>' % (r['node'], r['t'] / 1000)) in g,
        "run %d: the marker names the node and the time" % run)

# Both runs break 'lag bounded' at nearly one moment: their labels must
# not overlap.  Each label's box: textLength wide (the browser fits the
# glyphs to it), 9 px above the baseline and 3 below (10 px text); a
# label moved off its dot's row has a line leading back to the dot.
def boxes(c):
    out = []
    for g in re.findall(r'<g class="assert-violation".*?</g>', c, re.S):
        t = re.search(r'<text class="assert-violation-label"[^>]*>', g)
        cir = re.search(r'<circle[^>]*>', g).group(0)
        t = t.group(0) if t else ''
        x, y, w = attr(t, 'x'), attr(t, 'y'), attr(t, 'textLength')
        if None in (x, y, w):
            out.append(None)
            continue
        lead = re.search(r'<line class="assert-leader"[^>]*>', g)
        moved = abs(y - (attr(cir, 'cy') + 3.5)) > 0.1
        out.append((x, y - 9, x + w, y + 3, moved, lead is not None and
            near(attr(lead.group(0), 'x1'), attr(cir, 'cx')) and
            near(attr(lead.group(0), 'y1'), attr(cir, 'cy'))))
    return out
def labels_apart(c, what):
    B = boxes(c)
    say(len(B) == 2 and None not in B, "%s: two violation labels on lag_ms, each with a box (%s)" % (what, B))
    B = [b for b in B if b]
    top, hh = attr(c, 'data-top'), attr(c, 'data-h')
    clash = [(p, q) for i, p in enumerate(B) for q in B[i + 1:]
             if p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]]
    say(not clash, "%s: the violation labels do not overlap (%s)" % (what, clash))
    # nor the limit's words: 11 px, textLength wide, 10 px above the
    # baseline and 3 below
    L = [(attr(t, 'x'), attr(t, 'y') - 10, attr(t, 'x') + attr(t, 'textLength'),
          attr(t, 'y') + 3) for t in re.findall(r'<text class="assert-label"[^>]*>', c)]
    say(L and None not in (v for l in L for v in l),
        "%s: the limit's words have a box (%s)" % (what, L))
    over = [(p, q) for p in B for q in L if None not in q and
            p[0] < q[2] and q[0] < p[2] and p[1] < q[3] and q[1] < p[3]]
    say(not over, "%s: no violation label over the limit's words (%s)" % (what, over))
    say(all(top <= b[1] and b[3] <= top + hh for b in B),
        "%s: the labels stay in the plot (%s, plot %s..%s)" % (what, B, top, top + hh))
    say(all(b[5] for b in B if b[4]),
        "%s: a label moved off its dot's row has a line back to the dot" % what)
labels_apart(lag, "as run")
# The same runs with both violations put at one point (close.db): the
# dots coincide, so on their own rows the labels would overlap.
close = open(sys.argv[4]).read()
i = close.find('<div class="chart" id="m-lag_ms"')
cl = close[i:close.index('</svg>', i)] if i >= 0 else ''
dots = set(re.findall(r'<circle cx="([^"]+)" cy="([^"]+)" r="5"', cl))
say(len(dots) == 1 and cl.count('class="assert-violation"') == 2,
    "close.db: two violations at one point (%s)" % dots)
labels_apart(cl, "close.db")

h = chart('height')
say(h is not None and 'not in the verdict: charted for its assertions' in h,
    "height, in no verdict row, has a chart for its assertions")
Yh, Xh = axes(h)
lh = re.findall(r'<line class="assert-threshold"[^>]*>', h)
say(len(lh) == 1 and near(attr(lh[0], 'y1'), Yh(5)),
    "chain advances: one line at the y of 5 blocks (in step's spread draws none)")
say('no threshold line: its limit is on the spread over the nodes' in h,
    "in step: the caption says why it has no line")
say(len(re.findall(r'<rect class="assert-window"', h)) == 4,
    "height: the two assertions' windows, per side")
say(html.count('<h2>Assertions</h2>') == 1 and
    len(re.findall(r'<tr><td>[12]</td><td>[AB]</td>', html)) == 6,
    "the page lists the 6 results")
PY
cat "$T/py.out"
while read -r l; do
	case $l in
	ok:*) ok "${l#ok: }" ;;
	*) fail "${l#FAIL: }" ;;
	esac
done <"$T/py.out"
[ "$(grep -c '^ok:' "$T/py.out")" -ge 23 ] && ok "every page check ran" ||
	fail "the page checks did not all run"

# A database from before the windows (schema 5, smoke's assertions): a
# reader reports it, the file untouched; with no scope or window stored,
# no line and nothing shaded, and the caption says why.
cp "$DN_SOURCE_DIR/tests/store/fixtures/schema-v5.db" "$T/v5.db"
"$DEVNET" report 1:A 1:B --db "$T/v5.db" -o "$T/v5.html" >"$T/v5.out" 2>&1
expect_eq "report of a schema-5 file exits 0" "$?" 0
check "the file is untouched" cmp -s "$DN_SOURCE_DIR/tests/store/fixtures/schema-v5.db" "$T/v5.db"
expect_eq "no line, no window" \
    "$(grep -c 'class="assert-threshold"' "$T/v5.html")|$(grep -c 'class="assert-window"' "$T/v5.html")" "0|0"
expect_match "the caption says why" "$(cat "$T/v5.html")" \
    "assertion <b>chain advances</b> \(eventually, \): height &gt;= 2 blocks; <b>A</b>: pass in 2 of 2; <b>B</b>: pass in 2 of 2; no threshold line: its scope was not stored \(a run from before schema 6\)"
finish
