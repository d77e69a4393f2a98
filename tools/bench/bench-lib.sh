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
