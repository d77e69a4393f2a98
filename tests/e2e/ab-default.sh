# ab-default.sh: `devnet ab` without a trial count runs until the primary
# metrics are decided (issue 35, item 6), on the shipped smoke scenario
# shortened to 3 s trials: it says so, prints after each block what is
# decided and what is left, never "about N more blocks" when every
# undecided primary metric is out of reach, and ends with allocations
# `better` (B reuses ReadOptions) inside the default cap, its `why` naming
# --max-trials.  A trial count (--repeats, `repeats:` or --set) keeps the
# fixed design.  And `devnet run --quiet` whose assertion fails exits 4
# and still prints the failed one and the counts (item 7).
. "$(dirname "$0")/lib.sh"

if sanitized; then
	echo "SKIP: the allocation counter is off in this build (sanitizers)"
	exit 77
fi
short="--set duration=3s --set warmup=1s --set sample_interval=250ms
    --set network.block_interval=100ms"

# The design each way of asking picks, before anything runs.
dry() {
	# shellcheck disable=SC2086
	"$DEVNET" ab "$SCN/smoke.yaml" --db "$T/dry.db" --dry-run "$@" 2>&1
}
expect_match "no count: until decided, at most 20 trials" "$(dry)" \
    "no --repeats: ABBA blocks until the primary metrics are decided, at most 20 trials within 30 min"
expect_match "no count: the dry run says so" "$(dry)" \
    "2 variant\(s\) until decided, at most 10 trial\(s\) each"
expect_match "--repeats 2 keeps the fixed design" "$(dry --repeats 2)" \
    "2 variant\(s\) x 2 trial\(s\)"
expect_match "--set repeats=3 is a count too" "$(dry --set repeats=3)" \
    "2 variant\(s\) x 3 trial\(s\)"
expect_match "--max-trials asks for the sequential design" \
    "$(dry --max-trials 8)" "until decided, at most 4 trial\(s\) each"
expect_match "a block longer than the default budget: fixed, and said" \
    "$(dry --set duration=10m)" \
    "one block of 4 trials would overrun the default budget of 30 min"
"$DEVNET" ab "$SCN/smoke.yaml" --db "$T/dry.db" --max-trials 8 --repeats 2 \
    >/dev/null 2>&1
expect_eq "--max-trials with --repeats: usage, exit 2" "$?" 2
[ ! -e "$T/dry.db" ] && ok "no database for a dry run" || fail "dry.db made"

# shellcheck disable=SC2086
"$DEVNET" ab "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" $short \
    --format json >"$T/d.json" 2>"$T/d.err"
expect_eq "devnet ab without --repeats exits 0" "$?" 0
runs=$(q "select count(*) from runs where status = 'ok'")
[ "$runs" -ge 4 ] && [ "$runs" -le 20 ] && [ $((runs % 4)) -eq 0 ] &&
	ok "$runs trials: whole blocks, within the default cap of 20" ||
	fail "ran $runs trials"
expect_eq "every run stores the design" \
    "$(q "select count(distinct run_id) from run_facts where key = 'sequential' and node = -1")" \
    "$runs"
python3 - "$T/d.err" "$T/d.json" "$runs" <<'PY' && ok "progress: decided and left after each block; the verdict" ||
import json, re, sys
err = open(sys.argv[1]).read().splitlines()
d = json.load(open(sys.argv[2]))
runs = int(sys.argv[3])
looks = [l for l in err if l.startswith("devnet: look ")]
states = [i for i, l in enumerate(err) if l.startswith("devnet: decided:")]
assert len(looks) == runs // 4 and len(states) == len(looks), (looks, states)
assert looks[0].startswith("devnet: look 1: 4 trials (2 per side, at most 10)")
for i in states:
    left = err[i].split("; left:")[1]
    nxt = err[i + 1]
    items = re.findall(r" ([a-z0-9_]+) \(([^)]*)\)", left)
    # out of reach everywhere: never "about N more blocks" after it
    if items and all("out of reach" in w or w == "A is 0" for _, w in items):
        assert not nxt.startswith("devnet: to a decision: about"), (err[i], nxt)
    if left.strip() == "none":
        assert nxt == "devnet: stopping: decided", nxt
s = d["sequential"]
assert s["stopped"] in ("decided", "futile"), s
assert s["max_trials_per_side"] == 10, s
stops = [l for l in err if l.startswith("devnet: stopping: ")]
assert len(stops) == 1, stops
if s["stopped"] == "futile":
    # no --budget given and 3 s trials: --max-trials bounded it
    assert s["why"] == "futile: deciding is out of reach within --max-trials", s
    assert stops[0].startswith("devnet: stopping: futile: no undecided "
                               "primary metric can be decided within "
                               "--max-trials"), stops
m = {m["name"]: m for m in d["metrics"]}
a = m["allocs_per_s"]
assert a["primary"] is True and a["verdict"] != "worse", a
# B reuses its ReadOptions: -27 % allocations, decided `better` on a
# machine of normal load (6+6 of 3 s trials); a machine at load 200
# spreads 3 s trials too far to decide anything in 10 per side, so only
# a decided design must have found it
if s["stopped"] == "decided" or a["verdict"] == "better":
    assert a["verdict"] == "better" and a["delta_pct"] < -10, a
    assert "allocs_per_s better" in d["headline"], d["headline"]
else:
    print("note: allocs_per_s undecided at %+.1f%% (loaded machine?)"
          % a["delta_pct"])
assert "same" not in d["headline"].split()
PY
	fail "progress or verdict: $(grep -v '^trial \|^  ' "$T/d.err" | tail -20)"
q "select value from run_facts where key = 'sequential' limit 1" |
	grep -q "^design=obf alpha=0.05 max_per_side=10 require=0 stop=[a-z]* limit=max-trials looks=2" &&
	ok "the fact: cap 10 per side, the max-trials limit" ||
	fail "fact: $(q "select value from run_facts where key = 'sequential' limit 1")"

# run --quiet: no progress, but the answer: the failed assertion, the
# counts, where the run is.
cat >"$T/q.yaml" <<YAML
name: quiet
duration: 2s
warmup: 500ms
sample_interval: 250ms
network: {nodes: 2, block_interval: 100ms, accounts: 100}
workload: {kind: idle}
assert:
  - {name: small heap, value: {each_node: rss_max < 1MiB}}
  - {name: chain moves, eventually: {all_nodes: height >= 2, during: [t=0, end]}}
YAML
"$DEVNET" run "$T/q.yaml" --db "$T/q.db" --run-dir "$RUNS" --quiet \
    >"$T/q.out" 2>"$T/q.err"
expect_eq "run --quiet with a failed assertion: exit 4" "$?" 4
expect_match "it says where the run is" "$(cat "$T/q.out")" \
    "^stored run 1 in $T/q.db"
expect_match "it prints the failed assertion" "$(cat "$T/q.err")" \
    "FAIL +run 1: small heap"
expect_match "and the counts" "$(cat "$T/q.err")" \
    "1 passed, 1 failed, 0 inconclusive"
grep -q "chain moves\|devnet: run 1: trial\|^trial " "$T/q.err" &&
	fail "quiet printed a passed assertion or progress: $(cat "$T/q.err")" ||
	ok "nothing passed and no progress"
finish
