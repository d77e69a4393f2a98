#!/bin/bash
# assert-relative.sh: relative assertions (issue 21) judged by the verdict
# on a real per-call vs cached A/B (readopts-idle shortened to 3 s
# trials): the shipped "B allocates less" passes; the same claim with the
# variants swapped fails; on 1+1 trials the verdict cannot tell and says
# so (inconclusive, exit 5); rows, JUnit cases and exit statuses.
. "$(dirname "$0")/lib.sh"

if "$NODE" --help 2>&1 | grep -q "allocation counter: off"; then
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
finish
