# seq-aa.sh: `devnet ab --until decided` on an A/A (both variants cached
# ReadOptions, readopts-idle shortened to 3 s trials): never better or
# worse; with --require not-worse:10% --fail-on not-shown the gate passes
# (10 %: this 2-core machine, shared, spreads 3 s trials by up to 5 %)
# on evidence (exit 0, `not-worse` with its p below 0.05), and the runs
# stored say why it stopped (docs/statistics.md section 8); --budget stops
# at the block that would overrun it.
. "$(dirname "$0")/lib.sh"

if sanitized; then
	echo "SKIP: the allocation counter is off in this build (sanitizers)"
	exit 77
fi
# A/A contradicts the scenario's own `B allocates less` (its relative
# assertion would fail the run, exit 4): the copy runs without assert:.
sed '/^assert:/,$d' "$SCN/readopts-idle.yaml" >"$T/aa.yaml"
"$DEVNET" ab "$T/aa.yaml" --db "$DB" --run-dir "$RUNS" \
    --set duration=3s --set warmup=1s --set sample_interval=250ms \
    --set network.block_interval=100ms --set network.block_reads=200 \
    --set variants.A.read_options=cached --set variants.A.write_options=cached \
    --until decided --max-trials 24 --metric allocs_per_s \
    --require not-worse:10% --fail-on not-shown --format json \
    >"$T/aa.json" 2>"$T/aa.err"
rc=$?
expect_eq "A/A: the not-worse gate passes (exit 0)" "$rc" 0
python3 - "$T/aa.json" <<'PY' && ok "A/A: not-worse shown, never better/worse" ||
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"][0]
assert m["verdict"] in ("not-worse", "equivalent"), m
assert m["p_not_worse"] < 0.05, m
assert not m["significant"], m
assert d["sequential"]["stopped"] == "decided", d["sequential"]
PY
	fail "A/A JSON: $(head -c 3000 "$T/aa.json"; tail -20 "$T/aa.err")"
grep -Eq "allocs_per_s +(better|worse) " "$T/aa.err" &&
	fail "A/A: a look said better/worse: $(cat "$T/aa.err")" ||
	ok "A/A: no look said better or worse"
n=$(q "select count(*) from runs where status = 'ok'")
q "select value from run_facts where key = 'sequential' limit 1" |
	grep -q "stop=decided" && ok "A/A: stored stop=decided after $n trials" ||
	fail "A/A fact: $(q "select value from run_facts where key = 'sequential' limit 1")"

# --budget: no block that would end after it.  5 s is less than one block
# of 3 s trials, so the first look is the last: stopped "budget", exit 0
# (an undecided answer is not a failure without --fail-on).
"$DEVNET" ab "$T/aa.yaml" --db "$T/b.db" --run-dir "$RUNS" \
    --set duration=3s --set warmup=1s --set sample_interval=250ms \
    --set network.block_interval=100ms --set network.block_reads=200 \
    --set variants.A.read_options=cached --set variants.A.write_options=cached \
    --until decided --max-trials 16 --budget 5s --metric allocs_per_s \
    --format json >"$T/b.json" 2>"$T/b.err"
expect_eq "--budget: exits 0" "$?" 0
python3 - "$T/b.json" <<'PY' && ok "--budget: stopped after one block" ||
import json, sys
d = json.load(open(sys.argv[1]))
s = d["sequential"]
assert s["stopped"] == "budget", s
assert [l["trials_per_side"] for l in s["looks"]] == [2], s
assert d["metrics"][0]["verdict"] == "undecided", d["metrics"][0]
PY
	fail "--budget: $(head -c 2000 "$T/b.json"; tail -5 "$T/b.err")"
finish
