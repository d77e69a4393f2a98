#!/bin/bash
# duet.sh: order: concurrent's duet (issue 36, orchestrator/run/duet.c):
# the variants of a slot on disjoint CPU sets of equal size, swapped in
# the next slot, read from the running nodes themselves:
#
# 1. A and B side by side, two slots: while each slot runs, every node's
#    /proc/PID/status Cpus_allowed_list and its cgroup's cpuset.cpus;
#    A's set and B's are disjoint and of one size, the second slot swaps
#    them, devnet itself is not pinned; the facts duet_pin, duet_cpus,
#    duet_slot say what was applied; both sides are one machine class
#    (limits "... duet=N"); the live page (/api/live) shows each trial's
#    set; nothing left in /sys/fs/cgroup.
# 2. One CPU (taskset -c 0): the run goes on unpinned and says why, on
#    stderr and in the fact duet_pin; `pin: duet` refuses it; a scenario
#    in abba order refuses `pin: duet` at validate.
# 3. `pin: none`: unpinned, fact duet_pin "off: pin: none".
# 4. Ctrl-C in a pinned slot: no cgroup left.
# 5. cgroup v2 (sys/cgroup.c's v2 path), in a private mount namespace.
#
# Root, a cgroup cpuset and two CPUs needed: skipped otherwise.
. "$(dirname "$0")/lib.sh"

mkdir -p "$RUNS"

groups_of() {
	find /sys/fs/cgroup -maxdepth 6 -type d -name "devnet-$1" 2>/dev/null
}

ncpu=$(taskset -pc $$ 2>/dev/null | sed 's/.*: //' | awk -F, '{
	n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-");
	n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }')
if [ "$(id -u)" -ne 0 ]; then
	skip "duet: not root (no cgroup cpuset)"
	finish
fi
if [ ! -d /sys/fs/cgroup/cpuset ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
	skip "duet: no cgroup cpuset"
	finish
fi
if [ "${ncpu:-0}" -lt 2 ]; then
	skip "duet: fewer than 2 CPUs ($ncpu)"
	finish
fi

cat >"$T/d.yaml" <<'EOS'
name: duet
duration: 8s
sample_interval: 250ms
network: {nodes: 2}
workload: {kind: none}
node:
  command: [sh, -c, 'while :; do sleep 0.1; done']
  stop: {signal: TERM, grace: 1s}
order: concurrent
repeats: 2
variants:
  A:
  B:
EOS

# allowed PID: its Cpus_allowed_list
allowed() {
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null
}
# cgset PID: cpuset.cpus of its cpuset cgroup (v1 or v2)
cgset() {
	local p
	p=$(awk -F: '$2 ~ /(^|,)cpuset(,|$)/ || $2 == "" { print $3; exit }' \
	    "/proc/$1/cgroup" 2>/dev/null)
	if [ -d /sys/fs/cgroup/cpuset ]; then
		cat "/sys/fs/cgroup/cpuset$p/cpuset.cpus" 2>/dev/null
	else
		cat "/sys/fs/cgroup$p/cpuset.cpus" 2>/dev/null
	fi
}
# seen RUN: "LIST/CGLIST" of every node of RUN while it runs, one per
# line; empty unless every node was read
seen() {
	local p out=""
	for p in $(node_pids "$1"); do
		kill -0 "$p" 2>/dev/null || return 1
		out="$out$(allowed "$p")/$(cgset "$p")
"
	done
	[ -n "$out" ] && printf '%s' "$out"
}
# read_slot RUN: wait until RUN's nodes run, then what they are on
read_slot() {
	wait_for 60 sh -c "[ \"\$(sqlite3 '$DB' 'select count(*) from nodes
	    where run_id = $1' 2>/dev/null)\" = 2 ]" || return 1
	seen "$1" | sort -u
}

# --- 1. two slots, the sets swapped -----------------------------------
port=$(python3 -c 'import socket; s = socket.socket();
s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$DEVNET" run "$T/d.yaml" --db "$DB" --run-dir "$RUNS" --serve "$port" \
    >"$T/d.out" 2>&1 &
pid=$!
a0=$(read_slot 1)
b0=$(read_slot 2)
own=$(allowed $pid)
a1=$(read_slot 3)
b1=$(read_slot 4)
# in slot 1 every trial has begun
live=$(curl -s "http://127.0.0.1:$port/api/live" 2>/dev/null |
    python3 -c 'import json, sys
print(" ".join(t["variant"] + "=" + t["cpus"] for t in json.load(sys.stdin)["trials"]))' 2>/dev/null)
wait $pid
expect_eq "the duet runs" "$?" 0
echo "seen (Cpus_allowed_list/cpuset.cpus): slot 0 A $a0 B $b0; slot 1 A" \
    "$a1 B $b1; devnet $own"
check "every node of a run on one set, in /proc and its cgroup alike" \
    sh -c "for v in '$a0' '$b0' '$a1' '$b1'; do
	[ -n \"\$v\" ] && [ \"\$(printf '%s\n' \"\$v\" | wc -l)\" = 1 ] &&
	[ \"\${v%/*}\" = \"\${v#*/}\" ] || exit 1; done"
a0=${a0%/*} b0=${b0%/*} a1=${a1%/*} b1=${b1%/*}
check "A ($a0) and B ($b0) on different CPUs in slot 0" [ "$a0" != "$b0" ]
expect_eq "slot 1 swaps them: A on B's set" "$a1" "$b0"
expect_eq "slot 1 swaps them: B on A's set" "$b1" "$a0"
n_of() {
	printf '%s\n' "$1" | awk -F, '{ n = 0; for (i = 1; i <= NF; i++) {
	    split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) }
	    print n }'
}
expect_eq "the sets are of one size" "$(n_of "$a0")" "$(n_of "$b0")"
check "devnet itself is not pinned ($own, the nodes $a0 and $b0)" \
    [ "$(n_of "$own")" -gt "$(n_of "$a0")" ]
fact() {
	q "select value from run_facts where run_id = $1 and node = -1 and
	    key = '$2'"
}
expect_eq "facts duet_cpus per run, as applied" \
    "$(fact 1 duet_cpus) $(fact 2 duet_cpus) $(fact 3 duet_cpus) $(fact 4 duet_cpus)" \
    "$a0 $b0 $a1 $b1"
expect_eq "the live page shows each trial's CPUs" "$live" \
    "A=$a0 B=$b0 A=$a1 B=$b1"
expect_eq "facts duet_slot" \
    "$(fact 1 duet_slot) $(fact 2 duet_slot) $(fact 3 duet_slot) $(fact 4 duet_slot)" \
    "0 0 1 1"
expect_eq "fact duet_pin" "$(fact 4 duet_pin)" "on"
expect_eq "one machine class for both sides" \
    "$(q "select count(distinct fingerprint) || ' ' || min(limits)
    from machines where run_id <= 4")" "1 cpus=0 memory=0 duet=$(n_of "$a0")"
expect_eq "no cgroup of devnet $pid left" "$(groups_of $pid)" ""

# --- 2. one CPU -------------------------------------------------------
taskset -c "${a0%%[-,]*}" "$DEVNET" run "$T/d.yaml" --db "$DB" \
    --run-dir "$RUNS" --set repeats=1 --set duration=1s >"$T/one.out" 2>&1
expect_eq "on one CPU the duet runs unpinned" "$?" 0
expect_match "and says so" "$(cat "$T/one.out")" \
    'side by side unpinned: 2 variants need a CPU each; devnet may run on 1'
expect_eq "fact duet_pin says why" "$(fact 5 duet_pin)" \
    "off: 2 variants need a CPU each; devnet may run on 1 (its affinity)"
expect_eq "nothing recorded as applied" \
    "$(q "select limits from machines where run_id = 5")" "none"
n=$(q "select count(*) from runs")
out=$(taskset -c "${a0%%[-,]*}" "$DEVNET" run "$T/d.yaml" --db "$DB" \
    --run-dir "$RUNS" --set pin=duet 2>&1)
expect_eq "pin: duet on one CPU is refused" "$?" 1
expect_match "with what to do" "$out" \
    'pin: duet cannot be carried out here: 2 variants need a CPU each.*write pin: none'
expect_eq "and stores no run" "$(q "select count(*) from runs")" "$n"
out=$("$DEVNET" validate "$T/d.yaml" --set pin=duet --set order=abba 2>&1)
expect_eq "validate refuses pin: duet in abba order" "$?" 1
expect_match "and says why" "$out" 'pin: duet cannot be carried out: order is not concurrent'

# --- 3. pin: none -----------------------------------------------------
"$DEVNET" run "$T/d.yaml" --db "$DB" --run-dir "$RUNS" --set repeats=1 \
    --set pin=none >"$T/none.out" 2>&1 &
pid=$!
r=$((n + 1))
none=$(read_slot $r)
wait $pid
expect_eq "pin: none runs" "$?" 0
check "pin: none leaves the nodes on every CPU ($none)" \
    [ "$(n_of "${none%%/*}")" -eq "$ncpu" ]
expect_eq "fact duet_pin" "$(fact $r duet_pin)" "off: pin: none"

# --- 4. Ctrl-C in a pinned slot ---------------------------------------
"$DEVNET" run "$T/d.yaml" --db "$DB" --run-dir "$RUNS" --set repeats=1 \
    --set duration=30s >"$T/int.out" 2>&1 &
pid=$!
wait_for 30 sh -c "[ -n \"\$(find /sys/fs/cgroup -maxdepth 6 -type d \
    -name devnet-$pid 2>/dev/null)\" ]"
check "devnet $pid pinned its nodes in cgroups" [ -n "$(groups_of $pid)" ]
sleep 1
kill -INT $pid
wait $pid
expect_eq "Ctrl-C stops the duet" "$?" 130
expect_eq "no cgroup of devnet $pid left after Ctrl-C" "$(groups_of $pid)" ""

# --- 5. cgroup v2, in a mount namespace of our own ----------------------
# This host's cpu, cpuset and memory controllers are bound to its v1
# hierarchies, so a v2 hierarchy mounted over /sys/fs/cgroup here (only
# in a private mount namespace) offers none of them: sys/cgroup.c's v2
# path runs for real (mode 2, groups under /sys/fs/cgroup/devnet-PID),
# the duet falls back saying so, a memory limit is refused where it is
# written, and nothing is left in that hierarchy.
cat >"$T/v2.sh" <<EOS
mount --make-rprivate / && mount -t cgroup2 none /sys/fs/cgroup || exit 3
echo "controllers: [\$(cat /sys/fs/cgroup/cgroup.controllers)]"
"$DEVNET" run "$T/d.yaml" --db "$T/v2.db" --run-dir "$RUNS" \
    --set repeats=1 --set duration=1s
echo "rc=\$?"
"$DEVNET" run "$T/d.yaml" --db "$T/v2.db" --run-dir "$RUNS" \
    --set repeats=1 --set duration=1s --set pin=none \
    --set resources.memory=64MiB
echo "rc=\$?"
echo "left: [\$(ls -d /sys/fs/cgroup/devnet-* 2>/dev/null)]"
EOS
v2=$(unshare -m bash "$T/v2.sh" 2>&1)
if [ $? -eq 3 ] || ! printf '%s' "$v2" | grep -q '^controllers:'; then
	skip "cgroup v2: cannot mount a v2 hierarchy here"
elif printf '%s' "$v2" | grep -q '^controllers:.*cpuset'; then
	skip "cgroup v2: the cpuset controller is free here (check by hand)"
else
	expect_match "v2 without cpuset: the duet runs unpinned and says why" \
	    "$v2" 'unpinned: no cgroup cpuset: cgroup v2 at /sys/fs/cgroup offers no cpuset controller'
	expect_eq "v2: fact duet_pin" "$(sqlite3 "$T/v2.db" "select value
	    from run_facts where run_id = 1 and key = 'duet_pin'")" \
	    "off: no cgroup cpuset: cgroup v2 at /sys/fs/cgroup offers no cpuset controller (cgroup.controllers)"
	expect_match "v2: a node's group made under the v2 root, its memory.max refused" \
	    "$v2" "cannot write '67108864' to /sys/fs/cgroup/devnet-[0-9]+/3-0/memory.max"
	expect_match "v2: nothing left in the v2 hierarchy" "$v2" 'left: \[\]'
fi

finish
