# docker-lib.sh: what docker.sh, swarm.sh and the two-host tests share,
# sourced after lib.sh: a Docker engine to talk to (started here when none
# answers, stopped again by stop_dockerd), the count of objects left by
# gone devnets, and the transaction accounting every provider must keep.

STARTED_DOCKERD=
DOCKERD_LOG=$(mktemp /tmp/dne-dockerd.XXXXXX)

# docker_up: 0 once `docker info` answers; else a skip (lib.sh) and 1
docker_up() {
	command -v docker >/dev/null 2>&1 || {
		skip "no docker CLI (apt-get install docker.io)"
		return 1
	}
	docker info >/dev/null 2>&1 && return 0
	if ! command -v dockerd >/dev/null 2>&1 && [ ! -x /usr/sbin/dockerd ]
	then
		skip "no dockerd"
		return 1
	fi
	[ "$(id -u)" = 0 ] || {
		skip "dockerd is not running and we are not root"
		return 1
	}
	PATH=$PATH:/usr/sbin dockerd --host unix:///var/run/docker.sock \
	    >"$DOCKERD_LOG" 2>&1 &
	STARTED_DOCKERD=$!
	for _ in $(seq 1 100); do
		docker info >/dev/null 2>&1 && return 0
		kill -0 "$STARTED_DOCKERD" 2>/dev/null || break
		sleep 0.2
	done
	tail -5 "$DOCKERD_LOG" | sed 's/^/    dockerd: /'
	skip "dockerd would not start"
	return 1
}

# stop_dockerd: stop the dockerd docker_up started, if it did
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

# expect_tx_exact RUN: RUN's transactions accounted for exactly (something
# submitted, included + failed + pending = submitted, nothing pending or
# included twice) and one state hash across its nodes
expect_tx_exact() {
	local run=$1 sub inc fl pend dup
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
}

# expect_node_metrics RUN [cgroup]: every node of RUN (0..2) has a sample
# of every node metric it measures (a sanitizer build has no allocation
# counter: its four heap figures are absent, never 0); with "cgroup", a
# cgroup_mem_bytes above 0 too
expect_node_metrics() {
	local run=$1 node got cg nm
	nm=$(q "select count(*) from metrics where source = 'node'")
	if sanitized; then
		nm=$((nm - 4))
	fi
	for node in 0 1 2; do
		got=$(q "select count(distinct metric_id) from samples
		    where run_id = $run and node = $node")
		expect_eq "run $run node $node has every node metric" "$got" \
		    "$nm"
		[ "${2:-}" = cgroup ] || continue
		cg=$(q "select max(value) from samples s join metrics m on
		    m.id = s.metric_id where run_id = $run and node = $node
		    and m.name = 'cgroup_mem_bytes'")
		[ "${cg%.*}" -gt 0 ] 2>/dev/null &&
			ok "run $run node $node cgroup_mem_bytes $cg" ||
			fail "run $run node $node cgroup_mem_bytes '$cg'"
	done
}
