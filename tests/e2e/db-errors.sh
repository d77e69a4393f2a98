# db-errors.sh: a database that is corrupt, locked, read-only, or on a full
# disk gives a clear error (before the run, or a clean stop with the run
# marked failed), never a crash, never lost data, nothing left running.
. "$(dirname "$0")/lib.sh"

run() {
	"$DEVNET" run "$SCN/smoke.yaml" --run-dir "$RUNS" --quiet \
	    --set repeats=1 --set warmup=0s "$@" 2>&1
}

head -c 65536 /dev/urandom >"$T/corrupt.db"
sum=$(sha256sum <"$T/corrupt.db")
out=$(run --db "$T/corrupt.db" --set duration=2s)
rc=$?
expect_eq "corrupt: exit 1" "$rc" 1
expect_match "corrupt: names the file" "$out" "corrupt.db"
expect_eq "corrupt: file untouched" "$(sha256sum <"$T/corrupt.db")" "$sum"

"$DEVNET" run "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --set duration=1s --set warmup=0s --set repeats=1 >/dev/null 2>&1
before=$(q 'select count(*) from runs')
(echo "BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS lockme(a);"; sleep 8) |
    sqlite3 "$DB" &
locker=$!
sleep 0.5
out=$(run --db "$DB" --set duration=2s)
rc=$?
kill "$locker" 2>/dev/null
wait "$locker" 2>/dev/null
expect_eq "locked: exit 1" "$rc" 1
expect_match "locked: says locked" "$out" "locked"
expect_eq "locked: earlier runs still there" "$(q 'select count(*) from runs')" "$before"

if mkdir -p "$T/ro" && mount -t tmpfs -o size=4m tmpfs "$T/ro" 2>/dev/null; then
	cp "$DB" "$T/ro/ro.db"
	mount -o remount,ro "$T/ro"
	out=$(run --db "$T/ro/ro.db" --set duration=2s)
	rc=$?
	expect_eq "read-only: exit 1" "$rc" 1
	expect_match "read-only: says read-only" "$out" "read-only|readonly"
	umount "$T/ro"

	mkdir -p "$T/full"
	mount -t tmpfs -o size=160k tmpfs "$T/full"
	out=$(run --db "$T/full/full.db" --set duration=30s)
	rc=$?
	printf '%s\n' "$out" | tail -3
	expect_eq "full disk: exit 1, no crash" "$rc" 1
	expect_match "full disk: says why" "$out" "full|disk|space"
	umount "$T/full"
else
	skip "read-only and full-disk cases: cannot mount a tmpfs here" \
	    "(needs root or CAP_SYS_ADMIN)"
fi
finish
