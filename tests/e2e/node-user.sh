# node-user.sh: node.user, a foreign node run as an account that is not
# root (a server such as PostgreSQL refuses root): the command runs as
# that user with its groups, HOME, USER and LOGNAME; its directory is
# the user's, the trial's is open to the user's group to pass through
# and to nobody else; its allocations are still counted (the shim's page
# is the user's); a run directory the user cannot pass through is said
# at once, naming the closed directory; and validate and run refuse the
# key where it cannot be carried out (a container, devnet-node, a clock
# skew of that node).
. "$(dirname "$0")/lib.sh"

USER_NAME=nobody
uid=$(id -u "$USER_NAME" 2>/dev/null) ||
	{ echo "SKIP: no user $USER_NAME"; exit 77; }
grp=$(id -gn "$USER_NAME")
[ "$(id -u)" = 0 ] || { echo "SKIP: not root (node.user changes user)"; exit 77; }

scn() {	# the scenario, node.user $1
	cat <<EOS
name: node-user
duration: 3s
warmup: 1s
sample_interval: 250ms
network: {nodes: 2}
workload: {kind: none}
node:
  user: $1
  count_allocs: true
  command: [sh, -c, 'id -u > {dir}/uid && id -G > {dir}/groups &&
    echo "\$HOME \$USER \$LOGNAME" > {dir}/env && touch {dir}/mine &&
    echo up && while :; do ls / >/dev/null; sleep 0.05; done']
  ready: {log: up}
EOS
}
scn "$USER_NAME" >"$T/u.yaml"

# --- a run dir the user cannot pass through: said at once -------------
chmod 700 "$T"
out=$("$DEVNET" run "$T/u.yaml" --db "$DB" --run-dir "$RUNS" 2>&1)
rc=$?
check "closed run dir: the run fails" test "$rc" -ne 0
expect_match "closed run dir: the closed directory named" "$out" \
    "node.user $USER_NAME cannot reach its directory: '$T' is closed to it"

# --- a run as the user --------------------------------------------------
chmod 711 "$T"
"$DEVNET" run "$T/u.yaml" --db "$DB" --run-dir "$RUNS" >"$T/run.out" 2>&1
check "run as $USER_NAME exits 0" test $? -eq 0
dir=$(ls -d "$RUNS"/*-A.* "$RUNS"/*-A 2>/dev/null | tail -1)
for k in 0 1; do
	expect_eq "node $k ran as $USER_NAME" "$(cat "$dir/node-$k/uid")" "$uid"
	expect_eq "node $k: HOME, USER, LOGNAME of $USER_NAME" \
	    "$(cat "$dir/node-$k/env")" \
	    "$(getent passwd "$USER_NAME" | cut -d: -f6) $USER_NAME $USER_NAME"
	expect_eq "node $k: its groups, not root's" \
	    "$(cat "$dir/node-$k/groups")" "$(id -G "$USER_NAME")"
	expect_eq "node $k: its directory is $USER_NAME's" \
	    "$(stat -c %U "$dir/node-$k")" "$USER_NAME"
	expect_eq "node $k: what it wrote is $USER_NAME's" \
	    "$(stat -c %U "$dir/node-$k/mine")" "$USER_NAME"
done
expect_eq "the trial dir: passable by $grp only" \
    "$(stat -c '%a %U %G' "$dir")" "710 root $grp"
if sanitized; then
	skip "allocations as $USER_NAME: the shim is off in this build"
else
	n=$(q "select count(*) from samples s join metrics m on
	    m.id = s.metric_id where m.name = 'allocs' and s.value > 0")
	check "allocations counted as $USER_NAME ($n samples > 0)" \
	    test "${n:-0}" -gt 0
fi
check "no allocation page left" sh -c \
    '! ls /dev/shm/devnet-alloc.* 2>/dev/null | grep -q .'

# --- refused where it cannot be carried out, by validate and run alike
expect_refused no-user "$(scn no-such-user-dn)" \
    "no-user.yaml:8:9: node.user: no user 'no-such-user-dn' on this host"
expect_refused root "$(scn root)" "root.yaml:8:9: node.user: 'root' is root"
expect_refused devnet-node "name: dn
duration: 3s
network: {nodes: 2}
node: {user: $USER_NAME}" "node.user is for node.command"
expect_refused docker "$(scn "$USER_NAME")
provider: docker" "node.user is carried out by provider local only"
expect_refused clock "$(scn "$USER_NAME")
events:
  - {at: 1s, action: clock_skew, node: 0, offset: 30s}" \
    "clock.yaml:15:5: clock_skew of node 0 in variant A, which runs as node.user $USER_NAME: not carried out"

finish
