#!/bin/bash
# foreign-overrides.sh: network.overrides[] on foreign nodes (issue 34):
# binary, args and env reach the node they name, as templates; a node
# template can name another node's address and ports ({addr:K},
# {port:K}, {port+N:K}); devnet-node's own settings there are refused at
# FILE:LINE:COL.  Then the real thing: a Redis primary and two replicas
# made with `--replicaof {addr:0} {port:0}`, the replicas' own logs
# saying they synchronised with node 0.
. "$(dirname "$0")/lib.sh"
mkdir -p "$RUNS"

cat >"$T/sh.yaml" <<'YAML'
name: overrides
duration: 2s
warmup: 500ms
sample_interval: 250ms
network:
  nodes: 3
  overrides:
    - node: 1
      args: [extra-1, 'next={port+1:2}']
      env: {ROLE: 'follows-{addr:0}-{port:0}'}
    - node: 2
      binary: /bin/bash
node:
  command: [sh, -c, 'echo "role=${{ROLE:-none}} shell=$0 argv=$*"; echo up; exec sleep 60', '{index}']
  port_base: 27100
  ports_per_node: 5
  ready: {log: '^up$'}
workload: {kind: none}
repeats: 1
YAML
"$DEVNET" validate "$T/sh.yaml" >"$T/v.out" 2>&1
expect_eq "validate accepts overrides on a foreign node" "$?" 0
expect_match "validate shows node 1's env and args expanded" "$(grep 'node 1:' "$T/v.out")" \
    "--env ROLE=follows-127\.0\.0\.1-27100 -- sh -c .* 1 extra-1 next=27111$"
expect_match "and node 2's own binary" "$(grep 'node 2:' "$T/v.out")" "-- (/usr)?/bin/bash -c "
"$DEVNET" run "$T/sh.yaml" --db "$DB" --run-dir "$RUNS" >"$T/run.out" 2>&1
expect_eq "the run is ok" "$?" 0
out() { cat "$RUNS"/1-*/node-"$1".out 2>/dev/null | grep '^role='; }
expect_eq "node 0: no override" "$(out 0)" "role=none shell=0 argv="
expect_eq "node 1: its env and its args reached it" "$(out 1)" \
    "role=follows-127.0.0.1-27100 shell=1 argv=extra-1 next=27111"
expect_eq "node 2: run by its own binary (bash: \$0 as given)" "$(out 2)" \
    "role=none shell=2 argv="

# refused, where it was written
sed 's/      binary: \/bin\/bash/      rocksdb: {options: write_buffer_size=1048576}/' "$T/sh.yaml" >"$T/bad.yaml"
expect_match "devnet-node's settings are refused at FILE:LINE:COL" \
    "$("$DEVNET" validate "$T/bad.yaml" 2>&1)" \
    "bad\.yaml:[0-9]+:[0-9]+: network\.overrides\[1\]\.rocksdb is a devnet-node setting, but variant .* runs node\.command"
sed "s/{port+1:2}/{port+1:3}/" "$T/sh.yaml" >"$T/bad.yaml"
expect_match "a node that is not there is refused" \
    "$("$DEVNET" validate "$T/bad.yaml" 2>&1)" \
    "bad\.yaml:[0-9]+:[0-9]+: network\.overrides\[\]\.args: '\{port\+1:3\}' names node 3, but the devnet has 3 \(0\.\.2\)"
sed "s/{port+1:2}/{port+5:2}/" "$T/sh.yaml" >"$T/bad.yaml"
expect_match "a port beyond ports_per_node is refused" \
    "$("$DEVNET" validate "$T/bad.yaml" 2>&1)" "beyond the node's 5 ports"
sed "s/{addr:0}/{adr:0}/" "$T/sh.yaml" >"$T/bad.yaml"
expect_match "an unknown placeholder lists the ones there are" \
    "$("$DEVNET" validate "$T/bad.yaml" 2>&1)" \
    "unknown placeholder '\{adr:0\}'.*another node's: \{addr:K\}, \{port:K\}, \{port\+N:K\}"

# Redis: a primary and two replicas of it
if ! command -v redis-server >/dev/null; then
	skip "no redis-server (apt-get install -y redis-server)"
	finish
fi
cat >"$T/repl.yaml" <<'YAML'
name: redis-replicas
duration: 8s
warmup: 1s
sample_interval: 500ms
network:
  nodes: 3
  overrides:
    - {node: 1, args: [--replicaof, '{addr:0}', '{port:0}']}
    - {node: 2, args: [--replicaof, '{addr:0}', '{port:0}']}
node:
  command: [redis-server, --port, '{port}', --bind, '{addr}', --dir, '{dir}',
    --save, '', --daemonize, 'no', --protected-mode, 'no',
    --repl-diskless-sync, 'yes', --repl-diskless-sync-delay, '0']
  port_base: 27200
  ports_per_node: 10
  ready: {log: 'Ready to accept connections'}
workload: {kind: none}
repeats: 1
YAML
"$DEVNET" run "$T/repl.yaml" --db "$T/r.db" --run-dir "$T/rr" >"$T/r.out" 2>&1
expect_eq "a primary and two replicas run ok" "$?" 0
for k in 1 2; do
	check "replica $k connected to node 0 (its own log)" \
	    grep -q "Connecting to MASTER 127\.0\.0\.1:27200" "$T"/rr/1-*/node-$k.out
	check "replica $k synchronised with it" \
	    grep -q "MASTER <-> REPLICA sync: Finished with success" "$T"/rr/1-*/node-$k.out
done
expect_eq "the primary saw both replicas synchronise" \
    "$(grep -c "Synchronization with replica 127\.0\.0\.1:272[12]0 succeeded" "$T"/rr/1-*/node-0.out)" 2
finish
