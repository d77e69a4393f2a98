#!/bin/bash
# alloc.sh: the allocation shim with every allocator a dynamic program may
# use (issue 25).  tests/probe/alloc-known.c, built per allocator (glibc,
# jemalloc, tcmalloc, mimalloc), makes a known number of allocations from
# its main thread, two threads, a fork child and a dlopen'ed library,
# through every entry point; devnet-probe --count-allocs must report them
# within 1 % (never fewer) and name the allocator.  Then Debian's
# redis-server (linked to jemalloc) must survive the shim and answer PING;
# and devnet compare must not compare glibc's counts with jemalloc's.
# Skipped (77) only when a package is missing: tools/install-deps.sh
# installs them all.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

PROBE="$DN_BUILD_DIR/bin/devnet-probe"

# The shim is an LD_PRELOAD malloc; a sanitizer runtime must come first and
# owns malloc itself (its programs refuse to start behind another preload),
# so this build has nothing for the shim to count.
if sanitized; then
	echo "SKIP: the allocation counters are off in this build" \
	    "(sanitizers replace malloc)"
	exit 77
fi
SINK="$DN_BUILD_DIR/bin/dn-probe-sink"
LIB="$DN_BUILD_DIR/lib/dn-alloc-known-lib.so"

metric() {
	grep '^SAMPLE' "$2" | sed -n "s/.* $1=\([^ ]*\).*/\1/p" | tail -1
}
run_sink() {
	URL="ipc://$T/$1.sock"
	"$SINK" "$URL" 20000 >"$T/$1.sink" &
	SINK_PID=$!
	sleep 0.2
}
# within MEASURED KNOWN: KNOWN <= MEASURED <= KNOWN * 1.01
within() {
	awk -v m="$1" -v k="$2" 'BEGIN { exit !(m >= k && m <= k * 1.01) }'
}

# --- a known number of allocations, per allocator ----------------------
for a in glibc jemalloc tcmalloc mimalloc; do
	B="$DN_BUILD_DIR/bin/dn-alloc-known-$a"
	if [ ! -x "$B" ]; then
		skip "$a: not built (its -dev package is missing:" \
			"tools/install-deps.sh)"
		continue
	fi
	flags=""
	# jemalloc has no pvalloc: a program linked to it gets glibc's, whose
	# block jemalloc's free would not know (with or without the shim).
	[ "$a" = jemalloc ] && flags="--no-pvalloc"
	run_sink "$a"
	"$PROBE" --metrics "$URL" --sample-interval 100 --count-allocs \
		--out "$T/$a.out" -- "$B" --rounds 2000 --lib "$LIB" \
		--sleep 600 $flags 2>"$T/$a.err"
	rc=$?
	wait "$SINK_PID"
	expect_eq "$a: the program ran to its end under the shim" "$rc" 0
	known=$(sed -n 's/^KNOWN allocs=\([0-9]*\) .*/\1/p' "$T/$a.out")
	knownf=$(sed -n 's/^KNOWN .*frees=\([0-9]*\) .*/\1/p' "$T/$a.out")
	got=$(metric allocs "$T/$a.sink")
	gotf=$(metric frees "$T/$a.sink")
	if [ -n "$known" ] && within "$got" "$known"; then
		ok "$a: allocs $got for $known made (within 1 %)"
	else
		fail "$a: allocs '$got' for '$known' made"
		sed -n 1,20p "$T/$a.err" "$T/$a.out"
	fi
	if [ -n "$knownf" ] && within "$gotf" "$knownf"; then
		ok "$a: frees $gotf for $knownf made (within 1 %)"
	else
		fail "$a: frees '$gotf' for '$knownf' made"
	fi
	expect_match "$a: the allocator is named" \
		"$(grep DN-PROBE-ALLOC "$T/$a.err")" "source=malloc \\($a\\)"
done

# --- a dynamic program with its own malloc: not measured, never 0 ------
# (issue 37 #7: the shim once compared through its GOT and named glibc)
OWN="$DN_BUILD_DIR/bin/dn-probe-own-malloc"
run_sink own
"$PROBE" --metrics "$URL" --sample-interval 100 --count-allocs \
	--out "$T/own.out" -- "$OWN" 1000 2>"$T/own.err"
expect_eq "own malloc: the program ran" "$?" 0
wait "$SINK_PID"
expect_match "own malloc: said not measured" \
	"$(grep DN-PROBE-ALLOC "$T/own.err")" \
	'source=not measured: the program defines malloc itself'
expect_eq "own malloc: allocs absent, not 0" "$(metric allocs "$T/own.sink")" -
expect_eq "own malloc: heap_live_bytes absent" \
	"$(metric heap_live_bytes "$T/own.sink")" -

# --- redis-server (jemalloc) survives the shim and serves -------------
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null
then
	RP=$(port_block 1) || exit 1
	run_sink redis
	"$PROBE" --metrics "$URL" --sample-interval 100 --count-allocs \
		--ready "tcp:127.0.0.1:$RP" --out "$T/redis.out" -- \
		redis-server --port "$RP" --bind 127.0.0.1 --save '' \
		--appendonly no --dir "$T" 2>"$T/redis.err" &
	PP=$!
	for _ in $(seq 50); do
		grep -q DN-PROBE-READY "$T/redis.err" && break
		sleep 0.1
	done
	expect_eq "redis under the shim answers PING" \
		"$(redis-cli -p "$RP" ping 2>&1)" PONG
	for i in $(seq 200); do redis-cli -p "$RP" set "k$i" "v$i"; done \
		>/dev/null
	expect_eq "and keeps what it is given" \
		"$(redis-cli -p "$RP" get k200 2>&1)" v200
	sleep 0.3
	kill -TERM "$PP"
	wait "$PP"
	rc=$?
	wait "$SINK_PID"
	expect_match "redis exits by SIGTERM, not by a crash" \
		"$(grep DN-PROBE-EXIT "$T/redis.err")" 'exit=0'
	expect_match "redis ran as the server, not the RDB checker" \
		"$(cat "$T/redis.out")" 'Ready to accept connections'
	got=$(metric allocs "$T/redis.sink")
	if [ -n "$got" ] && awk -v g="$got" 'BEGIN { exit !(g > 1000) }'
	then ok "redis: allocations counted ($got)"
	else fail "redis: allocations '$got'"; fi
	expect_match "redis: the allocator is jemalloc" \
		"$(grep DN-PROBE-ALLOC "$T/redis.err")" \
		'source=malloc \(jemalloc\)'
else
	skip "redis-server or redis-cli missing (tools/install-deps.sh)"
fi

# --- compare refuses allocations counted by different allocators -------
if [ -x "$DN_BUILD_DIR/bin/dn-alloc-known-jemalloc" ]; then
	DB="$T/cmp.db"
	for a in glibc jemalloc; do
		cat >"$T/cmp-$a.yaml" <<EOS
name: cmp
duration: 3s
sample_interval: 250ms
network: {nodes: 1}
workload: {kind: none}
node:
  command: [$DN_BUILD_DIR/bin/dn-alloc-known-$a, --rounds, '500',
    --no-pvalloc, --sleep, '1500']
  count_allocs: true
  exit: expected
EOS
		"$DN_BUILD_DIR/bin/devnet" run "$T/cmp-$a.yaml" --db "$DB" \
		    --run-dir "$T/cmp-runs-$a" >"$T/cmp-$a.out" 2>&1
		expect_eq "cmp $a: runs" "$?" 0
	done
	expect_match "the summary names the allocator" \
	    "$(cat "$T/cmp-jemalloc.out")" 'node 0 allocations: malloc \(jemalloc\)'
	"$DN_BUILD_DIR/bin/devnet" compare 1 2 --db "$DB" >"$T/cmp.out" 2>&1
	expect_eq "compare of the two exits 0" "$?" 0
	expect_match "and says the allocations are not compared, naming both" \
	    "$(cat "$T/cmp.out")" 'allocation sources differ, not compared: .*allocs_per_s.*\(A: malloc \(glibc\); B: malloc \(jemalloc\)\)'
	if grep -q '^allocs_per_s ' "$T/cmp.out"; then
		fail "allocs_per_s compared across allocators"
	else
		ok "allocs_per_s left out"
	fi
	"$DN_BUILD_DIR/bin/devnet" compare 1 2 --db "$DB" \
	    --metric allocs_per_s >"$T/cmp2.out" 2>&1
	expect_eq "compare --metric allocs_per_s refuses" "$?" 1
	expect_match "naming both sources" "$(cat "$T/cmp2.out")" \
	    'A: malloc \(glibc\); B: malloc \(jemalloc\)'
fi
finish
