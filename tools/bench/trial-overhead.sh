#!/bin/sh
# trial-overhead.sh: devnet's overhead per trial (issue 26: at most 5 %
# of a 10 s trial), from the end of one trial's window to the start of
# the next one's: stop, drain, state check, summary, store, spawn, ready.
#
# Each round runs `devnet ab scenarios/smoke.yaml --repeats REPEATS`
# (3 nodes, 50 TPS, 10 s trials in ABBA order: 2 x REPEATS trials) with
# every devnet binary given, one after the other in the same window (the
# order alternates per round), and reads the stored runs:
#
#   cycle    (last start_ms - first start_ms) / (trials - 1) - duration:
#            the overhead per trial, for any devnet (start_ms is old);
#            the others are "-" for a devnet without the window facts;
#   gap      window_start_ms of a trial - window_end_ms of the one before
#            (run facts, since issue 26): the same, measured exactly;
#   stop     window_end_ms -> the run's end_ms (drain, state check, stop,
#            collector, facts, commit);
#   between  end_ms -> the next run's start_ms (summary, next run row);
#   start    start_ms -> window_start_ms (dirs, spawn, ready).
#
# Prints one line per binary per round, then each binary's medians and
# the load average.
#
# usage: tools/bench/trial-overhead.sh [REPEATS] [ROUNDS] [DEVNET...]
# (default: 4 repeats, 2 rounds, build-bench/bin/devnet)
set -eu
. "$(dirname "$0")/bench-lib.sh"
root=$ROOT
repeats=${1:-4}
rounds=${2:-2}
shift 2 2>/dev/null || shift $#
[ $# -gt 0 ] || set -- "$root/build-bench/bin/devnet"
for d in "$@"; do bench_need "$d" "devnet devnet-node"; done
work=$(mktemp -d /tmp/to-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
scn=$root/scenarios/smoke.yaml

# overhead DB: "cycle gap stop between start" in ms (- where absent)
overhead() {
	sqlite3 "$1" "
	WITH r AS (SELECT id, start_ms, end_ms, duration_ms,
	    (SELECT CAST(value AS INTEGER) FROM run_facts f WHERE
	     f.run_id = runs.id AND f.node = -1 AND key = 'window_start_ms')
	     AS ws,
	    (SELECT CAST(value AS INTEGER) FROM run_facts f WHERE
	     f.run_id = runs.id AND f.node = -1 AND key = 'window_end_ms')
	     AS we FROM runs WHERE status = 'ok'),
	p AS (SELECT a.*, b.start_ms AS nstart, b.ws AS nws FROM r a
	    JOIN r b ON b.id = a.id + 1)
	SELECT printf('%.0f', (SELECT (max(start_ms) - min(start_ms)) * 1.0 /
	    (count(*) - 1) - max(duration_ms) FROM r)),
	    CASE WHEN count(nws - we) = 0 THEN '-' ELSE
	    printf('%.0f', avg(nws - we)) END,
	    CASE WHEN count(we) = 0 THEN '-' ELSE
	    printf('%.0f', avg(end_ms - we)) END,
	    printf('%.0f', avg(nstart - end_ms)),
	    (SELECT CASE WHEN count(ws) = 0 THEN '-' ELSE
	    printf('%.0f', avg(ws - start_ms)) END FROM r)
	FROM p" | tr '|' ' '
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ "$r" -le "$rounds" ]; do
	order="$*"
	[ $((r % 2)) -eq 0 ] && order=$(echo "$order" | tr ' ' '\n' | tac |
	    tr '\n' ' ')
	for d in $order; do
		db=$work/o$r-$(echo "$d" | cksum | cut -d' ' -f1).db
		"$d" ab "$scn" --repeats "$repeats" --db "$db" \
		    --run-dir "$work/r" --quiet >/dev/null 2>&1 || true
		set -- $(overhead "$db")
		echo "round $r: $d: per trial: cycle $1 ms" \
		    "($(echo "$1" | awk '{ printf "%.1f", $1 / 100 }') % of" \
		    "10 s), gap $2 ms = stop $3 + between $4 + start $5 ms;" \
		    "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE \
		    status = 'ok'") ok trials"
		echo "$d $1" >> "$work/cycles"
		rm -rf "$work/r"
	done
	set -- $order
	r=$((r + 1))
done
for d in "$@"; do
	echo "median cycle overhead: $d: $(bench_median $(awk -v d="$d" \
	    '$1 == d { print $2 }' "$work/cycles")) ms per 10 s trial"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
