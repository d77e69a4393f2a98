# history.sh: devnet history on synthetic runs with known commits
# (dn-store-synth --commit): a 30% step in allocations at a known commit
# is found there, written out of time order (git orders it), and nothing
# is found in a flat history; devnet report --history writes its page;
# and the CI gate: --fail-on exit 3 after the table, JUnit XML.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

SYNTH="$DN_BUILD_DIR/bin/dn-store-synth"
REPO=$T/repo
git -C "$T" init -q repo
for i in $(seq 1 12); do
	git -C "$REPO" -c user.name=devnet -c user.email=devnet@localhost \
	    commit -q --allow-empty -m "c$i"
done
git -C "$REPO" rev-list --reverse HEAD >"$T/commits"
c() { sed -n "${1}p" "$T/commits"; }

# synth DB SCENARIO I [EFFECT]: one run of commit I
synth() {
	"$SYNTH" --db "$1" --scenario "$2" --variants B --trials 1 \
	    --nodes 2 --seconds 20 --warmup 2 --seed "$3" --commit "$(c "$3")" \
	    ${4:+--effect "$4"} >/dev/null || fail "synth $2 $3"
}
# Commit 7 makes allocations 30% worse; commit 3's run is written last
# (benchmarked late): git's order, not time, must place it.
for i in 1 2 4 5 6 7 8 9 10 11 12 3; do
	eff=""
	[ "$i" -ge 7 ] && eff=allocs=30
	synth "$DB" step "$i" "$eff"
	synth "$DB" flat "$i"
done

out=$("$DEVNET" history --db "$DB" --scenario step --repo "$REPO" \
    --format csv)
echo "$out"
expect_eq "one change point in the step history" \
    "$(printf '%s\n' "$out" | tail -n +2 | wc -l)" 1
expect_match "on allocs_per_s, between commits 6 and 7, worse" "$out" \
    "^allocs_per_s,6,[0-9a-f]{10}\.\.[0-9a-f]{10},[0-9]+,[0-9]+,$(c 6),$(c 7),.*,worse,[0-9a-f]{10},[0-9a-f]{10}$"
# One number printer (issue 34): the change point's numbers in the CSV
# are the JSON's text of the same values, digit for digit.
"$DEVNET" history --db "$DB" --scenario step --repo "$REPO" \
    --format json >"$T/step.json"
printf '%s\n' "$out" >"$T/step.csv"
python3 - "$T/step.json" "$T/step.csv" <<'PY' && ok "csv numbers as json's" ||
import csv, json, sys
d = json.load(open(sys.argv[1]), parse_float=str, parse_int=str)
c = [m["change_points"][0] for m in d["metrics"] if m["change_points"]]
r = list(csv.DictReader(open(sys.argv[2])))
assert len(c) == len(r) == 1, (c, r)
for k in ("mean_before", "mean_after", "change_pct", "p"):
    assert r[0][k] == c[0][k], (k, r[0][k], c[0][k])
PY
    fail "history's csv prints a number unlike its json"
out=$("$DEVNET" history --db "$DB" --scenario step --repo "$REPO")
echo "$out"
expect_match "the table names the range" "$out" \
    "allocs_per_s +$(c 6 | cut -c1-10)\.\.$(c 7 | cut -c1-10) "
out=$("$DEVNET" history --db "$DB" --scenario flat --repo "$REPO" \
    --format csv)
expect_eq "no change point in the flat history" \
    "$(printf '%s\n' "$out" | tail -n +2 | wc -l)" 0
out=$("$DEVNET" history --db "$DB" --scenario step --metric allocs_per_s \
    --format json)
expect_match "json: falls back to time order without a repository" \
    "$out" '"order":"commits in the order of their first run'
printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' &&
    ok "json parses" || fail "json does not parse"
out=$("$DEVNET" history --db "$DB" 2>&1)
expect_eq "two scenarios and no --scenario: exit 1" "$?" 1
expect_match "it lists them" "$out" "'flat' \(12 runs\), 'step' \(12 runs\)"
out=$("$DEVNET" history --db "$DB" --scenario step --metric nope 2>&1)
expect_match "an unknown metric is named" "$out" "unknown metric 'nope'"

out=$("$DEVNET" report --history --db "$DB" --scenario step --repo "$REPO" \
    -o "$T/h.html")
expect_eq "report --history exits 0" "$?" 0
grep -q 'stroke="#dc2626"' "$T/h.html" && ok "the page marks the change" ||
    fail "no change point mark in the page"
grep -Eq "<code>$(c 6 | cut -c1-10)\.\.$(c 7 | cut -c1-10)</code>" \
    "$T/h.html" && ok "the page lists the suspect range" ||
    fail "no suspect range in the page"
! grep -Eq '(src|href)="(https?:)?//' "$T/h.html" && ok "nothing fetched" ||
    fail "the page fetches something"

# --- the CI gate ------------------------------------------------------------
G=$T/ab.db
# 6 trials a side: the synthetic effect moves the warmup window too, so
# the verdict asks more of it than of a steady state alone (issue 35's
# guard: docs/statistics.md, "Variance reduction"); at 4+4 with all 31
# metrics primary Holm left it undecided at p 0.054
"$SYNTH" --db "$G" --trials 6 --nodes 2 --seconds 20 --warmup 2 \
    --effect allocs=30 >/dev/null
out=$("$DEVNET" compare --db "$G" 1:A 1:B)
expect_eq "without --fail-on a worse metric exits 0" "$?" 0
out=$("$DEVNET" compare --db "$G" --fail-on worse 1:A 1:B 2>"$T/err")
expect_eq "--fail-on worse exits 3" "$?" 3
expect_match "after printing the whole table" "$out" "~: not significant"
expect_match "and says why" "$(cat "$T/err")" "--fail-on worse"
out=$("$DEVNET" compare --db "$G" --fail-on worse --metric rss_max 1:A 1:B)
expect_eq "--fail-on worse without a worse metric exits 0" "$?" 0
out=$("$DEVNET" compare --db "$G" --fail-on changed 1:A 1:B 2>/dev/null)
expect_eq "--fail-on changed exits 3" "$?" 3
out=$("$DEVNET" compare --db "$G" --fail-on better 1:A 1:B 2>&1)
expect_eq "--fail-on with a bad value is a usage error" "$?" 2
"$DEVNET" compare --db "$G" --format junit --fail-on worse 1:A 1:B \
    >"$T/j.xml" 2>/dev/null
expect_eq "junit with --fail-on exits 3" "$?" 3
if command -v xmllint >/dev/null; then
	xmllint --noout "$T/j.xml" && ok "junit is well-formed XML" ||
	    fail "junit is not well-formed"
fi
python3 - "$T/j.xml" <<'EOF2' && ok "junit: 31 test cases, the failure is allocs_per_s" || fail "junit structure"
import sys, xml.etree.ElementTree as ET
r = ET.parse(sys.argv[1]).getroot()
assert r.tag == "testsuites"
s = r.findall("testsuite")
# every compare metric of the synthetic runs (block_prop_ms_mean and
# _max since a4f5dee), all primary (synthetic runs store no
# compare_primary): 1 worse + 30 equivalent or undecided
assert len(s) == 1 and s[0].get("tests") == "31" and s[0].get("failures") == "1"
cases = s[0].findall("testcase")
assert len(cases) == 31
failed = [c.get("name") for c in cases if c.find("failure") is not None]
assert failed == ["allocs_per_s"], failed
EOF2
out=$("$DEVNET" compare --db "$G" --format markdown 1:A 1:B)
expect_match "markdown starts with a pull-request heading" \
    "$(printf '%s\n' "$out" | head -1)" \
    '^### :x: 1:A vs 1:B: 1 worse, 0 better, 30 equivalent or undecided \(primary\)$'
expect_match "and has the table" "$out" '^\| metric \| A \| B \|'
finish
