#!/bin/bash
# paired.sh: compare pairs the trials of a concurrent run by slot (issue
# 36, orchestrator/verdict/compare-paired.c).  Three slots of A and B side
# by side (order: concurrent, pin: none), then on the stored runs:
#
# 1. compare says the design (`paired` in the unit line, the adj/unit
#    column and the JSON) and tests each metric by a paired t-test;
# 2. its interval and p are the paired t's of the slots' log(B / A),
#    recomputed here from each run's own value, slot by slot (runs.repeat
#    of A and B): a comparison paired by the wrong slot gives others;
# 3. --unit trial: the independent design (Welch) on the same runs;
# 4. a slot missing one side (B of slot 2 failed): that slot is left out
#    and named, the two whole slots are paired;
# 5. the same runs one after the other (B's times moved past A's): not
#    paired, as an ABBA run never is.
. "$(dirname "$0")/lib.sh"

cat >"$T/p.yaml" <<YAML
name: paired
duration: 5s
warmup: 1s
sample_interval: 500ms
seed: 1
network: {nodes: 2, block_interval: 200ms, accounts: 1000}
workload: {kind: transfer, tps: 40}
variants:
  A: {read_options: per-call}
  B: {read_options: cached}
repeats: 3
order: concurrent
pin: none
YAML
"$DEVNET" ab "$T/p.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --ready-timeout 60s --format json >"$T/ab.json" 2>"$T/ab.err"
expect_eq "3 concurrent slots: devnet ab exits 0" "$?" 0
expect_eq "6 runs, all ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 6

M="--metric cpu_s_per_s --metric ctx_per_s --metric rss_avg"
# field FILE [METRIC] KEY: a top-level field, or one of METRIC's
field() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
if len(sys.argv) == 4:
    d = [m for m in d["metrics"] if m["name"] == sys.argv[2]][0]
v = d[sys.argv[-1]]
print(str(v).lower() if isinstance(v, bool) else v)' "$@"
}

# --- 1. the design, said -----------------------------------------------
"$DEVNET" compare 1:A 1:B --db "$DB" $M --format json >"$T/c.json" 2>&1
expect_eq "compare: the paired design" "$(field "$T/c.json" design)" paired
expect_eq "of 3 slots" "$(field "$T/c.json" pairs)" 3
expect_match "the unit note says why" "$(field "$T/c.json" unit_note)" \
    'paired by slot \(3 slots of A and B run at the same time'
expect_eq "cpu_s_per_s by a paired t-test" \
    "$(field "$T/c.json" cpu_s_per_s test)" paired-t
expect_eq "its row's design" "$(field "$T/c.json" cpu_s_per_s design)" \
    paired
check "the independent design's MDE beside it" python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))["metrics"][0]
sys.exit(not (m["mde_unpaired_pct"] > 0))' "$T/c.json"
"$DEVNET" compare 1:A 1:B --db "$DB" $M >"$T/c.txt" 2>&1
expect_match "the table: paired in the adj/unit column" "$(cat "$T/c.txt")" \
    'cpu_s_per_s .* paired 3'
expect_match "and in the unit line" "$(cat "$T/c.txt")" \
    'unit: trial, paired by slot'
# ab's own verdict is paired too
expect_eq "devnet ab's verdict: paired" "$(field "$T/ab.json" design)" paired

# --- 2. by slot: the paired t of each slot's log(B / A) -----------------
for k in 0 1 2; do
	a=$(q "select id from runs where variant = 'A' and repeat = $k")
	b=$(q "select id from runs where variant = 'B' and repeat = $k")
	"$DEVNET" compare "$a" "$b" --db "$DB" $M --unit trial \
	    --format json >"$T/s$k.json" 2>&1
done
check "paired by slot: interval and p are the slots' paired t" \
    python3 - "$T" <<'PY'
import json, math, sys
t = sys.argv[1]
c = {m["name"]: m for m in json.load(open(t + "/c.json"))["metrics"]}
for name in ("cpu_s_per_s", "ctx_per_s", "rss_avg"):
    d = []
    for k in range(3):
        m = [m for m in json.load(open("%s/s%d.json" % (t, k)))["metrics"]
             if m["name"] == name][0]
        d.append(math.log(m["b"]["median"] / m["a"]["median"]))
    mean = sum(d) / 3
    se = math.sqrt(sum((x - mean) ** 2 for x in d) / 2 / 3)
    tq = 4.302652729911275          # t(0.975, df 2)
    lo, hi = 100 * math.expm1(mean - tq * se), 100 * math.expm1(mean + tq * se)
    tt = abs(mean / se)
    p = 1 - tt / math.sqrt(2 + tt * tt)  # Student's t, df 2, two-sided
    r = c[name]
    print(name, "slots", ["%.4f" % x for x in d], "CI", lo, hi, "p", p,
          "compare", r["delta_ci_low"], r["delta_ci_high"], r["p_raw"])
    for want, got in ((lo, r["delta_ci_low"]), (hi, r["delta_ci_high"]),
                      (p, r["p_raw"]), (100 * math.expm1(mean), r["delta_pct"])):
        if abs(want - got) > 1e-6 * max(1, abs(want)):
            sys.exit(1)
PY

# --- 3. --unit trial: the independent design ---------------------------
"$DEVNET" compare 1:A 1:B --db "$DB" $M --unit trial --format json \
    >"$T/ind.json" 2>&1
expect_eq "--unit trial: independent" "$(field "$T/ind.json" design)" \
    independent
expect_eq "--unit trial: Welch" "$(field "$T/ind.json" cpu_s_per_s test)" \
    welch

# --- 4. a slot missing one side -----------------------------------------
cp "$DB" "$T/miss.db"
b2=$(q "select id from runs where variant = 'B' and repeat = 2")
a2=$(q "select id from runs where variant = 'A' and repeat = 2")
sqlite3 "$T/miss.db" "update runs set status = 'failed' where id = $b2"
"$DEVNET" compare 1:A 1:B --db "$T/miss.db" $M --format json \
    >"$T/miss.json" 2>&1
expect_eq "a failed B: still paired" "$(field "$T/miss.json" design)" paired
expect_eq "on the 2 whole slots" "$(field "$T/miss.json" pairs)" 2
expect_match "the slot left out, named" "$(cat "$T/miss.json")" \
    "paired by slot: run $a2 \\(A\\) left out"

# --- 5. one after the other: not paired ---------------------------------
cp "$DB" "$T/seq.db"
sqlite3 "$T/seq.db" "update runs set start_ms = start_ms + 86400000,
    end_ms = end_ms + 86400000 where variant = 'B'"
"$DEVNET" compare 1:A 1:B --db "$T/seq.db" $M --format json \
    >"$T/seq.json" 2>&1
expect_eq "runs apart: the independent design" \
    "$(field "$T/seq.json" design)" independent
expect_eq "runs apart: no pairs" "$(field "$T/seq.json" pairs)" 0
finish
