# swarm-hosts.sh: `provider: swarm` over two hosts (issue 13), on the
# two-host swarm of twohost-lib.sh (two network namespaces on this
# machine, one dockerd each; docs/testing.md, "Two hosts on one
# machine").  Runs smoke.yaml shortened, over tcp, with placement: spread
# from devnet in h1's namespace (the manager's), and checks: both runs
# ok, the nodes on both hosts (nodes.host), every node metric for every
# node, exact transaction accounting, one state hash, and no service,
# container, network or volume with a devnet label left on either
# engine -- also after devnet is SIGKILLed mid-trial and a new run
# sweeps what it left.  Before those: the preflight on h2 refuses a run
# before any trial (nothing stored, nothing left) when a node port of h2
# is taken there, when h2 cannot reach the collector (iptables in h2's
# namespace), when devnet's image is not on h2, and when the run dir is
# on a filesystem h2 does not see (a tmpfs mounted here after h2's
# dockerd made its own mount namespace).
#
# Exits 77 where the two hosts cannot be made (not root, no dockerd, ...).
# The default dockerd is not used.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/docker-lib.sh"
. "$(dirname "$0")/twohost-lib.sh"

SETS="--set duration=6s --set warmup=2s --set repeats=1"
# in the hosts' own namespaces: no other test's ports there
BASE=27000
TCP="--set network.listen=tcp --set network.tcp_base_port=$BASE"

trap 'rc=$?; dn_twohost_down; stop_dockerd; (exit $rc); cleanup' EXIT
dn_twohost_up || finish

# --- the preflight on the other host (node 1 is h2's: ports BASE+2, +3)
nruns() { [ -f "$DB" ] && q "select count(*) from runs" || echo 0; }
# a listener on h2's address, in h2's namespace (nsenter execs python3:
# $! is the listener)
nsenter --net=/run/netns/"$TH_NS2" python3 -c '
import socket, sys, time
s = socket.socket()
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen()
time.sleep(120)' "$TH_ADDR2" $((BASE + 2)) &
lpid=$!
taken() { on_h2 python3 -c 'import socket, sys
s = socket.socket()
s.settimeout(1)
s.connect((sys.argv[1], int(sys.argv[2])))' "$TH_ADDR2" $((BASE + 2)) \
    2>/dev/null; }
wait_for 10 taken || fail "the listener on h2 never listened"
out=$(devnet_h1 run "$SCN/smoke.yaml" --provider swarm $TCP $SETS \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
kill "$lpid"
wait "$lpid" 2>/dev/null
expect_eq "a node port taken on h2: refused" "$rc" 1
expect_match "... saying which host and port" "$out" \
    "host $TH_HOST2 \\($TH_ADDR2\\) fails devnet's preflight: port \
$TH_ADDR2:$((BASE + 2)) is taken"
expect_eq "... before any run is stored" "$(nruns)" 0
wait_for 15 nothing_left
expect_eq "... with nothing left on either engine" "$(left)" 0

# the collector (h1's address, BASE + 2 * 3) unreachable from h2: a
# firewall there dropping what goes to it
COL=$((BASE + 6))
if command -v iptables >/dev/null 2>&1 &&
    nsenter --net=/run/netns/"$TH_NS2" iptables -A OUTPUT -p tcp \
    -d "$TH_ADDR1" --dport $COL -j DROP; then
	out=$(devnet_h1 run "$SCN/smoke.yaml" --provider swarm $TCP $SETS \
	    --db "$DB" --run-dir "$RUNS" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	nsenter --net=/run/netns/"$TH_NS2" iptables -D OUTPUT -p tcp \
	    -d "$TH_ADDR1" --dport $COL -j DROP
	expect_eq "the collector unreachable from h2: refused" "$rc" 1
	expect_match "... saying from where, and where to" "$out" \
	    "host $TH_HOST2 .* cannot reach the collector at $TH_ADDR1:$COL"
	expect_eq "... before any run is stored" "$(nruns)" 0
	wait_for 15 nothing_left
	expect_eq "... with nothing left on either engine" "$(left)" 0
else
	echo "note: no iptables in h2's namespace: collector check untested"
fi

dk2 image rm "$TH_IMAGE" >/dev/null
out=$(devnet_h1 run "$SCN/smoke.yaml" --provider swarm $TCP $SETS \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "devnet's image not on h2: refused" "$rc" 1
expect_match "... saying which image, host and what to do" "$out" \
    "image $TH_IMAGE \\(variant [^)]+\\) is not on host $TH_HOST2.*\
docker save $TH_IMAGE"
expect_eq "... before any run is stored" "$(nruns)" 0
wait_for 15 nothing_left
expect_eq "... with nothing left on either engine" "$(left)" 0
dk1 save "$TH_IMAGE" | dk2 load >/dev/null ||
	fail "cannot load the image on h2 again"

# a run dir h2 does not have: a tmpfs mounted after h2's dockerd took
# its private copy of the mount table (twohost-lib.sh: unshare --mount)
ONLY=$T/only-here
mkdir -p "$ONLY"
if mount -t tmpfs -o size=8m dn-only-here "$ONLY" 2>/dev/null; then
	mkdir "$ONLY/runs"
	out=$(devnet_h1 run "$SCN/smoke.yaml" --provider swarm $TCP $SETS \
	    --db "$DB" --run-dir "$ONLY/runs" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	umount "$ONLY"
	expect_eq "the run dir not on h2: refused" "$rc" 1
	expect_match "... saying which dir, which host and what to do" \
	    "$out" "the run directory $ONLY/runs is not on host $TH_HOST2.*\
shared filesystem"
	expect_eq "... before any run is stored" "$(nruns)" 0
	wait_for 15 nothing_left
	expect_eq "... with nothing left on either engine" "$(left)" 0
else
	echo "note: cannot mount a tmpfs: run dir check untested"
fi

# --- the runs

out=$(devnet_h1 run "$SCN/smoke.yaml" --provider swarm $TCP $SETS \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"

expect_eq "devnet run --provider swarm over two hosts exits 0" "$rc" 0
expect_match "the preflight on h2 passed" "$out" \
    "preflight on 1 other host\\(s\\) of the swarm: ok"
expect_eq "two runs stored, both ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 2
for run in $(q "select id from runs order by id"); do
	expect_eq "run $run: every node on $TH_HOST1 or $TH_HOST2" \
	    "$(q "select count(*) from nodes where run_id = $run and
	    host in ('$TH_HOST1', '$TH_HOST2')")" 3
	expect_eq "run $run: nodes on both hosts" \
	    "$(q "select count(distinct host) from nodes
	    where run_id = $run")" 2
	expect_node_metrics "$run"
	expect_tx_exact "$run"
	expect_eq "run $run: every submitted transaction included" \
	    "$(q "select value from run_facts where run_id = $run and
	    key = 'tx_included'")" \
	    "$(q "select value from run_facts where run_id = $run and
	    key = 'tx_submitted'")"
done
# the swarm removes a worker's containers a moment after their service
wait_for 15 nothing_left
expect_eq "nothing left on either engine after the runs" "$(left)" 0

# Kill devnet itself: its stack outlives it, on both hosts; the next run
# removes it.
# Not through devnet_h1: a function in the background is a subshell, not
# $!.  nsenter execs devnet (no pid namespace, so no fork): $! is devnet.
DOCKER_HOST=$TH_SOCK1 nsenter --net=/run/netns/"$TH_NS1" "$DEVNET" run \
    "$SCN/smoke.yaml" --provider swarm $TCP --set duration=60s \
    --set repeats=1 --db "$DB" --run-dir "$RUNS" --quiet >/dev/null 2>&1 &
dpid=$!
running() {
	# its stack is devnet-PID-RUN: its containers are named so
	[ $(( $(dk1 ps -q --filter name=devnet-$dpid- | wc -l) +
	    $(dk2 ps -q --filter name=devnet-$dpid- | wc -l) )) -ge 3 ]
}
wait_for 60 running || fail "the killed devnet's 3 containers never ran"
sleep 1
kill -9 "$dpid"
wait "$dpid" 2>/dev/null
n1=$(dk1 ps -q --filter label=devnet.owner | wc -l)
n2=$(dk2 ps -q --filter label=devnet.owner | wc -l)
[ "$n1" -ge 1 ] && [ "$n2" -ge 1 ] && [ $((n1 + n2)) = 3 ] &&
	ok "containers outlive a SIGKILLed devnet on both hosts ($n1 + $n2)" ||
	fail "containers after SIGKILL: h1 '$n1', h2 '$n2'"
out=$(devnet_h1 run "$SCN/smoke.yaml" --provider swarm $TCP \
    --set duration=2s --set warmup=1s --set repeats=1 \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "the next run exits 0" "$rc" 0
expect_match "the next run sweeps what the killed one left" "$out" \
    "removed [0-9]+ Docker object"
expect_eq "the next run's trials ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 4
wait_for 15 nothing_left
expect_eq "nothing left on either engine after the sweep" "$(left)" 0
finish
