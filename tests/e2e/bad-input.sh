# bad-input.sh: node binaries that are missing, exit at once or never
# become ready; bad scenario files and command lines.  Each gives a clear
# message, a non-zero exit, and leaves nothing running.
. "$(dirname "$0")/lib.sh"

run() {
	"$DEVNET" run "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
	    --set duration=3s --set repeats=1 "$@" 2>&1
}

out=$(run --set variants.A.binary=/nonexistent/devnet-node)
rc=$?
expect_eq "missing binary: exit 1" "$rc" 1
expect_match "missing binary: named" "$out" "/nonexistent/devnet-node"

out=$(run --set variants.A.binary=/bin/false)
rc=$?
expect_eq "binary exiting at once: exit 1" "$rc" 1
expect_match "binary exiting at once: named, with status" "$out" \
    "node [0-9] \(/usr/bin/false\) exited before it was ready \(exit 1\)"
expect_eq "binary exiting at once: run marked failed" \
    "$(q "select status from runs order by id desc limit 1")" failed

# A node's error goes to its log and to stderr alike (node/log.c): the
# post-mortem shows it once, after the log's lines.
cat >"$T/failer" <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --log ] && log=$2; shift; done
echo "failer: log line" >>"$log"
echo "failer: DN-NODE-ERROR boom" >>"$log"
echo "failer: DN-NODE-ERROR boom" >&2
echo "failer: stderr only" >&2
exit 1
SH
chmod +x "$T/failer"
out=$(run --set variants.A.binary="$T/failer")
expect_match "failing node: its log's lines" "$out" "failer: log line"
expect_match "failing node: output the log lacks" "$out" "failer: stderr only"
expect_eq "failing node: an error in both, shown once" \
    "$(printf '%s\n' "$out" | grep -o "DN-NODE-ERROR boom" | wc -l)" 1

# A node's escape sequences (window title, clear screen, a fake green
# line) are shown escaped, on the terminal and in runs.reason, never
# sent raw (issue 19 #8).
cat >"$T/painter" <<'SH'
#!/bin/sh
printf '\033]0;pwned\007\033[2J\033[32mall good\033[0m\n' >&2
printf 'csi \302\233 del \177 end\n' >&2
exit 1
SH
chmod +x "$T/painter"
out=$(run --set variants.A.binary="$T/painter")
esc=$(printf '\033')
reason=$(q "select reason from runs order by id desc limit 1")
expect_match "escapes: shown escaped" "$out" '\\x1b\]0;pwned\\x07\\x1b\[2J'
expect_match "escapes: C1 and DEL escaped" "$out" 'csi \\xc2\\x9b del \\x7f end'
case $out in *"$esc"*) fail "escapes: a raw ESC reached the terminal" ;;
*) ok "escapes: no raw ESC on the terminal" ;; esac
case $reason in *"$esc"*) fail "escapes: a raw ESC in runs.reason" ;;
*\\x1b*) ok "escapes: runs.reason has them escaped" ;;
*) fail "escapes: runs.reason lacks the output: $reason" ;; esac

cat >"$T/sleeper" <<'SH'
#!/bin/sh
echo "sleeper: pretending to start"
exec sleep 300
SH
chmod +x "$T/sleeper"
out=$(run --set variants.A.binary="$T/sleeper" --ready-timeout 1s)
rc=$?
expect_eq "never ready: exit 1" "$rc" 1
expect_match "never ready: named" "$out" "sleeper\) was not ready after 1.0 s"
expect_match "never ready: with the tail of its output" "$out" "pretending to start"
sleep 0.2
expect_eq "never ready: no sleeper left" "$(pgrep -f "$T/sleeper" | wc -l)" 0

printf 'name: x\nduration: 10s\nnetwork:\n  nodes: 3\n  tsp: 5\n' >"$T/bad.yaml"
out=$("$DEVNET" run "$T/bad.yaml" --db "$DB" 2>&1)
rc=$?
expect_eq "bad scenario: exit 1" "$rc" 1
expect_match "bad scenario: FILE:LINE:COL" "$out" "bad.yaml:5:3: "

out=$("$DEVNET" run 2>&1)
expect_eq "run without a scenario: exit 2" "$?" 2
expect_match "run without a scenario: says so" "$out" "missing the scenario"
out=$("$DEVNET" run "$SCN/smoke.yaml" --frobnicate 2>&1)
expect_eq "unknown flag: exit 2" "$?" 2
expect_match "unknown flag: named" "$out" "frobnicate"
out=$("$DEVNET" frob 2>&1)
expect_eq "unknown command: exit 2" "$?" 2
expect_match "unknown command: named" "$out" "unknown command 'frob'"
out=$("$DEVNET" run "$SCN/smoke.yaml" --set nope 2>&1)
expect_eq "--set without =: exit 2" "$?" 2
finish
