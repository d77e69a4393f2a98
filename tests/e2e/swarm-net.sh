# swarm-net.sh: the real network between a swarm's hosts, measured before
# any trial and stated (issue 39), on the two-host swarm of
# twohost-lib.sh (two network namespaces on this machine, one dockerd
# each; docs/testing.md, "Two hosts on one machine").  Two runs of
# smoke.yaml shortened, over tcp, spread (node 1 on h2):
#
#   - as the hosts are (a veth pair): devnet says the RTT between h2 and
#     this host on stderr, the trials carry it as node 1's facts
#     host_rtt_min_ms and host_rtt_median_ms and as a host_network event,
#     and nodes 0 and 2 (on this host: nothing to time) have no such fact;
#   - with 20 ms added to everything leaving h2 (dn-host-delay, devnet's
#     own emulator: this kernel has no netem): the stated minimum is the
#     first one plus 20 ms, within max(1 ms, 10 %), and every trial
#     runs (smoke.yaml's "nodes end in step" may fail there: exit 4).
#
# Nothing is left on either engine.  Exits 77 where the two hosts cannot
# be made (not root, no dockerd, ...).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/docker-lib.sh"
. "$(dirname "$0")/twohost-lib.sh"

# readiness is not the subject here: a shared machine may start slowly
SETS="--set duration=6s --set warmup=2s --set repeats=1 --ready-timeout 60s"
BASE=27100
TCP="--set network.listen=tcp --set network.tcp_base_port=$BASE"
ADD_MS=20
DPID=

# slow_down / speed_up: ADD_MS on everything that leaves h2 by dn0 (the
# rule before the emulator, and out again before it stops: fail-closed)
ipt2() { nsenter --net=/run/netns/"$TH_NS2" iptables -t mangle "$@"; }
slow_down() {
	"$DN_BUILD_DIR/bin/dn-host-delay" /run/netns/"$TH_NS2" 7 \
	    $((ADD_MS * 1000)) >"$T/delay.out" 2>&1 &
	DPID=$!
	wait_for 10 grep -q ready "$T/delay.out" || return 1
	ipt2 -A POSTROUTING -o dn0 -j MARK --set-mark 7 &&
	    ipt2 -A POSTROUTING -o dn0 -j NFQUEUE --queue-num 0
}
speed_up() {
	ipt2 -F POSTROUTING 2>/dev/null
	[ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
	DPID=
}

trap 'rc=$?; speed_up; dn_twohost_down; stop_dockerd; (exit $rc); cleanup' \
    EXIT
dn_twohost_up || finish

# rtt_min OUT: the minimum devnet stated for h2
rtt_min() {
	printf '%s\n' "$1" | sed -n "s/.*real network between host \
$TH_HOST2 ($TH_ADDR2) and this one ($TH_ADDR1): RTT min \
\\([0-9.]*\\) ms.*/\\1/p" | head -1
}
# within GOT WANT: |GOT - WANT| <= max(1, WANT / 10) (ms)
within() {
	awk -v g="$1" -v w="$2" 'BEGIN { t = w / 10; if (t < 1) t = 1;
	    d = g - w; if (d < 0) d = -d; exit !(d <= t) }'
}

out=$(devnet_h1 run "$SCN/smoke.yaml" --provider swarm $TCP $SETS \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "a run over two hosts as they are: exit 0" "$rc" 0
base=$(rtt_min "$out")
[ -n "$base" ] && ok "the real network h2 <-> h1 stated: RTT min $base ms" ||
	fail "no statement of the network between $TH_HOST2 and this host"
run=$(q "select min(id) from runs")
expect_eq "node 1 (on h2) carries it as a fact" \
    "$(q "select value from run_facts where run_id = $run and node = 1
    and key = 'host_rtt_min_ms'")" "$base"
expect_eq "... with its median" \
    "$(q "select count(*) from run_facts where run_id = $run and node = 1
    and key = 'host_rtt_median_ms' and value + 0 >= $base")" 1
expect_eq "nodes 0 and 2 (on this host) carry none" \
    "$(q "select count(*) from run_facts where run_id = $run and
    node in (0, 2) and key like 'host_rtt%'")" 0
expect_eq "every trial has the host_network event" \
    "$(q "select count(distinct run_id) from events where
    kind = 'host_network' and detail like 'host $TH_HOST2 %'")" \
    "$(q "select count(*) from runs")"
wait_for 15 nothing_left
expect_eq "nothing left on either engine" "$(left)" 0

slow_down || fail "cannot slow down h2's way out: $(cat "$T/delay.out")"
out=$(devnet_h1 run "$SCN/smoke.yaml" --provider swarm $TCP $SETS \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
speed_up
# 0, or 4: smoke.yaml's "nodes end in step" (height spread <= 1) may not
# hold with node 1 20 ms away on a loaded machine; what is checked here
# is the statement, and every trial ran (1 would be a failed trial)
case $rc in
0|4) ok "a run with $ADD_MS ms more from h2: every trial ran (exit $rc)" ;;
*) fail "a run with $ADD_MS ms more from h2: exit $rc, want 0 or 4" ;;
esac
expect_eq "... both trials stored ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 4
slow=$(rtt_min "$out")
want=$(awk -v b="${base:-0}" -v a=$ADD_MS 'BEGIN { print b + a }')
if [ -n "$slow" ] && within "$slow" "$want"; then
	ok "stated RTT min $slow ms = $base + $ADD_MS ms within max(1 ms, 10 %)"
else
	fail "stated RTT min '$slow' ms, want $want ms within max(1 ms, 10 %)"
fi
run=$(q "select max(id) from runs")
expect_eq "... and so is node 1's fact" \
    "$(q "select value from run_facts where run_id = $run and node = 1
    and key = 'host_rtt_min_ms'")" "$slow"
wait_for 15 nothing_left
expect_eq "nothing left on either engine" "$(left)" 0
finish
