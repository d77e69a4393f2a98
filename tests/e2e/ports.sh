# ports.sh: free loopback ports for tests that start servers (sourced by
# lib.sh and by tests that do not use lib.sh).

# port_block N: the first of N consecutive TCP ports of 127.0.0.1 that no
# socket uses now, below the kernel's ephemeral range (32768 and up here),
# so that no outgoing connection of a test running beside this one takes
# one of them before our program binds it (dn.e2e.etcd failed so under
# make asan: "listen tcp 127.0.0.1:4xxxx: bind: address already in use").
# Drawn at random from 10000..31999 so that tests running at once differ.
port_block() {
	local n=$1 base try used
	for try in $(seq 50); do
		base=$((10000 + (RANDOM * 32768 + RANDOM) % (32000 - 10000 - n)))
		used=$(ss -Htan 2>/dev/null | awk -v lo="$base" -v hi="$((base + n))" '
		    { sub(/.*:/, "", $4); if ($4 + 0 >= lo && $4 + 0 < hi) print $4 }')
		[ -z "$used" ] && { echo "$base"; return 0; }
	done
	echo "port_block: no $n free ports of 127.0.0.1 found below 32000" >&2
	return 1
}
