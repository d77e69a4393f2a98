# hostile.sh: hostile HTTP clients do not touch the trial.  The same
# one-variant trial (3 nodes, 200 tx/s, 250 ms samples) twice with
# --serve: alone for 20 s, then for 30 s with hostile.py's clients during
# it (1,000 idle connections, 20 slowloris, a 1 MiB URL twice a second,
# `..` paths; 12 s of attack after a set-up that took up to 6 s with
# other tests beside it: the longer trial keeps the server up for the
# "answers again" check after it).
# Both must have every sample (samples_received per node = the samples
# the duration holds, +1 or 2 for the final one; lost_samples 0) and the same send lag (median of
# send_lag_p99_us within 3x + 5 ms of the quiet run's: this machine is
# shared); the server closes idle connections (10 s timeout), answers a
# huge URL 414, serves no path outside its table (404, never a file), and
# answers again once the attack is over.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

cat >"$T/one.yaml" <<'YML'
name: hostile-serve
duration: 20s
warmup: 1s
sample_interval: 250ms
network:
  nodes: 3
  block_interval: 200ms
  accounts: 1000
workload:
  kind: transfer
  tps: 200
variants:
  A: {}
repeats: 1
YML

P=$(free_port)
URL="http://127.0.0.1:$P"
running() {
	curl -sf --max-time 2 "$URL/api/live" | grep -q '"state":"running"'
}
# trial LABEL HOSTILE DURATION: one run; with HOSTILE, hostile.py during it
trial() {
	check "$1: served" devnet_serve "$P" "$T/one.yaml" --label "$1" \
	    --set "duration=$3"
	check "$1: running" wait_for 30 running
	if [ "$2" = 1 ]; then
		python3 "$DN_SOURCE_DIR/tests/serve/hostile.py" "$P" 12 \
		    >"$T/hostile.json"
		check "the trial outlasts the attack (else lengthen it)" \
		    running
		check "the server answers again after the attack" \
		    wait_for 15 up "$URL/metrics"
	fi
	wait "$DN_PID"
	expect_eq "$1: devnet run exits 0" "$?" 0
}
trial quiet 0 20s
trial hostile 1 30s
cat "$T/hostile.json"

python3 - "$DB" "$T/hostile.json" >"$T/cmp.out" <<'PY'
import json, sqlite3, statistics, sys
db = sqlite3.connect(sys.argv[1])
h = json.load(open(sys.argv[2]))
for run in (1, 2):
    recv = sorted(int(v) for v, in db.execute("select value from run_facts"
        " where run_id = ? and key = 'samples_received' and node >= 0",
        (run,)))
    lost = sum(int(v) for v, in db.execute("select value from run_facts"
        " where run_id = ? and key = 'lost_samples'", (run,)))
    lag = [v for v, in db.execute("select value from samples s join"
        " metrics m on m.id = s.metric_id where run_id = ? and m.name ="
        " 'send_lag_p99_us' and t_ms >= 1000", (run,))]
    print("run", run, "received", recv, "lost", lost,
        "lag_median_us", round(statistics.median(lag)))
PY
cat "$T/cmp.out"
q1=$(sed -n 1p "$T/cmp.out" | sed 's/.*received \(\[[^]]*\]\).*/\1/')
q2=$(sed -n 2p "$T/cmp.out" | sed 's/.*received \(\[[^]]*\]\).*/\1/')
# Nodes sample until they are stopped, after the end-of-trial checks; in
# a sanitizer build (its allocation counter off) those took up to 7.5 s
# more (samples to t=27.5 s of a 20 s trial, 108-111 a node, with the
# other tests beside it), so there the count is not the duration's, and
# "no sample lost" below is the check (every sample a node sent, stored).
if sanitized; then
	ok "sanitizer build: samples per node $q1 and $q2 (not the duration's count here; lost below)"
else
	expect_match "the quiet run has every sample (20 s / 250 ms, +1 or 2)" \
	    "$q1" '^\[(8[0-3], ){2}8[0-3]\]$'
	expect_match "so has the run under attack (30 s)" "$q2" \
	    '^\[(12[0-3], ){2}12[0-3]\]$'
fi
expect_eq "no sample lost in either run" \
    "$(grep -c ' lost 0 ' "$T/cmp.out")" 2
lag1=$(sed -n 1p "$T/cmp.out" | awk '{print $NF}')
lag2=$(sed -n 2p "$T/cmp.out" | awk '{print $NF}')
# The send lag is a speed: a sanitizer build makes a thread per connection
# (1,000 of them in the flood) many times dearer, and there it only prints.
if sanitized; then
	ok "sanitizer build: send lag $lag1 us quiet, $lag2 us under attack"
else
	check "send lag with hostile clients ($lag2 us) within 3x + 5 ms of \
the quiet run's ($lag1 us)" [ "$lag2" -le $((lag1 * 3 + 5000)) ]
fi

out=$(python3 -c "import json, sys
h = json.load(open('$T/hostile.json'))
print('idle', h['idle'] >= 200, h['idle_closed'] >= h['idle'] - 5)
print('huge', sorted(h['huge']) in (['414'], ['414', 'closed'], ['closed']),
    h['huge'].get('414', 0) > 0)
print('dots', all(s == '404' and not leak for s, leak in
    h['dots'].values()))")
expect_match "1,000 idle connections: the server closed them" "$out" \
    'idle True True'
expect_match "a 1 MiB URL: 414" "$out" 'huge True True'
expect_match "'..' paths: 404, no file" "$out" 'dots True'
finish
