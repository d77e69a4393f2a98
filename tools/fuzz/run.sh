#!/bin/bash
# run.sh BUILD_DIR SECONDS [NAME...]: run every libFuzzer harness of
# BUILD_DIR (built with -DDN_FUZZ=ON; or only those NAMEd: scenario, wire,
# import) for SECONDS each, starting from the seed corpora in
# tools/fuzz/corpus/NAME.  Fails (exit 1) on a crash, leak, timeout or
# sanitizer report; the reproducer is kept in BUILD_DIR/fuzz-out/NAME/.
# New corpus entries go to BUILD_DIR/fuzz-out/NAME/corpus, never into the
# source tree.
set -u
if [ $# -lt 2 ]; then
	echo "usage: tools/fuzz/run.sh BUILD_DIR SECONDS [NAME...]" >&2
	exit 2
fi
build=$1
secs=$2
shift 2
names=${*:-scenario wire import http json}
here=$(cd "$(dirname "$0")" && pwd)
fail=0
for name in $names; do
	bin=$build/bin/fuzz-$name
	if [ ! -x "$bin" ]; then
		echo "run.sh: $bin is missing (configure with -DDN_FUZZ=ON" \
		    "-DCMAKE_C_COMPILER=clang and build)" >&2
		exit 1
	fi
	out=$build/fuzz-out/$name
	mkdir -p "$out/corpus"
	echo "== fuzz-$name for ${secs}s"
	dict=()
	[ -f "$here/$name.dict" ] && dict=(-dict="$here/$name.dict")
	# fresh, empty work dir first: libFuzzer adds new inputs to the
	# first corpus dir only
	if ! "$bin" "${dict[@]}" -max_total_time="$secs" -timeout=10 \
	    -rss_limit_mb=2048 \
	    -max_len=65536 -print_final_stats=1 \
	    -artifact_prefix="$out/" "$out/corpus" "$here/corpus/$name" \
	    >"$out/log" 2>&1; then
		echo "run.sh: fuzz-$name FAILED; see $out/log and the" \
		    "crash-*/leak-*/timeout-* file in $out/" >&2
		tail -40 "$out/log" >&2
		fail=1
	else
		grep -E "stat::number_of_executed_units|cov:" "$out/log" |
		    tail -2
	fi
done
exit $fail
