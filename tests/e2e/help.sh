# help.sh: every command answers --help with its usage and exit 0.
. "$(dirname "$0")/lib.sh"

out=$("$DEVNET" --help)
expect_eq "devnet --help exits 0" "$?" 0
for cmd in $(printf '%s\n' "$out" | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }'); do
	h=$("$DEVNET" "$cmd" --help 2>&1)
	rc=$?
	expect_eq "devnet $cmd --help exits 0" "$rc" 0
	expect_match "devnet $cmd --help shows usage" "$h" "^usage: devnet $cmd"
done
[ "$(printf '%s\n' "$out" | grep -c '^  [a-z]')" -ge 9 ] && ok "9 or more commands listed" ||
	fail "commands listed: $out"
h=$("$NODE" --help 2>&1)
expect_eq "devnet-node --help exits 0" "$?" 0
expect_match "devnet-node --help shows usage" "$h" "usage: devnet-node"
finish
