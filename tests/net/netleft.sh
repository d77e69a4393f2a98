# netleft.sh: what an emulated network could leave behind, for the tests
# that check nothing is (sourced after lib.sh).  devnet adds nothing to
# the host's namespace: its hub's veth ends, nft table "devnet" and
# NFQUEUE live in devnet-PID-SEQ-hub, the nodes' other ends in
# devnet-PID-SEQ-nK (local) or in a holder container's namespace
# (docker), so "nothing left" is: no such namespace, no such container,
# and the host's links, nft tables and queues as they were before.

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
