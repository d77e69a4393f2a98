# gossip.sh: devnet-node's gossip over a peer graph (issue 40): 12
# devnet-nodes with network.peers 3 on an emulated network of 15 ms on
# every link.  The run ok, every node at one height with one state hash,
# the stored graph (each node's fact `peers`) 3-regular, symmetric and
# connected, and a block's delay growing with the hops it travelled:
# from each DN-NODE-BLOCK line (proposer, receiver, delay_ms) and the
# stored graph, the mean delay at 2 hops at least 10 ms above that at 1
# hop, and at 3 hops (when the graph has such pairs) above that at 2.
# Nothing left.  Needs root.
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
python3 - "$T/graph" "$dir" "$NODES" >"$T/hops" <<'PY' || fail "graph: $(cat "$T/hops")"
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
expect_net_clean "after the run" "$(run_pid "$run")" "$HOST_NET"
finish
