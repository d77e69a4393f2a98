#!/bin/sh
# netem.sh: issue 20, the link emulator's costs (docs/benchmarks.md, "Link
# emulator").  Runs dn-netem-bench (tools/bench/netem.c, on the lab of
# tests/net/netlab.c: two namespaces through a routed hub, iptables
# marking and queueing in the hub) ROUNDS times and prints each round,
# then the median of every figure per line kind:
#   base       the hub without the emulator (no queue rule): one-way p50/p99
#   delay D    COUNT probes 1 ms apart through a D ms link: added error
#              p50/p99 (one-way minus D), the emulator's max hold error
#   rate R     R packets/s offered for SECS s through a 10 ms link: what was
#              really sent (in_s), delivered share, error p50/p99, kernel
#              queue drops, the emulator thread's CPU per 1,000 packets
#
# usage: sudo tools/bench/netem.sh [ROUNDS] [COUNT] [SECS] [RATE...]
# BUILD (default build-bench) holds bin/dn-netem-bench.
set -eu
. "$(dirname "$0")/bench-lib.sh"
build=${BUILD:-$ROOT/build-bench}
rounds=${1:-3}
count=${2:-2000}
secs=${3:-2}
[ $# -gt 3 ] && shift 3 || set --
rates=${*:-5000 20000 50000 100000}
drv=$build/bin/dn-netem-bench
bench_need "$drv" dn-netem-bench
out=$(mktemp); trap 'rm -f "$out"' EXIT
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ "$r" -le "$rounds" ]; do
	# shellcheck disable=SC2086
	"$drv" "$count" "$secs" $rates | sed "s/^/round $r: /" | tee -a "$out"
	r=$((r + 1))
done
# Median of each key=value per line kind ("delay 10 ms", "rate 5000 pps").
sed 's/^round [0-9]*: //' "$out" | awk -F': ' '
	{ kind = $1; n = split($2, kv, " ")
	  for (i = 1; i <= n; i++) { split(kv[i], p, "=")
		v[kind, p[1], ++c[kind, p[1]]] = p[2]
		if (!((kind, p[1]) in seen)) { seen[kind, p[1]] = 1
			keys[kind] = keys[kind] " " p[1] }
	  }
	  if (!(kind in order)) { order[kind] = ++nk; kinds[nk] = kind } }
	END {
		for (k = 1; k <= nk; k++) {
			kind = kinds[k]; line = "median " kind ":"
			m = split(keys[kind], ks, " ")
			for (i = 1; i <= m; i++) {
				key = ks[i]; cnt = c[kind, key]
				for (a = 1; a <= cnt; a++) s[a] = v[kind, key, a] + 0
				for (a = 1; a <= cnt; a++) for (b = a + 1; b <= cnt; b++)
					if (s[b] < s[a]) { t = s[a]; s[a] = s[b]; s[b] = t }
				line = line " " key "=" s[int((cnt + 1) / 2)]
			}
			print line
		}
	}'
