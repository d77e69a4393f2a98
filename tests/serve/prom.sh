# prom.sh: a real run with --serve, scraped by Debian's real Prometheus
# server (its own temp dir, scrape_interval 1s, on a free port).  After two
# scrapes, Prometheus's own HTTP API must hold devnet_rss_bytes for every
# node with the labels run, variant, trial, node, host, and the load
# generator's rate (devnet_achieved_tps{node="loadgen"}); the target is up
# (Prometheus 2.42 asks for OpenMetrics first, so that format is what it
# parsed); every panel of docs/grafana-devnet.json finds series.
# promtool checks the 0.0.4 page; the OpenMetrics page has UNIT
# lines and ends in "# EOF".  Nothing is left running.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib.sh"

command -v prometheus >/dev/null || { skip "no prometheus"; exit 77; }
P=$(free_port)
PP=$(free_port)
URL="http://127.0.0.1:$P"
check "the server answers while the run goes on" \
    devnet_serve "$P" "$SCN/smoke.yaml" --set duration=40s --set warmup=1s \
    --repeats 1

cat >"$T/prom.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: devnet
    static_configs:
      - targets: ['127.0.0.1:$P']
YML
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/prom" \
    --web.listen-address="127.0.0.1:$PP" >"$T/prom.log" 2>&1 &
PROM=$!
PAPI="http://127.0.0.1:$PP/api/v1"

# pq QUERY PYTHON: evaluate QUERY in Prometheus, print PYTHON's result on
# its "result" list r
pq() {
	curl -sf --max-time 3 --get "$PAPI/query" --data-urlencode "query=$1" |
	    python3 -c "import json, sys
r = json.load(sys.stdin)['data']['result']
print($2)"
}
scrapes() {
	[ "$(pq 'count_over_time(up{job="devnet"}[1m])' \
	    'int(r[0]["value"][1]) if r else 0' 2>/dev/null)" -ge 3 ] 2>/dev/null
}
check "Prometheus scraped devnet at least twice (three samples of up)" \
    wait_for 40 scrapes
expect_eq "the target is up" "$(pq 'up{job="devnet"}' 'r[0]["value"][1]')" 1
host=$(hostname)
got=$(pq 'devnet_rss_bytes' 'sorted("%s %s %s %s %s %d" % (m["metric"]["run"],
    m["metric"]["variant"], m["metric"]["trial"], m["metric"]["node"],
    m["metric"]["host"], float(m["value"][1]) > 1e6)
    for m in r)')
expect_eq "devnet_rss_bytes of every node, labelled" "$got" \
    "['1 A 1 0 $host 1', '1 A 1 1 $host 1', '1 A 1 2 $host 1']"
rate() {
	r=$(pq 'devnet_achieved_tps{node="loadgen",run="1",variant="A"}' \
	    'float(r[0]["value"][1]) if r else -1')
	python3 -c "import sys; sys.exit(not 25 <= $r <= 75)"
}
check "the load generator's rate is there, near 50 tx/s" wait_for 10 rate
expect_eq "counters are _total, in seconds" \
    "$(pq 'count(devnet_cpu_user_seconds_total)' 'r[0]["value"][1]')" 3
expect_eq "lag in seconds" "$(pq 'count(devnet_lag_seconds)' \
    'r[0]["value"][1]')" 3
# devnet_event (the issue's name) is devnet_fault_active: 0 for every
# node of a trial without faults, and the same series
expect_eq "devnet_event of every node, equal to devnet_fault_active" \
    "$(pq 'count(devnet_event == on(run, variant, trial, node, host)
    devnet_fault_active)' 'r[0]["value"][1] if r else 0')" 3

# every panel of the shipped Grafana dashboard finds series
# (a sanitizer build has no allocation counter: the heap figures are not
# measured, so the heap panels find nothing, as they should)
heap='devnet_(allocs|frees|alloc_bytes|heap_live_bytes)'
alloc_off=
sanitized && alloc_off=1
panels=$(python3 -c "import json
for p in json.load(open('$DN_SOURCE_DIR/docs/grafana-devnet.json'))['panels']:
    print(p['targets'][0]['expr'].replace('\$variant', '.*'))" |
    if [ -n "$alloc_off" ]; then grep -Ev "$heap"; else cat; fi)
empty=""
while IFS= read -r e; do
	[ "$(pq "$e" 'len(r)')" -gt 0 ] 2>/dev/null || empty="$empty [$e]"
done <<<"$panels"
expect_eq "every Grafana panel's query finds series" "$empty" ""

curl -sf "$URL/metrics" >"$T/m.txt"
out=$(promtool check metrics <"$T/m.txt" 2>&1)
expect_eq "promtool check metrics finds nothing" "$out" ""
om=$(curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' \
    "$URL/metrics")
expect_match "OpenMetrics: UNIT from the metric table" "$om" \
    '# UNIT devnet_rss_bytes bytes'
expect_match "OpenMetrics: a counter's family without _total" "$om" \
    '# TYPE devnet_minflt counter'
if [ -n "$alloc_off" ]; then
	printf '%s\n' "$om" | grep -Eq "^$heap" &&
		fail "heap figures served without a counter" ||
		ok "no heap figure served without a counter (not measured)"
else
	expect_match "OpenMetrics: the heap counters" "$om" \
	    '# TYPE devnet_allocs counter'
fi
expect_eq "OpenMetrics ends in # EOF" "$(printf '%s\n' "$om" | tail -1)" \
    "# EOF"

kill "$PROM"
wait "$PROM"
# the checks are done: stop the 40 s trial (room for a loaded machine)
kill -TERM "$DN_PID"
wait "$DN_PID"
expect_eq "devnet run stops on SIGTERM (143)" "$?" 143
check "the server is gone with the run" sh -c "! curl -s -o /dev/null \
    --max-time 1 $URL/metrics"
finish
