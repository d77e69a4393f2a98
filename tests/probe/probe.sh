#!/bin/bash
# probe.sh: devnet-probe end to end, around tests/probe/probe-victim.c, with
# tests/probe/probe-sink.c standing in for the collector.  Asserts what a
# runner relies on: exact allocation counts through the shim, tree-wide
# threads and rss, log_lines and extractors, absent allocations where the
# shim cannot reach, exit status, signal forwarding, pause and resume
# (SIGTSTP, SIGCONT) while sampling on, grace -> SIGKILL,
# ready checks and their timeout, and nothing left running.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

PROBE="$DN_BUILD_DIR/bin/devnet-probe"
SINK="$DN_BUILD_DIR/bin/dn-probe-sink"
# copies inside $T, so every process of this test is found by its path
V="$T/victim"
VS="$T/victim-static"
cp "$DN_BUILD_DIR/bin/dn-probe-victim" "$V"
cp "$DN_BUILD_DIR/bin/dn-probe-victim-static" "$VS"
PORT=$(port_block 10) || exit 1

# metric NAME FILE [first|last]: a SAMPLE value from the sink's output
metric() {
	local pick=${3:-last}
	grep '^SAMPLE' "$2" | sed -n "s/.* $1=\([^ ]*\).*/\1/p" |
		if [ "$pick" = first ]; then head -1; else tail -1; fi
}
# max NAME FILE: the largest SAMPLE value of NAME
maxm() {
	grep '^SAMPLE' "$2" | sed -n "s/.* $1=\([^ ]*\).*/\1/p" |
		sort -g | tail -1
}
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# victims still alive (any process whose command line mentions $T)
alive() {
	local p out=""
	for p in $(pgrep -f -- "$T/victim" 2>/dev/null); do
		[ "$p" = "$$" ] && continue
		out="$out $p"
	done
	echo "$out"
}
check_none_left() {
	local left
	left=$(alive)
	if [ -z "$left" ]; then ok "$1: no process left behind"; else
		fail "$1: left behind:$left"
		kill -9 $left 2>/dev/null
	fi
}

# run_sink NAME: start a sink for this case, sets SINK_PID and URL
run_sink() {
	URL="ipc://$T/$1.sock"
	"$SINK" "$URL" 20000 >"$T/$1.sink" &
	SINK_PID=$!
	sleep 0.2
}

# --- help and usage ---------------------------------------------------
"$PROBE" --help >"$T/help" 2>&1
expect_eq "--help exits 0" "$?" 0
expect_match "--help shows the synopsis" "$(cat "$T/help")" \
	'devnet-probe \[options\] -- COMMAND'
"$PROBE" --bogus -- true 2>"$T/usage"
expect_eq "unknown option exits 125" "$?" 125
"$PROBE" --log-metric 'x=no capture' -- true 2>"$T/usage"
expect_eq "extractor without a capture group exits 125" "$?" 125
expect_match "and says why" "$(cat "$T/usage")" 'exactly 1'
# the probe's own scrape-failure counter is reserved (issue 19 #6)
for a in "--log-metric probe_scrape_failures=x(1)" \
    "--prom-map probe_scrape_failures=x_total" \
    "--prom-keep probe_scrape_failures"; do
	# shellcheck disable=SC2086
	"$PROBE" $a -- true 2>"$T/usage"
	expect_eq "$a exits 125" "$?" 125
	expect_match "$a: says reserved" "$(cat "$T/usage")" 'reserved'
done

# --- (a) allocations, tree, log, extractors, exit status ----------------
run_sink alloc
"$PROBE" --metrics "$URL" --index 0 --sample-interval 100 --count-allocs \
	--out "$T/alloc.out" --log-metric 'height=value=([0-9]+)' \
	--log-metric 'victim_ticks=tick value=([0-9]+)' \
	-- "$V" --fork --threads 3 --allocs 1000 --size 100 --lines 7 \
	--sleep 1200 --exit 3 2>"$T/alloc.err"
expect_eq "exit status 3 passes through" "$?" 3
wait $SINK_PID
expect_eq "the sink saw a final sample" "$?" 0
S="$T/alloc.sink"
a0=$(metric allocs "$S" first)
a1=$(metric allocs "$S" last)
b0=$(metric alloc_bytes "$S" first)
b1=$(metric alloc_bytes "$S" last)
check "allocs grew by >= 1000 ($a0 -> $a1)" ge "$((a1 - a0))" 1000
check "and by few more: the count is exact (<= 1010)" \
	test "$((a1 - a0))" -le 1010
check "alloc_bytes grew by >= 100000 ($b0 -> $b1)" \
	ge "$((b1 - b0))" 100000
# exact: the same program without the 1000 blocks counts exactly 1001
# fewer allocations by its end (the blocks and the calloc'd array that
# holds them; everything else it does, fork, threads, lines, the same in
# both), and at least their 108000 bytes fewer (stdio's buffers for the
# extra line are requested too: within a page more)
run_sink base
"$PROBE" --metrics "$URL" --index 0 --sample-interval 100 --count-allocs \
	--out "$T/base.out" -- "$V" --fork --threads 3 --allocs 0 --size 100 \
	--lines 7 --sleep 1200 --exit 3 2>/dev/null
wait $SINK_PID
expect_eq "allocs: exactly the program's 1001 more than without them" \
	"$((a1 - $(metric allocs "$T/base.sink")))" 1001
db=$((b1 - $(metric alloc_bytes "$T/base.sink")))
check "alloc_bytes: 1000 x 100 + the 8000-byte array more ($db), within a page" \
	test "$db" -ge 108000 -a "$db" -le 112096
check "heap_live_bytes saw the 1000 blocks" \
	ge "$(maxm heap_live_bytes "$S")" 100000
# victim main + 3 idle threads + its forked child
check "threads counted over the whole tree (max $(maxm threads "$S"))" \
	ge "$(maxm threads "$S")" 5
check "rss_bytes of the tree is > 1 MB" ge "$(maxm rss_bytes "$S")" 1000000
expect_eq "log_lines counts every line" "$(metric log_lines "$S")" 8
expect_eq "a table-named extractor lands in SAMPLE" "$(metric height "$S")" 7
expect_match "a free-named extractor lands in NAMED" \
	"$(grep '^NAMED' "$S" | tail -1)" 'final=1 victim_ticks=7$'
expect_eq "metrics the probe cannot see are absent" \
	"$(metric txs_applied "$S")" "-"
expect_match "HELLO carries the child's pid" "$(cat "$S")" \
	"HELLO node=0 pid=$(sed -n 's/.*DN-PROBE-START.* child=\([0-9]*\).*/\1/p' \
	"$T/alloc.err") flags=0"
expect_match "the output file has the child's lines" \
	"$(cat "$T/alloc.out")" 'tick value=7'
check "the counter file is removed" \
	test ! -e "$(sed -n 's/.*allocs=\([^ ]*\).*/\1/p' "$T/alloc.err")"
check_none_left "exit 3"

# --- allocations unavailable: static binary, and no shim at all --------
run_sink static
"$PROBE" --metrics "$URL" --sample-interval 100 --count-allocs \
	--out "$T/static.out" -- "$VS" --allocs 100 --sleep 300 2>/dev/null
expect_eq "static victim exits 0" "$?" 0
wait $SINK_PID
expect_eq "static binary: allocs absent, not 0" \
	"$(metric allocs "$T/static.sink")" "-"
expect_eq "static binary: heap_live_bytes absent" \
	"$(metric heap_live_bytes "$T/static.sink")" "-"
run_sink noshim
"$PROBE" --metrics "$URL" --sample-interval 100 --out "$T/noshim.out" \
	-- "$V" --allocs 100 --sleep 300 2>/dev/null
wait $SINK_PID
expect_eq "without --count-allocs: allocs absent" \
	"$(metric allocs "$T/noshim.sink")" "-"
check "but process metrics present" \
	ge "$(metric rss_bytes "$T/noshim.sink")" 1

# --- context switches: taskstats when allowed, /proc when forced ------
# (tests/probe/test-tree.c compares the two paths' numbers exactly)
for how in default proc; do
	run_sink "ctx-$how"
	if [ "$how" = proc ]; then
		DN_PROBE_TASKSTATS=0 "$PROBE" --metrics "$URL" \
		    --sample-interval 100 --out /dev/null -- "$V" --fork \
		    --threads 3 --sleep 400 2>"$T/ctx-$how.err"
	else
		"$PROBE" --metrics "$URL" --sample-interval 100 \
		    --out /dev/null -- "$V" --fork --threads 3 --sleep 400 \
		    2>"$T/ctx-$how.err"
	fi
	wait $SINK_PID
	check "ctx ($how): ctx_vol counted ($(metric ctx_vol \
	    "$T/ctx-$how.sink"))" ge "$(metric ctx_vol "$T/ctx-$how.sink")" 1
done
expect_match "DN-PROBE-START says where ctx comes from" \
	"$(grep DN-PROBE-START "$T/ctx-default.err")" \
	'ctx=(taskstats|proc \(.+\))$'
expect_match "DN_PROBE_TASKSTATS=0 forces /proc" \
	"$(grep DN-PROBE-START "$T/ctx-proc.err")" \
	'ctx=proc \(DN_PROBE_TASKSTATS=0\)$'
if [ "$(id -u)" = 0 ] && grep -q 'ctx=taskstats' "$T/ctx-default.err"; then
	ok "as root: taskstats"
elif [ "$(id -u)" = 0 ]; then
	echo "note: root without taskstats:" \
	    "$(grep -o 'ctx=.*' "$T/ctx-default.err")"
fi

# --- signals ------------------------------------------------------------
"$PROBE" --out "$T/term.out" --ready 'log:DN-VICTIM-UP' -- "$V" --fork \
	--up-after 0 --sleep 30000 2>"$T/term.err" &
P=$!
for _ in $(seq 100); do grep -q DN-PROBE-READY "$T/term.err" && break
	sleep 0.05; done
kill -TERM $P
wait $P
expect_eq "SIGTERM forwarded: the victim dies of it (128+15)" "$?" 143
check_none_left "SIGTERM"

# SIGTSTP pauses COMMAND's whole tree (the runner's `stop`), SIGCONT
# resumes it; the probe itself runs and samples on.
# (a minute of sink and victim: a crowded machine slows the test's loop)
URL="ipc://$T/pause.sock"
"$SINK" "$URL" 60000 >"$T/pause.sink" &
SINK_PID=$!
sleep 0.2
"$PROBE" --metrics "$URL" --index 0 --sample-interval 100 \
	--out "$T/pause.out" --ready 'log:DN-VICTIM-UP' -- "$V" --fork \
	--up-after 0 --sleep 60000 2>"$T/pause.err" &
P=$!
for _ in $(seq 100); do grep -q DN-PROBE-READY "$T/pause.err" && break
	sleep 0.05; done
# states: the state letter of each victim process (not the probe's)
states() {
	local p
	for p in $(pgrep -f -- "^$T/victim"); do
		awk '{ printf "%s", $3 }' "/proc/$p/stat" 2>/dev/null
	done
}
kill -TSTP $P
for _ in $(seq 40); do [ "$(states)" = TT ] && break; sleep 0.05; done
expect_eq "SIGTSTP: COMMAND and its child stopped" "$(states)" TT
n0=$(grep -c '^SAMPLE' "$T/pause.sink")
sleep 0.6
n1=$(grep -c '^SAMPLE' "$T/pause.sink")
check "the probe samples on while they are stopped ($n0 -> $n1)" \
	test "$((n1 - n0))" -ge 3
expect_match "and says so" "$(cat "$T/pause.err")" 'DN-PROBE-PAUSE'
kill -CONT $P
for _ in $(seq 40); do case $(states) in *T*) sleep 0.05;; *) break;; esac
	done
expect_match "SIGCONT: both run again ($(states))" "$(states)" '^[RS]{2}$'
kill -TSTP $P
sleep 0.2
kill -TERM $P
wait $P
expect_eq "SIGTERM to a paused COMMAND still ends it (128+15)" "$?" 143
wait $SINK_PID
check_none_left "pause"

"$PROBE" --out "$T/kill.out" --stop-grace 500 --ready 'log:DN-VICTIM-UP' \
	-- "$V" --fork --ignore-term --up-after 0 --sleep 30000 \
	2>"$T/kill.err" &
P=$!
for _ in $(seq 100); do grep -q DN-PROBE-READY "$T/kill.err" && break
	sleep 0.05; done
t0=$(date +%s%N)
kill -TERM $P
wait $P
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
expect_eq "SIGTERM ignored: SIGKILL after the grace (128+9)" "$rc" 137
check "killed after the 500 ms grace, not later (${ms} ms)" \
	test "$ms" -ge 450 -a "$ms" -lt 3000
expect_match "the probe says it killed" "$(cat "$T/kill.err")" \
	'DN-PROBE-KILL'
check_none_left "grace -> SIGKILL"

# COMMAND exits and leaves a child running: the probe ends it
t0=$(date +%s%N)
"$PROBE" --out "$T/orphan.out" --stop-grace 500 -- "$V" --fork \
	--orphan-sleep 30000 --sleep 100 --exit 0 2>"$T/orphan.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
expect_eq "a left-behind child does not change the exit status" "$rc" 0
check "the probe ends what COMMAND left running (${ms} ms)" \
	test "$ms" -lt 3000
expect_match "and says so" "$(cat "$T/orphan.err")" 'descendants left'
check_none_left "orphan"

# --- (b) ready checks ----------------------------------------------------
ready_ms() { sed -n 's/.*DN-PROBE-READY child=[0-9]* after \([0-9]*\) ms.*/\1/p' "$1"; }

run_sink tcp
"$PROBE" --metrics "$URL" --sample-interval 100 --out "$T/tcp.out" \
	--ready "tcp:127.0.0.1:$PORT" -- "$V" --up-after 500 \
	--listen "$PORT" --sleep 300 2>"$T/tcp.err"
expect_eq "tcp: victim exits 0" "$?" 0
wait $SINK_PID
check "tcp: ready only once the port listens ($(ready_ms "$T/tcp.err") ms)" \
	ge "$(ready_ms "$T/tcp.err")" 700
expect_match "tcp: HELLO sent" "$(cat "$T/tcp.sink")" '^HELLO node=0'

"$PROBE" --out "$T/log.out" --ready 'log:^DN-VICTIM-UP$' -- "$V" \
	--up-after 400 --sleep 100 2>"$T/log.err"
check "log: ready at the line ($(ready_ms "$T/log.err") ms)" \
	ge "$(ready_ms "$T/log.err")" 650

"$PROBE" --out "$T/delay.out" --ready delay:300 -- "$V" --sleep 600 \
	2>"$T/delay.err"
check "delay: ready after 300 ms ($(ready_ms "$T/delay.err") ms)" \
	ge "$(ready_ms "$T/delay.err")" 300

if command -v python3 >/dev/null; then
	"$PROBE" --out "$T/http.out" --ready "http:http://127.0.0.1:$PORT/" \
		-- python3 -m http.server --bind 127.0.0.1 "$PORT" \
		--directory "$T" 2>"$T/http.err" &
	P=$!
	for _ in $(seq 200); do grep -q DN-PROBE-READY "$T/http.err" && break
		sleep 0.05; done
	expect_match "http: ready on a 2xx" "$(cat "$T/http.err")" \
		'DN-PROBE-READY'
	kill -TERM $P
	wait $P

	# A paused node is not scraped (it could not answer): the last
	# scrape's values stand in its samples, and no failure is counted.
	mkdir -p "$T/www"
	printf '# TYPE x_height counter\nx_height 42\n# TYPE x_reqs counter\nx_reqs_total 7\n' \
	    >"$T/www/metrics"
	P2=$((PORT + 7))
	URL="ipc://$T/prom.sock"
	"$SINK" "$URL" 60000 >"$T/prom.sink" &
	SINK_PID=$!
	sleep 0.2
	"$PROBE" --metrics "$URL" --index 0 --sample-interval 200 \
		--out "$T/prom.out" --prom-url "http://127.0.0.1:$P2/metrics" \
		--prom-map height=x_height \
		--ready "http:http://127.0.0.1:$P2/metrics" \
		-- python3 -m http.server --bind 127.0.0.1 "$P2" \
		--directory "$T/www" 2>"$T/prom.err" &
	P=$!
	for _ in $(seq 200); do grep -q DN-PROBE-READY "$T/prom.err" && break
		sleep 0.05; done
	sleep 0.5
	kill -TSTP $P
	sleep 0.5
	l0=$(wc -l <"$T/prom.sink")
	sleep 1.5
	l1=$(wc -l <"$T/prom.sink")
	kill -CONT $P
	sleep 0.5
	kill -TERM $P
	wait $P
	wait $SINK_PID
	# what the sink got while the node was paused (lines l0..l1)
	sed -n "$((l0 + 1)),${l1}p" "$T/prom.sink" >"$T/prom.paused"
	n=$(grep -c '^SAMPLE' "$T/prom.paused")
	check "paused: samples go on ($n in 1.5 s)" test "$n" -ge 5
	got=$(grep '^SAMPLE' "$T/prom.paused" |
	    sed -n 's/.* height=\([^ ]*\).*/\1/p' | sort | uniq -c |
	    awk '{ printf "%s:%s ", $2, $1 }')
	expect_match "paused: the last scrape's height stands ($got)" "$got" \
	    '^42:[0-9]+ $'
	got=$(sed -n 's/^NAMED.*probe_scrape_failures=\([^ ]*\).*/\1/p' \
	    "$T/prom.paused" | sort -u | tr '\n' ' ')
	expect_match "paused: no scrape failure counted ($got)" "$got" \
	    '^[0-9]+ $'

	# --scrape-every 4 (issue 25): one sample in four is scraped and
	# carries the page's values, as of that sample's time; the three
	# between have none (absent), never the last ones restated.
	"$SINK" "$URL" 60000 >"$T/every.sink" &
	SINK_PID=$!
	sleep 0.2
	"$PROBE" --metrics "$URL" --index 0 --sample-interval 100 \
		--out "$T/every.out" --prom-url "http://127.0.0.1:$P2/metrics" \
		--prom-map height=x_height --scrape-every 4 \
		--prom-keep x_reqs \
		--ready "http:http://127.0.0.1:$P2/metrics" \
		-- python3 -m http.server --bind 127.0.0.1 "$P2" \
		--directory "$T/www" 2>"$T/every.err" &
	P=$!
	for _ in $(seq 200); do grep -q DN-PROBE-READY "$T/every.err" && break
		sleep 0.05; done
	sleep 2
	kill -TERM $P
	wait $P
	wait $SINK_PID
	seqh=$(grep '^SAMPLE' "$T/every.sink" | grep -v 'final=1' |
	    sed -n 's/.* seq=\([0-9]*\) .* height=\([^ ]*\).*/\2/p' |
	    tr '\n' ' ')
	expect_match "every 4th sample scraped, the rest absent ($seqh)" \
	    "$seqh" '^(- )*42 - - - 42 - - - 42 '
	expect_match "scrapes counted" "$(cat "$T/every.err")" \
	    'DN-PROBE-EXIT .* scrapes=[0-9]+'
	# a counter named without the _total its samples carry (issue 37):
	# never measured, said as the probe ends, with the name it meant
	expect_match "a name the page lacks: said, with the nearest" \
	    "$(cat "$T/every.err")" \
	    "^DN-PROBE-UNMEASURED x_reqs: the Prometheus page http://127.0.0.1:$P2/metrics has no sample named 'x_reqs' \\(did you mean 'x_reqs_total'\\?\\) \\([0-9]+ scrapes, none failed\\)$"
	n=$(sed -n 's/.*DN-PROBE-EXIT .* samples=\([0-9]*\).*scrapes=\([0-9]*\).*/\1 \2/p' "$T/every.err")
	# the samples sent before the server was ready (python3 takes
	# seconds to start on a loaded machine) are not due a scrape: count
	# from the first scraped one
	since=$(printf '%s\n' "$seqh" | sed 's/^\(- \)*//' | wc -w)
	check "about a quarter of the samples since ready scraped ($since samples, scrapes ${n#* })" \
	    awk -v s="$since" -v c="${n#* }" \
	    'BEGIN { exit !(s >= 8 && c >= s / 4 - 1 && c <= s / 4 + 2) }'
	"$PROBE" --scrape-every 0 --prom-url http://127.0.0.1:1/ -- true 2>"$T/every0.err"
	expect_eq "--scrape-every 0 is a usage error" "$?" 125
fi

t0=$(date +%s%N)
"$PROBE" --out "$T/timeout.out" --ready "tcp:127.0.0.1:$((PORT + 1))" \
	--ready-timeout 500 --stop-grace 500 -- "$V" --sleep 30000 \
	2>"$T/timeout.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
expect_eq "ready timeout exits 124" "$rc" 124
expect_match "ready timeout names the check" "$(cat "$T/timeout.err")" \
	"DN-PROBE-READY-TIMEOUT .*waiting for 'tcp:127.0.0.1:$((PORT + 1))'"
check "ready timeout is prompt (${ms} ms)" test "$ms" -lt 3000
check_none_left "ready timeout"

"$PROBE" --out "$T/noexec.out" -- "$T/does-not-exist" 2>/dev/null
expect_eq "a command that cannot run exits 127" "$?" 127
expect_match "and says why in the output" "$(cat "$T/noexec.out")" \
	'DN-PROBE-EXEC-ERROR'

exit 0
