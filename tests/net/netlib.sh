# netlib.sh: what the tests of devnet run on an emulated network share
# (sourced after lib.sh): reading the stored proofs, and what an emulated
# network could leave behind.
#
# devnet adds nothing to the host's namespace: its hub's veth ends, nft
# table "devnet" and NFQUEUE live in devnet-PID-SEQ-hub, the nodes' other
# ends in devnet-PID-SEQ-nK (local) or in a holder container's namespace
# (docker), so "nothing left" is: no such namespace, no such container,
# and the host's links, nft tables and queues as they were before.

# need_realtime: skip (77) where SCHED_FIFO is refused (a cpu cgroup with
# no realtime runtime, as containers have).  For the tests of tens of
# nodes: there the link emulator, at the default priority, lets packets
# go hundreds of ms late (dn.net.scale under ASan in such a cgroup: a
# packet 229.5 ms after its time, a 2 ms link at p50 3.0 ms), and devnet
# fails the trial, rightly, saying why; nothing of devnet's to test.
need_realtime() {
	if ! chrt -f 1 true 2>/dev/null; then
		echo "SKIP: SCHED_FIFO refused here (not root, or a cpu cgroup with no realtime runtime): the link emulator of $1 cannot keep its delays on a busy machine"
		exit 77
	fi
}

# run_ok WHAT YAML: `devnet run YAML` into $DB and $RUNS, its output
# shown; checks it exits 0 and the run is ok with no reason (its own
# checks of the conditions passed, no unplanned fault); sets $run
run_ok() {
	local out rc
	out=$("$DEVNET" run "$2" --db "$DB" --run-dir "$RUNS" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	expect_eq "$1: exit 0" "$rc" 0
	run=$(q "select max(id) from runs")
	expect_eq "$1: ok (its own checks passed)" \
	    "$(q "select status || coalesce(': ' || reason, '') from runs where id = $run")" ok
}

# latency_off PROOFS: the link_proof lines of PROOFS whose measured p50 is
# off the asked one-way delay by more than max(1 ms, 10 %)
latency_off() {
	printf '%s\n' "$1" | awk '{
		for (i = 1; i <= NF; i++) {
			if ($i == "asked") a = $(i + 1)
			if ($i == "p50") m = $(i + 1)
		}
		tol = a * 0.1; if (tol < 1) tol = 1
		d = m - a; if (d < 0) d = -d
		if (d > tol) print
	}'
}

# proofs KIND: the details of the events of KIND of the run $run_ok set
proofs() { q "select detail from events where run_id = $run and kind = '$1'"; }

# run_pid RUN: the pid of the devnet that ran RUN, from its hub's name
# (devnet-PID-SEQ-hub) in the run's 'network' event
run_pid() {
	q "select detail from events where run_id = $1 and kind = 'network'" |
	    sed -n 's/.*through hub devnet-\([0-9]*\)-.*/\1/p'
}

# expect_link_latency N: the run's network.links proofs (one per directed
# link, the load's too), N of them, each measured within max(1 ms, 10 %)
# of the one-way delay asked; sets $base to them for the test's own checks
expect_link_latency() {
	local off
	base=$(proofs link_proof | grep '^network.links')
	expect_eq "a latency proof per directed link ($1)" \
	    "$(printf '%s\n' "$base" | grep -c 'measured p50')" "$1"
	off=$(latency_off "$base")
	[ -z "$off" ] && ok "one-way latency within max(1 ms, 10%) on all $1 links" ||
		fail "latency off: $off"
}

# max_height RUN FROM TO: the highest height any node of RUN reported in
# [FROM, TO] ms
max_height() {
	q "select cast(max(value) as int) from samples s join metrics m on m.id = s.metric_id
	    where run_id = $1 and m.name = 'height' and t_ms between $2 and $3"
}

# expect_partition_stall RUN B0 B1 D0 D1 A0 A1: a partition into halves
# held the chain (at most one block between the highest heights of
# [B0, B1] ms and [D0, D1]: no majority on either side) and the heal let
# it go on (at least 5 blocks from [D0, D1] to [A0, A1])
expect_partition_stall() {
	local before during after
	before=$(max_height "$1" "$2" "$3")
	during=$(max_height "$1" "$4" "$5")
	after=$(max_height "$1" "$6" "$7")
	[ $((during - before)) -le 1 ] &&
		ok "no block while the halves are apart ($before -> $during)" ||
		fail "heights moved on during the partition: $before -> $during"
	[ $((after - during)) -ge 5 ] &&
		ok "blocks again after heal ($during -> $after)" ||
		fail "no progress after heal: $during -> $after"
}

# host_net: the host namespace's links, nft tables and bound NFQUEUEs,
# one sorted line each
host_net() {
	{
		ip -o link | awk -F': ' '{ sub("@.*", "", $2); print "link " $2 }'
		if command -v nft >/dev/null 2>&1; then
			nft list tables | sed 's/^/nft /'
		fi
		awk '{ print "queue " $1 }' /proc/net/netfilter/nfnetlink_queue \
		    2>/dev/null
	} | sort
}

# left_ns PID: how many namespaces devnet PID's networks still have
left_ns() { ip netns list | grep -c "^devnet-$1-"; }

# left_ctr PID: containers of devnet PID (nodes devnet-PID-RUN-K, holders
# devnet-PID-RUN-K-net), running or not
left_ctr() { docker ps -aq --filter "name=^devnet-$1-" | wc -l; }

# expect_net_clean WHAT PID HOST_BEFORE [docker]: nothing of devnet PID's
# networks left (and no container, with docker), the host's own as before
expect_net_clean() {
	expect_eq "$1: no namespace of devnet $2 left" "$(left_ns "$2")" 0
	if [ "${4:-}" = docker ]; then
		expect_eq "$1: no container of devnet $2 left" "$(left_ctr "$2")" 0
	fi
	local now
	now=$(host_net)
	if [ "$now" = "$3" ]; then
		ok "$1: the host's links, nft tables and queues as before"
	else
		fail "$1: the host's network changed:"
		diff <(printf '%s\n' "$3") <(printf '%s\n' "$now") | sed 's/^/    /' >&2
	fi
}
