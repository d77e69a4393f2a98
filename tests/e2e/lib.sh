# lib.sh: helpers for devnet's end-to-end tests (sourced).
#
# Every test gets a private, short temp dir ($T), a database ($DB) and a
# run dir ($RUNS) inside it; on exit, anything still running from $T is
# killed (and the test fails if something was left behind).
#
# A check that cannot run here calls `skip REASON` and the test goes on;
# finish then exits 77, which CTest shows as skipped (SKIP_RETURN_CODE,
# cmake/DnTest.cmake), unless another check failed.
set -u

: "${DN_BUILD_DIR:?run through ctest (DN_BUILD_DIR unset)}"
: "${DN_SOURCE_DIR:?run through ctest (DN_SOURCE_DIR unset)}"
DEVNET="$DN_BUILD_DIR/bin/devnet"
NODE="$DN_BUILD_DIR/bin/devnet-node"
SCN="$DN_SOURCE_DIR/scenarios"
T=$(mktemp -d /tmp/dne.XXXXXX)
DB="$T/t.db"
RUNS="$T/runs"
FAILS=0
SKIPS=0

# sanitized: true in the sanitizer build (make asan), whose devnet-node
# has no allocation counter; tests leave out there what the release
# suite already covers and the sanitizers would only make slower
sanitized() {
	"$NODE" --help 2>&1 | grep -q "allocation counter: off"
}

# pids of processes whose command line mentions $T
leftovers() {
	local p
	for p in $(pgrep -f -- "$T" 2>/dev/null); do
		[ "$p" = "$$" ] && continue
		# ignore our own subshells (pgrep matching this script's args)
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q devnet-node &&
			echo "$p"
	done
}

cleanup() {
	local rc=$? left
	left=$(leftovers)
	if [ -n "$left" ]; then
		echo "FAIL: processes left behind: $left" >&2
		kill -9 $left 2>/dev/null
		rc=1
	fi
	if [ "$rc" -eq 77 ] && [ "$FAILS" -eq 0 ]; then
		rm -rf "$T"
	elif [ "$rc" -ne 0 ] || [ "$FAILS" -ne 0 ]; then
		echo "--- kept $T for inspection" >&2
		[ "$rc" -eq 0 ] && rc=1
	else
		rm -rf "$T"
	fi
	exit "$rc"
}
trap cleanup EXIT

. "$DN_SOURCE_DIR/tests/e2e/ports.sh"

# scn_head NAME DURATION: the head of a scenario shared by many tests (a
# 3-node devnet at 40 TPS, samples every 250 ms); the test appends its
# variants, events and assertions
scn_head() {
	cat <<YAML
name: $1
duration: $2
sample_interval: 250ms
network:
  nodes: 3
  block_interval: 200ms
  accounts: 500
workload:
  kind: transfer
  tps: 40
YAML
}

fail() {
	echo "FAIL: $*" >&2
	FAILS=$((FAILS + 1))
}

ok() {
	echo "ok: $*"
}

# skip REASON: some checks cannot run here; say which and why
skip() {
	echo "SKIP: $*"
	SKIPS=$((SKIPS + 1))
}

# check DESCRIPTION COMMAND...: run COMMAND, fail unless it succeeds
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else fail "$what"; fi
}

# q SQL: one value from the test database
q() {
	sqlite3 -batch -noheader "$DB" "$1"
}

# expect_eq DESCRIPTION GOT WANT
expect_eq() {
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else fail "$1: got '$2', want '$3'"; fi
}

# expect_match DESCRIPTION TEXT REGEX
# expect_samples_stored LABEL DB RUN NODE: every sample the collector
# accepted from NODE of RUN (its own samples_received fact, counted where
# the message is taken, before any row is queued) is stored under it;
# sets $got to that count.
expect_samples_stored() {
	local want
	got=$(sqlite3 -batch -noheader "$2" "select count(*) from samples s
	    join metrics m on m.id = s.metric_id where run_id = $3
	    and node = $4 and m.name = 'height'")
	want=$(sqlite3 -batch -noheader "$2" "select value from run_facts
	    where run_id = $3 and node = $4 and key = 'samples_received'")
	expect_eq "$1" "$got" "${want%.*}"
}

expect_match() {
	if printf '%s' "$2" | grep -Eq -- "$3"; then ok "$1"; else
		fail "$1: '$3' not in:"
		printf '%s\n' "$2" | sed 's/^/    /' >&2
	fi
}

# expect_refused NAME YAML PATTERN: the scenario YAML (written to
# $T/NAME.yaml) is refused by validate and by run alike: both exit 1,
# validate's words match PATTERN (FILE:LINE:COL and what to do), and run
# says exactly the same (issue 34: one check for both).
expect_refused() {
	local v r rv rr
	printf '%s\n' "$2" >"$T/$1.yaml"
	v=$("$DEVNET" validate "$T/$1.yaml" 2>&1)
	rv=$?
	r=$("$DEVNET" run "$T/$1.yaml" --db "$T/refused.db" \
	    --run-dir "$RUNS" 2>&1)
	rr=$?
	expect_eq "$1: validate and run refuse (exit 1)" "$rv:$rr" 1:1
	expect_match "$1: validate says" "$v" "$3"
	expect_eq "$1: run says the same" "$r" "$v"
}

# wait_for SECONDS COMMAND...: poll COMMAND every 0.1 s
wait_for() {
	local n=$(($1 * 10))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# node_pids RUN: pids of the nodes of run RUN, from the nodes table
node_pids() {
	q "select pid from nodes where run_id = $1"
}

# alive PID...: true if any is alive.  A zombie is not: a node whose
# orchestrator was SIGKILLed dies at once (PR_SET_PDEATHSIG) and waits as
# a zombie until the new parent reaps it, which this VM's init did only
# after more than 2 s under the ASan suite (kill -0 succeeds on a zombie).
alive() {
	local p s
	for p in "$@"; do
		s=$(sed -n 's/^[0-9]* (.*) \(.\) .*/\1/p' "/proc/$p/stat" \
		    2>/dev/null)
		case $s in
		''|Z|X) ;;
		*) return 0 ;;
		esac
	done
	return 1
}

finish() {
	if [ "$FAILS" -eq 0 ] && [ "$SKIPS" -gt 0 ]; then
		echo "every check that ran passed; $SKIPS part(s) skipped"
		exit 77
	fi
	if [ "$FAILS" -eq 0 ]; then
		echo "all checks passed"
		exit 0
	fi
	echo "$FAILS check(s) failed" >&2
	exit 1
}
