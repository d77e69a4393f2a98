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
jobs_max=${DN_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}

# fuzz_one NAME: one harness for SECS; its report printed whole when done
fuzz_one() {
	local name=$1 bin=$build/bin/fuzz-$1 out=$build/fuzz-out/$1
	local dict=()
	mkdir -p "$out/corpus"
	[ -f "$here/$name.dict" ] && dict=(-dict="$here/$name.dict")
	# fresh, empty work dir first: libFuzzer adds new inputs to the
	# first corpus dir only
	if ! "$bin" "${dict[@]}" -max_total_time="$secs" -timeout=10 \
	    -rss_limit_mb=2048 \
	    -max_len=65536 -print_final_stats=1 \
	    -artifact_prefix="$out/" "$out/corpus" "$here/corpus/$name" \
	    >"$out/log" 2>&1; then
		echo "== fuzz-$name for ${secs}s: FAILED; see $out/log and" \
		    "the crash-*/leak-*/timeout-* file in $out/" >&2
		tail -40 "$out/log" >&2
		return 1
	fi
	# one write, so that two harnesses' reports do not interleave
	printf '== fuzz-%s for %ss\n%s\n' "$name" "$secs" "$(grep -E \
	    "stat::number_of_executed_units|cov:" "$out/log" | tail -2)"
}

for name in $names; do
	if [ ! -x "$build/bin/fuzz-$name" ]; then
		echo "run.sh: $build/bin/fuzz-$name is missing (configure" \
		    "with -DDN_FUZZ=ON -DCMAKE_C_COMPILER=clang and build)" >&2
		exit 1
	fi
done
# as many at once as there are cores (DN_FUZZ_JOBS): each harness is one
# process on one core, so the seconds each gets are its own
fail=0
running=0
for name in $names; do
	if [ "$running" -ge "$jobs_max" ]; then
		wait -n || fail=1
		running=$((running - 1))
	fi
	fuzz_one "$name" &
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	wait -n || fail=1
	running=$((running - 1))
done
exit $fail
