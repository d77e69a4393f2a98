#!/bin/bash
# team.sh: one history for a team (docs/ci.md): three simulated machines
# write their own files (dn-store-synth --machine), taking turns in time,
# and `devnet import` merges them.  `history` refuses the mix and keeps
# each machine apart with --machine; a labelled series (no rev:, no
# commit) has its change point named by the labels; compare warns on
# different machine classes, and --fail-on refuses to pass them or a
# missing side with exit 6.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

SYNTH="$DN_BUILD_DIR/bin/dn-store-synth"
TEAM="$T/team.db"
M1=1111aaaa1111aaaa M2=2222bbbb2222bbbb M3=3333cccc3333cccc
synth() {	# MACHINE LABEL SEED VARIANT [EFFECT]
	"$SYNTH" --db "$T/$1.db" --machine "$1" --label "$2" --seed "$3" \
	    --variants "$4" ${5:+--effect "$5"} --trials 6 --nodes 2 \
	    --seconds 30 --warmup 5 >/dev/null 2>&1 || fail "synth $1 $2"
}
# v1 then v2 on each machine, the machines in turn: M1's v2 holds 30 %
# more memory; M2 never changes; M3 always holds 60 % more than M1's v1.
for label in v1 v2; do
	seed=$([ "$label" = v1 ] && echo 1 || echo 2)
	if [ "$label" = v1 ]; then synth $M1 v1 1$seed A
	else synth $M1 v2 1$seed B rss_bytes=30; fi
	synth $M2 "$label" 2$seed A
	synth $M3 "$label" 3$seed B rss_bytes=60
done
out=$("$DEVNET" import --db "$TEAM" "$T/$M1.db" "$T/$M2.db" "$T/$M3.db" 2>&1)
expect_eq "import of the three machines' files exits 0" "$?" 0
expect_eq "36 runs of three machines" \
    "$(sqlite3 "$TEAM" 'SELECT count(*), count(DISTINCT machine) FROM runs')" \
    "36|3"

out=$("$DEVNET" history --db "$TEAM" --scenario synthetic 2>&1)
expect_eq "history over three machines exits 1" "$?" 1
expect_match "and names the three classes" "$out" \
    "ran on 3 machine classes \($M1, $M2, $M3\).*--machine FP"

out=$("$DEVNET" history --db "$TEAM" --scenario synthetic --machine 1111 \
    --metric rss_max 2>&1)
expect_eq "history --machine 1111 exits 0" "$?" 0
echo "$out"
expect_match "it is M1's history only" "$out" \
    "^history of synthetic: 12 runs, 0 commits, 2 builds; time order"
expect_match "on M1" "$out" "^machine: $M1\$"
expect_match "the change point is named by the labels" "$out" \
    "^rss_max +label v1\.\.label v2 +6 .* worse"
expect_match "and its runs by their builds" "$out" \
    "runs [0-9]+ \(label v1\) -> [0-9]+ \(label v2\)"
json=$("$DEVNET" history --db "$TEAM" --scenario synthetic --machine $M1 \
    --metric rss_max --format json 2>&1)
expect_eq "the JSON has M1's 12 runs" \
    "$(printf '%s' "$json" | grep -o '"build":"label v[12]"' | wc -l)" 12
expect_match "and the builds of the change point" "$json" \
    '"build_before":"label v1","build_after":"label v2"'

out=$("$DEVNET" history --db "$TEAM" --scenario synthetic --machine $M2 \
    --metric rss_max 2>&1)
expect_eq "history --machine M2 exits 0" "$?" 0
expect_match "M2 never changed" "$out" "^no change points\.$"
out=$("$DEVNET" history --db "$TEAM" --scenario synthetic --machine $M3 \
    --metric rss_max 2>&1)
expect_match "nor did M3, 60 % above M1 all along" "$out" \
    "^no change points\.$"
out=$("$DEVNET" history --db "$TEAM" --scenario synthetic --machine 9999 \
    2>&1)
expect_eq "a machine with no runs exits 1" "$?" 1
expect_match "and says which there are" "$out" "ran on machine 9999"

# compare: M1's v1 group against M3's: a warning, and no pass with
# --fail-on.
g1=$(sqlite3 "$TEAM" "SELECT ab_group FROM runs WHERE machine = '$M1' AND
    label = 'v1' LIMIT 1")
g3=$(sqlite3 "$TEAM" "SELECT ab_group FROM runs WHERE machine = '$M3' AND
    label = 'v1' LIMIT 1")
out=$("$DEVNET" compare --db "$TEAM" --metric rss_max "$g1:A" "$g3:B" 2>&1)
expect_eq "compare across machines exits 0" "$?" 0
expect_match "and warns about the machine classes" "$out" \
    "runs differ in machine class: $M1 \(A runs .*\), $M3 \(B runs "
out=$("$DEVNET" compare --db "$TEAM" --metric rss_max --fail-on worse \
    "$g1:A" "$g3:B" 2>&1)
expect_eq "--fail-on across machines exits 6" "$?" 6
expect_match "it says why" "$out" "refuses to pass: the runs differ"
out=$("$DEVNET" compare --db "$TEAM" --metric rss_max --fail-on worse \
    "$g1:A" "$g1:B" 2>&1)
expect_eq "--fail-on with no runs on one side exits 6" "$?" 6
expect_match "and names the missing side" "$out" \
    "no runs of variant 'B' in group $g1 "
expect_match "and why it does not pass" "$out" \
    "refuses to pass: a side has no runs"
out=$("$DEVNET" compare --db "$TEAM" --metric rss_max "$g1:A" "$g1:B" 2>&1)
expect_eq "without --fail-on a missing side is an error (1)" "$?" 1
finish
