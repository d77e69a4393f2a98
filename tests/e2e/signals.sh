# signals.sh: SIGINT and SIGTERM stop a run gracefully (exit 130 / 143, run
# marked interrupted, samples kept); SIGKILL of the orchestrator leaves no
# node alive within 2 s, and the next run on the same database works and
# shows the killed run as interrupted with its committed samples.
. "$(dirname "$0")/lib.sh"

long() {
	exec "$DEVNET" run "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
	    --set duration=60s --set warmup=0s "$@"
}
samples_of() {
	[ "$(q "select count(*) from samples where run_id = $1" 2>/dev/null)" -gt 0 ] 2>/dev/null
}

# new_run_with_samples PREV: a run newer than PREV exists and has samples
new_run_with_samples() {
	local r
	r=$(q "select coalesce(max(id), 0) from runs" 2>/dev/null) || return 1
	[ "${r:-0}" -gt "$1" ] && samples_of "$r"
}
last_run() {
	q "select coalesce(max(id), 0) from runs" 2>/dev/null || echo 0
}

for sig in INT TERM; do
	prev=$(last_run)
	long >"$T/out.$sig" 2>&1 &
	pid=$!
	wait_for 30 new_run_with_samples "$prev" ||
		fail "SIG$sig: no samples before the signal"
	run=$(q "select max(id) from runs")
	pids=$(node_pids "$run")
	kill -"$sig" "$pid"
	wait "$pid"
	rc=$?
	want=130
	[ "$sig" = TERM ] && want=143
	expect_eq "SIG$sig: exit status" "$rc" "$want"
	expect_eq "SIG$sig: run $run marked interrupted" \
	    "$(q "select status from runs where id = $run")" interrupted
	samples_of "$run" && ok "SIG$sig: samples kept" || fail "SIG$sig: samples lost"
	alive $pids && fail "SIG$sig: nodes still alive" || ok "SIG$sig: nodes stopped"
	expect_eq "SIG$sig: the second trial did not start" \
	    "$(q "select count(*) from runs where id > $run")" 0
done

prev=$(last_run)
long >"$T/out.KILL" 2>&1 &
pid=$!
wait_for 30 new_run_with_samples "$prev" || fail "SIGKILL: no samples"
run=$(q "select max(id) from runs")
pids=$(node_pids "$run")
[ -n "$pids" ] && ok "SIGKILL: nodes of run $run: $(echo $pids)" || fail "SIGKILL: no nodes"
before=$(q "select count(*) from samples where run_id = $run")
kill -KILL "$pid"
wait "$pid" 2>/dev/null
if wait_for 2 sh -c "! kill -0 $(echo $pids | tr ' ' ' ') 2>/dev/null"; then
	ok "SIGKILL: no node alive within 2 s"
else
	fail "SIGKILL: nodes alive 2 s after the orchestrator died"
	kill -9 $pids 2>/dev/null
fi
expect_eq "SIGKILL: run $run still says running" \
    "$(q "select status from runs where id = $run")" running
out=$("$DEVNET" run "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" \
    --set duration=2s --set warmup=0s --set repeats=1 2>&1)
rc=$?
expect_eq "next run on the same database exits 0" "$rc" 0
expect_match "it says it reaped the dead run" "$out" "interrupted"
expect_eq "SIGKILL: run $run now interrupted" \
    "$(q "select status from runs where id = $run")" interrupted
after=$(q "select count(*) from samples where run_id = $run")
[ "$after" -ge "$before" ] && [ "$before" -gt 0 ] &&
	ok "SIGKILL: committed samples readable ($before before, $after after)" ||
	fail "SIGKILL: samples $before before, $after after"
finish
