#!/usr/bin/env bash
# workloads.sh: devnet-node's command line and side workloads, run as a
# user would: --help, usage errors (exit 2), readrandom's db_bench-format
# summary, cf-churn's summary and a restart over left-over column families,
# a bad --cf-options (exit 1).  Every node started here is killed on exit.
set -u
dir=$(mktemp -d /tmp/dn-wl-XXXXXX)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	rm -rf "$dir"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
. "$DN_SOURCE_DIR/tests/e2e/ports.sh"
node=devnet-node
common=(--nodes 1 --index 0 --net "$dir" --accounts 100 --block-interval 100)

$node --help | grep -q -- '--read-options cached|per-call' || fail "--help"
$node --help >/dev/null; [ $? -eq 0 ] || fail "--help exit status"
$node --index 0 --nodes 1 --dir "$dir/x" --net "$dir" --bogus 2>"$dir/err"
[ $? -eq 2 ] || fail "unknown flag is not exit 2"
grep -q "unknown option '--bogus'" "$dir/err" || fail "unknown flag message"
grep -q "devnet-node --help" "$dir/err" || fail "usage hint"
$node --index 3 --nodes 3 --dir "$dir/x" --net "$dir" 2>"$dir/err"
[ $? -eq 2 ] || fail "index out of range is not exit 2"
$node "${common[@]}" --dir "$dir/x" --read-options sometimes 2>"$dir/err"
[ $? -eq 2 ] && grep -q "expected cached or per-call" "$dir/err" ||
    fail "bad --read-options"

# readrandom: 3000 reads of 2000 bench keys, then stop.
$node "${common[@]}" --dir "$dir/rr" --workload readrandom --keys 2000 \
    --reads 3000 --read-options per-call >"$dir/rr.out" 2>&1 &
pids+=($!)
for i in $(seq 1 100); do
	grep -q DN-NODE-READY "$dir/rr/node.log" 2>/dev/null && break
	sleep 0.1
done
sleep 1
kill -TERM "${pids[-1]}"
wait "${pids[-1]}" || fail "readrandom node exit status"
grep -Eq '^readrandom   : +[0-9]+\.[0-9]{3} micros/op [0-9]+ ops/sec [0-9.]+ seconds 3000 operations; \(3000 of 3000 found\)$' \
    "$dir/rr.out" || { cat "$dir/rr.out"; fail "readrandom summary"; }
grep -q "DN-NODE-WORKLOAD readrandom" "$dir/rr/node.log" || fail "summary not logged"

# cf-churn: 2 cycles of 3 families; then a start on the same dir.
$node "${common[@]}" --dir "$dir/cf" --workload cf-churn --cf-count 3 \
    --cf-cycles 2 --cf-options 'write_buffer_size=1048576' \
    >"$dir/cf.out" 2>&1 &
pids+=($!)
sleep 2
kill -TERM "${pids[-1]}"
wait "${pids[-1]}" || fail "cf-churn node exit status"
grep -Eq '^cf-churn     : .* operations; \([0-9]+ cycles of 3 families, 0 errors\)$' \
    "$dir/cf.out" || { cat "$dir/cf.out"; fail "cf-churn summary"; }
$node "${common[@]}" --dir "$dir/cf" --workload idle >/dev/null 2>&1 &
pids+=($!)
sleep 1
kill -TERM "${pids[-1]}"
wait "${pids[-1]}" || fail "restart after cf-churn"

$node "${common[@]}" --dir "$dir/bad" --workload cf-churn --cf-count 2 \
    --cf-options 'no_such_thing=1' 2>"$dir/err"
[ $? -eq 1 ] || fail "bad --cf-options is not exit 1"
grep -q "bad column family options string 'no_such_thing=1'" "$dir/err" ||
    fail "bad --cf-options message"

# --peer-hosts: usage errors, then two nodes on 127.0.0.1 and 127.0.0.2
# (the whole of 127/8 is loopback).  Node 1 listens on 127.0.0.2 only, so
# node 0 is ready only if it dialled 127.0.0.2; given 127.0.0.3 for node
# 1 instead, node 0 never gets ready.
tcp=(--nodes 2 --accounts 100 --block-interval 100)
$node --index 0 "${tcp[@]}" --dir "$dir/p" --net "$dir" \
    --peer-hosts 127.0.0.1,127.0.0.2 2>"$dir/err"
[ $? -eq 2 ] && grep -q -- "--peer-hosts needs --tcp-base" "$dir/err" ||
    fail "--peer-hosts without --tcp-base"
$node --index 0 "${tcp[@]}" --dir "$dir/p" --tcp-base 30000 \
    --peer-hosts 127.0.0.1 2>"$dir/err"
[ $? -eq 2 ] && grep -q "lists 1 host(s) for 2 nodes" "$dir/err" ||
    fail "--peer-hosts with too few hosts"
$node --index 0 "${tcp[@]}" --dir "$dir/p" --tcp-base 30000 \
    --peer-hosts 127.0.0.1,10.0.0.1:80 2>"$dir/err"
[ $? -eq 2 ] && grep -q "bad host '10.0.0.1:80'" "$dir/err" ||
    fail "--peer-hosts with a port"
$node --help | grep -q -- '--peer-hosts H0,H1' || fail "--help: --peer-hosts"
# a free range of 4 ports
base=$(port_block 4) || exit 1
ready() {	# ready LOG: wait up to 10 s for DN-NODE-READY in LOG
	for _ in $(seq 1 100); do
		grep -q DN-NODE-READY "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
for k in 0 1; do
	$node --index $k "${tcp[@]}" --dir "$dir/p$k" --tcp-base $base \
	    --peer-hosts 127.0.0.1,127.0.0.2 --workload idle \
	    >"$dir/p$k.out" 2>&1 &
	pids+=($!)
done
ready "$dir/p0/node.log" && ready "$dir/p1/node.log" ||
    { cat "$dir"/p?.out; fail "--peer-hosts: two nodes not ready"; }
grep -q "in=tcp://127.0.0.2:$((base + 2)) ctl=tcp://127.0.0.2:$((base + 3))" \
    "$dir/p1/node.log" || fail "--peer-hosts: node 1's endpoints"
ss -Htln | grep -q " 127.0.0.2:$((base + 2)) " ||
    fail "--peer-hosts: node 1 does not listen on 127.0.0.2"
ss -Htn state established dst "127.0.0.2:$((base + 2))" | grep -q . ||
    fail "--peer-hosts: no connection to 127.0.0.2"
kill -TERM "${pids[-1]}" "${pids[-2]}"
wait "${pids[-1]}" && wait "${pids[-2]}" || fail "--peer-hosts: node exit"
# node 0 told that node 1 is at 127.0.0.3: it dials there, never ready
$node --index 1 "${tcp[@]}" --dir "$dir/q1" --tcp-base $base \
    --peer-hosts 127.0.0.1,127.0.0.2 --workload idle >/dev/null 2>&1 &
pids+=($!)
$node --index 0 "${tcp[@]}" --dir "$dir/q0" --tcp-base $base \
    --peer-hosts 127.0.0.1,127.0.0.3 --workload idle >/dev/null 2>&1 &
pids+=($!)
ready "$dir/q1/node.log" || fail "--peer-hosts: node 1 not ready"
sleep 2
grep -q DN-NODE-READY "$dir/q0/node.log" &&
    fail "--peer-hosts: node 0 ready with node 1 at the wrong address"
kill -TERM "${pids[-1]}" "${pids[-2]}"
wait "${pids[-1]}"; wait "${pids[-2]}"

# Two hosts, two clocks: node 1's CLOCK_MONOTONIC an hour ahead (a time
# namespace).  Blocks carry their proposer's time; read as ours, the
# next proposal would be due at once (about 10,000 blocks in 3 s here)
# and the delays an hour.  On --peer-hosts' other host, a peer's block
# times are moved onto our clock: 100 ms blocks, delays of milliseconds.
if unshare --time --monotonic 3600 true 2>/dev/null; then
	for k in 0 1; do
		skew=()
		[ $k = 1 ] && skew=(unshare --time --monotonic 3600)
		"${skew[@]}" $node --index $k "${tcp[@]}" --dir "$dir/s$k" \
		    --tcp-base $base --peer-hosts 127.0.0.1,127.0.0.2 \
		    --workload idle >/dev/null 2>&1 &
		pids+=($!)
	done
	ready "$dir/s0/node.log" || fail "two clocks: node 0 not ready"
	sleep 3
	kill -TERM "${pids[-1]}" "${pids[-2]}"
	wait "${pids[-1]}"; wait "${pids[-2]}"
	blocks=$(grep -c DN-NODE-BLOCK "$dir/s0/node.log")
	delay=$(cat "$dir"/s?/node.log | grep -o 'delay_ms=[0-9]*' |
	    cut -d= -f2 | sort -n | tail -1)
	[ "$blocks" -ge 20 ] && [ "$blocks" -le 60 ] ||
		fail "two clocks: $blocks blocks in ~3.5 s at 100 ms"
	[ "${delay:-0}" -lt 1000 ] || fail "two clocks: a delay of $delay ms"
else
	echo "two clocks: skipped (no time namespaces here)"
fi
echo ok
