# signals.sh: SIGINT, SIGTERM, SIGHUP (closed terminal) and SIGQUIT stop a
# run gracefully (exit 128 + signal, run marked interrupted with the
# signal's name, samples kept), SIGHUP not under nohup; a signal after the
# trials (during `devnet ab`'s comparison) ends devnet at once with 130;
# SIGKILL of the orchestrator leaves no node alive within 2 s, and the
# next run on the same database works and shows the killed run as
# interrupted with its committed samples.
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

for sig in INT TERM HUP QUIT; do
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
	want=$((128 + $(kill -l "$sig")))
	expect_eq "SIG$sig: exit status" "$rc" "$want"
	expect_eq "SIG$sig: run $run marked interrupted" \
	    "$(q "select status from runs where id = $run")" interrupted
	expect_eq "SIG$sig: the reason names it" \
	    "$(q "select reason from runs where id = $run")" "stopped by SIG$sig"
	samples_of "$run" && ok "SIG$sig: samples kept" || fail "SIG$sig: samples lost"
	alive $pids && fail "SIG$sig: nodes still alive" || ok "SIG$sig: nodes stopped"
	expect_eq "SIG$sig: the second trial did not start" \
	    "$(q "select count(*) from runs where id > $run")" 0
done

# nohup: an ignored SIGHUP stays ignored; SIGINT still stops the run.
prev=$(last_run)
nohup "$DEVNET" run "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --set duration=60s --set warmup=0s >"$T/out.nohup" 2>&1 &
pid=$!
wait_for 30 new_run_with_samples "$prev" || fail "nohup: no samples"
run=$(q "select max(id) from runs")
kill -HUP "$pid"
sleep 1
kill -0 "$pid" 2>/dev/null && ok "nohup: SIGHUP ignored" ||
	fail "nohup: SIGHUP stopped the run"
kill -INT "$pid"
wait "$pid"
expect_eq "nohup: SIGINT still stops it" "$?" 130
expect_eq "nohup: run $run stopped by SIGINT" \
    "$(q "select reason from runs where id = $run")" "stopped by SIGINT"

# A signal after the trials is not left pending while `devnet ab` compares.
# stdout is a full pipe, so devnet stops in its first write to it (the
# 'stored runs' line, after the last run is recorded): the signal arrives
# after every trial is over and before the comparison, deterministically.
mkfifo "$T/fifo"
exec 3<>"$T/fifo"
head -c 65536 /dev/zero >&3
"$DEVNET" ab "$SCN/smoke.yaml" --db "$T/ab.db" --run-dir "$RUNS" --quiet \
    --set duration=2s --set warmup=0s --repeats 1 >&3 2>"$T/err.ab" &
pid=$!
ended() {
	[ "$(sqlite3 -batch -noheader "$T/ab.db" "select count(*) from runs where status != 'running'" 2>/dev/null)" = 2 ]
}
wait_for 60 ended || fail "ab: the two runs did not end"
sleep 0.5
kill -INT "$pid"
dd bs=65536 count=1 iflag=fullblock <&3 >/dev/null 2>&1
wait "$pid"
rc=$?
rest=
while IFS= read -r -t 1 line <&3; do rest="$rest$line
"; done
exec 3>&-
expect_eq "ab: SIGINT after the trials: exit 130" "$rc" 130
expect_match "ab: the runs were stored" "$rest" "^stored runs 1 2 "
if printf '%s' "$rest" | grep -q " vs "; then
	fail "ab: compared anyway after SIGINT"
else
	ok "ab: no comparison after SIGINT"
fi
expect_match "ab: says why it stopped" "$(cat "$T/err.ab")" "stopped by a signal"
expect_eq "ab: both runs ok (the signal came after them)" \
    "$(sqlite3 -batch -noheader "$T/ab.db" "select group_concat(status) from runs")" "ok,ok"

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
# (a zombie is dead: the VM's init may reap it late; lib.sh's alive)
if wait_for 2 eval "! alive $(echo $pids)"; then
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
