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
echo ok
