#!/bin/bash
# import-hostile.sh: `devnet import` of hand-made, hostile files (issue 38;
# docs/security.md, "Files to import").  Each file is a copy of a real
# devnet database changed by tests/store/hostile-import.py: a metric
# without a name, metric ids of 250,000,000 and 2^31-1, a view in the
# place of `events` that never finishes, a run ending at 1e999, samples
# that are not what the run's digest says, a value that is not a number,
# two runs of one uuid, a file whose reading takes minutes, and a FIFO;
# and /api/runs of a run that ends at 1e999, as an older devnet imported
# it.
# Each is refused with a message that says why (or, for the ids, imported
# in little memory), quickly, with TEAM.db byte for byte as it was and
# never locked while the file is read.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"
. "$DN_SOURCE_DIR/tests/serve/lib.sh"

TEAM="$T/team.db"
SYNTH="$DN_BUILD_DIR/bin/dn-store-synth"
HOSTILE="$DN_SOURCE_DIR/tests/store/hostile-import.py"
sha() { sha256sum "$1" | cut -d' ' -f1; }
tq() { sqlite3 -batch -noheader "$TEAM" "$1"; }
mk() {	# CASE: $T/CASE.db from $T/src.db
	python3 "$HOSTILE" "$1" "$T/src.db" "$T/$1.db" ||
		fail "hostile-import.py $1"
}
# imp ARGS...: devnet import into TEAM.db (or $INTO), at most 30 s; $rc,
# $out, and $rss (KB, the import's peak)
imp() {
	out=$(/usr/bin/time -f 'rss=%M' -o "$T/time" timeout 30 \
	    "$DEVNET" import --quiet --db "${INTO:-$TEAM}" "$@" 2>&1)
	rc=$?
	rss=$(sed -n 's/.*rss=//p' "$T/time")
}
# refused CASE REGEX: CASE.db is refused (exit 1, REGEX in the message),
# TEAM.db as it was
refused() {
	local before
	before=$(sha "$TEAM")
	imp "$T/$1.db"
	expect_eq "$1: refused (exit 1)" "$rc" 1
	expect_match "$1: it says why" "$out" "$2"
	expect_eq "$1: TEAM.db is byte for byte as it was" "$(sha "$TEAM")" \
	    "$before"
}

"$SYNTH" --db "$T/src.db" --trials 2 --nodes 2 --seconds 20 >/dev/null \
    2>&1 || fail "dn-store-synth"
# TEAM.db: another file's runs, so that none of src.db's is here
"$SYNTH" --db "$TEAM" --trials 1 --nodes 1 --seconds 5 --seed 7 \
    >/dev/null 2>&1 || fail "dn-store-synth (team)"
"$DEVNET" import --quiet --db "$TEAM" "$T/src.db" --dry-run >/dev/null 2>&1
[ -e "$TEAM-wal" ] && fail "TEAM.db left a -wal"

for c in null-name id-250m id-max view-events end-inf fake-digest \
    text-value dup-uuid slow; do
	mk "$c"
done

# A metric without a name: was a segfault (exit 139).
refused null-name "metric id [0-9]+ has no name"
# A view that never finishes in the place of `events`: was 100 % CPU
# forever, holding TEAM.db's write lock.  Its SQL is never run.
refused view-events "'events' is a view, not a table"
# A run that ends at 1e999 (Inf): imported, it was invalid JSON in
# /api/runs.
refused end-inf "column 'end_ms' is inf, not a finite number"
# Samples of a run changed, its digest kept: the file claimed the run's
# identity for other samples.
refused fake-digest "run 1 \(uuid [0-9a-f-]{36}\) says its samples digest is [0-9a-f]{12} but its samples give [0-9a-f]{12}"
# A value that is not a number: the file passes sqlite's checks and only
# import's own look at the rows refuses it (it was imported as 0).
sqlite3 "$T/text-value.db" 'PRAGMA quick_check' | grep -qx ok &&
	ok "text-value: sqlite's quick_check finds nothing" ||
	fail "text-value: quick_check complains"
refused text-value "row [0-9]+ of table 'samples': column 'value' is not a number"
refused dup-uuid "runs 1 and 2 have one uuid, [0-9a-f-]{36}"

# Metric ids of 250,000,000 and 2^31-1: 988 MB and an 8 GiB abort, as
# the import mapped them through an array indexed by id.  Mapped by name
# now: imported in a few MB, each into a new database.
for c in id-250m id-max; do
	INTO="$T/new-$c.db" imp "$T/$c.db"
	expect_eq "$c: imported (exit 0)" "$rc" 0
	expect_match "$c: all of it" "$out" "added 4 runs"
	expect_eq "$c: its samples are under the metric's name" \
	    "$(sqlite3 -batch -noheader "$T/new-$c.db" "SELECT count(*) FROM
	    samples s JOIN metrics m ON m.id = s.metric_id WHERE m.name =
	    (SELECT name FROM metrics WHERE id = 0)")" \
	    "$(sqlite3 -batch -noheader "$T/$c.db" "SELECT count(*) FROM
	    samples WHERE metric_id = (SELECT max(id) FROM metrics)")"
	[ -n "$rss" ] && [ "$rss" -lt 102400 ] &&
		ok "$c: peak RSS ${rss} KB, under 100 MB" ||
		fail "$c: peak RSS '${rss}' KB (want under 100 MB)"
done

# A file that takes minutes to read (3,000 metrics' samples without a
# primary key): stopped at --time-limit, and TEAM.db is not locked
# meanwhile (the lock is taken only once the file is checked).
before=$(sha "$TEAM")
t0=$(date +%s%N)
"$DEVNET" import --quiet --db "$TEAM" --time-limit 4s "$T/slow.db" \
    >"$T/slow.out" 2>&1 &
imp_pid=$!
sleep 1
out=$(sqlite3 -cmd '.timeout 500' "$TEAM" 'BEGIN IMMEDIATE; CREATE TABLE
    probe (a); ROLLBACK;' 2>&1)
expect_eq "slow: TEAM.db can be written while the file is read" \
    "$?:$out" "0:"
wait "$imp_pid"
expect_eq "slow: refused (exit 1)" "$?" 1
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -lt 15000 ] && ok "slow: stopped after $ms ms" ||
	fail "slow: took $ms ms (limit 4 s)"
expect_match "slow: it names the time limit" "$(cat "$T/slow.out")" \
    "stopped at the time limit for reading it, 4 s"
expect_eq "slow: TEAM.db is byte for byte as it was" "$(sha "$TEAM")" \
    "$before"
out=$("$DEVNET" import --db "$TEAM" --time-limit 0 "$T/src.db" 2>&1)
expect_eq "--time-limit 0 is a usage error" "$?" 2

# A FIFO: sqlite's open would wait for a writer forever.
mkfifo "$T/fifo.db"
before=$(sha "$TEAM")
imp "$T/fifo.db"
expect_eq "fifo: refused (exit 1), not hung" "$rc" 1
expect_match "fifo: it says what it is" "$out" \
    "fifo.db' is not a regular file \(a FIFO\)"
expect_eq "fifo: TEAM.db is byte for byte as it was" "$(sha "$TEAM")" \
    "$before"

# Refusals that depend on TEAM.db (a run here with other samples), asked
# before it is opened for writing (which rewrites its header).
"$DEVNET" import --quiet --db "$TEAM" "$T/src.db" >/dev/null 2>&1 ||
	fail "importing src.db"
python3 "$HOSTILE" fake-digest "$T/src.db" "$T/other.db"
sqlite3 "$T/other.db" 'UPDATE runs SET samples_digest = NULL WHERE id = 1'
before=$(sha "$TEAM")
imp "$T/other.db"
expect_eq "other samples: refused (exit 1)" "$rc" 1
expect_match "other samples: it names the run" "$out" \
    "run 1 of '.*other.db' \(uuid [0-9a-f-]{36}\) is run [0-9]+ of '.*team.db' with other samples"
expect_eq "other samples: TEAM.db is byte for byte as it was" \
    "$(sha "$TEAM")" "$before"
# A file imported again: its runs are skipped, by uuid.
u1=$(sqlite3 -batch -noheader "$T/src.db" 'SELECT uuid FROM runs WHERE id = 1')
n=$(tq 'SELECT count(*) FROM runs')
out=$("$DEVNET" import --db "$TEAM" "$T/src.db" 2>&1)
expect_eq "again: exit 0" "$?" 0
expect_match "again: it names the runs already here" "$out" \
    "added 0 runs .*; 4 already here, skipped \(run $u1 and 3 more\)"
expect_eq "again: no run twice" \
    "$(tq 'SELECT count(*), count(DISTINCT uuid) FROM runs')" "$n|$n"

# A run with end_ms=1e999 that a devnet before this check imported (made
# here by hand): /api/runs says its duration is null, never a bare Inf
# (invalid JSON).
cp "$T/src.db" "$T/inf.db"
sqlite3 "$T/inf.db" 'UPDATE runs SET end_ms = 1e999 WHERE id = 1'
P=$(free_port)
"$DEVNET" serve --db "$T/inf.db" --serve "127.0.0.1:$P" >"$T/serve.out" 2>&1 &
srv=$!
if wait_for 20 up "http://127.0.0.1:$P/api/runs"; then
	out=$(curl -sf --max-time 5 "http://127.0.0.1:$P/api/runs" |
	    python3 -c 'import json, sys
def bad(c):
	raise ValueError("not JSON: " + c)
d = json.loads(sys.stdin.read(), parse_constant=bad)
r = [x for x in d["runs"] if x["id"] == 1][0]
print(r["duration_s"])' 2>&1)
	expect_eq "/api/runs: strict JSON, an infinite duration_s as null" \
	    "$out" "None"
else
	fail "devnet serve did not answer: $(cat "$T/serve.out")"
fi
kill "$srv"
wait "$srv" 2>/dev/null
finish
