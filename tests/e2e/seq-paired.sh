#!/bin/bash
# seq-paired.sh: `devnet ab --until decided` with order: concurrent looks
# at its slots with the paired t (issue 36; compare-seq.c on the slots of
# compare-paired.c; docs/statistics.md, "Paired sequential").  Four slots
# of 3 s at most, A per-call and B cached ReadOptions side by side
# (pin: none), then:
#
# 1. ab's looks and its JSON: the rows tested `paired-t-seq`, the design
#    `paired` with its slots, `sequential.design` `paired-sequential`,
#    each look's slots;
# 2. compare of the stored group: the same design, the same corrected p,
#    and the note says "paired sequential group";
# 3. --unit trial on the stored group: the independent looks (Welch).
. "$(dirname "$0")/lib.sh"

cat >"$T/p.yaml" <<YAML
name: seq-paired
duration: 3s
warmup: 1s
sample_interval: 250ms
seed: 1
network: {nodes: 2, block_interval: 200ms, accounts: 1000}
workload: {kind: transfer, tps: 40}
variants:
  A: {read_options: per-call, write_options: per-call}
  B: {read_options: cached, write_options: cached}
order: concurrent
pin: none
YAML
# The metric: allocs_per_s, which B's cached options lower; a build
# without the allocation counter (sanitizers) has none, so there the
# design is checked on cpu_s_per_s, whatever its verdict.
M=allocs_per_s
sanitized && M=cpu_s_per_s
export M
"$DEVNET" ab "$T/p.yaml" --db "$DB" --run-dir "$RUNS" --ready-timeout 60s \
    --until decided --max-trials 8 --metric "$M" --format json \
    >"$T/ab.json" 2>"$T/ab.err"
expect_eq "devnet ab --until decided, concurrent: exits 0" "$?" 0
grep -q "^devnet: look 1: 4 trials (2 per side, at most 4)" "$T/ab.err" &&
	ok "a look after the first block of 2 slots" ||
	fail "no look: $(head -c 2000 "$T/ab.err")"
python3 - "$T/ab.json" <<'PY' && ok "ab JSON: paired sequential" ||
import json, os, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"][0]
s = d["sequential"]
assert m["name"] == os.environ["M"] and m["test"] == "paired-t-seq", m
assert m["design"] == "paired" and m["pairs"] >= 2, m
assert d["design"] == "paired" and d["pairs"] == m["pairs"], d["pairs"]
assert "paired by slot, sequential" in d["unit_note"], d["unit_note"]
assert s["design"] == "paired-sequential" and s["statistic"] == "paired-t"
assert s["slots"] == d["pairs"], s
assert [l["slots"] for l in s["looks"]] == \
    [l["trials_per_side"] for l in s["looks"]], s
if m["name"] == "allocs_per_s":
    assert m["verdict"] == "better", m    # B's cached options allocate less
PY
	fail "ab JSON: $(head -c 3000 "$T/ab.json")"

"$DEVNET" compare --db "$DB" 1:A 1:B --metric "$M" --format json \
    >"$T/c.json" 2>/dev/null
python3 - "$T/ab.json" "$T/c.json" <<'PY' && ok "compare: the same paired p" ||
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
ma, mb = a["metrics"][0], b["metrics"][0]
assert mb["test"] == "paired-t-seq" and b["sequential"]["stored"], b
assert abs(ma["p"] - mb["p"]) < 1e-9, (ma["p"], mb["p"])
PY
	fail "compare: $(head -c 3000 "$T/c.json")"
"$DEVNET" compare --db "$DB" 1:A 1:B --metric "$M" >"$T/c.txt" 2>&1
grep -q "^paired sequential group: " "$T/c.txt" &&
	ok "compare's note: paired sequential group" ||
	fail "no note: $(cat "$T/c.txt")"
"$DEVNET" compare --db "$DB" 1:A 1:B --metric "$M" --unit trial \
    --format json >"$T/t.json" 2>/dev/null
python3 - "$T/t.json" <<'PY' && ok "--unit trial: the independent looks" ||
import json, sys
d = json.load(open(sys.argv[1]))
assert d["metrics"][0]["test"] == "welch-seq", d["metrics"][0]
assert d["design"] == "independent" and "design" not in d["sequential"]
PY
	fail "--unit trial: $(head -c 3000 "$T/t.json")"
finish
