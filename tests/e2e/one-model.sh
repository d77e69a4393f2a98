#!/bin/bash
# one-model.sh: one model of a scenario (issue 34).
#  - docs/metrics.md is `devnet metrics --format markdown` (one table);
#  - every metric name compare's --help prints can be written in a value
#    and in a relative assertion; a relative assertion on a name the
#    verdict does not judge is refused at FILE:LINE:COL, naming the row;
#  - `devnet validate` and `devnet run --dry-run` agree (exit status and
#    words) for every shipped scenario x provider x order, and for 150
#    scenarios mutated from them (fixed seed; DN_MUTANTS=N for more); a refusal is made by a real
#    `devnet run` before anything starts, in validate's words, with no
#    database written;
#  - a verdict metric made of two counters (cpu_s_per_s) judged in a real
#    trial's value assertion.
. "$(dirname "$0")/lib.sh"

# --- one table ---------------------------------------------------------
"$DEVNET" metrics --format markdown >"$T/metrics.md"
check "docs/metrics.md is 'devnet metrics --format markdown' (regenerate it)" \
    diff -u "$DN_SOURCE_DIR/docs/metrics.md" "$T/metrics.md"
names=$("$DEVNET" compare --help | awk '/^are named by node.metrics/{on=1; next} on')
n=$(echo $names | wc -w)
[ "$n" -ge 31 ] && ok "compare --help lists $n verdict metrics" ||
	fail "compare --help lists $n metrics: $names"
for m in $names; do
	"$DEVNET" metrics | grep -q "^  $m " || fail "'$m' missing from devnet metrics"
done

bad=""
for m in $names; do
	cp "$SCN/smoke.yaml" "$T/m.yaml"
	cat >>"$T/m.yaml" <<YAML
  - name: value of $m
    value: {each_node: $m >= 0}
  - name: relative $m
    relative: {metric: $m, B_vs_A: "<= 50%"}
YAML
	case $m in tx_*|achieved_tps)
		sed -i "s/each_node: $m/load: $m/" "$T/m.yaml" ;;
	esac
	"$DEVNET" validate "$T/m.yaml" >/dev/null 2>"$T/m.err" || bad="$bad $m($(head -c 200 "$T/m.err"))"
done
[ -z "$bad" ] && ok "every name of compare --help is a value and a relative assertion" ||
	fail "refused:$bad"

cp "$SCN/smoke.yaml" "$T/rel.yaml"
cat >>"$T/rel.yaml" <<'YAML'
  - name: memory holds
    relative: {metric: rss_mean, B_vs_A: "<= 5%"}
YAML
"$DEVNET" validate "$T/rel.yaml" >/dev/null 2>"$T/rel.err"
expect_eq "relative on rss_mean: refused" "$?" 1
expect_match "and the message names the verdict's row at FILE:LINE:COL" "$(cat "$T/rel.err")" \
    "rel.yaml:[0-9]+:[0-9]+: relative: 'rss_mean' is not a metric the verdict judges \(it is the verdict's 'rss_avg'\)"
sed -i 's/rss_mean/rss_avgg/' "$T/rel.yaml"
expect_match "a typo gets did-you-mean" "$("$DEVNET" validate "$T/rel.yaml" 2>&1)" \
    "did you mean 'rss_avg'"
expect_match "an unknown name points at devnet metrics" \
    "$(sed 's/rss_avgg/no_such/' "$T/rel.yaml" >"$T/rel2.yaml"; sed -i 's/relative: {metric: no_such, B_vs_A: "<= 5%"}/value: {each_node: no_such < 5}/' "$T/rel2.yaml"; "$DEVNET" validate "$T/rel2.yaml" 2>&1)" \
    "unknown metric 'no_such'.*'devnet metrics' lists them \(docs/metrics.md\)"

# --- one check ---------------------------------------------------------
# same exit status; when refused, the same words on stderr
agree() {
	local f=$1 p=$2 o=$3 rv rr
	"$DEVNET" validate "$f" --provider "$p" --order "$o" >/dev/null 2>"$T/v.err"
	rv=$?
	"$DEVNET" run "$f" --provider "$p" --order "$o" --dry-run \
	    --db "$T/dry.db" --run-dir "$RUNS" 2>"$T/r.err" >/dev/null
	rr=$?
	if [ "$rv" != "$rr" ]; then
		echo "$f $p $o: validate $rv, run --dry-run $rr: $(cat "$T/v.err" "$T/r.err")"
		return 1
	fi
	if [ "$rv" != 0 ] && ! cmp -s "$T/v.err" "$T/r.err"; then
		echo "$f $p $o: words differ: $(cat "$T/v.err") /// $(cat "$T/r.err")"
		return 1
	fi
	[ "$rv" = 0 ] && echo ok >>"$T/accepted" || echo no >>"$T/refused"
	return 0
}
# (in a sanitizer build, where each devnet call costs ~3x, one order per
# scenario and provider, the two taking turns: the release suite has all)
diffs=""
: >"$T/accepted"; : >"$T/refused"
san=0
sanitized && san=1
orders="abba concurrent"
i=0
for f in "$SCN"/*.yaml; do
	for p in local docker swarm; do
		i=$((i + 1))
		[ "$san" = 1 ] && orders=$(echo abba concurrent | cut -d' ' -f$((i % 2 + 1)))
		for o in $orders; do
			agree "$f" "$p" "$o" >>"$T/diffs" || diffs=1
		done
	done
done
[ -z "$diffs" ] && ok "validate = run --dry-run for $(ls "$SCN"/*.yaml | wc -l) shipped scenarios x 3 providers x $(echo $orders | wc -w) order(s) ($(wc -l <"$T/accepted") accepted, $(wc -l <"$T/refused") refused)" ||
	fail "validate and run disagree: $(head -c 2000 "$T/diffs")"
check "a dry run writes no database" test ! -e "$T/dry.db"

# $NMUT mutants of the shipped scenarios (fixed seed): a line dropped or
# doubled, a value swapped for another scenario's, a key misspelt.
mkdir -p "$T/mut"
# (24 in a sanitizer build, where each devnet call costs ~3x: the
# loader's hostile input is fuzz-scenario's there)
if [ "$san" = 1 ]; then
	NMUT=${DN_MUTANTS:-24}
else
	NMUT=${DN_MUTANTS:-150}
fi
python3 - "$SCN" "$T/mut" "$NMUT" <<'PY'
import random, glob, os, sys
random.seed(34)
src = sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml")))
lines = {f: open(f).read().split("\n") for f in src}
values = [l.split(":", 1)[1] for f in src for l in lines[f]
          if ":" in l and l.split(":", 1)[1].strip()]
extra = ["network:\n  links: {default: {latency: 2ms}}",
         "provider: swarm", "order: concurrent",
         "network:\n  listen: tcp\n  tcp_base_port: 31000",
         "events:\n  - {at: 2s, action: partition, nodes: [0]}"]
for i in range(int(sys.argv[3])):
    f = random.choice(src)
    ls = list(lines[f])
    for _ in range(random.randint(1, 3)):
        k = random.randrange(len(ls))
        r = random.random()
        if r < 0.25:
            del ls[k]
        elif r < 0.45:
            ls.insert(k, ls[k])
        elif r < 0.75 and ":" in ls[k]:
            ls[k] = ls[k].split(":", 1)[0] + ":" + random.choice(values)
        elif r < 0.85 and ls[k].strip():
            j = random.randrange(len(ls[k]))
            ls[k] = ls[k][:j] + ls[k][j + 1:]
        else:
            ls.append(random.choice(extra))
    open(os.path.join(sys.argv[2], "m%04d.yaml" % i), "w").write("\n".join(ls))
PY
: >"$T/accepted"; : >"$T/refused"; : >"$T/diffs"; diffs=""
i=0
for f in "$T"/mut/*.yaml; do
	i=$((i + 1))
	p=$(echo local docker swarm | cut -d' ' -f$((i % 3 + 1)))
	o=$(echo abba concurrent | cut -d' ' -f$((i % 2 + 1)))
	agree "$f" "$p" "$o" >>"$T/diffs" || diffs=1
done
[ -z "$diffs" ] && ok "validate = run --dry-run on $NMUT mutants ($(wc -l <"$T/accepted") accepted, $(wc -l <"$T/refused") refused)" ||
	fail "validate and run disagree on mutants: $(head -c 2000 "$T/diffs")"
[ "$(wc -l <"$T/refused")" -ge $((NMUT / 10)) ] && [ "$(wc -l <"$T/accepted")" -ge $((NMUT / 10)) ] &&
	ok "the mutants exercise both answers" || fail "mutants: $(wc -l <"$T/accepted") accepted, $(wc -l <"$T/refused") refused"

# the real run refuses before anything, in validate's words
"$DEVNET" validate "$SCN/etcd-3-net.yaml" --provider swarm >/dev/null 2>"$T/v.err"
expect_eq "validate refuses conditions under swarm" "$?" 1
"$DEVNET" run "$SCN/etcd-3-net.yaml" --provider swarm --db "$T/real.db" \
    --run-dir "$RUNS" >/dev/null 2>"$T/r.err"
expect_eq "run refuses them too" "$?" 1
check "in the same words" cmp "$T/v.err" "$T/r.err"
check "before anything: no database" test ! -e "$T/real.db"

# --- a verdict metric of two counters in a real trial ------------------
cp "$SCN/smoke.yaml" "$T/cpu.yaml"
cat >>"$T/cpu.yaml" <<'YAML'
  - name: cpu is bounded
    value: {each_node: cpu_s_per_s < 2}
  - name: cpu is used
    value: {all_nodes: cpu_s_per_s > 0.0001}
  - name: rss as the verdict has it
    value: {each_node: rss_avg < 1GiB}
YAML
"$DEVNET" run "$T/cpu.yaml" --db "$DB" --run-dir "$RUNS" --set duration=3s \
    --set warmup=1s --set sample_interval=250ms --repeats 1 \
    >"$T/run.out" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "a run with verdict-metric value assertions passes" ||
	fail "run exit $rc: $(tail -5 "$T/run.out")"
expect_eq "all five (smoke's two, these three) pass in both trials" \
    "$(q "select count(*) from assertions where status = 'pass'")" 10
expect_match "cpu_s_per_s is user + system CPU per second" \
    "$(q "select message from assertions where name = 'cpu is used' limit 1")" \
    "cpu_s_per_s was 0\.[0-9]+"
finish
