# verdict.sh: the proof of the statistics on real devnets.
# (1) A/A: the same build and options as A and B, 4 trials each: no metric
#     comes out significant.
# (2) per-call vs cached ReadOptions/WriteOptions on an idle devnet: heap
#     allocations/s significantly lower for cached (B), verdict `better`.
. "$(dirname "$0")/lib.sh"

# metric FILE NAME FIELD: one field of one metric from compare's JSON
metric() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
m = [m for m in d["metrics"] if m["name"] == sys.argv[2]][0]
print(m[sys.argv[3]] if not isinstance(m[sys.argv[3]], bool) else str(m[sys.argv[3]]).lower())' "$@"
}

# The A/A is the statistics' own proof, the same in every build; under
# a sanitizer (slower, and its allocation counter off) it is left to the
# release suite, which runs it, and only the idle A/B's "absent" runs.
if sanitized; then
	skip "A/A of 4+4 trials: statistics, run by the release suite"
else
cat >"$T/aa.yaml" <<YAML
name: aa
duration: 4s
warmup: 1s
sample_interval: 250ms
network: {nodes: 3, block_interval: 100ms, accounts: 500}
workload: {kind: transfer, tps: 30}
variants:
  A: {read_options: cached, write_options: cached}
  B: {read_options: cached, write_options: cached}
repeats: 4
YAML
"$DEVNET" ab "$T/aa.yaml" --db "$DB" --run-dir "$RUNS" --quiet --format json \
    >"$T/aa.json" 2>"$T/aa.err"
rc=$?
expect_eq "A/A: devnet ab exits 0" "$rc" 0
expect_eq "A/A: 8 runs, all ok" "$(q "select count(*) from runs where status = 'ok'")" 8
sig=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(m["name"] for m in d["metrics"] if m["significant"]))' "$T/aa.json")
n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["metrics"]))' "$T/aa.json")
[ "$n" -ge 20 ] && ok "A/A: $n metrics compared" || fail "A/A: only '$n' metrics compared"
expect_eq "A/A: no metric significant" "$sig" ""
fi

cat >"$T/idle.yaml" <<YAML
name: idle-readopts
duration: 4s
warmup: 1s
sample_interval: 250ms
network: {nodes: 4, block_interval: 100ms, accounts: 500, block_reads: 40}
workload: {kind: idle}
variants:
  A: {read_options: per-call, write_options: per-call}
  B: {read_options: cached, write_options: cached}
repeats: 4
YAML
# 4 trials per side, one summary per trial (the honest unit), and the one
# metric the change is about: a family of one, as a user testing this
# hypothesis would ask (docs/statistics.md, "How many trials?").
# Without an allocation counter (a sanitizer build) one trial a side
# shows all there is to see: allocs_per_s is absent, not 0.
counter_off=0
sanitized && counter_off=1
reps=()
[ $counter_off = 1 ] && reps=(--repeats 1)
"$DEVNET" ab "$T/idle.yaml" --db "$DB" --run-dir "$RUNS" --quiet --format json \
    --unit trial --metric allocs_per_s "${reps[@]}" \
    >"$T/idle.json" 2>"$T/idle.err"
rc=$?
if [ $counter_off = 1 ]; then
	# no counter, so allocs_per_s is not measured (absent, never 0):
	# a verdict on it alone has nothing to compare, and says so
	expect_eq "idle A/B without an allocation counter: devnet ab exits 1" "$rc" 1
	expect_match "and says there is nothing to compare" \
	    "$(cat "$T/idle.err")" "no samples to compare after warmup"
	skip "idle A/B allocs/s verdict: the allocation counter is off in" \
	    "this build (sanitizers replace malloc)"
else
	expect_eq "idle A/B: devnet ab exits 0" "$rc" 0
	expect_eq "idle A/B: allocs_per_s significant" "$(metric "$T/idle.json" allocs_per_s significant)" true
	expect_eq "idle A/B: cached is better" "$(metric "$T/idle.json" allocs_per_s verdict)" better
	d=$(metric "$T/idle.json" allocs_per_s delta_pct)
	awk -v d="$d" 'BEGIN { exit !(d < -5) }' && ok "idle A/B: allocs/s $d%" ||
		fail "idle A/B: allocs/s delta '$d'"
fi
finish
