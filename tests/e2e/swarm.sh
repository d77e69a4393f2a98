# swarm.sh: `provider: swarm` end to end (docs/providers.md, "swarm").
# `devnet validate --provider swarm` prints the Compose file (no Docker
# needed).  Then, with Docker: starts dockerd when none answers and makes
# a one-host swarm (`docker swarm init --advertise-addr 127.0.0.1`) when
# the engine is in none -- and undoes both at the end; runs smoke.yaml
# shortened, over tcp, as one stack per trial, and checks: both runs ok,
# every node metric for every node, exact transaction accounting, one
# state hash, nodes.host filled with the task's host, the Compose file in
# the trial dir, the errors before any trial (no tcp, not a manager),
# and no service, config, container, network or volume with a devnet
# label left -- also after devnet is SIGKILLed mid-run and a new run
# sweeps what it left.  Exits 77 (skipped) where Docker cannot start.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/docker-lib.sh"

SETS="--set duration=6s --set warmup=2s --set repeats=1"
# 7 ports (3 nodes x 2 + the collector), away from the other tests'
BASE=$((26000 + ($$ % 100) * 10))
TCP="--set network.listen=tcp --set network.tcp_base_port=$BASE"

# --- validate: the Compose file, without Docker ---------------------------
out=$("$DEVNET" validate "$SCN/smoke.yaml" --provider swarm $TCP 2>&1)
rc=$?
expect_eq "validate --provider swarm exits 0" "$rc" 0
expect_match "validate prints a Compose file" "$out" \
    "compose file of variant A"
expect_match "one service per node" "$out" "^  n2:"
expect_match "nodes dial the collector on the advertise address" "$out" \
    "\"--metrics\", \"tcp://ADVERTISE_ADDR:$((BASE + 6))\""
expect_match "nodes spread over the hosts" "$out" "spread: node.id"
expect_match "no restarts by the swarm" "$out" \
    "restart_policy: \{condition: none\}"
expect_match "devnet labels on the services" "$out" \
    "devnet.owner: \"HOST:PID:START\""
expect_match "host network" "$out" "name: host"
out=$("$DEVNET" validate "$SCN/smoke.yaml" --provider swarm \
    --set placement=zone=a 2>&1)
expect_match "placement LABEL=VALUE is a constraint" "$out" \
    "node.labels.zone == a"

# A `$` reaches the Compose file as `$$` (issue 19 #3): Compose would put
# devnet's own $HOME and $PATH in a node's command and env, and refuse a
# log regex ending in `$` ("invalid interpolation format").  The program
# stays as written (`sh`, not the host's /usr/bin/dash: issue 19 #9).
cat >"$T/dollar.yaml" <<'EOF'
name: dollar
duration: 4s
warmup: 0s
sample_interval: 500ms
network: {nodes: 1, listen: tcp, tcp_base_port: 26990}
workload: {kind: none}
provider: swarm
node:
  command: [sh, -c, 'echo "tick 1 $HOME"; exec sleep 30']
  env: {WHERE: '$PATH'}
  metrics:
    log:
      ticks: 'tick ([0-9]+).*$'
EOF
out=$("$DEVNET" validate "$T/dollar.yaml" 2>&1)
expect_eq "validate of a scenario with dollars exits 0" "$?" 0
printf '%s\n' "$out" | grep -F -q '$$HOME' && ok 'the command'"'"'s $HOME is $$HOME' ||
	fail "no \$\$HOME in: $out"
printf '%s\n' "$out" | grep -F -q '"WHERE=$$PATH"' && ok 'the env'"'"'s $PATH is $$PATH' ||
	fail "no WHERE=\$\$PATH in: $out"
printf '%s\n' "$out" | grep -F -q '.*$$"' && ok 'the regex'"'"'s final $ is $$' ||
	fail "the regex's \$ not doubled in: $out"
printf '%s\n' "$out" | grep -F -q '"--", "sh", "-c"' && ok "the program as written: sh" ||
	fail "the program is not 'sh' as written: $out"
if command -v docker >/dev/null && docker stack config --help >/dev/null 2>&1; then
	printf '%s\n' "$out" | sed -n '/^version:/,$p' >"$T/dollar-compose.yaml"
	cfg=$(HOME=/devnet-home PATH=/devnet-path:$PATH docker stack config \
	    -c "$T/dollar-compose.yaml" 2>&1)
	expect_match "docker stack config takes it" "$cfg" 'WHERE'
	case $cfg in
	*devnet-home*|*devnet-path*) fail "Compose put devnet's own environment in: $cfg" ;;
	*) ok "Compose keeps \$HOME and \$PATH literal" ;;
	esac
fi

# --- Docker and a swarm, or skip ------------------------------------------
MADE_SWARM=

undo() {
	if [ -n "$MADE_SWARM" ]; then
		docker swarm leave --force >/dev/null 2>&1 ||
			echo "FAIL: docker swarm leave --force" >&2
	fi
	stop_dockerd
}
trap 'rc=$?; undo; (exit $rc); cleanup' EXIT

swarm_state() {
	docker info --format '{{.Swarm.LocalNodeState}}' 2>/dev/null
}

docker_up || finish
if [ "$(swarm_state)" = inactive ]; then
	# Not a manager yet: devnet says so before any trial.
	out=$("$DEVNET" run "$SCN/smoke.yaml" --provider swarm $TCP $SETS \
	    --db "$DB" --run-dir "$RUNS" 2>&1)
	rc=$?
	expect_eq "not in a swarm: exit 1" "$rc" 1
	expect_match "not in a swarm: says how to make one" "$out" \
	    "not in a swarm .*docker swarm init --advertise-addr"
	if docker swarm init --advertise-addr 127.0.0.1 >/dev/null 2>&1; then
		MADE_SWARM=1
	else
		skip "docker swarm init --advertise-addr 127.0.0.1 failed"
		finish
	fi
fi
[ "$(swarm_state)" = active ] || { skip "swarm state $(swarm_state)"; finish; }
SELF=$(docker node ls --format '{{if .Self}}{{.Hostname}}{{end}}' |
    grep .)

# No network.listen/tcp_base_port: devnet chooses TCP and free ports
# itself and says so (issue 19), rather than refusing.
out=$("$DEVNET" run "$SCN/smoke.yaml" --provider swarm $SETS \
    --set resources.cpus=1 --set resources.memory=256MiB \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "devnet run --provider swarm exits 0" "$rc" 0
expect_match "without tcp: devnet chose TCP and free ports, and said so" \
    "$out" "provider swarm: the nodes listen over TCP, ports [0-9]+\.\.[0-9]+ \(network.listen: tcp, network.tcp_base_port: [0-9]+ chosen"
expect_eq "resources: limits in the Compose file" \
    "$(cat "$RUNS"/1-*/devnet-*.yml | grep -c 'memory: "268435456"')" 3
expect_eq "two runs stored, both ok" \
    "$(q "select count(*) from runs where status = 'ok'")" 2
for run in $(q "select id from runs order by id"); do
	expect_eq "run $run: deployed as a stack" \
	    "$(q "select count(*) from events where run_id = $run and
	    kind = 'deploy'")" 1
	ls "$RUNS"/"$run"-*/devnet-*-"$run".yml >/dev/null 2>&1 &&
		ok "run $run: the Compose file is in the trial dir" ||
		fail "run $run: no devnet-*-$run.yml in the trial dir"
	expect_eq "run $run: nodes.host is the task's host ($SELF)" \
	    "$(q "select count(*) from nodes where run_id = $run and
	    host = '$SELF'")" 3
	expect_node_metrics "$run" cgroup
	expect_tx_exact "$run"
done
expect_eq "nothing labelled left after the runs" "$(labelled)" 0

# Kill devnet itself: its stack outlives it; the next run removes it.
"$DEVNET" run "$SCN/smoke.yaml" --provider swarm $TCP --set duration=60s \
    --set repeats=1 --db "$DB" --run-dir "$RUNS" --quiet >/dev/null 2>&1 &
dpid=$!
for _ in $(seq 1 150); do
	# its stack is devnet-PID-RUN: its containers are named so
	[ "$(docker ps -q --filter name=devnet-$dpid- | wc -l)" -ge 3 ] &&
		break
	sleep 0.2
done
sleep 1
kill -9 "$dpid"
wait "$dpid" 2>/dev/null
left=$(labelled)
[ "$left" -ge 6 ] &&
	ok "services and containers outlive a SIGKILLed devnet ($left)" ||
	fail "services and containers after SIGKILL: '$left'"
out=$("$DEVNET" run "$SCN/smoke.yaml" --provider swarm $TCP \
    --set duration=2s --set warmup=1s --set repeats=1 \
    --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
printf '%s\n' "$out"
expect_eq "the next run exits 0" "$rc" 0
expect_match "the next run sweeps what the killed one left" "$out" \
    "removed [0-9]+ Docker object"
expect_eq "nothing labelled left after the sweep" "$(labelled)" 0
finish
