#!/usr/bin/env bash
# layers.sh: orchestrator/ keeps its house rules (tools/check-layers.sh:
# one-way includes by folder, internal headers kept home, no .c over 800
# lines, no function over 120 lines without a reason, no export used only
# in its own file, no two files calling each other, no provider given the
# whole trial).  First the checker is
# shown a small tree with one breach of each source rule, and must name
# every one; then the real tree must have none.
set -u
src=${DN_SOURCE_DIR:?}
build=${DN_BUILD_DIR:?}
fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

o=$tmp/orchestrator
mkdir -p "$o/trial" "$o/run" "$o/sys"
printf '#include "run/runner.h"\n' > "$o/trial/up.c"
printf '#include "run/runner-internal.h"\n' > "$o/sys/internal.c"
printf '#include "sys/other.c"\n' > "$o/run/dotc.c"
for i in $(seq 801); do echo "int x$i;"; done > "$o/run/long.c"
{ echo "static int"; echo "big(void)"; echo "{"
  for i in $(seq 121); do echo "	x$i = 0;"; done; echo "}"; } > "$o/sys/big.c"
mkdir -p "$tmp/node"
printf 'void f(char *d) { strcat(d, "x"); }\n' > "$tmp/node/banned.c"
printf 'int f(int p) { return p == SCN_PROV_SWARM; }\n' > "$o/run/prov.c"
printf 'int g(struct trial *t) { return t->foreign ? 1 : 2; }\n' > "$o/trial/kind.c"
mkdir -p "$o/provider"
printf '#include "trial/trial.h"\n' > "$o/provider/whole.h"
printf 'int h(struct trial_node *n, struct trial *t);\n' > "$o/provider/whole.c"
out=$(DN_LAYERS_ROOT=$tmp bash "$src/tools/check-layers.sh" 2>&1); rc=$?
for want in "trial/ must not include run/runner.h" \
    "another folder's internal header run/runner-internal.h" \
    "includes a .c file (sys/other.c)" "801 lines (at most 800)" \
    "big is 121 lines" "node/banned.c:1: strcat is banned" \
    "run/prov.c:1: a provider named outside provider/" \
    "trial/kind.c:1: a node kind tested outside node-kind/" \
    "provider/whole.h:1: a provider given the whole trial" \
    "provider/whole.c:1: a provider given the whole trial"; do
	case $out in
	*"$want"*) echo "ok: the checker names: $want" ;;
	*) echo "FAIL: the checker missed: $want"; fail=1 ;;
	esac
done
[ $rc -eq 1 ] || { echo "FAIL: checker exit $rc on a bad tree, want 1"; fail=1; }

if out=$(bash "$src/tools/check-layers.sh" --exports "$build" 2>&1); then
	echo "ok: orchestrator/ keeps its house rules"
else
	echo "$out"; echo "FAIL: orchestrator/ breaks its house rules (above)"
	fail=1
fi
exit $fail
