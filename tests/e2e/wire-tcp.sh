# wire-tcp.sh: another local user (nobody) against a trial whose wire is
# TCP (network.listen: tcp; issue 38): the run token is not on
# devnet-node's command line; a frame that claims 1 GiB is refused once
# its length is read (devnet's peak RSS grows by less than 64 MiB while
# 256 MiB are sent) and counted; 300 connections are capped (at most
# 2 x nodes + 4 at once, the rest closed and counted); a SAMPLE with rss
# 0 and a sequence far ahead, with a wrong token and with the right one
# through a connection other than node 0's, is refused and counted,
# stores nothing and counts no lost samples; the run ends ok.
. "$(dirname "$0")/lib.sh"
ATTACK="/usr/bin/python3 $DN_SOURCE_DIR/tests/e2e/wire-attack.py"
mkdir -p "$RUNS"
command -v runuser >/dev/null && id nobody >/dev/null 2>&1 &&
    [ -x /usr/bin/python3 ] && [ "$(id -u)" = 0 ] || {
	echo "SKIP: needs root, runuser, user nobody and /usr/bin/python3"
	exit 77
}
as_nobody() { runuser -u nobody -- $ATTACK "$@"; }
# the peak: what was held at any time, freed or not
rss_kb() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }

BASE=$(port_block 8) || exit 1
COL=$((BASE + 6))	# the collector: PORT + 2 x nodes
cat >"$T/w.yaml" <<YAML
name: wire-tcp
duration: 14s
warmup: 0s
sample_interval: 250ms
network:
  nodes: 3
  block_interval: 200ms
  accounts: 500
  listen: tcp
  tcp_base_port: $BASE
workload:
  kind: transfer
  tps: 40
YAML
"$DEVNET" run "$T/w.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    >"$T/out" 2>&1 &
pid=$!
has_samples() {
	[ "$(q "select count(*) from samples where run_id = 1 and node = 0" 2>/dev/null)" -gt 0 ] 2>/dev/null
}
wait_for 30 has_samples || fail "no samples"
token=$(q "select token from runs where id = 1")

# --- the token is on no devnet-node's command line ------------------------
nodes=$(pgrep -f -- "devnet-node.*$RUNS" | tr '\n' ' ')
[ -n "$nodes" ] || fail "no devnet-node running"
for p in $nodes; do
	if tr '\0' ' ' </proc/"$p"/cmdline | grep -qi -- "$token"; then
		fail "the run token is on devnet-node $p's command line"
	else
		ok "the run token is not on devnet-node $p's command line"
	fi
done

# --- one frame that claims 1 GiB ------------------------------------------
rss0=$(rss_kb $pid)
took=$(as_nobody oversize $COL 256)
sleep 1
rss1=$(rss_kb $pid)
grew=$(( (rss1 - rss0) / 1024 ))
echo "oversized frame: the collector took $took bytes; devnet's peak RSS ${rss0} -> ${rss1} kB"
[ "$grew" -lt 64 ] && ok "devnet grew by ${grew} MiB (< 64) for a 1 GiB frame" ||
	fail "devnet grew by ${grew} MiB for a 1 GiB frame"

# --- 300 connections ----------------------------------------------------------
fd0=$(ls /proc/$pid/fd | wc -l)
as_nobody conns $COL 300 3 >"$T/conns" &
apid=$!
sleep 2
fd1=$(ls /proc/$pid/fd | wc -l)
wait $apid
open=$(cat "$T/conns")
echo "300 connections: $open still open after 3 s; devnet's open files $fd0 -> $fd1"
[ "${open:-999}" -le 10 ] && ok "at most 2 x 3 + 4 = 10 held ($open)" ||
	fail "$open of 300 connections held"
[ "$((fd1 - fd0))" -le 20 ] && ok "devnet's open files grew by $((fd1 - fd0)) (<= 20)" ||
	fail "devnet's open files grew by $((fd1 - fd0))"

# --- forged samples: rss 0, sequence far ahead --------------------------------
as_nobody sample $COL 0123456789abcdef 0 54000000 >/dev/null ||
	fail "the forged sample (an old token) could not be sent"
as_nobody sample $COL "$token" 0 54000000 >/dev/null ||
	fail "the forged sample (the token) could not be sent"

wait "$pid"
rc=$?
expect_eq "the run ends ok" "$rc:$(q "select status from runs where id = 1")" 0:ok
rej=$(q "select value from run_facts where run_id = 1 and key = 'rejected_msgs'")
[ "${rej:-0}" -ge 293 ] && ok "rejected_msgs counts the frame, the connections and the samples ($rej)" ||
	fail "rejected_msgs: ${rej:-none} (want >= 293)"
for why in "connection beyond the trial" \
    "connection that did not show the run token first" "bad run token" \
    "node index held by another connection"; do
	expect_eq "a rejected event: $why" \
	    "$(q "select count(*) from events where run_id = 1 and kind = 'rejected' and detail like '$why%'")" 1
done
expect_eq "no rss 0 stored for node 0" \
    "$(q "select count(*) from samples s join metrics m on m.id = s.metric_id where s.run_id = 1 and s.node = 0 and m.name = 'rss_bytes' and s.value = 0")" 0
lost=$(q "select value from run_facts where run_id = 1 and key = 'lost_samples'")
[ "${lost:-0}" -lt 1000 ] && ok "no forged gap in lost_samples (${lost:-0})" ||
	fail "lost_samples ${lost:-none}: a forged sequence was counted"
finish
