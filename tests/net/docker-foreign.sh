# docker-foreign.sh: a foreign node under provider docker and network
# conditions (issue 20; docs/providers.md said "no test runs it yet"): a
# real 3-member etcd (Debian's etcd-server) in containers, each member and
# its devnet-probe in the namespace of a holder container devnet wired to
# its hub, at {addr}; member 2 40 ms one way from the others; 40 puts/s of
# http load from the load's endpoint through the hub.  The image is
# devnet's own plus /usr/bin/etcd (built here, offline, removed at the
# end).  Checked from what was stored: the run passed its assertions
# (every member applies proposals, read through the probe's Prometheus
# scrape inside each container; puts through member 2 cross its link
# twice); each member's command line names its own 10.99.K.2; a
# link_proof per near-far link within max(1 ms, 10 %); link_stats with
# member 2's RTT; then nothing left
# (namespaces, containers, the host's links, nft tables and queues).
# Needs root, Docker (dockerd started here if none answers) and etcd; exit
# 77 (skipped, shown) otherwise.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"
. "$DN_SOURCE_DIR/tests/e2e/docker-lib.sh"
. "$DN_SOURCE_DIR/tests/net/netlib.sh"

IMG=
trap 'rc=$?; [ -n "$IMG" ] && docker rmi -f "$IMG" >/dev/null 2>&1;
    stop_dockerd; (exit $rc); cleanup' EXIT
if [ "$(id -u)" -ne 0 ]; then
	skip "network namespaces need root"
	finish
fi
ETCD=$(command -v etcd) || { skip "no etcd on PATH (apt-get install etcd-server)"; finish; }
docker_up || finish
HOST_NET=$(host_net)

# devnet's image (the probe and its libraries) plus etcd (Go: libc only,
# which devnet's image has)
base=$("$DEVNET" image build 2>&1 | sed -n 's/^built //p')
[ -n "$base" ] || { fail "devnet image build printed no image"; finish; }
mkdir -p "$T/img"
cp "$ETCD" "$T/img/etcd"
printf 'FROM %s\nCOPY etcd /usr/local/bin/etcd\n' "$base" >"$T/img/Dockerfile"
IMG=dn-test-etcd:$$
docker build --network=none -q -t "$IMG" "$T/img" >/dev/null ||
	{ fail "docker build of $IMG"; finish; }

P=$(port_block 30)
cat >"$T/de.yaml" <<YAML
name: docker-foreign-net
provider: docker
image: $IMG
duration: 16s
warmup: 4s
sample_interval: 500ms
network:
  nodes: 3
  zones: {near: [0, 1], far: [2]}
  links:
    near-far: {latency: 40ms}
node:
  command: [etcd, --name, 'n{index}', --data-dir, '{dir}/data',
    --listen-client-urls, 'http://{addr}:{port}',
    --advertise-client-urls, 'http://{addr}:{port}',
    --listen-peer-urls, 'http://{addr}:{port+1}',
    --initial-advertise-peer-urls, 'http://{addr}:{port+1}',
    --initial-cluster, '{peers}', --initial-cluster-state, new]
  peer: 'n{index}=http://{addr}:{port+1}'
  port_base: $P
  ports_per_node: 10
  ready:
    http: 'http://{addr}:{port}/health'
  stop: {signal: TERM, grace: 5s}
  metrics:
    prometheus:
      url: 'http://{addr}:{port}/metrics'
      map:
        height: etcd_server_proposals_applied_total
workload:
  kind: http
  tps: 40
  method: POST
  url: 'http://{addr}:{port}/v3/kv/put'
  body: '{{"key":"{key_b64}","value":"{value_b64}"}}'
  headers: ['Content-Type: application/json']
  expect_status: [200]
  key_space: 1000
  value_size: 100
  timeout: 3s
assert:
  - name: every member applies proposals
    eventually: {all_nodes: height >= 10, within: 14s}
  - name: puts through the far member cross its link twice
    value: {load: tx_latency_p99_ms >= 80}
YAML
run_ok "etcd in containers under conditions" "$T/de.yaml"
expect_eq "both assertions passed" \
    "$(q "select count(*) || '/' || sum(status = 'pass') from assertions where run_id = $run")" "2/2"
for k in 0 1 2; do
	expect_match "member $k listened on its holder's address" \
	    "$(q "select cmdline from nodes where run_id = $run and node = $k")" \
	    "--listen-client-urls http://10\.99\.$k\.2:"
done
expect_eq "every member's height came from its own scrape" \
    "$(q "select count(distinct s.node) from samples s join metrics m on m.id = s.metric_id
        where s.run_id = $run and m.name = 'height' and s.value >= 10")" 3
# a proof per directed link with a condition: the four near-far ones
expect_link_latency 4
expect_match "near-far is 40 ms one way" "$base" "network.links 0->2: asked 40 ms one way"
rtt=$(q "select rtt_ms_p50 from link_stats where run_id = $run and src = 1 and dst = 2")
awk -v r="$rtt" 'BEGIN { exit !(r >= 78 && r <= 88) }' &&
	ok "link_stats 1->2: RTT p50 $rtt ms (40 ms each way)" ||
	fail "link_stats 1->2: RTT p50 '$rtt' ms, 80 asked"
expect_eq "link_stats: a row per directed link, the load's (endpoint 3) too" \
    "$(q "select count(*) || '/' || sum(src = 3 or dst = 3) from link_stats where run_id = $run and probes > 50")" 12/6
p99=$(q "select max(value) from samples s join metrics m on m.id = s.metric_id
    where run_id = $run and node = -1 and m.name = 'tx_latency_p99_ms'")
awk -v v="${p99:-0}" 'BEGIN { exit !(v >= 80) }' &&
	ok "puts' p99 reached two crossings of 40 ms ($p99 ms)" ||
	fail "puts' p99 at most '$p99' ms: the far member's link did not slow them"
pid=$(run_pid "$run")
[ -n "$pid" ] && ok "the hub is named by devnet's pid ($pid)" || fail "no network event"
expect_net_clean "after the run" "$pid" "$HOST_NET" docker
finish
