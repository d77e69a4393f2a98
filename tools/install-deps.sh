#!/bin/sh
# Install the Debian packages devnet needs to build, test and run: exactly
# those missing, quietly when all are there.  Idempotent; needs root (or sudo)
# only when something is missing.
set -eu

# docker.io: provider docker and tests/e2e/docker.sh (which starts dockerd
# itself, and is skipped where it cannot).  iproute2 (ip netns, veth) and
# iptables: the two-host swarm of tests/e2e/twohost-lib.sh.
# libjemalloc-dev, libgoogle-perftools-dev (tcmalloc), libmimalloc-dev,
# redis-server, redis-tools: the allocation shim with every allocator
# (tests/probe/alloc.sh); busybox: multi-call binaries started through
# their symlink names (tests/e2e/foreign-argv0.sh).
# libnftables-dev, libnftnl-dev, libmnl-dev, libnetfilter-queue-dev:
# network conditions (issue 20: loss and partitions in nf_tables, HTB over
# netlink, delay in devnet's own NFQUEUE emulator); nftables: the nft
# binary, for reading rules by hand when a test fails.  libmicrohttpd-dev:
# the live view (--serve); prometheus and chromium: the real scraper and
# browser its tests check it with.  strace: tests/node/dial.sh counts a
# node's connect(2) calls; python3 and libxml2-utils (xmllint): the tests
# read JSON, JUnit XML and the report's SVG with them.  libfaketime: the
# clock_skew event (issue 39); e2fsprogs (mkfs.ext4): a disk event's loop
# disk (both in the devnet a user runs, not only in the tests).
PKGS="build-essential cmake pkg-config git
librocksdb-dev rocksdb-tools libnng-dev libsqlite3-dev sqlite3 libyaml-dev
libcmocka-dev clang libclang-rt-14-dev libcurl4-openssl-dev docker.io
etcd-server iproute2 iptables libjemalloc-dev libgoogle-perftools-dev
libmimalloc-dev redis-server redis-tools busybox
libnftables-dev libnftnl-dev libmnl-dev libnetfilter-queue-dev nftables
libmicrohttpd-dev prometheus chromium strace python3 libxml2-utils
libfaketime e2fsprogs"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "install-deps: need root (or sudo) to install:$missing" >&2
		exit 1
	}
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# A server package (redis-server) would start its service on install: a
# policy-rc.d that says 101 keeps it from doing so, if none is there.
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d \
		>/dev/null
	$SUDO chmod 755 /usr/sbin/policy-rc.d
	trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
# An image may come with stale or empty package lists: refresh once.
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
