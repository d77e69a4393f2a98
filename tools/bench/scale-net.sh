#!/bin/sh
# scale-net.sh: issue 40's emulated network at scale.  One `devnet run` of
# N devnet-nodes (default 100) gossiping over 8 peers in three zones
# (eu, us, ap, round robin; 2 ms by default, 20, 30 and 40 ms between
# zones), TPS transactions a second (default 5: what this 2-core machine
# carries at 100 nodes with the emulator; 25 failed, docs/benchmarks.md),
# a 20 s trial (its first 5 s warmup), the probe on a sample
# of the links past 3,000 (docs/network.md); then from its database: the
# run's wall time against the trial's, the ready time, the status and
# reason, the links probed (of all) and their rate, the probes sent, the
# probe's and the emulator's CPU and packets, devnet's own CPU, the
# link proofs (passed, failed, not measured) and the classes proven.
#
# usage: tools/bench/scale-net.sh [NODES]   (one run: it is heavy)
# DEVNET (default build/bin/devnet) selects the binary; READY (default
# 120s) is its --ready-timeout; PROBE_LINKS (auto) network.probe_links;
# TPS (5) the load; KEEP, a directory: the run's database is kept there
# (KEEP/scale-net-N.db), for `devnet report`.
set -eu
. "$(dirname "$0")/bench-lib.sh"
root=$ROOT
devnet=${DEVNET:-$root/build/bin/devnet}
n=${1:-100}
bench_need "$devnet" "devnet devnet-node"
work=$(mktemp -d /tmp/sn-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
zone() { seq "$1" 3 $((n - 1)) | paste -sd, -; }
cat >"$work/s.yaml" <<YAML
name: bench-scale-net
description: $n nodes, 8 peers, three zones, 20 s at ${TPS:-5} TPS
duration: 20s
warmup: 5s
sample_interval: 1s
seed: 1
network:
  nodes: $n
  peers: 8
  probe_links: ${PROBE_LINKS:-auto}
  block_interval: 1s
  accounts: 2000
  zones: {eu: [$(zone 0)], us: [$(zone 1)], ap: [$(zone 2)]}
  links:
    default: {latency: 2ms}
    eu-us: {latency: 20ms}
    us-ap: {latency: 30ms}
    eu-ap: {latency: 40ms}
workload:
  kind: transfer
  tps: ${TPS:-5}
YAML
db=$work/s.db
t0=$(bench_now_ms)
"$devnet" run "$work/s.yaml" --db "$db" --run-dir "$work/r" \
    --ready-timeout "${READY:-120s}" --quiet >"$work/out" 2>&1 || true
t1=$(bench_now_ms)
q() { sqlite3 "$db" "$1"; }
f() { q "SELECT value FROM run_facts WHERE node = -1 AND key = '$1'"; }
echo "nodes $n; the run took $(((t1 - t0) / 1000)) s for a 20 s trial"
echo "status: $(q "SELECT status || coalesce(': ' || reason, '') FROM runs")"
echo "ready: $(q "SELECT detail FROM events WHERE kind = 'start'" |
    sed 's/.* ready in \([0-9]*\) ms.*/\1 ms/')"
echo "probe: $(f probe_links) of $(f probe_links_all) links at" \
    "$(f probe_rate_hz)/s; $(f net_probes_sent) probes sent," \
    "$(f net_probe_cpu_s) s of CPU"
echo "emulator: $(f net_delayed_packets) packets, $(f net_emulator_cpu_s)" \
    "s of CPU, $(f net_emulator_drops) dropped (queue full);" \
    "devnet: $(f orchestrator_cpu_s) s of CPU"
# a link_proof: "... asked A ms one way, L% loss; measured p50 M ms,
# X% loss over N probes"
q "SELECT detail FROM events WHERE kind = 'link_proof'" | awk '
	/measured p50/ { for (i = 1; i <= NF; i++) {
		if ($i == "asked") a = $(i + 1)
		if ($i == "p50") m = $(i + 1)
		if ($i == "loss") x = $(i - 1) + 0 }
	    tol = a * 0.1; if (tol < 1) tol = 1; d = m - a; if (d < 0) d = -d
	    if (d > tol) late++; if (x > 2) lossy++ }
	END { printf "links off their bounds: %d on delay, %d on loss " \
	    "(of the measured)\n", late, lossy }'
echo "link proofs: $(q "SELECT count(*) FROM events WHERE kind =
    'link_proof' AND detail LIKE '%measured p50%'") measured," \
    "$(q "SELECT count(*) FROM events WHERE kind = 'link_proof' AND
    detail LIKE '%not measured%'") not measured"
q "SELECT detail FROM events WHERE kind = 'link_proof_classes'"
echo "heights at the end: $(q "SELECT min(value) || '..' || max(value)
    FROM run_facts WHERE key = 'height'")"
tail -5 "$work/out"
if [ -n "${KEEP:-}" ]; then
	mkdir -p "$KEEP"
	sqlite3 "$db" "VACUUM INTO '$KEEP/scale-net-$n.db'"
	echo "kept: $KEEP/scale-net-$n.db"
fi
