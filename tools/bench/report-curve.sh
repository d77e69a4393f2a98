#!/bin/bash
# report-curve.sh: issue 26's curve of `devnet compare` and `devnet report`
# time and memory against the samples in the file.  For each SIZE (million
# samples) it makes the mission's long-case shape scaled in time with
# dn-store-synth (4 + 4 trials of 10 nodes, 1 Hz, every node metric; the
# 24 M file is exactly the long case, --seconds 9000), then runs compare
# and report of 1:A vs 1:B ROUNDS times, alternating, and prints per run:
# wall, user + sys CPU, and three memory peaks polled every 20 ms from
# /proc/PID/status: RssAnon (the heap: malloc'd and anonymous memory),
# RssFile (pages of the database file mapped by sqlite's mmap: the page
# cache, clean and reclaimable, not memory the program needs) and VmHWM
# (their sum's peak, what `time -v` calls maximum RSS).  Then per size the
# medians and report / compare.
#
# usage: tools/bench/report-curve.sh [ROUNDS] [SIZE_M...]   (default 3 1 4 24 100)
# BUILD (default build) holds bin/devnet and bin/dn-store-synth.
# CURVE_DIR=DIR keeps the files there between invocations (they are
# reused when present: 100 M samples is ~2.3 GB and ~10 min to make);
# without it they go to a temporary directory removed at the end.
set -eu
. "$(dirname "$0")/bench-lib.sh"
build=${BUILD:-$ROOT/build}
rounds=${1:-3}
shift || true
sizes=${*:-1 4 24 100}
devnet=$build/bin/devnet
synth=$build/bin/dn-store-synth
bench_need "$devnet" devnet
bench_need "$synth" dn-store-synth
if [ -n "${CURVE_DIR:-}" ]; then
	dir=$CURVE_DIR
	mkdir -p "$dir"
	T=$(mktemp -d /tmp/dn-curve-XXXXXX)
	trap 'rm -rf "$T"' EXIT
else
	dir=$(mktemp -d /tmp/dn-curve-XXXXXX)
	T=$dir
	trap 'rm -rf "$dir"' EXIT
fi
mkfifo "$T/tick"
exec 9<>"$T/tick"	# read -t on it: a 20 ms sleep without a fork

# measure LABEL CMD...: run CMD under /usr/bin/time, poll its child's
# memory, print one line.
measure() {
	local label=$1 tpid cpid= k v rest anon=0 file=0 hwm=0
	shift
	/usr/bin/time -f "%e %U %S" -o "$T/time" "$@" >/dev/null &
	tpid=$!
	while kill -0 "$tpid" 2>/dev/null; do
		[ -n "$cpid" ] || read -r cpid _ \
		    <"/proc/$tpid/task/$tpid/children" 2>/dev/null || true
		if [ -n "$cpid" ]; then
			while read -r k v rest; do
				case $k in
				VmHWM:) [ "$v" -gt "$hwm" ] && hwm=$v ;;
				RssAnon:) [ "$v" -gt "$anon" ] && anon=$v ;;
				RssFile:) [ "$v" -gt "$file" ] && file=$v ;;
				esac
			done 2>/dev/null <"/proc/$cpid/status" || true
		fi
		read -r -t 0.02 -u 9 _ || true
	done
	wait "$tpid"
	read -r wall user sys <"$T/time"
	printf '%s wall %s s cpu %.2f s heap %d MB file %d MB hwm %d MB\n' \
	    "$label" "$wall" "$(echo "$user + $sys" | bc)" $((anon / 1024)) \
	    $((file / 1024)) $((hwm / 1024))
}

echo "# $(date -u '+%F %H:%M UTC') $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for m in $sizes; do
	# 4 + 4 trials x 10 nodes x ~339 samples per node-second; the
	# sizes of docs/benchmarks.md as they were made
	case $m in
	24) secs=9000 ;;	# the long case, 24.4 M
	100) secs=36900 ;;	# 100.1 M
	*) secs=$(((m * 9000 + 12) / 24)) ;;
	esac
	db=$dir/curve-$secs.db
	if [ ! -s "$db.n" ]; then
		rm -f "$db" "$db-wal" "$db-shm"
		"$synth" --db "$db" --trials 4 --nodes 10 --seconds "$secs" \
		    --batch 65536 >/dev/null
		"$devnet" query --db "$db" --format csv \
		    "SELECT count(*) FROM samples" | tail -1 >"$db.n"
	fi
	n=$(cat "$db.n")
	echo "## $m M: $n samples, --seconds $secs, $(du -m "$db" | cut -f1) MB"
	for r in $(seq "$rounds"); do
		measure "$m M compare round $r:" "$devnet" compare --db "$db" \
		    1:A 1:B
		measure "$m M report  round $r:" "$devnet" report --db "$db" \
		    1:A 1:B -o "$T/r.html"
	done | tee "$T/runs"
	for w in compare report; do
		grep " $w " "$T/runs" | awk -v w="$w" -v m="$m" '
		    { wall[NR] = $7; cpu[NR] = $10; heap[NR] = $13;
		      file[NR] = $16 }
		    function med(a, n,   i, j, t) {
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
				if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return a[int((n + 1) / 2)] }
		    END { printf "%s M %s median: wall %s s cpu %s s heap %s MB file %s MB\n",
			m, w, med(wall, NR), med(cpu, NR), med(heap, NR),
			med(file, NR) }'
	done | tee -a "$T/med"
	awk -v m="$m" '$1 == m && $3 == "compare" { cw = $6; cc = $9 }
	    $1 == m && $3 == "report" { rw = $6; rc = $9 }
	    END { printf "%s M report / compare: wall %.2fx cpu %.2fx\n",
		m, rw / cw, rc / cc }' "$T/med"
done
