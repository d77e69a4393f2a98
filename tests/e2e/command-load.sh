#!/bin/bash
# command-load.sh: a command load that reports (issue 37 item 3).  The
# command prints DN-LOAD lines (docs/scenarios.md, "The DN-LOAD lines")
# and devnet stores what they say as it stores its own loads' figures:
#
# 1. A python3 load of known figures: 10 requests every 100 ms, 9 ok and
#    1 failed, the 9 answered in 1.0, 1.1, ... 1.8 ms.  Stored: the
#    tx_* facts (included = 9 x failed, achieved = sent over the 4 s
#    window), the load's rows
#    (node -1) with tx_latency_p50_ms 1.4 and max 1.8 in every interval,
#    achieved_tps near 100; the progress line and summary show the rate;
#    compare has tx_latency_p99_ms and achieved_tps for the runs; one bad
#    line is said once (event load_report) and does not count.
# 2. A command that prints nothing: no load rows and no tx_* facts (never
#    0), fact load_report "not reported", progress and summary say "rate
#    not reported", never "0.0".
#
# Not here: the command's start, stop and exit status (net/etcd-net.sh,
# redis.sh).
. "$(dirname "$0")/lib.sh"

mkdir -p "$RUNS"
cat >"$T/load.py" <<'EOF'
import sys, time
sent = ok = err = 0
print("DN-LOAD sent=oops")      # a bad line: said once, not counted
sys.stdout.flush()
while True:
    sent += 10; ok += 9; err += 1
    lat = ",".join(str(1000 + 100 * i) for i in range(9))
    print("some other output of the load")
    print("DN-LOAD sent=%d ok=%d err=%d lat_us=%s" % (sent, ok, err, lat))
    sys.stdout.flush()
    time.sleep(0.1)
EOF
# S LOAD: a scenario of two idle foreign nodes under the load LOAD
s() {
	cat <<EOS
name: cmdload
duration: 4s
sample_interval: 500ms
network: {nodes: 2}
node:
  command: [sleep, '600']
  stop: {signal: TERM, grace: 1s}
workload:
  kind: command
  tps: 100
  command: $1
  stop_grace: 1s
variants:
  A:
  B:
EOS
}
s "[python3, -u, '$T/load.py']" >"$T/rep.yaml"
"$DEVNET" run "$T/rep.yaml" --db "$DB" --run-dir "$RUNS" >"$T/rep.out" \
    2>"$T/rep.err"
expect_eq "the reporting load runs (A, B)" "$?" 0

# --- 1. what the lines said is stored ----------------------------------
f() { q "select value from run_facts where run_id = $1 and node = -1
    and key = '$2'"; }
# M RUN METRIC AGG: AGG of the load's rows of METRIC
m() { q "select $3 from samples s join metrics m on m.id = s.metric_id
    where run_id = $1 and node = -1 and m.name = '$2'"; }
for run in 1 2; do
	inc=$(f $run tx_included)
	bad=$(f $run tx_failed)
	[ -n "$inc" ] && [ "$bad" -gt 10 ] && [ "$inc" -eq $((bad * 9)) ] &&
		ok "run $run: included $inc = 9 x failed $bad" ||
		fail "run $run: included '$inc', failed '$bad' (want 9:1)"
	expect_eq "run $run: load_report fact" "$(f $run load_report)" lines
	# the rate over the 4 s window, as for devnet's own loads (the
	# command's start-up counts: python3 takes a while)
	a=$(f $run achieved_tps)
	sent=$(f $run tx_submitted)
	awk -v a="$a" -v n="$sent" 'BEGIN { exit !(n > 100 &&
	    a > n / 4 * 0.95 && a < n / 4 * 1.05) }' &&
		ok "run $run: achieved_tps $a = $sent sent over 4 s" ||
		fail "run $run: achieved_tps '$a', want $sent / 4 s"
	expect_eq "run $run: every interval's p50 is 1.4 ms" \
	    "$(m $run tx_latency_p50_ms "count(*) > 3 and
	    min(value) = max(value) and abs(min(value) - 1.4) < 1e-9")" 1
	expect_eq "run $run: every interval's max is 1.8 ms" \
	    "$(m $run tx_latency_max_ms "count(*) > 3 and
	    abs(min(value) - 1.8) < 1e-9 and abs(max(value) - 1.8) < 1e-9")" 1
	expect_eq "run $run: achieved_tps rows near 100" \
	    "$(m $run achieved_tps "sum(value between 60 and 140) * 2 >=
	    count(*)")" 1
	expect_eq "run $run: the bad line said once" \
	    "$(q "select count(*) from events where run_id = $run and
	    kind = 'load_report' and detail like
	    '%sent: ''oops'' is not a count%'")" 1
done
expect_match "summary: the load's counts" "$(cat "$T/rep.out")" \
    "load: [0-9]+ submitted, [0-9]+ included, [0-9]+ failed, 0 pending, 0 not sent; achieved [0-9.]+ tx/s of 100.00"
expect_match "progress: the rate the lines said" "$(cat "$T/rep.err")" \
    "tps 100/[1-9][0-9]"
"$DEVNET" compare 1 2 --db "$DB" >"$T/cmp.out" 2>"$T/cmp.err"
expect_match "compare: the command's latency" "$(cat "$T/cmp.out")" \
    "tx_latency_p99_ms +1.8"
expect_match "compare: the command's rate" "$(cat "$T/cmp.out")" \
    "achieved_tps"

# --- 2. a command that prints nothing ----------------------------------
s "[sleep, '600']" >"$T/quiet.yaml"
"$DEVNET" run "$T/quiet.yaml" --db "$DB" --run-dir "$RUNS" \
    >"$T/quiet.out" 2>"$T/quiet.err"
expect_eq "the quiet load runs" "$?" 0
expect_eq "quiet: no load rows at all" "$(q "select count(*) from samples
    where run_id in (3, 4) and node = -1")" 0
expect_eq "quiet: no tx_* facts" "$(q "select count(*) from run_facts
    where run_id in (3, 4) and key like 'tx_%'")" 0
expect_eq "quiet: load_report not reported" "$(f 3 load_report)" \
    "not reported"
check "quiet: progress says the rate is not reported" \
    grep -q "tps rate not reported" "$T/quiet.err"
check "quiet: progress never shows 0.0" \
    bash -c "! grep -q 'tps [0-9]*/0.0' '$T/quiet.err'"
check "quiet: summary says so" grep -q \
    "load: command, rate not reported" "$T/quiet.out"
finish
