#!/bin/bash
# duet.sh: issue 36's side by side, the noise of one scenario's trials in
# four designs run one after the other in one window: sequential ABBA
# unpinned, ABBA with every node in a cgroup on CPU 0 (`resources.cpuset:
# "0"`: one core, as each duet side has), the duet (`--order concurrent`,
# A and B on CPU sets of their own, swapped every slot) and concurrent
# unpinned (`pin: none`).  For each design and metric it prints the
# per-trial coefficient of variation of each side (from each trial's own
# observation, compare --unit trial of one trial a side), compare's MDE
# at REPEATS+REPEATS independent (Welch / rank) and paired by slot where
# the design pairs, and the verdict.  Not a test: it prints figures.
#
#   tools/bench/duet.sh SCENARIO REPEATS DIR METRIC... [-- AB-ARG...]
#
# e.g. tools/bench/duet.sh scenarios/smoke.yaml 4 /tmp/duet \
#          cpu_s_per_s ctx_per_s tx_latency_p99_ms
#
# Environment: DEVNET (build/bin/devnet), DESIGNS (abba cgroup duet
# unpinned).  One database per design in DIR (kept).
set -u
if [ $# -lt 4 ]; then
	echo "usage: tools/bench/duet.sh SCENARIO REPEATS DIR METRIC... [-- AB-ARG...]" >&2
	exit 2
fi
scn=$1 reps=$2 dir=$3
shift 3
metrics=() extra=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do metrics+=("$1"); shift; done
[ $# -gt 0 ] && { shift; extra=("$@"); }
DEVNET=${DEVNET:-build/bin/devnet}
DESIGNS=${DESIGNS:-abba cgroup duet unpinned}
mkdir -p "$dir"
margs=()
for m in "${metrics[@]}"; do margs+=(--metric "$m"); done

flags() {
	case $1 in
	abba)		;;
	cgroup)		echo "--set resources.cpuset=0" ;;
	duet)		echo "--order concurrent --set pin=duet" ;;
	unpinned)	echo "--order concurrent --set pin=none" ;;
	*)		echo "unknown design $1" >&2; return 1 ;;
	esac
}

# cv V...: the coefficient of variation of the values, in %
cv() {
	printf '%s\n' "$@" | awk '{ s += $1; q += $1 * $1; n++ }
	    END { if (n < 2 || s == 0) { print "-"; exit }
	    m = s / n; v = (q - n * m * m) / (n - 1); if (v < 0) v = 0;
	    printf "%.1f %%", 100 * sqrt(v) / m }'
}

printf '== duet.sh %s, %s+%s trials, %s; load %s\n' "$scn" "$reps" "$reps" \
    "$(date -u '+%Y-%m-%d %H:%M UTC')" "$(cut -d' ' -f1-3 /proc/loadavg)"
rows=()
for d in $DESIGNS; do
	db=$dir/$d.db
	rm -f "$db" "$db-wal" "$db-shm"
	t0=$(date +%s)
	# shellcheck disable=SC2046
	if ! "$DEVNET" ab "$scn" --db "$db" --repeats "$reps" \
	    --ready-timeout 60s $(flags "$d") "${extra[@]}" "${margs[@]}" \
	    >"$dir/$d.log" 2>&1; then
		# exit 3 is a verdict of worse: the runs are there
		grep -q "^B vs A\|verdict" "$dir/$d.log" || {
			echo "   $d: devnet ab failed; see $dir/$d.log" >&2
			tail -5 "$dir/$d.log" >&2
			continue
		}
	fi
	secs=$(($(date +%s) - t0))
	js=$("$DEVNET" compare --db "$db" 1:A 1:B "${margs[@]}" --format json)
	as=$("$DEVNET" query --db "$db" --format csv \
	    "select id from runs where variant = 'A' and status = 'ok' order by id" | tail -n +2)
	bs=$("$DEVNET" query --db "$db" --format csv \
	    "select id from runs where variant = 'B' and status = 'ok' order by id" | tail -n +2)
	# each trial's observation: one trial a side, --unit trial
	declare -A va=() vb=()
	# shellcheck disable=SC2086
	set -- $bs
	for a in $as; do
		b=${1:-}; [ -n "$b" ] && shift
		[ -n "$b" ] || break
		pj=$("$DEVNET" compare --db "$db" "$a" "$b" --unit trial \
		    "${margs[@]}" --format json 2>/dev/null)
		for m in "${metrics[@]}"; do
			va[$m]="${va[$m]:-} $(jq -r --arg m "$m" '.metrics[] | select(.name == $m) | .a.mean' <<<"$pj")"
			vb[$m]="${vb[$m]:-} $(jq -r --arg m "$m" '.metrics[] | select(.name == $m) | .b.mean' <<<"$pj")"
		done
	done
	for m in "${metrics[@]}"; do
		r=$(jq -r --arg m "$m" '.metrics[] | select(.name == $m) |
		    [(.mde_unpaired_pct // .mde_pct // "-"), (.mde_pct // "-"),
		     .design, .verdict, (.delta_pct // "-")] | @tsv' <<<"$js")
		IFS=$'\t' read -r mi mp des ver del <<<"$r"
		fmt() { [ "$1" = - ] || [ "$1" = null ] && echo - ||
		    printf '%.2f %%' "$1"; }
		# shellcheck disable=SC2086
		rows+=("| $d (${secs} s) | $m | $(cv ${va[$m]}) / $(cv ${vb[$m]}) | $(fmt "$mi") | $(if [ "$des" = paired ]; then fmt "$mp"; else echo -; fi) | $ver $(fmt "$del") |")
	done
	unset va vb
done
echo "| design (wall) | metric | CV A / B | MDE independent | MDE paired | verdict (delta) |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "   load after: $(cut -d' ' -f1-3 /proc/loadavg)"
