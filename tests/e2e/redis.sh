#!/bin/bash
# redis.sh: scenarios/redis-aof.yaml, shortened (issue 25): Debian's
# redis-server (jemalloc) as two foreign nodes with count_allocs under a
# redis-benchmark load (workload kind command), A = appendonly no, B =
# yes.  Both runs ok, every node's allocation source `malloc (jemalloc)`
# with allocations counted, only B's nodes keep an append-only file, and
# `devnet ab` gives the verdict, B allocating more bytes per second.
. "$(dirname "$0")/lib.sh"
for p in redis-server redis-benchmark; do
	command -v "$p" >/dev/null || { skip "no $p (apt-get install -y redis-server redis-tools)"; finish; }
done
mkdir -p "$RUNS"
"$DEVNET" ab "$SCN/redis-aof.yaml" --db "$DB" --run-dir "$RUNS" \
    --set duration=6s --set warmup=1s --repeats 1 >"$T/ab.out" 2>"$T/ab.err"
rc=$?
"$DEVNET" compare --db "$DB" --format json 1 2 >"$T/ab.json" ||
    fail "compare --format json"
expect_eq "devnet ab redis-aof exits 0" "$rc" 0
expect_eq "both runs ok" "$(q "select group_concat(status) from runs")" "ok,ok"
expect_eq "every node's allocation source is jemalloc" \
    "$(q "select count(*) || ' ' || group_concat(distinct value) from run_facts where key = 'alloc_source'")" \
    "4 malloc (jemalloc)"
expect_eq "every node has allocations counted" \
    "$(q "select count(*) from (select s.run_id, s.node, max(s.value) v from samples s join metrics m on m.id = s.metric_id where m.name = 'allocs' group by 1, 2) where v > 1000")" 4
expect_eq "the load ran to the end (stopped by SIGTERM: 143)" \
    "$(q "select group_concat(value) from run_facts where key = 'load_command_exit'")" "143,143"
aof() { ls -d "$RUNS"/$1/node-*/appendonlydir 2>/dev/null | wc -l; }
expect_eq "A (appendonly no): no append-only file" "$(aof 1-A)" 0
expect_eq "B (appendonly yes): one per node" "$(aof 2-B)" 2
python3 - "$T/ab.json" <<'PY' && ok "the verdict: B allocates more bytes/s (append-only buffers)" || fail "verdict JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["sides"]["a"]["alloc_source"] == "malloc (jemalloc)", d["sides"]
m = {r["name"]: r for r in d["metrics"]}
for k in ("allocs_per_s", "alloc_bytes_per_s"):
    assert k in m and m[k]["verdict"] in ("better", "worse", "changed",
                                            "equivalent", "undecided"), k
a = m["alloc_bytes_per_s"]
assert a["b"]["median"] > a["a"]["median"], a
PY
check "no redis-server left" sh -c '! pgrep -f "^redis-server .*:264[01]0" >/dev/null'
finish
