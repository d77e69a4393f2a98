#!/bin/bash
# logs.sh: `devnet logs RUN` (issue 37 item 4) prints a run's stored
# output without the user finding its run dir: every node's node-K.out
# under a '==> node K: PATH <==' line, one node's with --node, the
# command load's with --load; --follow prints what is added while the run
# goes on and returns by itself once the run has ended, with exactly the
# file's bytes.  Wrong node or run: exit 1 with what to do.
. "$(dirname "$0")/lib.sh"

mkdir -p "$RUNS"
# S DURATION: two foreign shell nodes that count, and a load that talks
s() {
	cat <<EOS
name: logs
duration: $1
sample_interval: 250ms
network: {nodes: 2}
node:
  command: [sh, -c, 'echo hello-{index}; i=0; while :; do i=\$((i+1));
    echo "line \$i of node {index}"; sleep 0.1; done']
  stop: {signal: TERM, grace: 1s}
workload:
  kind: command
  command: [sh, -c, 'echo load-says-hi; sleep 600']
  stop_grace: 1s
EOS
}
s 2s >"$T/s.yaml"
"$DEVNET" run "$T/s.yaml" --db "$DB" --run-dir "$RUNS" >/dev/null 2>&1
expect_eq "the run" "$?" 0

out=$("$DEVNET" logs 1 --db "$DB" 2>&1)
expect_eq "logs RUN exits 0" "$?" 0
expect_match "every node under its header" "$out" \
    "==> node 0: $RUNS/1-A/node-0.out <=="
expect_match "node 1 too" "$out" "==> node 1: $RUNS/1-A/node-1.out <=="
expect_match "node 0's own lines" "$out" "hello-0"
expect_match "node 1's own lines" "$out" "line [0-9]+ of node 1"
out=$("$DEVNET" logs --db "$DB" --node 1 1)
expect_eq "--node 1 is node-1.out, byte for byte" "$out" \
    "$(cat "$RUNS/1-A/node-1.out")"
out=$("$DEVNET" logs --db "$DB" --load 1)
expect_match "--load: the load's output" "$out" "^load-says-hi"
out=$("$DEVNET" logs --db "$DB" --node 2 1 2>&1)
expect_eq "--node 2 of 2 nodes: exit 1" "$?" 1
expect_match "... saying which exist" "$out" \
    "run 1 has 2 node\(s\): --node 0 to 1"
out=$("$DEVNET" logs --db "$DB" 9 2>&1)
expect_eq "no run 9: exit 1" "$?" 1
expect_match "... said" "$out" "no run 9 in '$DB' \(see 'devnet runs'\)"
out=$("$DEVNET" logs --db "$DB" 2>&1)
expect_eq "no run id: usage error" "$?" 2

# --follow while the run goes on: it returns by itself after the end
s 4s >"$T/f.yaml"
"$DEVNET" run "$T/f.yaml" --db "$DB" --run-dir "$RUNS" >/dev/null 2>&1 &
runpid=$!
wait_for 20 test -s "$RUNS/2-A/node-0.out" ||
	fail "run 2 never wrote node-0.out"
"$DEVNET" logs --db "$DB" --follow --node 0 2 >"$T/follow.out" 2>&1 &
fpid=$!
wait "$runpid"
expect_eq "run 2" "$?" 0
if wait_for 10 bash -c "! kill -0 $fpid 2>/dev/null"; then
	ok "--follow returned by itself once the run ended"
else
	fail "--follow still running 10 s after the run ended"
	kill "$fpid"
fi
wait "$fpid"
expect_eq "--follow exit 0" "$?" 0
cmp -s "$T/follow.out" "$RUNS/2-A/node-0.out" &&
	ok "--follow printed node-0.out whole, nothing twice" ||
	fail "--follow output differs from node-0.out: $(diff "$T/follow.out" "$RUNS/2-A/node-0.out" | head -5)"
n=$(grep -c "of node 0" "$T/follow.out")
[ "$n" -ge 3 ] && ok "--follow saw the run's lines ($n)" ||
	fail "--follow saw $n lines"
finish
