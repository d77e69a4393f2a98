#!/bin/bash
# Every shipped scenario passes the real `devnet validate`; a bad one and a
# bad --set fail with exit 1 and a FILE:LINE:COL / --set message; usage
# errors exit 2; --help exits 0.
set -u
fail=0
src=${DN_SOURCE_DIR:?}
tmp=$(mktemp -d /tmp/dnval.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

check() {	# check WANT_RC WANT_TEXT CMD...
	local want=$1 text=$2 rc
	shift 2
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ] || ! grep -qF -- "$text" "$tmp/out"; then
		echo "FAIL: $* -> rc $rc (want $want), want text '$text':"
		cat "$tmp/out"
		fail=1
	fi
}

n=0
for f in "$src"/scenarios/*.yaml; do
	# a scenario naming build/bin/ programs runs from the source tree
	if grep -q "build/bin/" "$f"; then
		sed "s|build/bin/|${DN_BUILD_DIR:?}/bin/|" "$f" >"$tmp/b.yaml"
		f=$tmp/b.yaml
	fi
	check 0 "trials (" devnet validate "$f"
	n=$((n + 1))
done
[ "$n" -ge 6 ] || { echo "FAIL: only $n shipped scenarios"; fail=1; }

check 0 "--read-options per-call" devnet validate "$src/scenarios/smoke.yaml"
check 0 "1      B                0       1" \
    devnet validate "$src/scenarios/smoke.yaml"
check 0 "at 100 TPS" devnet validate "$src/scenarios/smoke.yaml" \
    --set workload.tps=100
check 1 "--set workload.tps=abc: workload.tps must be a number" \
    devnet validate "$src/scenarios/smoke.yaml" --set workload.tps=abc
printf 'name: x\nduration: 10s\nnetwork:\n  nodes: 3\nworkload:\n  kind: transfer\n  tsp: 5\n' >"$tmp/bad.yaml"
check 1 "$tmp/bad.yaml:7:3: unknown key 'tsp' in workload (did you mean 'tps'?)" \
    devnet validate "$tmp/bad.yaml"
check 1 "cannot open" devnet validate "$tmp/none.yaml"

# http and command workloads: placeholders and keys checked at FILE:LINE:COL
printf 'name: x\nduration: 10s\nnetwork:\n  nodes: 3\nworkload:\n  kind: http\n  tps: 5\n  url: "http://h:{port}/{nope}"\n' >"$tmp/h1.yaml"
check 1 "$tmp/h1.yaml:8:8: workload.url: unknown placeholder '{nope}'" \
    devnet validate "$tmp/h1.yaml"
printf 'name: x\nduration: 10s\nnetwork:\n  nodes: 3\nworkload:\n  kind: http\n  tps: 5\n  url: "http://h:{port+2}/"\n  body: "{\\"k\\":1}"\n' >"$tmp/h2.yaml"
check 1 "literal brace is written {{ or }}" devnet validate "$tmp/h2.yaml"
printf 'name: x\nduration: 10s\nnetwork:\n  nodes: 3\nworkload:\n  kind: transfer\n  tps: 5\n  url: "http://h/"\n' >"$tmp/h3.yaml"
check 1 "$tmp/h3.yaml:8:3: workload.url only applies to kind http" \
    devnet validate "$tmp/h3.yaml"
printf 'name: x\nduration: 10s\nnetwork:\n  nodes: 3\nworkload:\n  kind: command\n  command: [gen, "--n={nodes}", "{seq}"]\n' >"$tmp/c1.yaml"
check 1 "workload.command: unknown placeholder '{seq}'" \
    devnet validate "$tmp/c1.yaml"
printf 'name: x\nduration: 10s\nnetwork:\n  nodes: 3\nworkload:\n  kind: http\n  tps: 5\n  url: "http://h:{port}/{{x}}"\n  body: "{{\\"k\\":\\"{key_b64}\\"}}"\n' >"$tmp/h4.yaml"
check 0 "workload http at 5 TPS" devnet validate "$tmp/h4.yaml"
head -c 10485760 /dev/zero | tr '\0' '#' >"$tmp/huge.yaml"
check 1 "too large for a scenario" devnet validate "$tmp/huge.yaml"
head -c 4096 /dev/urandom >"$tmp/garbage.yaml"
check 1 "$tmp/garbage.yaml:" devnet validate "$tmp/garbage.yaml"
printf 'a: &a ["lol","lol"]\nb: [*a,*a]\n' >"$tmp/laughs.yaml"
check 1 "$tmp/laughs.yaml:1:4: anchors (&a) are not allowed" \
    devnet validate "$tmp/laughs.yaml"
printf 'name: x\nnetwork:\n\tnodes: 3\n' >"$tmp/tabs.yaml"
check 1 "$tmp/tabs.yaml:3:1: not valid YAML" devnet validate "$tmp/tabs.yaml"
: >"$tmp/empty.yaml"
check 1 "$tmp/empty.yaml:1:1: empty scenario" devnet validate "$tmp/empty.yaml"
check 1 "variants.B.binary '/no/such/node' not found" devnet validate \
    "$src/scenarios/smoke.yaml" --set variants.B.binary=/no/such/node
# assertions: printed as understood, refused at FILE:LINE:COL
printf 'name: x\nduration: 60s\nwarmup: 10s\nnetwork:\n  nodes: 3\nevents:\n  - {at: 20s, action: stop, node: 2, name: pause}\nassert:\n  - name: lag\n    always: {each_node: lag_ms < 2s, except: events}\n' >"$tmp/a1.yaml"
check 0 "'lag': always, each node: lag_ms < 2000 ms, from t=0 to end (t=1m), except while an event is active" \
    devnet validate "$tmp/a1.yaml"
check 0 "at 20s: stop node 2 ('pause')" devnet validate "$tmp/a1.yaml"
check 1 "--set assert.0.always.each_node=lag_ms < 2MiB: each_node: 'lag_ms' is in ms; 'MiB' is not" \
    devnet validate "$tmp/a1.yaml" --set 'assert.0.always.each_node=lag_ms < 2MiB'
printf 'name: x\nduration: 60s\nnetwork:\n  nodes: 3\nassert:\n  - name: h\n    eventually: {all_nodes: heigth > 5, within: 5s}\n' >"$tmp/a2.yaml"
check 1 "$tmp/a2.yaml:7:29: unknown metric 'heigth' (did you mean 'height'?)" \
    devnet validate "$tmp/a2.yaml"
# a misspelt placeholder gets a did-you-mean, in validate and run alike
# (issue 37)
printf 'name: p\nduration: 5s\nnetwork: {nodes: 2}\nworkload: {kind: none}\nnode:\n  command: [sh, -c, "echo {peer}"]\n  peer: "n{index}"\n' >"$tmp/p.yaml"
check 1 "$tmp/p.yaml:6:21: node: unknown placeholder '{peer}'; did you mean '{peers}'? (known: " \
    devnet validate "$tmp/p.yaml"
check 1 "$tmp/p.yaml:6:21: node: unknown placeholder '{peer}'; did you mean '{peers}'? (known: " \
    devnet run "$tmp/p.yaml" --db "$tmp/p.db"
# shipped scenarios by name from any directory (issue 37): validate and
# run look for NAME(.yaml) among them when no such file is here, and say
# where they looked; a file here wins
cd "$tmp" || exit 1
check 0 "scenario 'smoke' ($src/scenarios/smoke.yaml)" devnet validate smoke
check 0 "scenario 'smoke': the shipped $src/scenarios/smoke.yaml" \
    devnet validate smoke
check 0 "scenario 'etcd-3' ($src/scenarios/etcd-3.yaml)" \
    devnet validate etcd-3.yaml
check 1 "devnet: smok: no such scenario file; looked in ./smok, " \
    devnet validate smok
check 1 ", $src/scenarios/smok.yaml (shipped: cf-churn, " devnet validate smok
check 1 "smoke)" devnet validate smok
check 1 "devnet: smok: no such scenario file; looked in ./smok, " \
    devnet run smok --db "$tmp/t.db"
[ -e "$tmp/t.db" ] && { echo "FAIL: run smok made a database"; fail=1; }
printf 'name: here\nduration: 60s\nnetwork:\n  nodes: 3\n' >smoke.yaml
check 0 "scenario 'here' (smoke.yaml)" devnet validate smoke.yaml
rm smoke.yaml
cd - >/dev/null || exit 1
check 2 "which scenario" devnet validate
check 2 "unknown option" devnet validate --bogus "$tmp/bad.yaml"
check 0 "usage: devnet validate" devnet validate --help
exit $fail
