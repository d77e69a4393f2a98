# seq-ab.sh: `devnet ab --until decided` on real devnets (issue 22;
# docs/statistics.md section 8).  readopts-idle shortened to 3 s trials,
# with B the per-call ReadOptions (~50% more allocations/s than cached A):
# the run stops early (before --max-trials) at `worse` with the design in
# the JSON, the --require not-worse gate fails (exit 3), the group stores
# the design, and `devnet compare` of the group the other way round says
# `better` with the same corrected p and says it is a sequential group.
# Usage errors of the new options exit 2 before anything runs.
. "$(dirname "$0")/lib.sh"

if sanitized; then
	echo "SKIP: the allocation counter is off in this build (sanitizers)"
	exit 77
fi
short="--set duration=3s --set warmup=1s --set sample_interval=250ms
    --set network.block_interval=100ms --set network.block_reads=200"

# shellcheck disable=SC2086
"$DEVNET" ab "$SCN/readopts-idle.yaml" --db "$DB" --run-dir "$RUNS" $short \
    --set variants.A.read_options=cached --set variants.A.write_options=cached \
    --set variants.B.read_options=per-call --set variants.B.write_options=per-call \
    --until decided --max-trials 16 --metric allocs_per_s \
    --require not-worse:5% --fail-on not-shown --format json \
    >"$T/w.json" 2>"$T/w.err"
rc=$?
expect_eq "B worse: the not-worse gate trips (exit 3)" "$rc" 3
grep -q "^devnet: look 1: 4 trials (2 per side, at most 8)" "$T/w.err" &&
	ok "progress after the first block" ||
	fail "no progress line: $(head -c 2000 "$T/w.err")"
grep -q "^devnet: stopping: decided" "$T/w.err" && ok "stopped: decided" ||
	fail "did not stop decided: $(tail -5 "$T/w.err")"
python3 - "$T/w.json" <<'PY' && ok "JSON: worse, stopped early, design" ||
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"][0]
s = d["sequential"]
assert m["name"] == "allocs_per_s" and m["verdict"] == "worse", m
assert m["p"] < 0.05 and m["test"] == "welch-seq", m
assert m["p"] > m["p_raw"], m   # corrected for the looks, not nominal
assert m["p_not_worse"] > 0.05, m
assert s["stopped"] == "decided" and s["stored"], s
assert s["max_trials_per_side"] == 8, s
n = s["looks"][-1]["trials_per_side"]
assert n < 8, s                                   # early
assert [l["trials_per_side"] for l in s["looks"]] == list(range(2, n + 1, 2))
assert abs(s["looks"][0]["bound_z"] - 4.877) < 0.01 or len(s["looks"]) < 5
assert 0 < s["alpha_spent"] < 0.05, s
PY
	fail "JSON: $(head -c 3000 "$T/w.json")"
runs=$(q "select count(*) from runs where status = 'ok'")
[ "$runs" -lt 16 ] && ok "ran $runs of at most 16 trials" ||
	fail "ran $runs trials"
expect_eq "every run stores the design" \
    "$(q "select count(distinct run_id) from run_facts where key = 'sequential' and node = -1")" \
    "$runs"
q "select value from run_facts where key = 'sequential' limit 1" |
	grep -q "^design=obf alpha=0.05 max_per_side=8 require=5 stop=decided limit=max-trials looks=2,4" &&
	ok "the fact names design, margin and looks" ||
	fail "fact: $(q "select value from run_facts where key = 'sequential' limit 1")"

# The stored group re-analysed: the same correction, and it says so.
# (compare judges the scenario's relative assertions too, issue 21: its
# "B allocates less" fails here, where B is per-call on purpose: exit 4)
"$DEVNET" compare --db "$DB" 1:B 1:A --metric allocs_per_s >"$T/c.txt" 2>&1
expect_eq "compare of the group exits 4 (the scenario's relative assertion fails)" "$?" 4
grep -q "^devnet: assert FAIL: B allocates less" "$T/c.txt" &&
	ok "compare names the failed relative assertion" ||
	fail "no relative assertion: $(cat "$T/c.txt")"
grep -q "^allocs_per_s .* better" "$T/c.txt" && ok "swapped: better" ||
	fail "swapped: $(cat "$T/c.txt")"
grep -q "^sequential group: .* looks (2, 4" "$T/c.txt" &&
	ok "compare says it is a sequential group" || fail "no note: $(cat "$T/c.txt")"
"$DEVNET" compare --db "$DB" 1:A 1:B --metric allocs_per_s --format json \
    >"$T/c.json" 2>/dev/null
python3 - "$T/w.json" "$T/c.json" <<'PY' && ok "compare: the same corrected p" ||
import json, sys
a, b = (json.load(open(f))["metrics"][0] for f in sys.argv[1:])
assert abs(a["p"] - b["p"]) < 1e-9 and b["verdict"] == "worse", (a, b)
PY
	fail "compare p differs"
"$DEVNET" report --db "$DB" 1:A 1:B --metric allocs_per_s -o "$T/r.html" \
    >/dev/null 2>&1 && grep -q "sequential group: " "$T/r.html" &&
	ok "report says it is a sequential group" || fail "report"

# Usage: checked before anything runs.
for bad in "--until soon" "--max-trials 3 --until decided" "--max-trials 8 --repeats 2" \
    "--until decided --repeats 4" "--until decided --budget 0s" \
    "--require worse:2"; do
	# shellcheck disable=SC2086
	"$DEVNET" ab "$SCN/readopts-idle.yaml" --db "$T/u.db" $bad \
	    >/dev/null 2>"$T/u.err"
	expect_eq "usage '$bad' exits 2" "$?" 2
done
[ ! -e "$T/u.db" ] && ok "no database for a usage error" || fail "u.db made"
finish
