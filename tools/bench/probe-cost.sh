#!/bin/bash
# probe-cost.sh: devnet-probe's own CPU per sample (issue 12's budget:
# < 0.05 % of a core per node at 1 Hz, one Prometheus scrape included),
# around a victim that sleeps: 2 processes, 10 threads (dn-probe-victim
# --fork --threads 8), allocations counted, samples pushed to a sink.
#
#   tools/bench/probe-cost.sh [PROBE...]     (default build/bin/devnet-probe)
#
# For each PROBE binary and each case (tree only; tree + a scrape of a
# live etcd's /metrics, ~150 kB, with one --prom-map and one --prom-keep)
# it runs the probe twice, for SHORT_S and LONG_S seconds at INTERVAL_MS,
# and prints the difference of DN-PROBE-EXIT's probe_cpu_ms over the
# difference of samples: start-up cancels out.  REPEATS rounds, median.
# The % of a core at 1 Hz is us/sample / 10^4.  A PROBE whose --help has
# no --prom-url is run without the scrape case.
#
# With etcd, also "tree + JSON": the same scrape of etcd's JSON-only
# /v2/stats/store (~300 bytes, one --json-map read as a counter, issue 37)
# instead of the Prometheus page.
#
# With the scrape, also "tree + scrape every EVERY" (--scrape-every, issue
# 25), and beside them Debian's `prometheus` server scraping the same
# page at the same rate (every INTERVAL_MS, and every EVERY x
# INTERVAL_MS): its CPU (utime + stime of /proc/PID/stat) over LONG_S
# after WARM_S of warm-up, per scrape, in the same units -- what a user
# would otherwise run to get the figures.
#
# Environment: INTERVAL_MS (200), SHORT_S (2), LONG_S (20), REPEATS (3),
# EVERY (5), WARM_S (5), PROMETHEUS (prometheus on PATH; without it that
# case is skipped),
# BUILD (build), ETCD (etcd on PATH; without it the scrape case is
# skipped), CASES (a regular expression over the case names: tree,
# scrape, json, every, prometheus; all by default).  DN_PROBE_TASKSTATS=0 reaches every PROBE: their /proc path
# for context switches (what a probe without CAP_NET_ADMIN pays); a
# wrapper script that sets it puts both paths in one invocation.  Not a
# test: it prints figures, asserts nothing.
set -u
. "$(dirname "$0")/bench-lib.sh"
BUILD=${BUILD:-$ROOT/build}
INTERVAL_MS=${INTERVAL_MS:-200}
SHORT_S=${SHORT_S:-2}
LONG_S=${LONG_S:-20}
REPEATS=${REPEATS:-3}
EVERY=${EVERY:-5}
WARM_S=${WARM_S:-5}
CASES=${CASES:-.}
want() { echo "$1" | grep -Eq -- "$CASES"; }
VICTIM=$BUILD/bin/dn-probe-victim
SINK=$BUILD/bin/dn-probe-sink
bench_need "$VICTIM" dn-probe-victim
bench_need "$SINK" dn-probe-sink
# the shim for --count-allocs, wherever the PROBE binary lives
export DN_ALLOC_LIB=${DN_ALLOC_LIB:-$BUILD/lib/libdevnet-alloc.so}
[ $# -gt 0 ] || set -- "$BUILD/bin/devnet-probe"

T=$(mktemp -d /tmp/dn-pcost.XXXXXX)
ETCD_PID=
cleanup() {
	[ -n "$ETCD_PID" ] && kill "$ETCD_PID" 2>/dev/null && wait "$ETCD_PID"
	rm -rf "$T"
}
trap cleanup EXIT

PORT=$((24000 + RANDOM % 2000))
PROM=
if command -v "${ETCD:-etcd}" >/dev/null 2>&1; then
	"${ETCD:-etcd}" --name b0 --data-dir "$T/etcd" \
	    --listen-client-urls "http://127.0.0.1:$PORT" \
	    --advertise-client-urls "http://127.0.0.1:$PORT" \
	    --listen-peer-urls "http://127.0.0.1:$((PORT + 1))" \
	    --initial-advertise-peer-urls "http://127.0.0.1:$((PORT + 1))" \
	    --initial-cluster "b0=http://127.0.0.1:$((PORT + 1))" \
	    --enable-v2 >"$T/etcd.log" 2>&1 &
	ETCD_PID=$!
	for _ in $(seq 50); do
		curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break
		sleep 0.2
	done
	PROM="http://127.0.0.1:$PORT/metrics"
	echo "scrape target: $PROM ($(curl -s "$PROM" | wc -c) bytes)"
fi

# one PROBE SECONDS EXTRA...: "cpu_ms samples" of one run
one() {
	local probe=$1 secs=$2 url="ipc://$T/sink.sock" line
	shift 2
	"$SINK" "$url" $((secs * 1000 + 20000)) >/dev/null &
	local sink=$!
	sleep 0.2
	"$probe" --metrics "$url" --token 1 --count-allocs \
	    --sample-interval "$INTERVAL_MS" --out /dev/null "$@" -- \
	    "$VICTIM" --fork --threads 8 --sleep $((secs * 1000)) \
	    2>"$T/probe.err"
	wait "$sink"
	line=$(grep DN-PROBE-EXIT "$T/probe.err") || {
		echo "$0: $probe failed:" >&2; cat "$T/probe.err" >&2; exit 1; }
	# a figure of failed scrapes is not the cost of reading the page
	if grep -Eq 'DN-PROBE-(SCRAPE|JSON)-ERROR' "$T/probe.err"; then
		echo "$0: $probe: the page was not read:" >&2
		grep -E 'DN-PROBE-(SCRAPE|JSON)-ERROR' "$T/probe.err" >&2
		exit 1
	fi
	echo "$(echo "$line" | sed 's/.*probe_cpu_ms=\([0-9.]*\).*/\1/')" \
	    "$(echo "$line" | sed 's/.*samples=\([0-9]*\).*/\1/')"
}

# case PROBE NAME EXTRA...: median us per sample over REPEATS rounds
run_case() {
	local probe=$1 name=$2 r s l us=()
	shift 2
	for r in $(seq "$REPEATS"); do
		s=$(one "$probe" "$SHORT_S" "$@")
		l=$(one "$probe" "$LONG_S" "$@")
		us+=("$(echo "$s $l" | awk '{ printf "%.1f",
		    ($3 - $1) * 1000 / ($4 - $2) }')")
	done
	m=$(bench_median "${us[@]}")
	printf '%-40s %-22s %8s us/sample = %s %% of a core at 1 Hz' \
	    "$probe" "$name" "$m" "$(awk -v u="$m" \
	    'BEGIN { printf "%.4f", u / 10000 }')"
	echo "   (rounds: ${us[*]})"
}

# prom_round EVERY: us of Debian's prometheus CPU per scrape of $PROM
# every EVERY x INTERVAL_MS, over LONG_S after WARM_S
prom_round() {
	local ms=$((INTERVAL_MS * $1)) d="$T/prom-$1-$RANDOM" pid c0 c1
	local hz port=$((PORT + 5))
	hz=$(getconf CLK_TCK)
	mkdir -p "$d"
	printf '%s\n' "global: {scrape_interval: ${ms}ms, scrape_timeout: ${ms}ms, evaluation_interval: 1h}" \
	    "scrape_configs:" "  - job_name: etcd" \
	    "    static_configs: [{targets: ['127.0.0.1:$PORT']}]" >"$d/p.yml"
	"${PROMETHEUS:-prometheus}" --config.file="$d/p.yml" \
	    --storage.tsdb.path="$d/data" \
	    --web.listen-address="127.0.0.1:$port" >"$d/log" 2>&1 &
	pid=$!
	sleep "$WARM_S"
	c0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	sleep "$LONG_S"
	c1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	kill "$pid"
	wait "$pid" 2>/dev/null
	rm -rf "$d"
	awk -v a="$c0" -v b="$c1" -v hz="$hz" -v n=$((LONG_S * 1000 / ms)) \
	    'BEGIN { printf "%.1f", (b - a) * 1e6 / hz / n }'
}

# prom_case EVERY: the median of REPEATS rounds, per scrape and per sample
prom_case() {
	local r us=() m
	for r in $(seq "$REPEATS"); do
		us+=("$(prom_round "$1")")
	done
	m=$(bench_median "${us[@]}")
	printf '%-40s %-22s %8s us/scrape; every %d samples: %s us/sample = %s %% of a core at 1 Hz' \
	    "prometheus $("${PROMETHEUS:-prometheus}" --version 2>&1 |
	    sed -n '1s/.*version \([^ ]*\).*/\1/p')" "scrape every $1" "$m" \
	    "$1" "$(awk -v u="$m" -v e="$1" 'BEGIN { printf "%.1f", u / e }')" \
	    "$(awk -v u="$m" -v e="$1" 'BEGIN { printf "%.4f", u / e / 10000 }')"
	echo "   (rounds: ${us[*]})"
}

echo "interval ${INTERVAL_MS} ms, runs ${SHORT_S} s and ${LONG_S} s," \
    "$REPEATS rounds; victim: 2 processes, 10 threads"
for p in "$@"; do
	want tree && run_case "$p" "tree"
	if want scrape && [ -n "$PROM" ] &&
	    "$p" --help 2>&1 | grep -q -- --prom-url; then
		run_case "$p" "tree + scrape" --prom-url "$PROM" \
		    --prom-map height=etcd_server_proposals_applied_total \
		    --prom-keep etcd_mvcc_db_total_size_in_bytes
	fi
	if want json && [ -n "$PROM" ] &&
	    "$p" --help 2>&1 | grep -q -- --json-url; then
		run_case "$p" "tree + JSON" \
		    --json-url "${PROM%/metrics}/v2/stats/store" \
		    --json-map sets=setsSuccess --counter sets
	fi
	if want every && [ -n "$PROM" ] &&
	    "$p" --help 2>&1 | grep -q -- --scrape-every; then
		run_case "$p" "tree + scrape every $EVERY" --prom-url "$PROM" \
		    --prom-map height=etcd_server_proposals_applied_total \
		    --prom-keep etcd_mvcc_db_total_size_in_bytes \
		    --scrape-every "$EVERY"
	fi
done
if want prometheus && [ -n "$PROM" ] &&
    command -v "${PROMETHEUS:-prometheus}" >/dev/null; then
	prom_case 1
	prom_case "$EVERY"
fi
