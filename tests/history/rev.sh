# rev.sh: variants named by a git revision (rev:, build:), on a scratch
# repository whose builds wrap the real devnet-node (scratch-repo.sh):
# a revision that does not build stops before any trial with the build's
# last lines; each built run stores its commit and describe; and a
# shortened readopts-idle over builds that switch from per-call to cached
# read options has its change point on the commit that switched.
#
# HISTORY_PATTERN (default PPPCCC) sets the builds; the full proof in
# docs/statistics.md is PPPCCCPPPCCC.
. "$DN_SOURCE_DIR/tests/e2e/lib.sh"
. "$DN_SOURCE_DIR/tests/history/scratch-repo.sh"

PATTERN=${HISTORY_PATTERN:-PPPCCC}
# Without an allocation counter (a sanitizer build) the change points
# cannot be seen: two builds show the rest (build, cache, commit stored).
counter_off=0
sanitized && counter_off=1
[ $counter_off = 1 ] && [ -z "${HISTORY_PATTERN:-}" ] && PATTERN=PC
REPO=$T/repo
export DEVNET_BUILD_CACHE=$T/cache
make_repo "$REPO" "$NODE" "X${PATTERN}" || { fail "make_repo"; exit 1; }
BROKEN=$(sed -n 1p "$REPO.commits")

# readopts-idle, with the scratch repository's build recipe.
S=$T/readopts.yaml
cp "$SCN/readopts-idle.yaml" "$S"
cat >>"$S" <<EOF2

build:
  repo: $REPO
  command: [sh, build.sh]
  binary: out/node
EOF2
SHORT="--set duration=5s --set warmup=1s --set sample_interval=500ms
    --set repeats=1 --set network.nodes=2"

# --- a revision that does not build ----------------------------------------
out=$("$DEVNET" run "$S" --db "$DB" --run-dir "$RUNS" --quiet $SHORT \
    --set variants.A.rev=b1 --set variants.B.rev=b2 2>&1)
rc=$?
expect_eq "a failed build exits 1" "$rc" 1
expect_match "it names the revision" "$out" "variant A: build of 'b1'"
expect_match "it shows the build's last lines" "$out" \
    "node.c:42: error: expected ';'"
expect_eq "no trial ran" "$(q "SELECT count(*) FROM runs" 2>/dev/null ||
    echo 0)" 0
# entries are COMMIT-RECIPEHASH, beside one COMMIT.lock per commit
! ls "$DEVNET_BUILD_CACHE/$BROKEN"-*/binary.path >/dev/null 2>&1 &&
    ok "nothing cached for the failed commit" ||
    fail "the failed commit left a cache entry"

out=$("$DEVNET" validate "$S" --set variants.A.rev=b1 2>&1)
expect_eq "validate accepts rev variants" "$?" 0
out=$("$DEVNET" validate "$S" --set variants.A.rev=-x 2>&1)
expect_match "an option-like rev is refused" "$out" \
    "must be a git revision"
out=$("$DEVNET" validate "$S" --set variants.A.binary=$NODE \
    --set variants.A.rev=b2 2>&1)
expect_match "binary and rev together are refused" "$out" \
    "sets both 'binary' and 'rev'"

# --- the builds, one run of each variant per build -------------------------
n=0
for i in $(seq 2 $((${#PATTERN} + 1))); do
	out=$("$DEVNET" run "$S" --db "$DB" --run-dir "$RUNS" --quiet $SHORT \
	    --set variants.A.rev=b$i --set variants.B.rev=b$i 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] || { fail "run of b$i: $rc: $out"; break; }
	n=$((n + 1))
done
expect_eq "every build ran" "$n" "${#PATTERN}"
expect_eq "every run stores its commit" \
    "$(q "SELECT count(*) FROM runs WHERE git_commit IS NULL")" 0
expect_eq "and its describe" \
    "$(q "SELECT git_describe FROM runs ORDER BY id LIMIT 1")" b2
expect_eq "the commit is the tag's" \
    "$(q "SELECT git_commit FROM runs ORDER BY id LIMIT 1")" \
    "$(sed -n 2p "$REPO.commits")"
expect_eq "each commit was built once" \
    "$(ls "$DEVNET_BUILD_CACHE" | grep -vc '\.lock$')" "$((${#PATTERN} + 1))"

# --- the change points land on the commits that switched -------------------
hist=$("$DEVNET" history --db "$DB" --repo "$REPO" --metric allocs_per_s \
    --format csv)
echo "$hist"
"$DEVNET" history --db "$DB" --repo "$REPO" --metric allocs_per_s
# One change point per switch, each within the switching pair of commits:
# the last build before the switch and the first after it (the split may
# fall between those commits, or between the two runs of either: a run's
# allocs/s follows how many reads it got, and a busy machine moves that).
want=""
prev=""
nswitch=0
for i in $(seq 1 ${#PATTERN}); do
	ch=$(printf '%s' "$PATTERN" | cut -c "$i")
	if [ -n "$prev" ] && [ "$ch" != "$prev" ]; then
		# build i of PATTERN is tag b(i+1), commit line i+1
		a=$(sed -n "${i}p" "$REPO.commits")
		b=$(sed -n "$((i + 1))p" "$REPO.commits")
		want="$want $a,$b"
		nswitch=$((nswitch + 1))
	fi
	prev=$ch
done
got=$(printf '%s\n' "$hist" | awk -F, 'NR > 1 { printf " %s..%s", $6, $7 }')
on_switch=0
for w in $want; do
	a=${w%,*}; b=${w#*,}
	for g in $got; do
		cb=${g%..*}; ca=${g#*..}
		{ [ "$cb" = "$a" ] || [ "$cb" = "$b" ]; } &&
		    { [ "$ca" = "$a" ] || [ "$ca" = "$b" ]; } &&
		    { on_switch=$((on_switch + 1)); break; }
	done
done
ngot=$(printf '%s\n' "$hist" | awk 'NR > 1' | grep -c .)
if [ $counter_off = 1 ]; then
	skip "change points of allocs_per_s: the allocation counter is off" \
	    "in this build (sanitizers replace malloc)"
else
	expect_eq "one change point per switch (got:$got)" "$ngot" "$nswitch"
	expect_eq "each on its switching commits (want:$want)" "$on_switch" \
	    "$nswitch"
fi
finish
