#!/bin/bash
# foreign.sh: foreign nodes (node.command, docs/foreign-nodes.md) end to
# end, shortened: db_bench A/B through devnet-probe (allocations through
# the shim, ops/s from its report line, devnet's direction = db_bench's);
# devnet-node-plain under the probe vs devnet-node's built-in counter
# (allocs/s per-call minus cached within 5 %); and a foreign node that
# dies, never gets ready, floods its output or leaves a grandchild: each
# ends its trial with a clear reason and nothing left running.
. "$(dirname "$0")/lib.sh"

command -v db_bench >/dev/null || { echo "SKIP: no db_bench (rocksdb-tools)"; exit 77; }
mkdir -p "$RUNS"

# --- 1. db_bench: A/B on ops/s ------------------------------------------
"$DEVNET" ab "$SCN/dbbench-cache-index.yaml" --db "$DB" --run-dir "$RUNS" \
    --set repeats=2 >"$T/ab.out" 2>"$T/ab.err"
check "db_bench ab exits 0" test $? -eq 0
check "ab compares ops_per_s" grep -q "^ops_per_s " "$T/ab.out"
check "ab compares micros_per_op" grep -q "^micros_per_op " "$T/ab.out"
check "allocations counted through the shim" grep -q "^allocs_per_s " "$T/ab.out"
# db_bench's own numbers, from its report lines in each trial's output
own() {
	cat "$RUNS"/*-"$1"/node-0.out | sed -n \
	    's/^readrandom *: *[0-9.]* micros\/op \([0-9]*\) ops\/sec.*/\1/p' |
	    awk '{ s += $1; n++ } END { if (n) printf "%.1f\n", s / n }'
}
a=$(own A); b=$(own B)
delta=$("$DEVNET" compare 1:A 1:B --db "$DB" --metric ops_per_s \
    --format csv | awk -F, 'NR == 2 { print $14 }')
echo "db_bench ops/s: A $a, B $b; devnet delta $delta %"
check "db_bench reported ops/s in both variants" test -n "$a" -a -n "$b"
check "devnet's direction agrees with db_bench's" awk -v a="$a" -v b="$b" \
    -v d="$delta" 'BEGIN { exit !((b - a) * d > 0) }'
check "no state check for foreign nodes (event)" test "$(sqlite3 "$DB" \
    "SELECT count(*) FROM events WHERE kind = 'state_check'")" -eq 4
check "exit expected recorded" test "$(sqlite3 "$DB" \
    "SELECT count(*) FROM events WHERE kind = 'exit'")" -eq 4

# --- 2. devnet-node under the probe vs its built-in counter ---------------
if sanitized; then
	# The shim is an LD_PRELOAD malloc; a sanitizer runtime must come
	# first and owns malloc itself, so neither counter runs here.
	skip "shim vs built-in counter: the allocation counters are off in" \
	    "this build (sanitizers replace malloc)"
else
	sed "s|build/bin/|$DN_BUILD_DIR/bin/|" "$SCN/devnet-node-probe.yaml" \
	    >"$T/dnp.yaml"
	"$DEVNET" run "$T/dnp.yaml" --db "$T/dnp.db" --run-dir "$RUNS" \
	    --set duration=10s --set warmup=3s >"$T/dnp.out" 2>"$T/dnp.err"
	check "devnet-node-probe runs" test $? -eq 0
	rate() {
		"$DEVNET" compare "$1" "$2" --db "$T/dnp.db" --metric allocs_per_s \
		    --format csv | awk -F, 'NR == 2 { printf "%.1f\n", $5 - $10 }'
	}
	builtin=$(rate 1 2); probe=$(rate 3 4)
	echo "allocs/s per-call minus cached: built-in $builtin, shim $probe"
	check "shim and built-in counter agree within 5 %" awk -v x="$builtin" \
	    -v y="$probe" 'BEGIN { d = (y - x) / x; if (d < 0) d = -d;
	    exit !(x > 1000 && d < 0.05) }'
fi

# --- 3. bad foreign nodes ----------------------------------------------
bad() {	# NAME YAML-NODE-SECTION: run, expect failure; prints the reason
	cat >"$T/$1.yaml" <<EOS
name: $1
duration: 20s
network: {nodes: 2}
workload: {kind: none}
node:
$2
EOS
	"$DEVNET" run "$T/$1.yaml" --db "$T/$1.db" --run-dir "$RUNS" \
	    --ready-timeout 3s >"$T/$1.out" 2>"$T/$1.err"
	echo $?
}
gone() {	# no process with MARK in its command line
	sleep 0.5
	! pgrep -f -- "$1" >/dev/null
}
rc=$(bad dies "  command: [sh, -c, 'sleep 1; echo bye; exit 3']")
check "a dying node fails the run" test "$rc" -eq 1
check "...naming node, status and log" grep -q "node [01] .*exit 3.*" "$T/dies.err"
check "...with the log tail" grep -q bye "$T/dies.err"

rc=$(bad hangs "  command: [sleep, '3172']
  ready: {tcp: '127.0.0.1:{port}'}")
check "a node never ready fails the run" test "$rc" -eq 1
check "...saying it was not ready" grep -q "not ready" "$T/hangs.err"
check "...and nothing left running" gone "sleep 3172"

rc=$(bad floods "  command: [sh, -c, 'yes flood-3173']
  log_limit: 1MiB")
check "a flooding node fails the run" test "$rc" -eq 1
check "...saying so" grep -q "flooded its output" "$T/floods.err"
check "...and nothing left running" gone "flood-3173"

rc=$(bad orphan "  command: [sh, -c, 'setsid sleep 3174 & sleep 1; exit 2']")
check "a node leaving a child fails the run" test "$rc" -eq 1
check "...and its child is gone" gone "sleep 3174"
pkill -f "sleep 3174" 2>/dev/null

# --- 4. a transfer workload with foreign nodes is refused ---------------
cat >"$T/wl.yaml" <<EOS
name: wl
duration: 5s
network: {nodes: 1}
workload: {kind: transfer, tps: 10}
node: {command: [sleep, '10']}
EOS
"$DEVNET" validate "$T/wl.yaml" >/dev/null 2>"$T/wl.err"
check "transfer + foreign refused" grep -q "wl.yaml:4:18: workload kind transfer needs devnet-node" "$T/wl.err"
finish
