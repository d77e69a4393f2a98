#!/bin/bash
# schema.sh: the CLI on a version-1 database written by the previous
# release (fixtures/README.md).  runs, show, compare and query read it
# without changing it; a `devnet run` migrates it to the current version,
# once, and the old runs read the same afterwards (but for the uuid the
# migration gives each); `devnet query --timeout` stops a
# statement that would never end and says how to allow more.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

FIX="$DN_SOURCE_DIR/tests/store/fixtures/schema-v1.db"
cp "$FIX" "$DB" || exit 1

# Readers: everything answers, the file keeps every byte.
runs1=$("$DEVNET" runs --db "$DB" 2>&1)
expect_eq "devnet runs exits 0" "$?" 0
expect_match "devnet runs lists the four old runs" "$runs1" \
    "^ *4 +1 +smoke +A .* ok "
show1=$("$DEVNET" show --db "$DB" 1 2>&1)
expect_eq "devnet show exits 0" "$?" 0
expect_match "devnet show has the run" "$show1" "scenario +smoke"
cmp1=$("$DEVNET" compare --db "$DB" --format csv 1:A 1:B 2>&1)
expect_eq "devnet compare exits 0" "$?" 0
expect_match "devnet compare has a row per metric" "$cmp1" "^allocs_per_s,"
got=$("$DEVNET" query --db "$DB" --format csv \
    "SELECT count(*), count(git_commit) FROM run_summary" | tail -n 1)
expect_eq "new columns read as NULL" "$got" "4,0"
check "a reader leaves the file as it was" cmp -s "$FIX" "$DB"
expect_eq "still version 1" "$(q 'SELECT version FROM schema_version')" 1

# A writer migrates it, once.
run_short() {
	"$DEVNET" run "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
	    --repeats 1 --set network.nodes=1 --set duration=2s \
	    --set warmup=500ms 2>&1
}
out=$(run_short)
expect_eq "devnet run on the old file exits 0" "$?" 0
expect_match "it stored two runs" "$out" "stored runs 5 6 in"
expect_eq "version 6" "$(q 'SELECT version FROM schema_version')" 6
expect_eq "the steps are recorded" \
    "$(q 'SELECT from_version, to_version FROM schema_migrations
    ORDER BY id' | tr '\n' ' ')" "1|2 2|3 3|4 4|5 5|6 "
expect_eq "each old run has a uuid" \
    "$(q 'SELECT count(DISTINCT uuid) FROM runs WHERE id <= 4')" 4
# The last column of `devnet runs` is the uuid (NULL before migrating).
no_uuid() { sed -E 's/ +(NULL|uuid|[0-9a-f-]{36})$//'; }
runs2=$("$DEVNET" runs --db "$DB" 2>&1)
expect_eq "the old runs list the same" \
    "$(printf '%s\n' "$runs2" | head -n 5 | no_uuid)" \
    "$(printf '%s\n' "$runs1" | no_uuid)"
expect_eq "devnet show of an old run is the same" \
    "$("$DEVNET" show --db "$DB" 1 2>&1 | grep -v '^uuid ')" "$show1"
expect_eq "devnet compare of the old group is the same" \
    "$("$DEVNET" compare --db "$DB" --format csv 1:A 1:B 2>&1)" "$cmp1"
expect_eq "new nodes rows have their host" \
    "$(q 'SELECT count(*) FROM nodes n JOIN runs r ON r.id = n.run_id
    WHERE n.host = r.host')" 2
out=$(run_short)
expect_eq "a second devnet run exits 0" "$?" 0
expect_eq "migrating twice is a no-op" \
    "$(q 'SELECT count(*), max(version) FROM schema_version')|$(q \
    'SELECT count(*) FROM schema_migrations')" "1|6|5"

# --timeout: an unbounded recursive CTE stops.
t0=$(date +%s%N)
out=$(timeout 20 "$DEVNET" query --db "$DB" --timeout 1s "WITH RECURSIVE
    c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c" \
    2>&1)
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
expect_eq "query past --timeout exits 1" "$rc" 1
expect_match "and says how to allow more" "$out" \
    "query stopped after 1s \(--timeout DUR to allow more\)"
[ "$ms" -ge 1000 ] && [ "$ms" -lt 10000 ] &&
	ok "stopped after $ms ms" || fail "stopped after $ms ms, want ~1000"
out=$("$DEVNET" query --db "$DB" --timeout soon "SELECT 1" 2>&1)
expect_eq "a bad --timeout is a usage error" "$?" 2
finish
