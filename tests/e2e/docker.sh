# docker.sh: `provider: docker` end to end (docs/providers.md).  Starts
# dockerd when none answers (and stops it again), runs smoke.yaml
# shortened with every node in a container, and checks: both runs ok,
# every node metric for every node (cgroup_mem_bytes > 0 too), exact
# transaction accounting, one state hash, and no container, service,
# network or volume with a devnet label left -- also after devnet is
# SIGKILLed mid-run and a new run sweeps what it left.  Exits 77
# (skipped) where Docker is not installed or its daemon cannot start.

STARTED_DOCKERD=
DOCKERD_LOG=$(mktemp /tmp/dne-dockerd.XXXXXX)

skip() {
	echo "SKIP: $*"
	rm -f "$DOCKERD_LOG"
	exit 77
}

command -v docker >/dev/null 2>&1 ||
	skip "no docker CLI (apt-get install docker.io)"
if ! docker info >/dev/null 2>&1; then
	command -v dockerd >/dev/null 2>&1 || [ -x /usr/sbin/dockerd ] ||
		skip "no dockerd"
	[ "$(id -u)" = 0 ] || skip "dockerd is not running and we are not root"
	PATH=$PATH:/usr/sbin dockerd --host unix:///var/run/docker.sock \
	    >"$DOCKERD_LOG" 2>&1 &
	STARTED_DOCKERD=$!
	for _ in $(seq 1 100); do
		docker info >/dev/null 2>&1 && break
		kill -0 "$STARTED_DOCKERD" 2>/dev/null || break
		sleep 0.2
	done
	if ! docker info >/dev/null 2>&1; then
		tail -5 "$DOCKERD_LOG" | sed 's/^/    dockerd: /'
		kill "$STARTED_DOCKERD" 2>/dev/null
		wait "$STARTED_DOCKERD" 2>/dev/null
		skip "dockerd would not start"
	fi
fi

. "$(dirname "$0")/lib.sh"

stop_dockerd() {
	if [ -n "$STARTED_DOCKERD" ]; then
		kill "$STARTED_DOCKERD" 2>/dev/null
		for _ in $(seq 1 100); do
			kill -0 "$STARTED_DOCKERD" 2>/dev/null || break
			sleep 0.2
		done
		kill -9 "$STARTED_DOCKERD" 2>/dev/null
		wait "$STARTED_DOCKERD" 2>/dev/null
	fi
	rm -f "$DOCKERD_LOG"
}
trap 'rc=$?; stop_dockerd; (exit $rc); cleanup' EXIT

# owners: the devnet.owner label of every object any devnet made
owners() {
	local k ids
	if docker service ls -q >/dev/null 2>&1; then
		for k in service config; do
			ids=$(docker $k ls -q --filter label=devnet.owner)
			[ -n "$ids" ] && docker $k inspect --format \
			    '{{index .Spec.Labels "devnet.owner"}}' $ids
		done
	fi
	docker container ls -a --filter label=devnet.owner \
	    --format '{{.Label "devnet.owner"}}'
	for k in network volume; do
		docker $k ls --filter label=devnet.owner \
		    --format '{{.Label "devnet.owner"}}'
	done
}

# labelled: how many objects are left by devnets that are gone (other
# tests' devnets may be running on the same engine meanwhile)
labelled() {
	local n=0 o pid
	for o in $(owners 2>/dev/null); do
		pid=${o#*:}
		pid=${pid%%:*}
		kill -0 "$pid" 2>/dev/null || n=$((n + 1))
	done
	echo "$n"
}

SETS="--set duration=6s --set warmup=2s --set repeats=1"
out=$("$DEVNET" run "$SCN/smoke.yaml" --provider docker $SETS \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "devnet run --provider docker exits 0" "$rc" 0
expect_eq "two runs stored, both ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 2
nmetrics=$(q "select count(*) from metrics where source = 'node'")
for run in $(q "select id from runs order by id"); do
	for node in 0 1 2; do
		got=$(q "select count(distinct metric_id) from samples
		    where run_id = $run and node = $node")
		expect_eq "run $run node $node has every node metric" "$got" \
		    "$nmetrics"
		cg=$(q "select max(value) from samples s join metrics m on
		    m.id = s.metric_id where run_id = $run and node = $node
		    and m.name = 'cgroup_mem_bytes'")
		[ "${cg%.*}" -gt 0 ] 2>/dev/null &&
			ok "run $run node $node cgroup_mem_bytes $cg" ||
			fail "run $run node $node cgroup_mem_bytes '$cg'"
	done
	fact() {
		q "select value from run_facts where run_id = $run and key = '$1'"
	}
	sub=$(fact tx_submitted)
	inc=$(fact tx_included)
	fl=$(fact tx_failed)
	pend=$(fact tx_pending)
	dup=$(fact tx_duplicates)
	[ "$sub" -gt 0 ] 2>/dev/null && ok "run $run submitted $sub" ||
		fail "run $run submitted '$sub'"
	expect_eq "run $run: included + failed + pending = submitted" \
	    "$((inc + fl + pend))" "$sub"
	expect_eq "run $run: nothing pending" "$pend" 0
	expect_eq "run $run: nothing included twice" "$dup" 0
	expect_eq "run $run: one state hash across nodes" \
	    "$(q "select count(distinct value) from run_facts
	    where run_id = $run and key = 'state_hash'")" 1
done
expect_eq "nothing labelled left after the runs" "$(labelled)" 0

# Kill devnet itself: its containers outlive it; the next run removes them.
"$DEVNET" run "$SCN/smoke.yaml" --provider docker --set duration=60s \
    --set repeats=1 --db "$DB" --run-dir "$RUNS" --quiet >/dev/null 2>&1 &
dpid=$!
for _ in $(seq 1 150); do
	# its containers are named devnet-PID-RUN-K
	[ "$(docker ps -q --filter name=devnet-$dpid- | wc -l)" -ge 3 ] &&
		break
	sleep 0.2
done
sleep 1
kill -9 "$dpid"
wait "$dpid" 2>/dev/null
left=$(labelled)
[ "$left" -ge 3 ] && ok "containers outlive a SIGKILLed devnet ($left)" ||
	fail "containers after SIGKILL: '$left'"
out=$("$DEVNET" run "$SCN/smoke.yaml" --provider docker \
    --set duration=2s --set warmup=1s --set repeats=1 \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "the next run exits 0" "$rc" 0
expect_match "the next run sweeps what the killed one left" "$out" \
    "removed [0-9]+ Docker object"
expect_eq "nothing labelled left after the sweep" "$(labelled)" 0
finish
