#!/bin/sh
# scale-net.sh: issue 40's emulated network at scale, as a curve.  For
# each node count, one `devnet run` of N devnet-nodes gossiping over 8
# peers in three zones (eu, us, ap, round robin; 2 ms a link, 20, 30 and
# 40 ms between zones), TPS transactions a second (default 25), two
# trials of 20 s (an A/A: A and B the same build and options; the first
# 5 s warmup), the probe on a sample of the links past 3,000
# (docs/network.md).  Then from its database, per size, one row:
#
#   ready_ms      the slowest node's ready time, the later trial's
#   wall_s        the whole `devnet run` (two trials, their ends)
#   orch%         devnet's own CPU (run fact orchestrator_cpu_s: the
#                 emulator's and the probe's threads are in it), % of a
#                 core over the trials' sampled time
#   emu_us/pkt    the emulator's CPU per packet it delayed
#   node_cpu%     one node's CPU (cpu_user_s + cpu_sys_s), % of a core
#   rss_MB        a node's peak RSS inside the window (mean over nodes)
#   samples/s     stored per second of trial
#   MB/nodeh      database bytes per node-hour, after a checkpoint
#   compare_s, report_s   `devnet compare 1 2` and `devnet report` of
#                 the two trials, wall
#   status        each trial's, with its reason
#
# and below it the proofs: links probed of all, measured, off their
# bounds, not measured, heights at the end.
#
# usage: tools/bench/scale-net.sh [NODES...]   (default 100; heavy)
# DEVNET (default build/bin/devnet) selects the binary; READY (default
# 120s) is its --ready-timeout; PROBE_LINKS (auto) network.probe_links;
# TPS (25) the load; KEEP, a directory: each size's database is kept
# there (KEEP/scale-net-N.db), for `devnet report`.
set -eu
. "$(dirname "$0")/bench-lib.sh"
root=$ROOT
devnet=${DEVNET:-$root/build/bin/devnet}
tps=${TPS:-25}
[ $# -gt 0 ] || set -- 100
bench_need "$devnet" "devnet devnet-node"
work=$(mktemp -d /tmp/sn-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
printf '%5s %8s %6s %6s %10s %9s %6s %9s %8s %9s %8s %s\n' nodes \
    ready_ms wall_s orch% emu_us/pkt node_cpu% rss_MB samples/s \
    MB/nodeh compare_s report_s status
for n in "$@"; do
	zone() { seq "$1" 3 $((n - 1)) | paste -sd, -; }
	cat >"$work/s$n.yaml" <<YAML
name: bench-scale-net
description: $n nodes, 8 peers, three zones, 20 s at $tps TPS, A/A
duration: 20s
warmup: 5s
sample_interval: 1s
seed: 1
repeats: 1
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
  tps: $tps
variants:
  A: {read_options: cached}
  B: {read_options: cached}
YAML
	db=$work/s$n.db
	t0=$(bench_now_ms)
	"$devnet" run "$work/s$n.yaml" --db "$db" --run-dir "$work/r$n" \
	    --ready-timeout "${READY:-120s}" --quiet >"$work/out$n" 2>&1 || true
	t1=$(bench_now_ms)
	q() { sqlite3 "$db" "$1"; }
	f() { q "SELECT sum(value) FROM run_facts WHERE node = -1 AND
	    key = '$1'"; }
	g() { q "SELECT max(value) FROM run_facts WHERE node = -1 AND
	    key = '$1'"; }
	secs=$(q "SELECT sum(s) FROM (SELECT max(t_ms) / 1000.0 AS s
	    FROM samples GROUP BY run_id)")
	ncpu=$(bench_nodes_cpu_s "$db")
	rss=$(bench_node_rss_mb "$db" "$(q "SELECT max(duration_ms) FROM runs")")
	ready=$(q "SELECT detail FROM events WHERE kind = 'start'
	    ORDER BY run_id DESC LIMIT 1" |
	    sed 's/.* ready in \([0-9]*\) ms.*/\1/')
	status=$(q "SELECT group_concat(status || coalesce(': ' || reason,
	    ''), ' / ') FROM runs")
	c0=$(bench_now_ms)
	"$devnet" compare 1 2 --db "$db" >"$work/cmp$n" 2>&1 ||
	    echo "      compare: exit $?: $(tail -1 "$work/cmp$n")"
	c1=$(bench_now_ms)
	"$devnet" report 1 2 --db "$db" -o "$work/r$n.html" \
	    >"$work/rep$n" 2>&1 ||
	    echo "      report: exit $?: $(tail -1 "$work/rep$n")"
	c2=$(bench_now_ms)
	q "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
	awk -v n="$n" -v s="${secs:-0}" -v c="$(f orchestrator_cpu_s)" \
	    -v ec="$(f net_emulator_cpu_s)" -v ep="$(f net_delayed_packets)" \
	    -v nc="${ncpu:-0}" -v rss="${rss:-0}" \
	    -v rows="$(q "SELECT count(*) FROM samples")" \
	    -v b="$(stat -c %s "$db")" -v rd="$ready" -v w=$((t1 - t0)) \
	    -v cs=$((c1 - c0)) -v rs=$((c2 - c1)) -v st="$status" 'BEGIN {
		if (s <= 0) s = 1; if (ep <= 0) ep = 1
		printf "%5d %8s %6.0f %6.1f %10.1f %9.2f %6.1f %9.0f %8.2f " \
		    "%9.2f %8.2f %s\n", n, rd, w / 1000, 100 * c / s,
		    1e6 * ec / ep, 100 * nc / s / n, rss, rows / s,
		    b / 1e6 / (n * s / 3600), cs / 1000, rs / 1000, st }'
	echo "      probe: $(g probe_links) of $(g probe_links_all) links" \
	    "a trial; both trials: $(f net_probes_sent) probes; emulator:" \
	    "$(f net_delayed_packets) packets, $(f net_emulator_cpu_s) s," \
	    "$(f net_emulator_drops) dropped; heights at the end:" \
	    "$(q "SELECT min(value) || '..' || max(value) FROM run_facts
	    WHERE key = 'height'")"
	# a link_proof: "... asked A ms one way, L% loss; measured p50 M ms,
	# X% loss over N probes"
	q "SELECT detail FROM events WHERE kind = 'link_proof'" | awk '
		/measured p50/ { m++; for (i = 1; i <= NF; i++) {
			if ($i == "asked") a = $(i + 1)
			if ($i == "p50") p = $(i + 1)
			if ($i == "loss") x = $(i - 1) + 0 }
		    tol = a * 0.1; if (tol < 1) tol = 1; d = p - a
		    if (d < 0) d = -d
		    if (d > tol) late++; if (x > 2) lossy++ }
		/not measured/ { nm++ }
		END { printf "      link proofs: %d measured (%d off on " \
		    "delay, %d on loss), %d not measured\n", m, late, lossy,
		    nm }'
	[ -z "${KEEP:-}" ] || bench_keep "$db" "$KEEP/scale-net-$n.db"
done
