# docker.sh: `provider: docker` end to end (docs/providers.md).  Starts
# dockerd when none answers (and stops it again), runs smoke.yaml
# shortened with every node in a container, and checks: both runs ok,
# every node metric for every node (cgroup_mem_bytes > 0 too), exact
# transaction accounting, one state hash, and no container, service,
# network or volume with a devnet label left -- also after devnet is
# SIGKILLed mid-run: its nodes stop themselves within 8 s (no collector
# for 3 s), and a new run sweeps anything left.  Exits 77
# (skipped) where Docker is not installed or its daemon cannot start.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/docker-lib.sh"

trap 'rc=$?; stop_dockerd; (exit $rc); cleanup' EXIT
docker_up || finish

SETS="--set duration=6s --set warmup=2s --set repeats=1"
out=$("$DEVNET" run "$SCN/smoke.yaml" --provider docker $SETS \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "devnet run --provider docker exits 0" "$rc" 0
expect_eq "two runs stored, both ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 2
for run in $(q "select id from runs order by id"); do
	expect_node_metrics "$run" cgroup
	expect_tx_exact "$run"
done
expect_eq "nothing labelled left after the runs" "$(labelled)" 0

# Kill devnet itself: its nodes stop themselves (--rm removes their
# containers); the next run's sweep stays the second line.
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
# Nodes in containers stop themselves once the collector has been gone
# for 3 s (issue 19): no container of the killed devnet runs 8 s later.
running() { docker ps -q --filter name=devnet-$dpid- | wc -l; }
none_running() { [ "$(running)" = 0 ]; }
if wait_for 8 none_running; then
	ok "the nodes stopped themselves within 8 s of devnet's SIGKILL"
else
	fail "containers of a SIGKILLed devnet still run 8 s later: $(running)"
fi
out=$("$DEVNET" run "$SCN/smoke.yaml" --provider docker \
    --set duration=2s --set warmup=1s --set repeats=1 \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "the next run exits 0" "$rc" 0
expect_eq "nothing labelled left after the sweep" "$(labelled)" 0
finish
