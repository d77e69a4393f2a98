# report.sh: `devnet report` on a real short A/B (smoke, 4 s trials, 2+2)
# draws every chart: for each side a median path that is one connected line
# (M then L) and a p10-p90 band that is a closed polygon along the whole
# line, not a row of slivers; the time axis of a run under 2 minutes is in
# seconds, of longer runs in minutes, then hours.
#
# What it does not check is how the page looks.  By hand, after a change to
# cmd-report.c (Debian: apt-get install chromium; not in install-deps.sh,
# it is large):
#   chromium --headless --no-sandbox --disable-gpu --no-first-run \
#       --user-data-dir=$(mktemp -d) --window-size=1200,3000 \
#       --screenshot=/tmp/report.png file:///path/to/r.html
# and look at /tmp/report.png: under the verdict table, each chart shows a
# blue (A) and an orange (B) line over its shaded band, axis in seconds.
. "$(dirname "$0")/lib.sh"

"$DEVNET" ab "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --repeats 2 --set duration=4s --set warmup=1s >"$T/ab.out" 2>&1
rc=$?
expect_eq "devnet ab exits 0" "$rc" 0
expect_eq "4 runs, all ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 4

out=$("$DEVNET" report 1:A 1:B --db "$DB" -o "$T/r.html" 2>&1)
expect_eq "devnet report exits 0" "$?" 0
expect_match "says what it wrote" "$out" "wrote $T/r.html"

# charts FILE UNIT: check every chart of FILE; UNIT is the time axis unit
# its tick labels must use (s, min or h).
charts() {
	python3 - "$@" <<'PY'
import os, re, sys

html, unit = open(sys.argv[1]).read(), sys.argv[2]
charts = re.findall(r'<div class="chart" id="m-([^"]+)">(.*?)</div>', html,
    re.S)
bad = []
spread = 0

def subpaths(d):
    """A path's points, one list per subpath; None if not only M/L/Z."""
    if re.sub(r'[ML]\s*-?[\d.]+[ ,]-?[\d.]+|Z|\s', '', d):
        return None
    subs = []
    for cmd, x, y in re.findall(r'([ML])\s*(-?[\d.]+)[ ,](-?[\d.]+)', d):
        if cmd == 'M':
            subs.append([])
        subs[-1].append((float(x), float(y)))
    return subs

# A sanitizer build has no allocation counter: no heap figure is stored,
# so the report has no chart of them (and the other 19 at least).
heap = {'allocs', 'frees', 'alloc_bytes', 'heap_live_bytes'}
names = set(n for n, _ in charts)
if os.environ.get('ALLOC_OFF'):
    if names & heap:
        bad.append('heap charts without a counter: %s' % (names & heap))
    want = 19
else:
    if not heap - {'frees'} <= names:
        bad.append('heap charts missing: %s' % (heap - {'frees'} - names))
    want = 20
if len(charts) < want or len(charts) != html.count('<svg'):
    bad.append('%d charts, %d svg' % (len(charts), html.count('<svg')))
for name, body in charts:
    for side in 'ab':
        what = '%s %s' % (name, side.upper())
        med = re.findall(r'<path class="median %s" d="([^"]*)"' % side,
            body)
        subs = subpaths(med[0]) if len(med) == 1 else None
        if not subs:
            bad.append('%s: no median path' % what)
            continue
        # One continuous line: nothing is missing in a healthy run.
        line = subs[0]
        xs = [x for x, y in line]
        if len(subs) != 1 or len(set(xs)) < 2 or xs != sorted(xs):
            bad.append('%s: median is %d pieces of %s points' % (what,
                len(subs), [len(s) for s in subs]))
            continue
        # 4 s at 500 ms, counters one less: at least 6 points.
        if len(line) < 6:
            bad.append('%s: median has %d points' % (what, len(line)))
        bands = re.findall(r'<path class="band %s" d="([^"]*)"' % side,
            body)
        poly = subpaths(bands[0]) if len(bands) == 1 else None
        if (poly is None or len(poly) != 1 or
                not bands[0].rstrip().endswith('Z')):
            bad.append('%s: band is %d paths, not one polygon' % (what,
                len(bands)))
            continue
        p = poly[0]
        n = len(p)
        area = abs(sum(p[i][0] * p[i - 1][1] - p[i - 1][0] * p[i][1]
            for i in range(n))) / 2
        px = [x for x, y in p]
        # The band covers the line: same x from first to last point.
        if n != 2 * len(line) or min(px) != min(xs) or max(px) != max(xs):
            bad.append('%s: band spans x %.1f-%.1f (%d points), line '
                '%.1f-%.1f (%d)' % (what, min(px), max(px), n, min(xs),
                max(xs), len(line)))
        # Zero area (under a square pixel: rounding) only where p10 = p90
        # in every bin (no spread at all).
        flat = p[:n // 2] == p[n // 2:][::-1]
        if area >= 1:
            spread += 1
        elif not flat:
            bad.append('%s: band has zero area' % what)
    ticks = re.findall(r'<text class="tick"[^>]*>([^<]*)</text>', body)
    units = set(t.split(' ')[1] for t in ticks if t != '0')
    if len(ticks) < 3 or units != {unit}:
        bad.append('%s: time axis %s, want unit %s' % (name, ticks, unit))
# rss, cpu, reads, latency...: most bands have a spread over 3 nodes and
# 2 trials; a band left flat everywhere would pass the checks above.
if spread < len(charts):
    bad.append('only %d of %d bands have a non-zero area' % (spread,
        2 * len(charts)))
for b in bad:
    print(b)
if bad:
    sys.exit(1)
print('%d charts, each A and B a connected median line with its band; '
    'axis in %s' % (len(charts), unit))
PY
}

sanitized &&
	export ALLOC_OFF=1
check "every chart draws A and B (axis in seconds)" charts "$T/r.html" s

# Longer runs: the same samples under a longer planned duration give an
# axis in minutes (10 min), then hours (3 h, bins coarser than 500 ms).
for d in 600000:min 10800000:h; do
	cp "$DB" "$T/long.db"
	sqlite3 "$T/long.db" "update runs set duration_ms = ${d%:*}"
	"$DEVNET" report 1:A 1:B --db "$T/long.db" -o "$T/long.html" \
	    >/dev/null 2>&1 || fail "report of a ${d#*:} run"
	got=$(grep -o '<text class="tick"[^>]*>[^<]*</text>' "$T/long.html" |
	    sed 's/.*>\([^<]*\)<.*/\1/' | sort -u | tr '\n' ',')
	expect_match "a ${d%:*} ms run: axis in ${d#*:} ($got)" "$got" \
	    "^0,([0-9.]+ ${d#*:},)+$"
done
rm -f "$T/long.db"
finish
