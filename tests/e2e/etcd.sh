# etcd.sh: issue 12's first proof, shortened: scenarios/etcd-3.yaml (a
# 3-member etcd cluster under devnet-probe, 200 puts/s over HTTP, GOGC 50
# vs 400) as one A/B with a few seconds per trial.  Asserts: `devnet ab`
# prints a verdict; in every trial every member's final height (etcd's
# applied proposals, scraped from /metrics) is the same within 1; puts
# acknowledged (status 200) = puts submitted, none failed or pending; the
# latency of the puts was measured; no etcd is left running.
# Skipped (77) without etcd (tools/install-deps.sh installs etcd-server)
# or while this devnet has no node: section.
. "$(dirname "$0")/lib.sh"

command -v etcd >/dev/null 2>&1 || { echo "skip: no etcd on PATH"; exit 77; }
if ! "$DEVNET" validate "$SCN/etcd-3.yaml" >"$T/validate" 2>&1; then
	if grep -q "unknown key 'node'" "$T/validate"; then
		echo "skip: this devnet has no node: section yet"
		exit 77
	fi
	cat "$T/validate" >&2
	fail "devnet validate etcd-3.yaml"
	exit 1
fi
ok "etcd-3.yaml validates"

# etcds of this test: their data dirs are under $T
etcds() {
	pgrep -f -- "--data-dir $T" 2>/dev/null || true
}

# ports of our own, away from the scenario's default and other tests
BASE=$((40000 + ($$ % 200) * 50))
"$DEVNET" ab "$SCN/etcd-3.yaml" --db "$DB" --run-dir "$RUNS" \
    --repeats 1 --set duration=8s --set warmup=2s \
    --set node.port_base=$BASE --ready-timeout 60s \
    >"$T/ab.out" 2>"$T/ab.err"
rc=$?
expect_eq "devnet ab exits 0" "$rc" 0
[ "$rc" -eq 0 ] || { tail -30 "$T/ab.err" "$T/ab.out" >&2; }
expect_match "a verdict is printed" "$(cat "$T/ab.out")" \
    "(better|worse|no change|inconclusive|same)"

runs=$(q "SELECT id FROM runs ORDER BY id")
expect_eq "two trials stored" "$(echo $runs | wc -w)" 2
for r in $runs; do
	sub=$(q "SELECT value FROM run_facts WHERE run_id = $r AND
	    key = 'tx_submitted'")
	inc=$(q "SELECT value FROM run_facts WHERE run_id = $r AND
	    key = 'tx_included'")
	bad=$(q "SELECT value FROM run_facts WHERE run_id = $r AND
	    key = 'tx_failed'")
	pend=$(q "SELECT value FROM run_facts WHERE run_id = $r AND
	    key = 'tx_pending'")
	check "run $r: puts submitted ($sub) > 1000" [ "${sub:-0}" -gt 1000 ]
	expect_eq "run $r: puts acknowledged = submitted" "$inc" "$sub"
	expect_eq "run $r: no put failed" "$bad" 0
	expect_eq "run $r: no put pending" "$pend" 0
	# the last height each member reported
	hs=$(q "SELECT s.value FROM samples s JOIN metrics m
	    ON m.id = s.metric_id WHERE s.run_id = $r AND
	    m.name = 'height' AND s.t_ms = (SELECT max(t_ms) FROM samples
	    WHERE run_id = $r AND node = s.node AND metric_id = s.metric_id)
	    ORDER BY s.node")
	expect_eq "run $r: a final height from each member" \
	    "$(echo $hs | wc -w)" 3
	spread=$(echo $hs | tr ' ' '\n' | sort -g | sed -n '1p;$p' |
	    paste -sd' ' | awk '{ print $2 - $1 }')
	check "run $r: final heights $(echo $hs) within 1" \
	    [ "${spread:-99}" -le 1 ]
	lat=$(q "SELECT count(*) FROM samples s JOIN metrics m
	    ON m.id = s.metric_id WHERE s.run_id = $r AND
	    m.name = 'tx_latency_p99_ms'")
	check "run $r: put latency measured ($lat samples)" \
	    [ "${lat:-0}" -gt 0 ]
done
sleep 0.5
left=$(etcds)
expect_eq "no etcd left running" "$left" ""
[ -n "$left" ] && kill -9 $left 2>/dev/null
finish
