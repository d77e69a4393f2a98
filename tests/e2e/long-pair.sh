# long-pair.sh: a concurrent pair of single trials (1+1) decides from what
# it holds (issue 35 item 5).  The smoke scenario's ReadOptions variants
# (per-call vs cached), run side by side for 20 s: allocs_per_s is decided
# `better` on time blocks, and the output names the unit and why it is
# valid; asked for the trial unit, the same runs cannot decide (1 vs 1).
. "$(dirname "$0")/lib.sh"

# metric FILE NAME FIELD: one field of one metric from compare's JSON
metric() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
m = [m for m in d["metrics"] if m["name"] == sys.argv[2]][0]
v = m[sys.argv[3]]
print(str(v).lower() if isinstance(v, bool) else v)' "$@"
}

# The verdict is on allocs_per_s, which a sanitizer build does not
# measure (its malloc is the sanitizer's): nothing to decide there, and
# the 20 s pair would only cost the sanitizer suite its time.
if sanitized; then
	skip "1+1 allocs/s verdict: the allocation counter is off in this" \
	    "build (sanitizers replace malloc)"
	finish
fi
cat >"$T/pair.yaml" <<YAML
name: long-pair
duration: 20s
warmup: 2s
sample_interval: 500ms
seed: 1
network: {nodes: 3, block_interval: 200ms, accounts: 1000}
workload: {kind: transfer, tps: 50}
variants:
  A: {read_options: per-call, write_options: per-call}
  B: {read_options: cached, write_options: cached}
repeats: 1
order: concurrent
YAML
"$DEVNET" ab "$T/pair.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --format json >"$T/pair.json" 2>"$T/pair.err"
rc=$?
expect_eq "1+1 concurrent: devnet ab exits 0" "$rc" 0
expect_eq "1+1 concurrent: 2 runs, both ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 2
expect_eq "allocs_per_s decided better" \
    "$(metric "$T/pair.json" allocs_per_s verdict)" better
expect_eq "by the time-block unit" \
    "$(metric "$T/pair.json" allocs_per_s decided_unit)" block
expect_match "which says why it is valid" \
    "$(metric "$T/pair.json" allocs_per_s unit_why)" \
    "run concurrently.*lag-1 autocorrelation"
n=$(metric "$T/pair.json" allocs_per_s blocks)
expect_match "with 6 blocks a side or more" "$n" \
    '^\[([6-9]|[1-9][0-9]+), ([6-9]|[1-9][0-9]+)\]$'
expect_match "the unit note names the unit" \
    "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["unit_note"])' "$T/pair.json")" \
    "unit: time block for [0-9]+ metrics"
# the table shows it too
"$DEVNET" compare 1 2 --db "$DB" >"$T/pair.txt" 2>&1
expect_match "the table's adj/unit column" "$(cat "$T/pair.txt")" \
    "allocs_per_s .* better .*x[0-9.]+s blk"
# the trial unit, asked for, cannot decide one trial a side
"$DEVNET" compare 1 2 --db "$DB" --unit trial --format json \
    >"$T/trial.json" 2>&1
expect_eq "--unit trial: allocs_per_s undecided" \
    "$(metric "$T/trial.json" allocs_per_s verdict)" undecided
expect_eq "--unit trial: decided by the trial" \
    "$(metric "$T/trial.json" allocs_per_s decided_unit)" trial
finish
