#!/bin/bash
# foreign-argv0.sh: a foreign node's command is started as written (PATH
# lookup, argv[0] untouched), never under the name its symlink resolves to
# (issue 25).  Multi-call programs choose their job by argv[0]: Debian's
# /usr/bin/redis-server is a symlink to redis-check-rdb, and busybox's
# applets are symlinks to busybox.  Skipped (77) only when busybox or
# redis-server is missing (tools/install-deps.sh installs both).
. "$(dirname "$0")/lib.sh"

mkdir -p "$RUNS" "$T/bin"
# --- busybox applets through symlink names on PATH -----------------------
if BB=$(command -v busybox); then
	ln -s "$BB" "$T/bin/sh"
	ln -s "$BB" "$T/bin/seq"
	cat >"$T/bb.yaml" <<EOS
name: bb
duration: 2s
sample_interval: 250ms
network: {nodes: 1}
workload: {kind: none}
node:
  command: [seq, 1, 3]
  exit: expected
EOS
	PATH="$T/bin:$PATH" "$DEVNET" run "$T/bb.yaml" --db "$T/bb.db" \
	    --run-dir "$T/bbruns" >"$T/bb.out" 2>"$T/bb.err"
	expect_eq "a busybox applet by its symlink name runs" "$?" 0
	out=$(cat "$T"/bbruns/*/node-0.out 2>/dev/null | grep -v '^DN-PROBE')
	expect_eq "it ran as seq, not as busybox" "$(echo $out)" "1 2 3"
	expect_match "the probe was given the name as written" \
	    "$(cat "$T"/bbruns/*/node-0.out "$T/bb.err" 2>/dev/null)" \
	    'command=seq '
else
	skip "busybox is not installed (tools/install-deps.sh)"
fi

# --- redis-server, a symlink to redis-check-rdb ---------------------------
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null
then
	cat >"$T/redis.yaml" <<EOS
name: redis
duration: 3s
sample_interval: 250ms
network: {nodes: 1}
workload: {kind: none}
node:
  command: [redis-server, --port, '{port}', --bind, 127.0.0.1, --save, '',
    --dir, '{dir}']
  port_base: $(port_block 10)
  count_allocs: true
  ready: {tcp: '127.0.0.1:{port}'}
EOS
	"$DEVNET" run "$T/redis.yaml" --db "$DB" --run-dir "$T/rruns" \
	    >"$T/redis.out" 2>"$T/redis.err"
	expect_eq "redis-server as a foreign node runs ok" "$?" 0
	expect_match "it ran as the server, not the RDB checker" \
	    "$(cat "$T"/rruns/*/node-0.out)" 'Ready to accept connections'
	expect_eq "its allocations are counted (jemalloc, through the shim)" \
	    "$(q "select count(*) > 0 from samples s join metrics m on
	    m.id = s.metric_id where m.name = 'allocs' and s.value > 0")" 1
else
	skip "redis-server or redis-cli is not installed (tools/install-deps.sh)"
fi
finish
