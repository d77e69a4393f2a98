# bench-lib.sh: helpers shared by the issue-6 benchmark scripts (sourced).
# Sets HERE (tools/bench) and ROOT (the source tree) from $0.
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

# bench_median V...: the median (lower of the middle two) of numbers.
bench_median() {
	echo "$@" | tr ' ' '\n' | grep . | sort -g |
	    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# bench_now_ms: CLOCK_REALTIME in milliseconds.
bench_now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# bench_need FILE TARGETS: exit 1 with the build command if FILE is not
# an executable.
bench_need() {
	[ -x "$1" ] || { echo "$0: no $1; build it first (cmake --build" \
	    "build-bench -j2 --target $2)" >&2; exit 1; }
}

# bench_nodes_cpu_s DB: the nodes' CPU seconds (each node's cpu_user_s
# and cpu_sys_s at their last sample), summed over the nodes and runs.
bench_nodes_cpu_s() {
	sqlite3 "$1" "SELECT sum(v) FROM (SELECT max(value) AS v FROM samples
	    WHERE node >= 0 AND metric_id IN (SELECT id FROM metrics WHERE
	    name IN ('cpu_user_s', 'cpu_sys_s')) GROUP BY run_id, node,
	    metric_id)"
}

# bench_node_rss_mb DB [T_MS]: a node's peak RSS in MB, the mean over
# every run's nodes; with T_MS, of the samples at t <= T_MS only.
bench_node_rss_mb() {
	sqlite3 "$1" "SELECT avg(v) / 1e6 FROM (SELECT max(value) AS v FROM
	    samples WHERE node >= 0 AND t_ms <= ${2:-9223372036854775807} AND
	    metric_id = (SELECT id FROM metrics WHERE name = 'rss_bytes')
	    GROUP BY run_id, node)"
}

# bench_keep DB PATH: a vacuumed copy of DB at PATH (replaced if there).
bench_keep() {
	mkdir -p "$(dirname "$2")"
	rm -f "$2"
	sqlite3 "$1" "VACUUM INTO '$2'"
}
