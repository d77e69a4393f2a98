#!/bin/bash
# all.sh: the issue-26 benchmark suite, every benchmark in one window and
# one table (issue 26: "no figure moves the wrong way for the others").
# Each row is a devnet figure beside what it is judged against, measured
# in the same window where that is a program (the spawn floor, `devnet
# compare` for the report) or the issue's target where it is a budget,
# and their ratio.  It runs the benchmark scripts themselves (each also
# runs alone, docs/benchmarks.md) in a short mode and reads their
# "median:" lines; a benchmark whose program is missing is a row saying
# so, never a figure.
#
#   tools/bench/all.sh [BUILD]        (default build-bench; `make bench`)
#
# Rows: 10 nodes ready and stopped (spawn-stop.sh, against dn-spawn-floor
# when the build has it); the per-trial overhead (trial-overhead.sh, when
# the tree has it); collector ingest at 10 and at 100 senders beside its
# plain-sqlite floor (collector-ingest.sh, dn-ingest-floor);
# `devnet report` against `devnet compare` of the long case's shape
# (dn-store-synth: 10 nodes, 4 + 4 trials, SYNTH_S seconds each), wall,
# user CPU and peak RSS beside the file's size; the node's metrics agent
# at 1 Hz in a node-like process (dn-observer-bench agent, 19 threads and
# 44 files in all, as a devnet-node of a 10-node devnet has them; steady:
# after its first 2 s), ticked from a control loop like
# devnet-node's, beside that loop without it; devnet-probe per node at 1 Hz
# (probe-cost.sh: the process tree, and with one scrape of etcd's page
# when etcd is installed).
#
# Environment: ROUNDS (3), SYNTH_S (1800: a fifth of the 2.5 h long
# case), AGENT_S (20), PROBE_LONG_S (10).  The table goes to stdout after
# each benchmark's own lines; the load average before and after is in
# its title.  Exit 1 when a benchmark failed (its row says which).
# Not a test: it asserts nothing but that the benchmarks ran.
set -u
. "$(dirname "$0")/bench-lib.sh"
BUILD=$(cd "${1:-$ROOT/build-bench}" 2>/dev/null && pwd) || {
	echo "$0: no build directory '${1:-$ROOT/build-bench}'; build first" \
	    "(make build, or cmake --build build-bench)" >&2; exit 1; }
ROUNDS=${ROUNDS:-3}
SYNTH_S=${SYNTH_S:-1800}
AGENT_S=${AGENT_S:-20}
PROBE_LONG_S=${PROBE_LONG_S:-10}
BIN=$BUILD/bin
T=$(mktemp -d /tmp/dn-bench-all.XXXXXX)
trap 'rm -rf "$T"' EXIT
failed=0
rows=()

# row WHAT DEVNET BESIDE RATIO TARGET: one line of the table
row() {
	rows+=("| $1 | $2 | $3 | $4 | $5 |")
}

# either V TEXT_IF_SET TEXT_IF_EMPTY
either() {
	if [ -n "$1" ]; then echo "$2"; else echo "$3"; fi
}

# ratio A B: A / B to two places, or "-" when either is not a number
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b + 0 > 0)
	    printf "%.2fx", a / b; else printf "-" }'
}

# field TEXT REGEX: the first capture of sed's REGEX in TEXT's last
# "median:" line, empty when it is not there
field() {
	printf '%s\n' "$1" | grep '^median:' | tail -1 | sed -n "s/$2/\1/p"
}

# step NAME CMD...: run one benchmark, its output shown and kept in $out
step() {
	local name=$1
	shift
	echo "== $name: $*"
	out=$("$@" 2>&1)
	local rc=$?
	printf '%s\n' "$out" | sed 's/^/   /'
	if [ $rc -ne 0 ]; then
		echo "$0: $name failed (exit $rc)" >&2
		failed=1
	fi
	return $rc
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
echo "# $(date -u '+%F %H:%M UTC'), $(nproc) cores, load $load0, build $BUILD"

# 1. start and stop against the floor
if [ -x "$BIN/devnet" ] && step "spawn-stop" env DEVNET="$BIN/devnet" \
    "$HERE/spawn-stop.sh" "$ROUNDS" 10; then
	rd=$(field "$out" '.*ready \([0-9.]*\) ms.*')
	st=$(field "$out" '.*stop \([0-9.]*\) ms.*')
	frd=$(field "$out" '.*ready [0-9.]* ms (floor \([0-9.]*\) ms.*')
	fst=$(field "$out" '.*stop [0-9.]* ms (floor \([0-9.]*\) ms.*')
	row "10 nodes ready (spawn to last HELLO)" "${rd:-?} ms" \
	    "$(either "$frd" "floor $frd ms" "no floor program in this tree")" \
	    "$(ratio "$rd" "$frd")" "<= 1.5x the floor"
	row "10 nodes stopped after SIGTERM, none left" "${st:-?} ms" \
	    "$(either "$fst" "floor $fst ms" "no floor program in this tree")" \
	    "$(ratio "$st" "$fst")" "<= 3x the floor"
else
	row "10 nodes ready / stopped" "failed or not built" "-" "-" "-"
fi

# 2. per-trial overhead, once the tree has its benchmark (2 + 2 trials of
# 10 s in one round: its short mode)
if [ -x "$HERE/trial-overhead.sh" ]; then
	if step "trial-overhead" "$HERE/trial-overhead.sh" 2 1 "$BIN/devnet"
	then
		ov=$(printf '%s\n' "$out" | sed -n \
		    's/^median cycle overhead: .*: \([0-9.]*\) ms per 10 s trial.*/\1/p' |
		    tail -1)
		pc=$(awk -v v="$ov" 'BEGIN { if (v != "") printf "%.1f", v / 100 }')
		row "per-trial overhead, 10 s trials (stop to next ready)" \
		    "${ov:-?} ms = ${pc:-?} % of the trial" "-" \
		    "$(ratio "$pc" 5) of the target" "<= 5 %"
	fi
else
	row "per-trial overhead" \
	    "not measured: no tools/bench/trial-overhead.sh in this tree" \
	    "-" "-" "<= 5 %"
fi

# 3. collector ingest beside its plain-sqlite floor (dn-ingest-floor, in
# every round), at 10 and at 100 senders, the same 1,020,000 rows each
for sm in "10 3000" "100 300"; do
	set -- $sm
	if step "collector-ingest $1 senders" env BUILD="$BUILD" \
	    "$HERE/collector-ingest.sh" "$ROUNDS" "$1" "$2"; then
		ing=$(field "$out" 'median: \([0-9.]*\) samples\/s.*')
		fl=$(field "$out" '.*floor \([0-9.]*\) rows\/s.*')
		rt=$(field "$out" '.*ratio \([0-9.]*x\).*')
		row "collector ingest, $1 senders" "${ing:-?} samples/s" \
		    "$(either "$fl" "plain sqlite $fl rows/s" \
		    "no plain-sqlite floor in this tree")" \
		    "$(either "$rt" "$rt (median of rounds)" "-")" \
		    ">= 0.8x the floor"
	else
		row "collector ingest, $1 senders" "failed" "-" "-" "-"
	fi
done

# 4. report against compare, the long case's shape
db=$T/long.db
echo "== report vs compare: dn-store-synth --trials 4 --nodes 10 --seconds $SYNTH_S"
if "$BIN/dn-store-synth" --db "$db" --trials 4 --nodes 10 \
    --seconds "$SYNTH_S" >/dev/null 2>"$T/synth.err"; then
	n=$("$BIN/devnet" query --db "$db" --format csv \
	    "SELECT count(*) FROM samples" 2>/dev/null | tail -1)
	mb=$(du -m "$db" | cut -f1)
	cw= cu= cm= rw= ru= rm=
	for r in $(seq "$ROUNDS"); do
		c=$( { /usr/bin/time -f "%e %U %M" "$BIN/devnet" compare \
		    --db "$db" 1:A 1:B >/dev/null; } 2>&1 | tail -1)
		p=$( { /usr/bin/time -f "%e %U %M" "$BIN/devnet" report \
		    --db "$db" -o "$T/r.html" 1:A 1:B >/dev/null; } 2>&1 |
		    tail -1)
		echo "   round $r: compare $c, report $p (wall s, user s, max RSS KiB)"
		set -- $c $p
		cw="$cw $1" cu="$cu $2" cm="$cm $3"
		rw="$rw $4" ru="$ru $5" rm="$rm $6"
	done
	mcw=$(bench_median $cw) mrw=$(bench_median $rw)
	mcu=$(bench_median $cu) mru=$(bench_median $ru)
	mcm=$(($(bench_median $cm) / 1024)) mrm=$(($(bench_median $rm) / 1024))
	row "\`devnet report\` of the long case's shape ($n samples, ${mb} MB)" \
	    "${mrw} s wall, ${mru} s user" \
	    "\`devnet compare\` ${mcw} s wall, ${mcu} s user" \
	    "$(ratio "$mrw" "$mcw") wall, $(ratio "$mru" "$mcu") user" \
	    "<= 1.5x compare"
	row "peak RSS of report / compare" "${mrm} MB / ${mcm} MB" \
	    "the file: ${mb} MB" "$(ratio "$mrm" "$mb") / $(ratio "$mcm" "$mb")" \
	    "bounded by what they compute"
else
	cat "$T/synth.err" >&2
	row "report vs compare" "failed (dn-store-synth)" "-" "-" "-"
	failed=1
fi
rm -f "$db" "$db"-* "$T/r.html"

# 5. the node's metrics agent, ticked from a node-like control loop,
# beside the same loop without it (the floor)
if [ -x "$BIN/dn-observer-bench" ]; then
	echo "== agent: dn-observer-bench agent DIR $AGENT_S 1000 19 44 tick" \
	    "and ... none, $ROUNDS rounds"
	ag= dp= fl=
	kv() { echo "$2" | sed -n "s/.* $1=\([0-9.]*\).*/\1/p"; }
	for r in $(seq "$ROUNDS"); do
		mkdir -p "$T/obs$r"
		tk=$("$BIN/dn-observer-bench" agent "$T/obs$r" "$AGENT_S" \
		    1000 19 44 tick) || { failed=1; continue; }
		echo "   round $r: $tk"
		no=$("$BIN/dn-observer-bench" agent "$T/obs$r" "$AGENT_S" \
		    1000 19 44 none) || { failed=1; continue; }
		echo "   round $r: $no"
		# its work on the loop's thread and its sends on nng's
		ag="$ag $(kv agent_core_pct "$tk")"
		dp="$dp $(awk -v a="$(kv process_core_pct "$tk")" \
		    -v b="$(kv process_core_pct "$no")" 'BEGIN { printf "%.5f", a - b }')"
		fl="$fl $(kv process_core_pct "$no")"
	done
	mag=$(bench_median $ag) mdp=$(bench_median $dp) mfl=$(bench_median $fl)
	row "the node's metrics agent at 1 Hz, steady (19 threads, 44 files)" \
	    "${mag:-?} % of a core (work + its sends)" \
	    "the loop without it: ${mfl:-?} %; process with - without: ${mdp:-?} %" \
	    "$(ratio "$mag" 0.01) the target" "<= 0.01 %"
else
	row "the node's metrics agent" "not built (dn-observer-bench)" "-" "-" "-"
fi

# 6. devnet-probe per node
if step "probe-cost" env BUILD="$BUILD" PROMETHEUS=/nonexistent \
    SHORT_S=2 LONG_S="$PROBE_LONG_S" REPEATS="$ROUNDS" INTERVAL_MS=200 \
    "$HERE/probe-cost.sh"; then
	while IFS='|' read -r what pct; do
		row "devnet-probe per node at 1 Hz, $what" "$pct % of a core" \
		    "target 0.05 %" "$(ratio "$pct" 0.05)" "<= 1x the target"
	done < <(printf '%s\n' "$out" | sed -n 's/^[^ ]*  *\(.*[^ ]\)  *[0-9.]* us\/sample = \([0-9.]*\) % of a core.*/\1|\2/p')
fi

echo
echo "## issue 26 benchmarks, $(date -u '+%F %H:%M UTC'), load $load0 before, $(cut -d' ' -f1-3 /proc/loadavg) after"
echo
echo "| what | devnet | beside it | ratio | target |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
exit "$failed"
