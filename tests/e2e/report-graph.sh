# report-graph.sh: `devnet report` draws the gossip graph (issue 40): 12
# devnet-nodes with network.peers 3 in three zones (on the loopback: the
# graph is drawn by zone, no emulated network needed), then the page's
# section: one mark per node, coloured by its stored zone, one line per
# edge of the stored graph (each node's fact `peers`, both ends), the
# legend's three zones; block lag against hops, one point per node at its
# stored mean lag_ms and its mean BFS hops from every node (computed here
# from the facts); the hops table over the 12 nodes, the zones table, the
# per-node table.  With lag_ms deleted from a copy of the database, the
# section says the lag is absent (never 0).  A report of two full-mesh
# runs has no graph section; a side of the full mesh says so.
#
# How it looks, by hand (chromium, as report.sh says): the section at the
# end of the page, the nodes on a circle by zone.
. "$(dirname "$0")/lib.sh"

cat >"$T/graph.yaml" <<'YAML'
name: graph-report
duration: 7s
warmup: 2s
sample_interval: 500ms
seed: 7
network:
  nodes: 12
  peers: 3
  block_interval: 400ms
  accounts: 500
  zones: {eu: [0, 1, 2, 3], us: [4, 5, 6, 7], ap: [8, 9, 10, 11]}
workload:
  kind: transfer
  tps: 20
YAML
sed 's/^  nodes: 12$/  nodes: 3/; s/^  peers: 3$/  peers: all/; /zones:/d;
    s/^duration: 7s/duration: 3s/; s/^warmup: 2s/warmup: 1s/' \
    "$T/graph.yaml" >"$T/mesh.yaml"
for y in graph mesh mesh; do
	"$DEVNET" run "$T/$y.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
	    >>"$T/run.out" 2>&1 || fail "devnet run $y: $(cat "$T/run.out")"
done
expect_eq "3 runs, all ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 3
expect_eq "the graph's zones stored (fact zone)" \
    "$(q "select group_concat(value, ',') from (select value from run_facts
    where run_id = 1 and key = 'zone' order by node)")" \
    "eu,eu,eu,eu,us,us,us,us,ap,ap,ap,ap"

out=$("$DEVNET" report 1 2 --db "$DB" -o "$T/g.html" 2>&1)
expect_eq "devnet report of the graph run exits 0" "$?" 0
q "select node, value from run_facts where run_id = 1 and key = 'peers'
    order by node" >"$T/peers"
q "select node, value from run_facts where run_id = 1 and key = 'zone'
    order by node" >"$T/zones"
q "select node, avg from node_summary where run_id = 1 and node >= 0 and
    metric = 'lag_ms' order by node" >"$T/lag"

# graph FILE LAG: check the section of FILE; LAG is "measured" or
# "absent"
graph() {
	python3 - "$1" "$2" "$T/peers" "$T/zones" "$T/lag" <<'PY'
import re, sys
from collections import deque
html, lagmode = open(sys.argv[1]).read(), sys.argv[2]
adj, zone, lag = {}, {}, {}
for line in open(sys.argv[3]):
    k, v = line.strip().split("|")
    adj[int(k)] = [int(x) for x in v.split(",")]
for line in open(sys.argv[4]):
    k, v = line.strip().split("|")
    zone[int(k)] = v
for line in open(sys.argv[5]):
    k, v = line.strip().split("|")
    lag[int(k)] = float(v)
n = len(adj)
edges = {tuple(sorted((k, p))) for k in adj for p in adj[k]}
bad = []
if '<h2 id="gossip">' not in html:
    print("no gossip graph section")
    sys.exit(1)
sec = html[html.index('<h2 id="gossip">'):]
nodes = re.findall(r'<circle class="gnode" data-node="(\d+)"[^>]*'
    r'fill="([^"]+)"', sec)
if sorted(int(v) for v, _ in nodes) != list(range(n)):
    bad.append("node marks %s, want 0..%d" % ([v for v, _ in nodes], n - 1))
color = {int(v): c for v, c in nodes}
for a in zone:
    for b in zone:
        if (zone[a] == zone[b]) != (color.get(a) == color.get(b)):
            bad.append("nodes %d (%s) and %d (%s): colours %s, %s" % (a,
                zone[a], b, zone[b], color.get(a), color.get(b)))
drawn = re.findall(r'<line class="gedge" data-a="(\d+)" data-b="(\d+)"',
    sec)
got = [tuple(sorted((int(a), int(b)))) for a, b in drawn]
if len(got) != len(edges) or set(got) != edges:
    bad.append("%d edges drawn, %d stored; missing %s, extra %s" % (
        len(got), len(edges), sorted(edges - set(got)),
        sorted(set(got) - edges)))
if 'data-edges="%d"' % len(edges) not in sec:
    bad.append("the svg does not say %d edges" % len(edges))
legend = re.findall(r'<text class="gzone"[^>]*>zone ([a-z]+):', sec)
if sorted(legend) != sorted(set(zone.values())):
    bad.append("legend zones %s" % legend)
# the hops: mean BFS distance from every node, itself at 0
def dist(s):
    d = {s: 0}
    q = deque([s])
    while q:
        v = q.popleft()
        for w in adj[v]:
            if w not in d:
                d[w] = d[v] + 1
                q.append(w)
    return d
D = {s: dist(s) for s in adj}
hops = {v: sum(D[s][v] for s in adj) / n for v in adj}
pts = re.findall(r'<circle class="lagpt" data-node="(\d+)" '
    r'data-hops="([\d.]+)" data-lag-ms="([\d.]+)"', sec)
rows = re.findall(r'<tr class="gn"><td>(\d+)</td>.*?</tr>', sec)
if len(rows) != n:
    bad.append("%d rows in the nodes' table" % len(rows))
hrows = re.findall(r'<table class="vt hops">(.*?)</table>', sec, re.S)
counts = re.findall(r'<tr><td class="l">[\d.]+</td><td>(\d+)</td>',
    hrows[0] if hrows else "")
if sum(int(c) for c in counts) != n:
    bad.append("the hops table counts %s nodes" % counts)
zrows = re.findall(r'<table class="vt zones">(.*?)</table>', sec, re.S)
if not zrows or len(re.findall(r'<tr><td', zrows[0])) != 3:
    bad.append("the zones table has not 3 rows")
if lagmode == "measured":
    if len(pts) != n:
        bad.append("%d points in the lag chart, want %d" % (len(pts), n))
    for v, h, l in pts:
        v = int(v)
        if abs(float(h) - hops[v]) > 1e-3:
            bad.append("node %d at %s hops, want %.4f" % (v, h, hops[v]))
        if abs(float(l) - lag[v]) > 1e-3:
            bad.append("node %d at lag %s ms, stored %.4f" % (v, l, lag[v]))
else:
    if pts or 'lag_ms absent' not in sec:
        bad.append("lag deleted, yet %d points or no absent note" %
            len(pts))
    if re.search(r'<tr class="gn">.*?</tr>', sec) and \
            sec.count('>absent<') < n:
        bad.append("the nodes' table shows a lag where none is stored")
if bad:
    print("; ".join(bad))
    sys.exit(1)
print("%d nodes, %d edges, hops %s" % (n, len(edges),
    sorted(set(round(h, 2) for h in hops.values()))))
PY
}
res=$(graph "$T/g.html" measured) && ok "the graph and lag by hops: $res" ||
	fail "graph section: $res"
expect_match "B, the full mesh, says it has no graph" "$(cat "$T/g.html")" \
    '<p class="sub mesh"><b>B</b>: the full mesh'

# lag_ms deleted (a run without the metric): said absent, never 0
cp "$DB" "$T/nolag.db"
sqlite3 "$T/nolag.db" "delete from samples where metric_id = (select id
    from metrics where name = 'lag_ms'); delete from series where
    metric_id = (select id from metrics where name = 'lag_ms')"
"$DEVNET" report 1 2 --db "$T/nolag.db" -o "$T/n.html" >/dev/null 2>&1 ||
	fail "report without lag_ms"
res=$(graph "$T/n.html" absent) && ok "without lag_ms: absent, not 0" ||
	fail "without lag_ms: $res"

# two full-mesh runs: no graph section at all
"$DEVNET" report 2 3 --db "$DB" -o "$T/m.html" >/dev/null 2>&1 ||
	fail "report of the full-mesh runs"
if grep -q 'id="gossip"\|class="gedge"\|class="sub mesh"' "$T/m.html"; then
	fail "a full-mesh report has a graph section"
else
	ok "a full-mesh report has no graph section"
fi
finish
