# upgrade.sh: a rolling upgrade under load (issue 39 #2).  4 devnet-nodes
# at 40 TPS start as variant A (this build's devnet-node); from 4 s on,
# node 0, 1, 2, 3 in turn, 4 s apart, stop (SIGTERM) and start again as
# variant B (another build: a copy of the binary with bytes appended, so
# another sha256) on their own data directories.  Checked on the stored
# rows: the run ok (no unplanned fault, one state hash), the chain never
# stopped (the highest height grew in every 1 s bin of the trial), each
# node's builds on record (facts build_0_* = A, build_1_* = B with B's
# sha256 and the time of its upgrade, the 'upgrade' events), every node
# rejoined, the final heights agree, and the report's charts mark the
# upgrades.  Then the refusals: 'to' a variant that does not exist, and
# provider docker.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

cp "$NODE" "$T/devnet-node-b"
printf 'devnet-node build B\n' >>"$T/devnet-node-b"
sha_a=$(sha256sum "$NODE" | cut -d' ' -f1)
sha_b=$(sha256sum "$T/devnet-node-b" | cut -d' ' -f1)

cat >"$T/up.yaml" <<YAML
name: upgrade-test
duration: 24s
warmup: 1s
sample_interval: 250ms
network:
  nodes: 4
  block_interval: 200ms
  accounts: 500
variants:
  A: {}
  B: {binary: $T/devnet-node-b}
events:
  - {at: 4s, action: upgrade, nodes: [0, 1, 2, 3], to: B, pause: 4s,
     variant: A, name: roll}
workload:
  kind: transfer
  tps: 40
YAML
out=$("$DEVNET" validate "$T/up.yaml" 2>&1)
expect_eq "validate accepts the rolling upgrade" "$?" 0
expect_match "validate shows the first upgrade with the event's name" "$out" \
    "at 4s: upgrade node 0 to B in variant A \('roll'\)"
expect_match "validate shows the last one 3 pauses later" "$out" \
    "at 16s: upgrade node 3 to B in variant A$"
# what really ran: the most of trial A's data directories
# (runs/1-A/node-K) that processes of B's binary held at once, polled
# while the run goes (directories, not processes: under ASan 6 processes
# were seen for 4 directories at one poll)
( max=0; while :; do
	n=$(pgrep -fa -- "$T/devnet-node-b .*--dir $RUNS/1-A/node-" |
	    grep -o -- "--dir $RUNS/1-A/node-[0-9]*" | sort -u | wc -l)
	[ "$n" -gt "$max" ] && max=$n && echo "$max" >"$T/b-seen"
	sleep 0.2
done ) &
poller=$!
out=$("$DEVNET" run "$T/up.yaml" --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
kill "$poller"
wait "$poller" 2>/dev/null
expect_eq "B's binary ran on all 4 of trial A's data directories at once" \
    "$(cat "$T/b-seen" 2>/dev/null)" 4
printf '%s\n' "$out" | tail -20
expect_eq "run: exit 0" "$rc" 0
ra=$(q "select min(id) from runs")
rb=$(q "select max(id) from runs")
expect_eq "trial A ok (no unplanned fault, one state hash)" \
    "$(q "select status || coalesce(': ' || reason, '') from runs where id = $ra")" ok
expect_eq "an upgrade event per node, in turn" \
    "$(q "select group_concat(node, ',') from (select node from events where run_id = $ra and kind = 'upgrade' order by t_ms)")" \
    "0,1,2,3"
expect_match "the event says from which build to which" \
    "$(q "select detail from events where run_id = $ra and kind = 'upgrade' and node = 2")" \
    "^from A to B: pid [0-9]+ stopped \(exit 0\), the build of B started on its data as pid [0-9]+$"
expect_eq "every node rejoined after its upgrade" \
    "$(q "select count(distinct node) from events where run_id = $ra and kind = 'rejoined'")" 4
for k in 0 1 2 3; do
	f() { q "select value from run_facts where run_id = $ra and node = $k and key = '$1'"; }
	expect_eq "node $k: build 0 is A's, from t=0" \
	    "$(f build_0_variant) $(f build_0_sha256) $(f build_0_t_ms)" "A $sha_a 0"
	expect_eq "node $k: build 1 is B's" \
	    "$(f build_1_variant) $(f build_1_binary) $(f build_1_sha256)" \
	    "B $T/devnet-node-b $sha_b"
	at=$(f build_1_t_ms)
	want=$((4000 + 4000 * k))
	[ "${at:-0}" -ge "$want" ] && [ "$at" -le $((want + 1500)) ] &&
		ok "node $k: B from ${at} ms (planned $want)" ||
		fail "node $k: build_1_t_ms '${at:-}', planned $want"
done
# the chain never stopped: the highest height of every 1 s bin from 1 s
# to 23 s is above the bin's before
stalls=$(q "with b as (select s.t_ms / 1000 as sec, max(value) as h from samples s
    join metrics m on m.id = s.metric_id where run_id = $ra and m.name = 'height'
    and s.t_ms between 1000 and 23999 group by sec)
    select count(*) from b b1 join b b0 on b0.sec = b1.sec - 1 where b1.h <= b0.h")
bins=$(q "with b as (select s.t_ms / 1000 as sec from samples s join metrics m on m.id = s.metric_id
    where run_id = $ra and m.name = 'height' and s.t_ms between 1000 and 23999 group by sec)
    select count(*) from b")
expect_eq "heights in 23 one-second bins" "$bins" 23
expect_eq "the highest height grew in every second of the rolling upgrade" "$stalls" 0
# the final heights agree: each node's last height within one block
spread=$(q "with l as (select node, value from samples s join metrics m on m.id = s.metric_id
    where run_id = $ra and m.name = 'height' and s.t_ms = (select max(t_ms) from samples s2
    where s2.run_id = s.run_id and s2.node = s.node and s2.metric_id = s.metric_id))
    select max(value) - min(value) from l")
expect_eq "the final heights agree (spread 0 or 1)" "$([ "${spread%.*}" -le 1 ] && echo yes)" yes
expect_eq "trial B (the event is A's) ran no upgrade" \
    "$(q "select count(*) from events where run_id = $rb and kind = 'upgrade'")" 0
# the report's charts mark each upgrade (a hover title per chart)
"$DEVNET" report --db "$DB" -o "$T/r.html" "$ra" "$rb" >/dev/null 2>&1
expect_match "the report marks the upgrades on its charts" \
    "$(cat "$T/r.html" 2>/dev/null)" "<title>run $ra node 3: upgrade from A to B"

# refused before anything starts
sed 's/to: B/to: C/' "$T/up.yaml" >"$T/bad.yaml"
out=$("$DEVNET" validate "$T/bad.yaml" 2>&1)
expect_match "to: a variant not in variants is refused at FILE:LINE:COL" "$out" \
    "bad.yaml:[0-9]+:[0-9]+: upgrade to variant 'C', which is not in variants"
sed 's/^workload:/provider: docker\nworkload:/' "$T/up.yaml" >"$T/dk.yaml"
out=$("$DEVNET" validate "$T/dk.yaml" 2>&1)
expect_match "provider docker: refused, says what to do" "$out" \
    "action upgrade is carried out by provider local only .*--provider local"
finish
