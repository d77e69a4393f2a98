# disk-etcd.sh: etcd under a full disk on one member (issue 39 #3, "What
# to show").  A 3-member etcd (scenarios/etcd-3.yaml, 200 puts/s, 8 s);
# member 2's data disk full from 2 s: it stops at once, its crash event
# says the disk was full and quotes etcd's own last line ("no space left
# on device"), and the two others keep applying proposals after it.
# What etcd says is an exit, not its NOSPACE alarm: that alarm is its
# backend quota (--quota-backend-bytes), not the filesystem; on ENOSPC
# etcd 3.4 stops fatally.  Root, loop devices, etcd (77 = skip).
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"

if [ "$(id -u)" -ne 0 ] || [ ! -w /dev/loop-control ] ||
    ! command -v etcd >/dev/null; then
	skip "needs root, loop devices and etcd"
	finish
fi
BASE=$(port_block 40) || exit 1
# the shipped assertions left out: puts to the stopped member are not
# answered, which is the point here, not a failure of the scenario
sed -e 's/^duration: .*/duration: 8s/' -e 's/^warmup: .*/warmup: 1s/' \
    -e '/^variants:/,/^repeats:/d' "$SCN/etcd-3.yaml" |
    awk '/^assert:/ { skip = 1; next } skip && /^[^ -]/ { skip = 0 } !skip' \
    >"$T/e.yaml"
cat >>"$T/e.yaml" <<'YAML'
repeats: 1
events:
  - {at: 2s, action: disk, node: 2, full: true, name: full}
YAML
out=$("$DEVNET" run "$T/e.yaml" --db "$DB" --run-dir "$RUNS" \
    --set node.port_base=$BASE --ready-timeout 60s 2>&1)
expect_eq "run: exit 0 (the member's exit is an unplanned fault)" "$?" 0 ||
    printf '%s\n' "$out" | tail -20
expect_match "the full disk proven" \
    "$(q "select detail from events where node = 2 and kind = 'disk'")" \
    "full: a 4 KiB write of a new file failed: No space left on device"
crash=$(q "select detail from events where node = 2 and kind = 'crash'")
printf '%s\n' "$crash"
expect_match "member 2's crash says the disk was full, in etcd's words" \
    "$crash" "its data disk was full \(a disk event\); its last output: .*no space left on device"
t_crash=$(q "select t_ms from events where node = 2 and kind = 'crash'")
h() {	# NODE FROM_MS: its highest height from then on
	q "select max(value) from samples s join metrics m on m.id =
	    s.metric_id where m.name = 'height' and node = $1 and
	    t_ms >= $2"
}
for k in 0 1; do
	a=$(h "$k" "$t_crash")
	b=$(q "select max(value) from samples s join metrics m on m.id =
	    s.metric_id where m.name = 'height' and node = $k and
	    t_ms <= $t_crash")
	expect_eq "member $k serves on after member 2 stopped ($b -> $a)" \
	    "$(awk -v a="$a" -v b="$b" 'BEGIN { print (a > b + 50) }')" 1
done
expect_eq "nothing left" "$(losetup -a | grep -cF "$T/")" 0
finish
