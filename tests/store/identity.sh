#!/bin/bash
# identity.sh: a run's identity through the CLI (docs/schema.md, "Run
# identity"): `devnet run` gives each run a uuid, a samples digest and its
# machine; `runs` and `show` print them, `export` keeps the uuid in every
# row, and two runs on this machine share one fingerprint; --commit is
# stored as the runs' commit.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

out=$("$DEVNET" run "$SCN/smoke.yaml" --db "$DB" --run-dir "$RUNS" --quiet \
    --repeats 1 --set network.nodes=1 --set duration=2s --set warmup=500ms \
    --commit 0123abcd 2>&1)
expect_eq "devnet run exits 0" "$?" 0
u1=$(q 'SELECT uuid FROM runs WHERE id = 1')
u2=$(q 'SELECT uuid FROM runs WHERE id = 2')
expect_match "run 1 has a random (version 4) uuid" "$u1" \
    '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
[ -n "$u1" ] && [ "$u1" != "$u2" ] && ok "two runs, two uuids" ||
	fail "uuids '$u1' '$u2'"
expect_match "each finished run has a samples digest" \
    "$(q 'SELECT group_concat(samples_digest, " ") FROM runs')" \
    '^[0-9a-f]{64} [0-9a-f]{64}$'
expect_eq "--commit is each run's commit" \
    "$(q 'SELECT group_concat(git_commit) FROM runs')" "0123abcd,0123abcd"
fp=$(q 'SELECT machine FROM runs WHERE id = 1')
expect_match "runs.machine is a fingerprint" "$fp" '^[0-9a-f]{16}$'
expect_eq "both runs ran on one machine" \
    "$(q 'SELECT count(DISTINCT machine) FROM runs')" 1
expect_eq "the machines row has the fingerprint" \
    "$(q 'SELECT fingerprint FROM machines WHERE run_id = 1')" "$fp"
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
if [ -n "$model" ]; then
	expect_eq "the CPU model is /proc/cpuinfo's" \
	    "$(q 'SELECT cpu_model FROM machines WHERE run_id = 1')" "$model"
fi
expect_eq "threads are the online CPUs" \
    "$(q 'SELECT threads FROM machines WHERE run_id = 1')" "$(nproc)"
expect_eq "kernel is uname -r" \
    "$(q 'SELECT kernel FROM machines WHERE run_id = 1')" "$(uname -r)"
expect_eq "provider and limits" \
    "$(q 'SELECT provider, limits FROM machines WHERE run_id = 1')" \
    "local|none"

runs=$("$DEVNET" runs --db "$DB" 2>&1)
expect_match "devnet runs shows machine and uuid" "$runs" \
    "^ *1 .* $fp +$u1\$"
show=$("$DEVNET" show --db "$DB" 1 2>&1)
expect_match "devnet show has the uuid" "$show" "^uuid +$u1\$"
expect_match "devnet show has the machine section" "$show" \
    "^fingerprint +$fp\$"
expect_match "and the informational parts" "$show" "^hostname +$(hostname)\$"
csv=$("$DEVNET" export --db "$DB" 1 2>&1)
expect_match "export's header names run_uuid" "$(printf '%s\n' "$csv" |
    head -n 1)" '^run_id,node,t_ms,warmup,run_uuid,'
expect_eq "every exported row carries the uuid" \
    "$(printf '%s\n' "$csv" | tail -n +2 | cut -d, -f5 | sort -u)" "$u1"
finish
