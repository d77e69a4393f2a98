# twohost-lib.sh: a real two-host Docker Swarm on this one machine, for
# tests (docs/testing.md, "Two hosts on one machine"); sourced after
# lib.sh.  Not here: the default dockerd (/var/run/docker.sock, see
# docker-lib.sh), which this never talks to, starts or stops.
#
# dn_twohost_up makes two network namespaces ("hosts") joined by a veth
# pair, 10.213.0.1 and 10.213.0.2/24, and starts one dockerd in each (its
# own data root, exec root, socket, cgroup parent and hostname; no bridge,
# no iptables); h1's engine inits a swarm advertising 10.213.0.1, h2's
# joins it as a worker; devnet's node image is built on h1 and loaded
# into h2 (same image ID on both).  Then, for the test:
#
#   DOCKER_HOST            h1's engine, the manager (exported)
#   TH_SOCK1, TH_SOCK2     each engine's DOCKER_HOST
#   TH_NS1, TH_NS2         the namespaces (/run/netns/NAME)
#   TH_ADDR1, TH_ADDR2     their addresses
#   TH_HOST1, TH_HOST2     the engines' hostnames, as `docker node ls`
#                          and `docker stack ps` (.Node) show them
#   TH_IMAGE               devnet-node:TAG, on both engines
#
# and every swarm node carries the label host=h1 or host=h2 (placement:
# host=h1 pins a devnet there).  `on_h1 CMD...` runs CMD in h1's network
# namespace: devnet must run there, since its collector listens on the
# swarm's advertise address.  `dk1`/`dk2` are docker on either engine.
#
# dn_twohost_down undoes everything (services, containers, daemons and
# what they started, cgroups, namespaces, dirs); it is safe to call twice
# and after a half-done dn_twohost_up.  dn_twohost_up first sweeps what a
# killed test left (names carry the test's pid; a dead pid is a leftover).
# Where it cannot start (not root, no dockerd, ip, nsenter or unshare, a
# daemon that does not answer) it says why through lib.sh's skip and
# returns 1: the test then finishes with 77.
#
# Why nsenter, not `ip netns exec`: the latter remounts /sys for the
# namespace, which hides /sys/fs/cgroup, and dockerd then refuses to
# start ("Devices cgroup isn't mounted").  `nsenter --net` keeps /sys;
# `unshare --mount --uts` gives each dockerd a private mount table (its
# overlay mounts vanish with it, even after kill -9) and a hostname.

# dockerd, ip: in sbin, which a user's PATH may lack
PATH=$PATH:/usr/sbin:/sbin
# a test stopped by SIGTERM or Ctrl-C still runs its EXIT trap (and so
# dn_twohost_down); after SIGKILL the next dn_twohost_up sweeps
trap 'exit 143' TERM
trap 'exit 130' INT

TH_TAG=dn-twohost-$$
TH_RUN=/run/$TH_TAG
TH_DATA=/var/lib/$TH_TAG
TH_NS1=$TH_TAG-h1
TH_NS2=$TH_TAG-h2
TH_ADDR1=10.213.0.1
TH_ADDR2=10.213.0.2
TH_HOST1=dn-h1
TH_HOST2=dn-h2
TH_SOCK1=unix://$TH_RUN/h1/docker.sock
TH_SOCK2=unix://$TH_RUN/h2/docker.sock
TH_IMAGE=
TH_UP=

dk1() { DOCKER_HOST=$TH_SOCK1 docker "$@"; }
dk2() { DOCKER_HOST=$TH_SOCK2 docker "$@"; }

# on_h1 CMD...: CMD in h1's network namespace, talking to h1's engine
on_h1() { DOCKER_HOST=$TH_SOCK1 nsenter --net=/run/netns/"$TH_NS1" "$@"; }
on_h2() { DOCKER_HOST=$TH_SOCK2 nsenter --net=/run/netns/"$TH_NS2" "$@"; }

# left: devnet objects on both engines whose devnet is gone (labelled,
# docker-lib.sh), and every container and service at all (the swarm is
# the test's alone); nothing_left: left is 0
left() {
	echo $(( $(labelled) + $(DOCKER_HOST=$TH_SOCK2 labelled) +
	    $(dk1 service ls -q | wc -l) + $(dk1 ps -aq | wc -l) +
	    $(dk2 ps -aq | wc -l) ))
}
nothing_left() { [ "$(left)" = 0 ]; }

# devnet_h1 ARGS...: devnet in h1's namespace, on h1's engine.  Not for a
# devnet in the background whose pid is wanted: a function there is a
# subshell; call nsenter directly (it execs devnet: $! is devnet).
devnet_h1() { on_h1 "$DEVNET" "$@"; }

# th_say TEXT: progress on stderr, with seconds since dn_twohost_up began
th_say() {
	echo "twohost: $(( $(date +%s%N) / 1000000 - TH_T0 )) ms: $*" >&2
}

# th_destroy TAG: undo one instance (ours, or a dead test's), quietly
th_destroy() {
	local tag=$1 n ns pids p
	for n in 1 2; do
		ns=$tag-h$n
		[ -e /run/netns/"$ns" ] || continue
		if [ -S /run/"$tag"/h$n/docker.sock ] && [ "$n" = 1 ]; then
			# services first, or the swarm restarts what we kill
			p=$(DOCKER_HOST=unix:///run/$tag/h1/docker.sock \
			    timeout 10 docker service ls -q 2>/dev/null)
			[ -n "$p" ] && DOCKER_HOST=unix:///run/$tag/h1/docker.sock \
			    timeout 20 docker service rm $p >/dev/null 2>&1
		fi
		if [ -S /run/"$tag"/h$n/docker.sock ]; then
			p=$(DOCKER_HOST=unix:///run/$tag/h$n/docker.sock \
			    timeout 10 docker ps -aq 2>/dev/null)
			[ -n "$p" ] && DOCKER_HOST=unix:///run/$tag/h$n/docker.sock \
			    timeout 20 docker rm -f $p >/dev/null 2>&1
		fi
		p=$(cat /run/"$tag"/h$n/pid 2>/dev/null)
		[ -n "$p" ] && kill "$p" 2>/dev/null
	done
	# dockerd stops its containerd; what is still in a namespace or under
	# a cgroup parent after 3 s is killed (dockerd in a swarm often takes
	# 3-6 s; what it would tidy is deleted below anyway, and its mounts
	# live in its own mount namespace)
	for _ in $(seq 1 30); do
		pids=
		for n in 1 2; do
			[ -e /run/netns/"$tag"-h$n ] &&
				pids="$pids $(ip netns pids "$tag"-h$n 2>/dev/null)"
		done
		pids="$pids $(cat /sys/fs/cgroup/*/"$tag"-h[12]/cgroup.procs \
		    /sys/fs/cgroup/*/"$tag"-h[12]/*/cgroup.procs 2>/dev/null)"
		[ -z "${pids// /}" ] && break
		sleep 0.1
	done
	[ -n "${pids// /}" ] && kill -9 $pids 2>/dev/null
	for _ in $(seq 1 50); do
		find /sys/fs/cgroup -mindepth 2 -maxdepth 4 -depth -type d \
		    -path "*/$tag-h[12]*" -exec rmdir {} + 2>/dev/null
		[ -z "$(find /sys/fs/cgroup -mindepth 2 -maxdepth 2 \
		    -name "$tag-h[12]" 2>/dev/null)" ] && break
		sleep 0.1
	done
	for n in 1 2; do
		[ -e /run/netns/"$tag"-h$n ] && ip netns del "$tag"-h$n
	done
	rm -rf /run/"$tag" /var/lib/"$tag"
}

# th_sweep: what earlier tests that died midway left (their pid is gone)
th_sweep() {
	local d tag pid
	for d in /run/netns/dn-twohost-* /run/dn-twohost-* \
	    /var/lib/dn-twohost-* /sys/fs/cgroup/*/dn-twohost-*; do
		[ -e "$d" ] || continue
		tag=${d##*/}
		tag=${tag%-h[12]}
		pid=${tag#dn-twohost-}
		case $pid in *[!0-9]*|'') continue ;; esac
		[ "$pid" = $$ ] && continue
		kill -0 "$pid" 2>/dev/null && continue
		echo "twohost: removing $tag, left by a test that died" >&2
		th_destroy "$tag"
	done
}

# th_dockerd N: start h N's dockerd in its namespace
th_dockerd() {
	local n=$1 dir=$TH_RUN/h$1 host
	[ "$n" = 1 ] && host=$TH_HOST1 || host=$TH_HOST2
	mkdir -p "$dir" "$TH_DATA/h$n" || return 1
	nsenter --net=/run/netns/"$TH_TAG-h$n" unshare --mount --uts \
	    sh -c 'hostname "$0" && exec "$@"' "$host" \
	    "$TH_DOCKERD" --config-file "$TH_RUN/daemon.json" \
	    --data-root "$TH_DATA/h$n" --exec-root "$dir/x" \
	    --pidfile "$dir/pid" --host "unix://$dir/docker.sock" \
	    --bridge=none --iptables=false --ip6tables=false \
	    --ip-masq=false --cgroup-parent="/$TH_TAG-h$n" \
	    >"$dir/log" 2>&1 </dev/null &
}

# th_ready: true once both swarm nodes are Ready
th_ready() {
	[ "$(dk1 node ls --format '{{.Status}}' 2>/dev/null |
	    grep -c '^Ready$')" = 2 ]
}

# th_fail WHY: skip with WHY (and the daemons' last words); 1
th_fail() {
	local n
	for n in 1 2; do
		[ -f "$TH_RUN/h$n/log" ] && grep -v 'level=info' \
		    "$TH_RUN/h$n/log" | tail -3 | sed "s/^/    dockerd h$n: /"
	done
	skip "two-host swarm: $1"
	return 1
}

dn_twohost_up() {
	local n tok out id1 id2
	TH_T0=$(( $(date +%s%N) / 1000000 ))
	[ "$(id -u)" = 0 ] || { skip "two-host swarm: not root"; return 1; }
	for n in dockerd docker ip nsenter unshare hostname; do
		command -v $n >/dev/null 2>&1 ||
			{ skip "two-host swarm: no $n"; return 1; }
	done
	TH_DOCKERD=$(command -v dockerd)
	th_sweep
	TH_UP=1
	ip netns add "$TH_NS1" && ip netns add "$TH_NS2" &&
	    ip link add dn0 netns "$TH_NS1" type veth \
	    peer name dn0 netns "$TH_NS2" &&
	    ip -n "$TH_NS1" addr add "$TH_ADDR1"/24 dev dn0 &&
	    ip -n "$TH_NS2" addr add "$TH_ADDR2"/24 dev dn0 &&
	    ip -n "$TH_NS1" link set lo up && ip -n "$TH_NS2" link set lo up &&
	    ip -n "$TH_NS1" link set dn0 up && ip -n "$TH_NS2" link set dn0 up ||
		{ th_fail "cannot make the namespaces and the veth pair"; return; }
	mkdir -p "$TH_RUN" && echo '{}' >"$TH_RUN/daemon.json" ||
		{ th_fail "cannot write $TH_RUN"; return; }
	th_dockerd 1 && th_dockerd 2 ||
		{ th_fail "cannot start dockerd"; return; }
	wait_for 60 dk1 version >/dev/null 2>&1 &&
	    wait_for 60 dk2 version >/dev/null 2>&1 ||
		{ th_fail "a dockerd did not answer in 60 s"; return; }
	th_say "both engines answer"
	out=$(dk1 swarm init --advertise-addr "$TH_ADDR1" \
	    --listen-addr "$TH_ADDR1:2377" 2>&1) ||
		{ th_fail "swarm init: $out"; return; }
	tok=$(dk1 swarm join-token -q worker) &&
	    out=$(dk2 swarm join --token "$tok" --advertise-addr "$TH_ADDR2" \
	    --listen-addr "$TH_ADDR2:2377" "$TH_ADDR1:2377" 2>&1) ||
		{ th_fail "swarm join: $out"; return; }
	wait_for 60 th_ready || { th_fail "2 Ready nodes: not in 60 s"; return; }
	dk1 node update --label-add host=h1 "$TH_HOST1" >/dev/null &&
	    dk1 node update --label-add host=h2 "$TH_HOST2" >/dev/null ||
		{ th_fail "cannot label the swarm nodes"; return; }
	th_say "swarm of $TH_HOST1 (manager) and $TH_HOST2 (worker) Ready"
	out=$(DOCKER_HOST=$TH_SOCK1 "$DEVNET" image build 2>&1) ||
		{ th_fail "devnet image build: $out"; return; }
	TH_IMAGE=$(printf '%s\n' "$out" | sed -n 's/^built //p')
	dk1 save "$TH_IMAGE" | dk2 load >/dev/null ||
		{ th_fail "docker save | docker load of $TH_IMAGE"; return; }
	id1=$(dk1 image inspect -f '{{.Id}}' "$TH_IMAGE")
	id2=$(dk2 image inspect -f '{{.Id}}' "$TH_IMAGE")
	[ -n "$id1" ] && [ "$id1" = "$id2" ] ||
		{ th_fail "image IDs differ: '$id1' '$id2'"; return; }
	th_say "$TH_IMAGE on both engines"
	export DOCKER_HOST=$TH_SOCK1
	return 0
}

dn_twohost_down() {
	local t0
	[ -n "$TH_UP" ] || return 0
	t0=$(( $(date +%s%N) / 1000000 ))
	th_destroy "$TH_TAG"
	TH_UP=
	echo "twohost: down in $(( $(date +%s%N) / 1000000 - t0 )) ms" >&2
}
