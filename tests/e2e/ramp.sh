# ramp.sh: a load that ramps up from 0 TPS sends what the integral of its
# ramp says, on schedule: it once sent one transaction at t=0 and nothing
# more, and the run still ended ok.  Also how the load generator waits:
# sleeping at the default priority unless workload.realtime asks for
# SCHED_FIFO.
. "$(dirname "$0")/lib.sh"

# 0 -> 50 TPS over 2 s, then 50 TPS for 2 s: 2 x 25 + 2 x 50 = 150
# transactions, the last one due just before the end.
cat >"$T/ramp.yaml" <<'YAML'
name: ramp
duration: 4s
sample_interval: 500ms
network: {nodes: 2, block_interval: 100ms, accounts: 1000}
workload:
  kind: transfer
  tps: 50
  ramp: {from: 0, over: 2s}
YAML

"$DEVNET" run "$T/ramp.yaml" --db "$DB" --run-dir "$RUNS" --quiet >"$T/out" 2>&1
rc=$?
expect_eq "ramp from 0: exit 0" "$rc" 0
fact() {
	q "select value from run_facts where run_id = 1 and node = -1 and key = '$1'"
}
expect_eq "ramp from 0: the integral's count submitted" "$(fact tx_submitted)" 150
expect_eq "ramp from 0: all of them included" "$(fact tx_included)" 150
expect_eq "ramp from 0: target is the mean of the ramp" "$(fact target_tps)" 37.500
expect_eq "ramp from 0: no rate_missed" \
    "$(q "select count(*) from events where run_id = 1 and kind = 'rate_missed'")" 0
# The first half of the run (the ramp) gets a quarter of the load: 50 of
# 150 (intended times; the sample at 2 s counts those due before it).
half=$(q "select cast(value as int) from samples where run_id = 1 and node = -1 and metric_id = (select id from metrics where name = 'tx_submitted') and t_ms = 2000")
[ -n "$half" ] && [ "$half" -ge 45 ] && [ "$half" -le 55 ] &&
	ok "ramp from 0: $half submitted by 2 s (50 due)" ||
	fail "ramp from 0: submitted by 2 s: '$half', want about 50"
expect_eq "default wait: sleep" "$(fact loadgen_wait)" sleep
expect_eq "default priority: not real-time" "$(fact loadgen_realtime)" 0

"$DEVNET" run "$T/ramp.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --set duration=2s --set workload.realtime=true >"$T/out.rt" 2>&1
expect_eq "workload.realtime: exit 0" "$?" 0
expect_eq "workload.realtime: spins before each send" \
    "$(q "select value from run_facts where run_id = 2 and key = 'loadgen_wait'")" spin
rt=$(q "select value from run_facts where run_id = 2 and key = 'loadgen_realtime'")
denied=$(q "select count(*) from events where run_id = 2 and kind = 'realtime_denied'")
if [ "$rt" = 1 ] && [ "$denied" = 0 ]; then
	ok "workload.realtime: SCHED_FIFO granted"
elif [ "$rt" = 0 ] && [ "$denied" = 1 ]; then
	ok "workload.realtime: not allowed here, and said so"
else
	fail "workload.realtime: loadgen_realtime '$rt', realtime_denied $denied"
fi
finish
