#!/bin/bash
# import.sh: `devnet import` through the CLI (docs/ci.md, "One history for
# a team"): a real run's file imported twice adds its runs once; --dry-run
# changes nothing; a file of schema version 1 comes in; a truncated file
# is refused with TEAM.db byte for byte as it was; and a `devnet run`
# writing TEAM.db while a large import runs loses nothing, nor does the
# import.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

TEAM="$T/team.db"
SYNTH="$DN_BUILD_DIR/bin/dn-store-synth"
tq() { sqlite3 -batch -noheader "$TEAM" "$1"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
run_short() {	# DB, seconds
	"$DEVNET" run "$SCN/smoke.yaml" --db "$1" --run-dir "$RUNS" --quiet \
	    --repeats 1 --set network.nodes=1 --set duration="$2"s \
	    --set warmup=500ms 2>&1
}

out=$(run_short "$DB" 2)
expect_eq "devnet run exits 0" "$?" 0
out=$("$DEVNET" import --db "$TEAM" "$DB" 2>&1)
expect_eq "import exits 0" "$?" 0
expect_match "it says what it added" "$out" "t.db: added 2 runs \(1 group, "
out=$("$DEVNET" import "$DB" --db "$TEAM" 2>&1)
expect_eq "the same file again exits 0" "$?" 0
expect_match "and adds nothing" "$out" "added 0 runs .*; 2 already here"
expect_eq "two runs, one group" \
    "$(tq 'SELECT count(*), count(DISTINCT ab_group) FROM runs')" "2|1"
expect_eq "uuids, digests and machines came along" \
    "$(tq 'SELECT group_concat(uuid || samples_digest || machine) FROM runs')" \
    "$(q 'SELECT group_concat(uuid || samples_digest || machine) FROM runs')"
expect_eq "every sample came along" \
    "$(tq 'SELECT count(*), total(value) FROM samples')" \
    "$(q 'SELECT count(*), total(value) FROM samples')"

# --dry-run and the previous schemas: the fixture is not changed.
FIX="$DN_SOURCE_DIR/tests/store/fixtures/schema-v1.db"
before=$(sha "$TEAM")
out=$("$DEVNET" import --db "$TEAM" --dry-run "$FIX" 2>&1)
expect_eq "--dry-run exits 0" "$?" 0
expect_match "--dry-run says what it would add" "$out" \
    "schema-v1.db: would add 4 runs \(1 group, 2064 samples"
tq 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
expect_eq "--dry-run changed no row" "$(tq 'SELECT count(*) FROM runs')" 2
out=$("$DEVNET" import --db "$TEAM" "$FIX" \
    "$DN_SOURCE_DIR/tests/store/fixtures/schema-v2.db" 2>&1)
expect_eq "importing version-1 and version-2 files exits 0" "$?" 0
expect_eq "their runs are in" "$(tq 'SELECT count(*) FROM runs')" 10
cmpa=$("$DEVNET" compare --db "$FIX" --format csv 1:A 1:B 2>&1)
cmpb=$("$DEVNET" compare --db "$TEAM" --format csv 2:A 2:B 2>&1)
expect_eq "an imported group compares as it did in its file" "$cmpb" "$cmpa"

# A truncated file: refused before TEAM.db is opened; not a byte changes.
"$SYNTH" --db "$T/big.db" --trials 2 --nodes 10 --seconds 300 \
    --batch 65536 >/dev/null 2>&1 || fail "dn-store-synth"
sqlite3 "$T/big.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
head -c $(($(stat -c %s "$T/big.db") / 2)) "$T/big.db" >"$T/cut.db"
tq 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
before=$(sha "$TEAM")
out=$("$DEVNET" import --db "$TEAM" "$T/cut.db" 2>&1)
expect_eq "a truncated file exits 1" "$?" 1
expect_match "and is named as corrupt" "$out" \
    "cut.db' is (not a devnet sqlite database or is )?corrupt"
expect_eq "TEAM.db is byte for byte as it was" "$(sha "$TEAM")" "$before"
out=$("$DEVNET" import --db "$T/none.db" "$T/cut.db" 2>&1)
[ ! -e "$T/none.db" ] && ok "no target is created for a refused file" ||
	fail "none.db created"
printf 'not a database\n' >"$T/junk.db"
out=$("$DEVNET" import --db "$TEAM" "$T/junk.db" "$DB" 2>&1)
expect_eq "a bad file among good ones exits 1" "$?" 1
expect_match "it names the bad one" "$out" "junk.db' is not a devnet sqlite"
expect_match "and imports the good one" "$out" "t.db: added 0 runs"

# A devnet run writing TEAM.db while a large import runs: both land whole.
run_short "$TEAM" 3 >"$T/run.out" 2>&1 &
runpid=$!
running_one() {
	[ "$(tq "SELECT count(*) FROM runs WHERE status = 'running'")" = 1 ]
}
wait_for 20 running_one && ok "the run has started" || fail "no run started"
out=$("$DEVNET" import --db "$TEAM" "$T/big.db" 2>&1)
expect_eq "the import beside a run exits 0" "$?" 0
# (the file's own count: dn-store-synth writes every node metric, so
# a new metric changes it)
expect_match "it added the big file" "$out" "big.db: added 4 runs \(1 group, $(sqlite3 -batch -noheader "$T/big.db" 'SELECT count(*) FROM samples') samples"
wait "$runpid"
expect_eq "the run beside the import exits 0" "$?" 0
expect_eq "both of its runs are ok" \
    "$(tq "SELECT count(*) FROM runs WHERE id > 10 AND status = 'ok' AND
    scenario = 'smoke'")" 2
for id in $(tq "SELECT id FROM runs WHERE scenario = 'smoke' AND id > 10"); do
	expect_samples_stored "run $id lost no sample" "$TEAM" "$id" 0
done
expect_eq "every sample of the big file is in" \
    "$(tq "SELECT count(*) FROM samples s JOIN runs r ON r.id = s.run_id
    WHERE r.scenario = 'synthetic'")" \
    "$(sqlite3 -batch -noheader "$T/big.db" 'SELECT count(*) FROM samples')"
finish
