# gossip.sh: devnet-node's gossip over a peer graph (issue 40): 12
# devnet-nodes with network.peers 3 on an emulated network of 15 ms on
# every link.  The run ok, every node at one height with one state hash,
# the stored graph (each node's fact `peers`) 3-regular, symmetric and
# connected, and a block's delay growing with the hops it travelled:
# from each DN-NODE-BLOCK line (proposer, receiver, delay_ms) and the
# stored graph, the mean delay at 2 hops at least 10 ms above that at 1
# hop, and at 3 hops (when the graph has such pairs) above that at 2.
# devnet report's distance: every node's mean ms from the proposers, 14
# to 25 ms a hop.  Nothing left.  Needs root.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"
. "$DN_SOURCE_DIR/tests/net/netlib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: network namespaces need root"
	exit 77
fi

NODES=12
cat >"$T/gossip.yaml" <<YAML
name: gossip-test
duration: 12s
warmup: 1s
sample_interval: 500ms
seed: 7
network:
  nodes: $NODES
  peers: 3
  block_interval: 400ms
  accounts: 500
  links:
    default: {latency: 15ms}
workload:
  kind: transfer
  tps: 20
YAML
HOST_NET=$(host_net)
run_ok "$NODES nodes, 3 peers each" "$T/gossip.yaml"
expect_eq "the graph's degree stored (gossip_peers)" \
    "$(q "select value from run_facts where run_id = $run and node = -1 and key = 'gossip_peers'")" 3
q "select node, value from run_facts where run_id = $run and key = 'peers'
    order by node" >"$T/graph"
expect_eq "one height on all $NODES nodes" \
    "$(q "select count(*) || ' ' || count(distinct value) from run_facts where run_id = $run and key = 'height'")" \
    "$NODES 1"
expect_eq "one state hash on all $NODES nodes" \
    "$(q "select count(*) || ' ' || count(distinct value) from run_facts where run_id = $run and key = 'state_hash'")" \
    "$NODES 1"
expect_eq "every transaction included" \
    "$(q "select value from run_facts where run_id = $run and node = -1 and key = 'tx_included'")" \
    "$(q "select value from run_facts where run_id = $run and node = -1 and key = 'tx_submitted'")"
dir=$(q "select cmdline from nodes where run_id = $run and node = 0" |
    sed -n 's/.* --dir \([^ ]*\)\/node-0 .*/\1/p')
# the graph's checks and the delay by hops, in one pass
python3 - "$T/graph" "$dir" "$NODES" "$T/nodehops" >"$T/hops" <<'PY' || fail "graph: $(cat "$T/hops")"
import re, sys
from collections import deque
path, rdir, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
adj = {}
for line in open(path):
    k, v = line.strip().split("|")
    adj[int(k)] = [int(x) for x in v.split(",")]
bad = []
if sorted(adj) != list(range(n)):
    bad.append("peers of nodes %s stored" % sorted(adj))
for k, ps in adj.items():
    if len(ps) != 3 or len(set(ps)) != 3 or k in ps:
        bad.append("node %d: peers %s" % (k, ps))
    for p in ps:
        if k not in adj.get(p, []):
            bad.append("edge %d-%d one way only" % (k, p))
def dist(s):
    d = {s: 0}
    q = deque([s])
    while q:
        v = q.popleft()
        for w in adj.get(v, []):
            if w not in d:
                d[w] = d[v] + 1
                q.append(w)
    return d
D = {k: dist(k) for k in adj}
if any(len(D[k]) != n for k in D):
    bad.append("not connected")
if bad:
    print("; ".join(bad))
    sys.exit(1)
with open(sys.argv[4], "w") as f:   # each node's mean hops, for the report
    for v in sorted(adj):
        f.write("%d %f\n" % (v, sum(D[s][v] for s in adj) / n))
by = {}
pat = re.compile(r"proposer=(\d+) .*delay_ms=(\d+)")
for r in range(n):
    for line in open("%s/node-%d.log" % (rdir, r)):
        m = pat.search(line)
        if m and "DN-NODE-BLOCK" in line and "proposed" not in line:
            p = int(m.group(1))
            by.setdefault(D[p][r], []).append(int(m.group(2)))
for h in sorted(by):
    print(h, len(by[h]), sum(by[h]) / len(by[h]))
PY
cat "$T/hops"
mean() { awk -v h="$1" '$1 == h { print int($3) }' "$T/hops"; }
m1=$(mean 1) m2=$(mean 2) m3=$(mean 3)
[ -n "$m1" ] && [ -n "$m2" ] && [ "$m2" -ge $((m1 + 10)) ] &&
	ok "a block 2 hops away arrives later than 1 hop ($m1 -> $m2 ms)" ||
	fail "delay by hops: 1 hop ${m1:-none} ms, 2 hops ${m2:-none} ms"
if [ -n "$m3" ]; then
	[ "$m3" -ge "$m2" ] &&
		ok "3 hops no sooner than 2 ($m2 -> $m3 ms)" ||
		fail "3 hops ($m3 ms) sooner than 2 ($m2 ms)"
fi
# the report's distance (issue 40): each node's mean one-way ms from the
# proposers along the fastest path, from the probe's RTTs on the graph's
# edges, about 15 ms a hop; B a short full mesh on the loopback
graph_run=$run
cat >"$T/mesh.yaml" <<YAML
name: gossip-mesh
duration: 2s
warmup: 1s
network: {nodes: 3, block_interval: 400ms, accounts: 500}
workload: {kind: transfer, tps: 20}
YAML
"$DEVNET" run "$T/mesh.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    >/dev/null 2>&1 || fail "the full-mesh run"
"$DEVNET" report "$graph_run" "$(q "select max(id) from runs")" --db "$DB" \
    -o "$T/r.html" >/dev/null 2>&1 || fail "devnet report"
python3 - "$T/nodehops" "$T/r.html" >"$T/dist" 2>&1 <<'PY' &&
import re, sys
hops = {int(v): float(h) for v, h in (l.split() for l in open(sys.argv[1]))}
n = len(hops)
pts = re.findall(r'class="lagpt" data-node="(\d+)" data-ms-away="([\d.]+)"',
    open(sys.argv[2]).read())
per = sorted(float(ms) / hops[int(v)] for v, ms in pts)
print("%d nodes, ms per hop %.1f..%.1f" % (len(pts), per[0], per[-1])
    if pts else "no distance chart")
sys.exit(0 if len(pts) == n and 14 <= per[0] and per[-1] <= 25 else 1)
PY
	ok "the report's distance: $(cat "$T/dist")" ||
	fail "the report's distance: $(cat "$T/dist")"
expect_net_clean "after the run" "$(run_pid "$graph_run")" "$HOST_NET"
finish
