# etcd.sh: issue 12's first proof, shortened: scenarios/etcd-3.yaml (a
# 3-member etcd cluster under devnet-probe, 200 puts/s over HTTP, GOGC 50
# vs 400) as one A/B with a few seconds per trial.  Asserts: `devnet ab`
# prints a verdict; in every trial every member's final height (etcd's
# applied proposals, scraped from /metrics) is the same within 1; puts
# acknowledged (status 200) = puts submitted, none failed or pending; the
# latency of the puts was measured; a Go program's allocations come from
# Go's own counters or are "not measured" (absent); the scenario's own
# assertions ran and passed in every trial; no etcd is left running.
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
BASE=$(port_block 40) || exit 1
"$DEVNET" ab "$SCN/etcd-3.yaml" --db "$DB" --run-dir "$RUNS" \
    --repeats 1 --set duration=8s --set warmup=2s \
    --set node.port_base=$BASE --ready-timeout 60s \
    >"$T/ab.out" 2>"$T/ab.err"
rc=$?
expect_eq "devnet ab exits 0" "$rc" 0
[ "$rc" -eq 0 ] || tail -n 30 "$T/ab.err" "$T/ab.out" >&2
expect_match "a verdict is printed" "$(cat "$T/ab.out")" \
    "(better|worse|changed|equivalent|undecided)"

runs=$(q "SELECT id FROM runs ORDER BY id")
expect_eq "two trials stored" "$(echo $runs | wc -w)" 2
# the scenario's own assertions (issue 21) ran in every trial and passed
expect_eq "etcd-3's assertions: 2 per trial, all passed" \
    "$(q "SELECT count(*) || '/' || sum(status = 'pass') FROM assertions")" 4/4
expect_match "...the members applied proposals" "$(q "SELECT message FROM
    assertions WHERE name = 'every member applies proposals' LIMIT 1")" \
    '^every member applies proposals: height >= 10 blocks held at t=[0-9.]+ s'
expect_match "...and the puts were answered" "$(q "SELECT message FROM
    assertions WHERE name = 'puts are answered' LIMIT 1")" \
    "^puts are answered: the load generator's tx_latency_p99_ms was [0-9.]+ ms"
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

# --- allocations of a Go program: Go's own counters, or "not measured" ----
# etcd's heap is Go's, not malloc's (issue 25): with count_allocs the
# probe reads go_memstats_* from its Prometheus page; without that page
# allocations are absent and said to be not measured, never 0.
P1=$((BASE + 30))
go_yaml() {	# go_yaml NAME WITH_PROMETHEUS(0|1)
	cat <<EOS
name: $1
duration: 4s
sample_interval: 500ms
network: {nodes: 1}
workload: {kind: none}
node:
  command: [etcd, --name, n0, --data-dir, '{dir}/data',
    --listen-client-urls, 'http://127.0.0.1:{port}',
    --advertise-client-urls, 'http://127.0.0.1:{port}',
    --listen-peer-urls, 'http://127.0.0.1:{port+1}',
    --initial-advertise-peer-urls, 'http://127.0.0.1:{port+1}',
    --initial-cluster, 'n0=http://127.0.0.1:{port+1}']
  port_base: $P1
  count_allocs: true
  ready: {http: 'http://127.0.0.1:{port}/health'}
EOS
	[ "$2" = 1 ] && cat <<EOS
  metrics:
    prometheus: {url: 'http://127.0.0.1:{port}/metrics'}
EOS
}
go_yaml goprom 1 >"$T/goprom.yaml"
go_yaml gonoprom 0 >"$T/gonoprom.yaml"
# etcd started through a shell script (issue 25): the probe finds the Go
# binary the wrapper execs, not the shell it starts
printf '#!/bin/sh\nexec etcd "$@"\n' >"$T/start-etcd.sh"
chmod +x "$T/start-etcd.sh"
go_yaml gowrap 1 | sed "s#command: \[etcd,#command: [$T/start-etcd.sh,#" \
    >"$T/gowrap.yaml"
grep -q start-etcd "$T/gowrap.yaml" || fail "gowrap.yaml has no wrapper"
for c in goprom gonoprom gowrap; do
	"$DEVNET" run "$T/$c.yaml" --db "$T/$c.db" --run-dir "$T/$c-runs" \
	    >"$T/$c.out" 2>"$T/$c.err"
	expect_eq "$c: a one-member etcd runs" "$?" 0
done
gq() { sqlite3 -batch -noheader "$T/$1.db" "$2"; }
expect_eq "Go with Prometheus: the source is the Go runtime" \
    "$(gq goprom "SELECT value FROM run_facts WHERE node = 0 AND
    key = 'alloc_source'")" "Go runtime"
expect_match "and the summary says so" "$(cat "$T/goprom.out")" \
    'node 0 allocations: Go runtime'
ga=$(gq goprom "SELECT max(value) FROM samples s JOIN metrics m ON
    m.id = s.metric_id WHERE m.name = 'allocs'")
check "Go runtime allocations counted ($ga > 10000, not malloc's ~15)" \
    awk -v a="${ga:-0}" 'BEGIN { exit !(a > 10000) }'
expect_eq "Go behind a wrapper script: the source is the Go runtime" \
    "$(gq gowrap "SELECT value FROM run_facts WHERE node = 0 AND
    key = 'alloc_source'")" "Go runtime"
gw=$(gq gowrap "SELECT max(value) FROM samples s JOIN metrics m ON
    m.id = s.metric_id WHERE m.name = 'allocs'")
check "...and its Go runtime allocations counted ($gw > 10000)" \
    awk -v a="${gw:-0}" 'BEGIN { exit !(a > 10000) }'
expect_match "Go without Prometheus: not measured" \
    "$(gq gonoprom "SELECT value FROM run_facts WHERE node = 0 AND
    key = 'alloc_source'")" '^not measured: Go runtime heap'
expect_eq "and no allocation sample at all (absent, not 0)" \
    "$(gq gonoprom "SELECT count(*) FROM samples s JOIN metrics m ON
    m.id = s.metric_id WHERE m.name IN ('allocs', 'frees',
    'alloc_bytes', 'heap_live_bytes')")" 0
expect_match "and the summary shows allocs/s n/a" "$(cat "$T/gonoprom.out")" \
    '^  0 .* n/a '

sleep 0.5
left=$(etcds)
expect_eq "no etcd left running" "$left" ""
[ -n "$left" ] && kill -9 $left 2>/dev/null
finish
