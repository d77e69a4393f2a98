# many-variants.sh: the most variants a scenario may have (64) side by side
# in `order: concurrent`, with long names: every trial runs and ends ok,
# and the status line names every one of them (it once overflowed a
# 512-byte buffer from 12 variants on).
. "$(dirname "$0")/lib.sh"

{
	printf 'name: many\nduration: 2s\nsample_interval: 100ms\n'
	printf 'network: {nodes: 1, block_interval: 100ms, accounts: 100}\n'
	printf 'workload: {kind: transfer, tps: 5}\norder: concurrent\n'
	printf 'variants:\n'
	for i in $(seq 1 64); do
		printf '  variant-with-a-rather-long-name-%02d: {}\n' "$i"
	done
} >"$T/many.yaml"

# Not --quiet: the status line is what is under test.  64 nodes start at
# once: give them time on a loaded machine or under ASan.
"$DEVNET" run "$T/many.yaml" --db "$DB" --run-dir "$RUNS" \
    --ready-timeout 180s >"$T/out" 2>"$T/err"
rc=$?
expect_eq "64 variants side by side: exit 0" "$rc" 0
expect_eq "64 runs, all ok" "$(q "select count(*) from runs where status = 'ok'")" 64
expect_eq "64 distinct trials" \
    "$(q "select count(distinct trial) from runs")" 64
last=$(grep 'trial 64/64' "$T/err" | tail -1)
expect_match "the status line names the last variant" "$last" \
    "variant-with-a-rather-long-name-64 .*samples [1-9]"
expect_match "and the first" "$last" "^trial 1/64 variant-with-a-rather-long-name-01 "
finish
