#!/bin/bash
# assert-relative.sh: relative assertions (issue 21) judged by the verdict
# on a real per-call vs cached A/B (readopts-idle shortened to 3 s
# trials): the shipped "B allocates less" passes; the same claim with the
# variants swapped fails; on 1+1 trials the verdict cannot tell and says
# so (inconclusive, exit 5); rows, JUnit cases and exit statuses; and
# `devnet compare` of the same sides judges them the same way (printed,
# exit 4/5, nothing stored).
. "$(dirname "$0")/lib.sh"

if sanitized; then
	echo "SKIP: the allocation counter is off in this build (sanitizers): it judges allocs_per_s"
	exit 77
fi

short="--set duration=3s --set warmup=1s --set sample_interval=250ms
    --set network.block_interval=100ms --set network.block_reads=200"
cp "$SCN/readopts-idle.yaml" "$T/ro.yaml"
cat >>"$T/ro.yaml" <<'YAML'
  - name: A allocates less
    relative: {metric: allocs_per_s, A_vs_B: "<= -10%"}
YAML
# shellcheck disable=SC2086
"$DEVNET" ab "$T/ro.yaml" --db "$DB" --run-dir "$RUNS" $short --repeats 3 \
    --metric allocs_per_s --format junit >"$T/ab.xml" 2>"$T/ab.err"
expect_eq "the swapped claim fails: exit 4" "$?" 4
row() { q "select count(*) || '|' || status || '|' || message from assertions
    where name = '$1' and run_id in (select id from runs where ab_group = $2)
    group by status, message"; }
expect_match "per-call (A) vs cached (B): B allocates less, shown" \
    "$(row 'B allocates less' 1)" \
    "^6\|pass\|B allocates less: allocs_per_s of 1:B vs 1:A: -[0-9.]+% \(95% CI -[0-9.]+%\.\.-[0-9.]+%, p [0-9.e-]+ after Holm, better, n 3\+3, MDE [0-9.]+%\); claim <= -10%: shown by the data$"
expect_match "swapped: A allocates less, the data show the opposite" \
    "$(row 'A allocates less' 1)" \
    "^6\|fail\|A allocates less: allocs_per_s of 1:A vs 1:B: \+[0-9.]+% .*claim <= -10%: the data show the opposite$"
expect_eq "the absolute one is judged per trial" \
    "$(q "select count(*) from assertions where name = 'chain advances' and status = 'pass'")" 6
expect_match "stderr says it" "$(cat "$T/ab.err")" \
    "devnet: assert FAIL: A allocates less: allocs_per_s of 1:A vs 1:B"
check "the JUnit file is XML" python3 -c \
    "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$T/ab.xml"
expect_match "JUnit: the relative failure beside the verdict" "$(cat "$T/ab.xml")" \
    "<testcase classname=\"devnet.assert.readopts-idle\" name=\"A allocates less \(run [0-9]+, relative\)\">"

# devnet compare judges them too (cmd/relative.c, the same code): each
# side mapped to the claim's variant by its runs, printed after the
# verdict, exit 4; nothing stored (compare is a reader).
rows_before=$(q "select count(*) || '|' || group_concat(status || message, '') from assertions")
"$DEVNET" compare 1:A 1:B --db "$DB" --metric allocs_per_s >"$T/cmp.out" 2>"$T/cmp.err"
expect_eq "compare: the swapped claim fails: exit 4" "$?" 4
expect_match "compare: the shipped claim passes, after the verdict" "$(cat "$T/cmp.out")" \
    "allocs_per_s .*
relative assertions of scenario 'readopts-idle' \(A = A, B = B\):
devnet: assert pass: B allocates less: allocs_per_s of 1:B vs 1:A: -[0-9.]+% \(95% CI -[0-9.]+%\.\.-[0-9.]+%, p [0-9.e-]+ after Holm, better, n 3\+3, MDE [0-9.]+%\); claim <= -10%: shown by the data
devnet: assert FAIL: A allocates less: allocs_per_s of 1:A vs 1:B: \+[0-9.]+% .*claim <= -10%: the data show the opposite
1 passed, 1 failed, 0 inconclusive, 0 not judged \(printed only; 'devnet ab' stores them\)$"
expect_eq "compare: the messages are ab's, word for word" \
    "$(grep '^devnet: assert' "$T/cmp.out" | sed 's/^devnet: assert [a-zA-Z]*: //' | sort)" \
    "$(q "select distinct message from assertions where form = 'relative'
    and run_id in (select id from runs where ab_group = 1) order by message")"
"$DEVNET" compare 1:B 1:A --db "$DB" --metric allocs_per_s >"$T/swap.out" 2>&1
expect_eq "compare B A: the sides are mapped by variant: exit 4" "$?" 4
expect_match "compare B A: the same verdict on the claim" "$(cat "$T/swap.out")" \
    "devnet: assert pass: B allocates less: allocs_per_s of 1:B vs 1:A: -"
"$DEVNET" compare 1:A 1:B --db "$DB" --metric allocs_per_s --format json \
    >"$T/cmp.json" 2>"$T/cmpj.err"
expect_eq "compare --format json: exit 4" "$?" 4
check "compare --format json: stdout is JSON alone" python3 -c \
    "import json,sys; json.load(open(sys.argv[1]))" "$T/cmp.json"
expect_match "compare --format json: the assertions on stderr" "$(cat "$T/cmpj.err")" \
    "devnet: assert FAIL: A allocates less"
"$DEVNET" compare 1:A 1:B --db "$DB" --metric allocs_per_s --fail-on changed \
    >/dev/null 2>"$T/gate.err"
expect_eq "compare --fail-on changed: the gate (3) takes precedence over 4" "$?" 3
expect_eq "compare stored nothing" \
    "$(q "select count(*) || '|' || group_concat(status || message, '') from assertions" | md5sum)" \
    "$(printf '%s\n' "$rows_before" | md5sum)"

# 1+1 trials: no interval, no verdict: inconclusive, never passed
# shellcheck disable=SC2086
"$DEVNET" ab "$SCN/readopts-idle.yaml" --db "$DB" --run-dir "$RUNS" $short \
    --repeats 1 --metric allocs_per_s --quiet >"$T/one.out" 2>&1
expect_eq "1+1 trials: inconclusive, exit 5" "$?" 5
expect_match "the message says the trials cannot tell" \
    "$(row 'B allocates less' 2)" \
    "^2\|inconclusive\|B allocates less: allocs_per_s of 2:B vs 2:A: .*n 1\+1.*claim <= -10%: the trials cannot tell"
expect_match "ab ends with every assertion of the group" "$(tail -n 4 "$T/one.out")" \
    "run [0-9]+: B allocates less: .*
3 passed, 0 failed, 1 inconclusive \(rows in the table assertions; devnet show RUN\)$"
"$DEVNET" compare 1:A 2:A --db "$DB" --metric allocs_per_s >"$T/aa.out" 2>&1
expect_eq "compare A A: no claim applies: exit 0" "$?" 0
expect_match "compare A A: says why" "$(cat "$T/aa.out")" \
    "devnet: assert not judged: B allocates less: it compares variants B and A; the sides are A and A"
"$DEVNET" compare 2:A 2:B --db "$DB" --metric allocs_per_s >"$T/cmp1.out" 2>&1
expect_eq "compare on 1+1 trials: inconclusive, exit 5" "$?" 5
expect_match "compare on 1+1: the trials cannot tell" "$(cat "$T/cmp1.out")" \
    "devnet: assert inconclusive: B allocates less: allocs_per_s of 2:B vs 2:A: .*claim <= -10%: the trials cannot tell"
"$DEVNET" compare 2:A 2:B --db "$DB" --metric allocs_per_s --format junit \
    >"$T/cmp1.xml" 2>"$T/cmp1.err"
expect_eq "compare --format junit on 1+1: exit 5" "$?" 5
expect_match "compare --format junit: the line for people on stderr" \
    "$(cat "$T/cmp1.err")" "devnet: assert inconclusive: B allocates less: "
check "compare --format junit: an inconclusive claim is a skipped case" \
    python3 - "$T/cmp1.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().findall("testsuite")
assert s[-1].get("name") == "relative assertions of scenario " \
    "'readopts-idle' (A = 2:A, B = 2:B)", s[-1].attrib
(c,) = s[-1].findall("testcase")
assert c.get("name") == "B allocates less (relative)", c.attrib
m = c.find("skipped").get("message")
assert m.startswith("inconclusive: B allocates less: allocs_per_s of 2:B vs 2:A: ") \
    and m.endswith("claim <= -10%: the trials cannot tell"), m
PY
finish
