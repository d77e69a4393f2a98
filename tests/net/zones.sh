# zones.sh: the issue's three zones under devnet run (issue 20): 6
# devnet-node nodes, eu [0, 1], us [2, 3], ap [4, 5]; default 2 ms, eu-us
# 80 ms jitter 5 ms, us-ap 120 ms jitter 10 ms loss 0.5 %, eu-ap 200 ms
# bandwidth 10 Mbit; a link event of 20 % loss on node 5.  Checked from
# the stored numbers: one-way latency per zone pair within max(1 ms, 10 %)
# of what was asked (link_proof), the event's loss within 2 points of 20 %
# (or 3.5 binomial standard deviations of the probes pooled, if wider)
# (link_proof over its links), the eu-ap rate within 10 % of 10 Mbit (a
# UDP flood across 0 -> 4 inside the run's own namespaces, counted at 4),
# and block_prop_ms and lag_ms at least the latency between the zones and
# above a loopback run of the same devnet.  A one-node devnet has no
# block_prop_ms rows (absent, not 0).  Needs root.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"
. "$DN_SOURCE_DIR/tests/net/netlib.sh"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: network namespaces need root"
	exit 77
fi

EVENT_AT=14	# s: the link event; the latencies are judged before it
cat >"$T/zones.yaml" <<YAML
name: zones-test
duration: 30s
warmup: 2s
sample_interval: 250ms
network:
  nodes: 6
  block_interval: 200ms
  accounts: 500
  zones: {eu: [0, 1], us: [2, 3], ap: [4, 5]}
  links:
    default: {latency: 2ms}
    eu-us: {latency: 80ms, jitter: 5ms}
    us-ap: {latency: 120ms, jitter: 10ms, loss: 0.5%}
    eu-ap: {latency: 200ms, bandwidth: 10Mbit}
events:
  - {at: ${EVENT_AT}s, action: link, nodes: [5], loss: 20%, for: 14s}
workload:
  kind: transfer
  tps: 40
YAML

# The eu-ap rate: while the run is in its link event (not the window the
# latencies are judged in), a 20 Mbit/s UDP flood from node 0's namespace
# to node 4's; node 4's side counts what the 10 Mbit class lets through.
cat >"$T/recv.py" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
s.bind(("10.99.4.2", 40404))
s.settimeout(8.0)
got = []
try:
    while True:
        n = len(s.recv(2048))
        got.append((time.monotonic(), n))
        s.settimeout(1.0)
except socket.timeout:
    pass
# steady state: skip the first second (the queue filling)
t0 = got[0][0] + 1.0 if got else 0
w = [(t, n) for t, n in got if t >= t0]
if len(w) < 100:
    print("too few packets: %d" % len(w)); sys.exit(1)
b = sum(n for _, n in w[1:])
print("%.3f" % (b * 8 / (w[-1][0] - w[0][0]) / 1e6))
PY
cat >"$T/send.py" <<'PY'
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
buf = b"x" * 1400
rate = 20e6 / 8 / len(buf)	# 20 Mbit/s of payload, twice the class
t0 = time.monotonic(); k = 0
while time.monotonic() - t0 < 4.0:
    due = t0 + k / rate
    now = time.monotonic()
    if due > now:
        time.sleep(due - now)
    s.sendto(buf, ("10.99.4.2", 40404)); k += 1
PY

# The run, and the rate flood inside it (zones_run).  A run whose proof
# failed because the link emulator itself let packets go late (devnet
# says "the machine was too busy for it": no real-time priority, or a
# stalled machine; CI under ASan, 2026-12-07) is run once more: a wrong
# delay is wrong every time, a busy machine seldom twice.
zones_run() {
	"$DEVNET" run "$T/zones.yaml" --db "$DB" --run-dir "$RUNS" >"$T/zones.out" 2>&1 &
	dpid=$!
	# trial time from the stored samples (committed every 250 ms)
	for _ in $(seq 600); do
		tm=$(q "select coalesce(max(t_ms), 0) from samples where run_id = (select max(id) from runs)" 2>/dev/null)
		[ "${tm:-0}" -ge $(((EVENT_AT + 1) * 1000)) ] && break
		sleep 0.1
	done
	ns=$(ip netns list | sed -n "s/^\(devnet-$dpid-[0-9-]*[0-9]\)-hub.*/\1/p" | head -1)
	rate=
	if [ -n "$ns" ]; then
		ip netns exec "$ns-n4" python3 "$T/recv.py" >"$T/rate" 2>&1 &
		rpid=$!
		sleep 0.3
		ip netns exec "$ns-n0" python3 "$T/send.py"
		wait $rpid
		rate=$(cat "$T/rate")
	fi
	wait $dpid
	rc=$?
	cat "$T/zones.out"
}
zones_run
if [ "$rc" -ne 0 ] && grep -q "the machine was too busy" "$T/zones.out"; then
	echo "zones run: the machine was too busy for the emulator; once more:"
	grep "failed:" "$T/zones.out"
	zones_run
fi
expect_eq "zones run: exit 0" "$rc" 0
run=$(q "select max(id) from runs")
echo "# $(q "select group_concat(key || ' ' || value, ', ') from run_facts
    where run_id = $run and key like 'net_emulator%'")"
expect_eq "zones run: ok (its own checks passed)" \
    "$(q "select status || coalesce(': ' || reason, '') from runs where id = $run")" ok

# one-way latency, every directed link of network.links (the nodes' and
# the load's; 7 endpoints: 42), asked against measured p50
expect_link_latency 42
pair() {	# pair NAME S D ASKED: the proof of S->D and D->S names ASKED
	for l in "$2->$3" "$3->$2"; do
		line=$(printf '%s\n' "$base" | grep "^network.links $l:")
		printf '%s\n' "$line" | grep -q "asked $4 ms one way" &&
			ok "$1 $l: $(printf '%s' "$line" | sed 's/.*; //')" ||
			fail "$1 $l: '$line', $4 ms asked"
	done
}
pair "eu inside" 0 1 2
pair "eu-us" 0 2 80
pair "us-ap" 3 5 120
pair "eu-ap" 1 4 200

# the link event: 20 % on node 5's links, pooled, within 2 points or 3.5
# binomial standard deviations, the wider (3,108 probes pooled in a
# release run, one deviation 0.7 point: a fixed 2 points fails about 1
# run in 200 by chance, and more with a sanitizer build's fewer probes)
ev=$(proofs link_proof | grep '^link event')
expect_eq "the link event's proof names node 5's 12 links (the load's 2)" \
    "$(printf '%s\n' "$ev" | grep -c 'measured')" 12
loss=$(printf '%s\n' "$ev" | awk '{
	for (i = 1; i <= NF; i++) {
		if ($i == "loss" && $(i - 1) ~ /%$/) { v = $(i - 1) }
		if ($i == "over") p = $(i + 1)
	}
	sub("%", "", v); lost += v * p; n += p } END {
	tol = 350 * sqrt(0.2 * 0.8 / n); if (tol < 2) tol = 2
	printf "%.2f %.2f %d", lost / n, tol, n }')
set -- $loss
awk -v l="$1" -v t="$2" 'BEGIN { exit !(l >= 20 - t && l <= 20 + t) }' &&
	ok "20% asked, $1% measured over node 5's links ($3 probes, within $2 points)" ||
	fail "link event loss $1%, 20% asked (within $2 points over $3 probes)"

# bandwidth: the flood's payload through the 10 Mbit class (1400 of each
# 1442 bytes the class counts are payload: 9.71 Mbit/s at most)
if [ -z "$ns" ]; then
	fail "no namespaces of devnet $dpid to flood"
else
	awk -v r="$rate" 'BEGIN { exit !(r >= 9.0 && r <= 11.0) }' &&
		ok "eu-ap 0->4: ${rate} Mbit/s of UDP payload through 10 Mbit" ||
		fail "eu-ap 0->4: '${rate}' Mbit/s, 10 asked"
fi
bw=$(proofs bandwidth_proof | grep '^0->4:')
expect_match "the class 0->4 had to hold packets back" "$bw" \
    "^0->4: [0-9]+ bytes in [0-9]+ packets through its class, [1-9][0-9]* waits"

# block propagation and lag against the same devnet on loopback
sed '/zones:/d; /links:/,/eu-ap:/d; /^events:/,/action: link/d; s/duration: 30s/duration: 12s/' \
    "$T/zones.yaml" >"$T/loop.yaml"
out=$("$DEVNET" run "$T/loop.yaml" --db "$DB" --run-dir "$RUNS" 2>&1)
expect_eq "loopback run: exit 0" "$?" 0
loop=$(q "select max(id) from runs")
expect_eq "loopback run has no network conditions" \
    "$(q "select count(*) from run_facts where run_id = $loop and key = 'net_conditions'")" 0
mean() {	# mean RUN NODE METRIC: steady state, before the link event
	q "select round(avg(value), 1) from samples s join metrics m on m.id = s.metric_id
	    where run_id = $1 and node = $2 and m.name = '$3'
	    and t_ms >= 2000 and t_ms < $((EVENT_AT * 1000))"
}
# expected block_prop_ms per node: the mean one-way latency from the
# other five proposers (round robin, one block in six each)
# (and ms of retransmissions: us and ap share the link with 0.5 % loss,
# where a lost segment of a block costs TCP's 200 ms timeout and a round
# trip, 440 ms, about 7 ms on a mean of some 60 blocks; under ASan node 5
# measured 144.4 against 128.4, 8 ms from the bound without it)
for spec in "0 eu 112.4 0" "1 eu 112.4 0" "2 us 80.4 15" "3 us 80.4 15" \
    "4 ap 128.4 15" "5 ap 128.4 15"; do
	set -- $spec
	z=$(mean "$run" "$1" block_prop_ms)
	l=$(mean "$loop" "$1" block_prop_ms)
	# at least the latency (the node's own time partly hides in it:
	# under ASan beside other tests, 79.5 for 80.4 with 12.4 on
	# loopback, so not latency + loopback), at most both and 15 %, and
	# two retransmissions where the zone has a lossy link
	awk -v z="$z" -v l="$l" -v e="$3" -v r="$4" 'BEGIN {
		exit !(z != "" && l != "" && z >= 0.85 * e &&
		z - l <= 1.15 * e + 5 + r) }' &&
		ok "node $1 ($2): block_prop_ms $z vs $l on loopback ($3 expected)" ||
		fail "node $1 ($2): block_prop_ms '$z' vs '$l' on loopback, $3 expected"
	zl=$(mean "$run" "$1" lag_ms)
	ll=$(mean "$loop" "$1" lag_ms)
	# lag_ms is a peak per interval (the farthest proposer's block),
	# so at least the mean propagation, and above loopback
	awk -v z="$zl" -v l="$ll" -v e="$3" 'BEGIN {
		exit !(z != "" && l != "" && z >= 0.85 * e && z > l) }' &&
		ok "node $1 ($2): lag_ms $zl vs $ll on loopback" ||
		fail "node $1 ($2): lag_ms '$zl' vs '$ll' on loopback, $3 at least expected"
done

# a one-node devnet: no block of another proposer ever arrives, so
# block_prop_ms is absent (no row), not 0
sed 's/nodes: 6/nodes: 1/; s/duration: 12s/duration: 3s/; s/warmup: 2s/warmup: 0s/' \
    "$T/loop.yaml" >"$T/one.yaml"
"$DEVNET" run "$T/one.yaml" --db "$DB" --run-dir "$RUNS" >/dev/null 2>&1
expect_eq "one node: exit 0" "$?" 0
one=$(q "select max(id) from runs")
expect_eq "one node: block_prop_ms absent (no rows), heights present" \
    "$(q "select sum(m.name = 'block_prop_ms') || '/' || (sum(m.name = 'height') > 5)
        from samples s join metrics m on m.id = s.metric_id where run_id = $one")" "0/1"

expect_eq "no namespace left" "$(left_ns "$dpid")" 0
finish
