# disk-full.sh: the disk under the database fills up in the middle of a
# run.  The run must end `failed` with the reason in runs.reason and in a
# `store_failed` event, every sample committed before stays readable,
# devnet says so and exits 1 (never "stored run"), the rest of the plan
# does not run, and no node is left.  Needs a small tmpfs (root); exit 77
# (skipped) where mounting is not allowed.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/full"
if ! mount -t tmpfs -o size=5m tmpfs "$T/full" 2>/dev/null; then
	echo "skip: cannot mount a tmpfs here"
	trap - EXIT
	rm -rf "$T"
	exit 77
fi
FDB="$T/full/f.db"
fq() {
	sqlite3 -batch -noheader "$FDB" "$1" 2>/dev/null
}

# devnet keeps ~1.1 MiB of the 5 in reserve for recording the end (one
# trial of 3 nodes at a time); 100 ms samples fill the rest in seconds.
"$DEVNET" run "$SCN/smoke.yaml" --db "$FDB" --run-dir "$RUNS" \
    --set repeats=1 --set warmup=0s --set duration=120s \
    --set sample_interval=100ms >"$T/out" 2>"$T/err" &
pid=$!
seen=0
n=0
while kill -0 "$pid" 2>/dev/null && [ "$n" -lt 900 ]; do
	c=$(fq "select count(*) from samples")
	[ -n "$c" ] && [ "$c" -gt "$seen" ] && seen=$c
	[ -z "${pids:-}" ] && pids=$(fq "select pid from nodes where run_id = 1")
	sleep 0.1
	n=$((n + 1))
done
if kill -0 "$pid" 2>/dev/null; then
	fail "devnet still running 90 s into a full disk"
	kill -INT "$pid"
fi
wait "$pid"
rc=$?
expect_eq "full disk: exit 1" "$rc" 1
expect_match "full disk: says the disk is full" "$(cat "$T/err")" "disk full"
expect_match "full disk: says the run is marked failed" "$(cat "$T/err")" \
    "marked failed"
if grep -q "stored run" "$T/out" "$T/err"; then
	fail "full disk: still says 'stored run'"
else
	ok "full disk: no 'stored run'"
fi
expect_eq "full disk: run 1 failed" "$(fq "select status from runs where id = 1")" failed
expect_match "full disk: reason in the run" \
    "$(fq "select reason from runs where id = 1")" "disk full"
expect_match "full disk: reason in the events" \
    "$(fq "select detail from events where run_id = 1 and kind = 'store_failed'")" \
    "disk full"
expect_eq "full disk: the end's facts recorded" \
    "$(fq "select count(*) > 0 from run_facts where run_id = 1 and key = 'tx_submitted'")" 1
expect_eq "full disk: the second trial never started" \
    "$(fq "select count(*) from runs")" 1
after=$(fq "select count(*) from samples where run_id = 1")
[ "$seen" -gt 0 ] && [ "${after:-0}" -ge "$seen" ] &&
	ok "full disk: committed samples kept ($seen seen, $after after)" ||
	fail "full disk: samples: $seen seen during the run, ${after:-none} after"
expect_eq "full disk: no reserve file left" "$(ls "$T/full" | grep -c reserve)" 0
[ -n "${pids:-}" ] && ok "full disk: nodes were $(echo $pids)" ||
	fail "full disk: no node pids"
alive $pids && fail "full disk: nodes still alive" || ok "full disk: no node left"
umount "$T/full" || umount -l "$T/full"
finish
